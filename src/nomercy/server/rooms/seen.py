"""What one connection is told about the game: its seat's view, decisions and events.

Everything a ``state`` message says about the game is built here from one seat's
:func:`~nomercy.player_view` and :func:`~nomercy.redact` (spectators: ``None``), so the
hidden-information guarantee of ``docs/protocol.md`` has one place to look. Beside the
view go the seat's decisions (:func:`nomercy.decisions.decisions`: every legal choice
with its label and cost, every blocked card with its reason and rule ID, the prompt) and
each event's sentence (:func:`nomercy.narration.event_lines`), so the browser client
restates no rule and parses no action string.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from nomercy.decisions import decisions
from nomercy.engine import GameState
from nomercy.events import Event, redact
from nomercy.narration import event_lines
from nomercy.views import player_view

#: Why a rated round offers no move: it waits for its people, or it was aborted.
Held = Literal["waiting", "aborted"]
#: The prompt a held round's seats are given instead of their own.
HELD_PROMPTS: dict[Held, str] = {"waiting": "prompt.rated_waiting", "aborted": "prompt.rated_aborted"}


def event_dicts(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Events as sent: ``Event.to_dict()`` with an English ``text`` and the ``line`` to
    put in the reader's words (null for an event told with another)."""
    out = []
    for event, line in zip(events, event_lines(events), strict=True):
        data = event.to_dict()
        data["text"] = event.describe()
        data["line"] = line.to_dict() if line is not None else None
        out.append(data)
    return out


def seen_by(
    state: GameState | None,
    seat: int | None,
    events: Sequence[Event],
    held: Held | None = None,
) -> dict[str, Any]:
    """The ``view``, ``decisions`` and ``events`` fields of a ``state`` message for ``seat``.

    While a rated round is ``held`` (``waiting`` for its people, or ``aborted`` because one
    never came), nobody decides anything: the seat's decisions say so (no choices, a prompt
    that says why), so that no table offers a move the server would refuse.
    """
    shown = event_dicts(redact(list(events), seat))
    if state is None:
        return {"view": None, "decisions": None, "events": shown}
    view = player_view(state, seat)
    told = decisions(view).to_dict()
    if held is not None:
        why = {"key": HELD_PROMPTS[held], "params": {}}
        told = {**told, "deciding": False, "prompt": why, "choices": []}
    return {"view": view.to_dict(), "decisions": told, "events": shown}
