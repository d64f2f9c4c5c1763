"""Whether the installed engine can continue a stored room exactly.

A room is rebuilt by replaying its log (``(rules, seed, actions)``) on the engine that is
installed now. That continues the game exactly only if this engine deals, shuffles and
applies every action as the engine that wrote the room did. Each room records the state
format and engine version of its last writer (:func:`nomercy.server.storage.writer`); a
room continues when both are ones this engine replays identically, and its replay then
runs without a refusal. Otherwise it is retired (:meth:`RoomManager.rebuild` raises
:class:`Retired`): its record stays as it was, and its players are told why.

A release that changes a deal, a rule or the state format removes the engine versions it no
longer replays identically from :data:`REPLAYS_EXACTLY` (and the state format changes by
itself).
"""

from __future__ import annotations

from nomercy import __version__
from nomercy.state import STATE_FORMAT_VERSION

#: Engine versions whose logs this engine replays action for action, deal for deal.
REPLAYS_EXACTLY: frozenset[str] = frozenset({"0.1.0", __version__})
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
