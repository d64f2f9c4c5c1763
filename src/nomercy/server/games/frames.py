"""A kept round's frames: every step's table with every hand, and its events.

The pure part of :mod:`nomercy.server.games.replays` (the standard library and the
engine only, no pydantic), so that the page's solo table (:mod:`nomercy.solo.frames`, in
Pyodide) builds a replay with the very code the server answers it with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomercy.engine import GameState, new_game, started_event
from nomercy.errors import NoMercyError
from nomercy.record import GameRecord
from nomercy.server.rooms.seen import event_dicts
from nomercy.views import player_view

__all__ = ["RecordRefused", "Replayed", "replay_frames", "result_of", "table"]


class RecordRefused(Exception):
    """A record that cannot be shown; ``step`` is where it failed (read/parse/load/replay)."""

    def __init__(
        self, step: str, detail: str, *, too_large: bool = False, at: tuple[int, int] | None = None
    ) -> None:
        super().__init__(f"the record cannot be replayed ({step}): {detail}")
        self.step = step
        self.detail = detail
        self.too_large = too_large
        #: At step ``replay``: the refused action's (index in the record, seat), so that a
        #: client can name the move in its reader's language.
        self.at = at

    def __reduce__(self) -> tuple[Any, ...]:
        """Whole across processes (a replay worker raises it; the route answers it)."""
        return (_refused, (self.step, self.detail, self.too_large, self.at))


def _refused(step: str, detail: str, too_large: bool, at: tuple[int, int] | None) -> RecordRefused:
    return RecordRefused(step, detail, too_large=too_large, at=at)


@dataclass(frozen=True)
class Replayed:
    """A round replayed: its frames and how it ended."""

    frames: list[dict[str, Any]]
    state: GameState


def table(state: GameState) -> dict[str, Any]:
    """The table as a spectator sees it, with every hand (``hands``: card codes per seat)."""
    view = player_view(state, None).to_dict()
    view["hands"] = [[c.code for c in hand] for hand in state.hands]
    return view


def replay_frames(record: GameRecord) -> Replayed:
    """Frame 0 is the deal; frame n the table after action n - 1. Raises
    :class:`RecordRefused` (step ``load`` or ``replay``) naming the action that fails."""
    try:
        state = new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)
    except (NoMercyError, ValueError) as exc:
        raise RecordRefused("load", f"the round cannot be dealt: {exc}") from None
    hinted = {(seat, n) for seat, n in record.hints}
    frames: list[dict[str, Any]] = [
        {
            "action": None,
            "seat": None,
            "hint": False,
            "events": event_dicts([started_event(state)]),
            "table": table(state),
        }
    ]
    for i, (seat, action) in enumerate(record.actions):
        try:
            events = state.apply(action, seat)
        except NoMercyError as exc:
            raise RecordRefused(
                "replay", f"action {i} ({action} by P{seat}) is refused: {exc}", at=(i, seat)
            ) from None
        frames.append(
            {
                "action": str(action),
                "seat": seat,
                "hint": (seat, i) in hinted,
                "events": event_dicts(events),
                "table": table(state),
            }
        )
    return Replayed(frames, state)


def result_of(state: GameState) -> dict[str, Any] | None:
    """How the replayed round ended (None when the record stops before its end)."""
    outcome = state.outcome
    if outcome is None:
        return None
    return {
        "winner": outcome.winner,
        "reason": outcome.reason,
        "points": list(outcome.points),
        "knocked_out": [k.seat for k in outcome.knocked_out],
    }
