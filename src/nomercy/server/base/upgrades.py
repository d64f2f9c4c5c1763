"""Whether the installed engine can continue a stored room exactly.

A room is rebuilt by replaying its log (``(rules, seed, actions)``) on the engine that is
installed now. That continues the game exactly only if this engine deals, shuffles and
applies every action as the engine that wrote the room did. Each room records the state
format and engine version of its last writer (:func:`nomercy.server.rooms.storage.writer`); a
room continues when both are ones this engine replays identically, and its replay then
runs without a refusal. Otherwise it is retired (:meth:`RoomManager.rebuild` raises
:class:`Retired`): its record stays as it was, and its players are told why.

A release that changes a deal, a rule or the state format removes the engine versions it no
longer replays identically from :data:`REPLAYS_EXACTLY` (and the state format changes by
itself).
"""

from __future__ import annotations

from collections.abc import Mapping

from nomercy import __version__
from nomercy.state import STATE_FORMAT_VERSION

#: Engine versions whose logs this engine replays action for action, deal for deal.
REPLAYS_EXACTLY: frozenset[str] = frozenset({"0.1.0", "0.2.0", __version__})
#: A room with no recorded versions was written by nomercy 0.1.0 (the release before they
#: were recorded), which wrote state format 4.
UNRECORDED = (4, "0.1.0")


class Retired(Exception):
    """This engine cannot continue the room exactly; the message says why, in game terms."""


def written_by(state_format: int | None, engine_version: str | None) -> tuple[int, str]:
    if state_format is None and engine_version is None:
        return UNRECORDED
    return (state_format or 0, engine_version or "unknown")


def check(state_format: int | None, engine_version: str | None) -> None:
    """Raise :class:`Retired` if a room written so cannot be continued here exactly."""
    fmt, version = written_by(state_format, engine_version)
    if fmt != STATE_FORMAT_VERSION or version not in REPLAYS_EXACTLY:
        raise Retired(
            f"this game was played on nomercy {version} (state format {fmt}); the server now runs "
            f"nomercy {__version__} (state format {STATE_FORMAT_VERSION}), which cannot continue it "
            "exactly, so it has ended. Its record is kept."
        )


def unreplayable(error: Exception) -> Retired:
    """The log did not replay on this engine (a move it refuses): the room cannot go on."""
    return Retired(
        f"this game's moves do not replay on nomercy {__version__} ({error}), so it has ended. "
        "Its record is kept."
    )


# -- going back: what the release before can continue --------------------------------------

#: The release a downgrade to :data:`OLDER_SCHEMA` goes back to.
OLDER_RELEASE = "0.1.0"
#: Its schema: the revision ``nomercy db downgrade`` reaches for it.
OLDER_SCHEMA = "0001"
#: The bots it knows (``nomercy.bots.available()`` in 0.1.0): no levels, no characters.
OLDER_BOTS: frozenset[str] = frozenset({"random", "heuristic", "expert"})
#: The decks its rooms play (its ``build_rules`` refuses any other).
OLDER_DECKS: frozenset[str] = frozenset({"no_mercy", "classic"})
#: The room states it opens; ``expired`` is the one it never opens again.
OLDER_STATUSES: frozenset[str] = frozenset({"lobby", "playing", "finished"})
#: What a downgrade stores for a room the release before cannot continue: it never opens
#: an expired room again, so its players are told that the room is gone instead of an error.
ENDED_FOR_OLDER = "expired"


def older_cannot_continue(
    status: str, settings: Mapping[str, object], state_format: int | None, engine_version: str | None
) -> str | None:
    """Why nomercy 0.1.0 could not open or continue this stored room (None: it can).

    0.1.0 rebuilds a room by replaying its log with the bot named in its settings and the
    rules it stored; a bot it does not know, a deck it refuses, a status it does not know
    or a log no engine replays exactly makes it fail on every request for the room.
    """
    if status == ENDED_FOR_OLDER:
        return None
    if status not in OLDER_STATUSES:
        return f"it was {status} by this release"
    bot = str(settings.get("bot", "random"))
    if bot not in OLDER_BOTS:
        return f"its bots play at {bot!r}, which nomercy {OLDER_RELEASE} does not know"
    rules = settings.get("rules")
    deck = rules.get("deck", "no_mercy") if isinstance(rules, dict) else "no_mercy"
    if deck not in OLDER_DECKS:
        return f"it plays the {deck!r} deck, which nomercy {OLDER_RELEASE} does not know"
    fmt, version = written_by(state_format, engine_version)
    if fmt != UNRECORDED[0] or version not in REPLAYS_EXACTLY:
        return f"it was written by nomercy {version} (state format {fmt}), which it does not replay exactly"
    return None
