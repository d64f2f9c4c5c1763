"""A kept round as the replay view shows it, built in the page: the answer of the
server's ``POST /api/records/replay`` (``docs/protocol.md``, "Replaying a file").

Frame 0 is the deal, frame n the table after the record's action n - 1: the events
unredacted (the round is over) and a spectator's view with every hand (``hands``).
"""

from __future__ import annotations

from typing import Any

from nomercy.engine import GameState, new_game, started_event
from nomercy.errors import NoMercyError
from nomercy.record import GameRecord
from nomercy.server.rooms.seen import event_dicts
from nomercy.views import player_view

__all__ = ["replay_body", "replay_frames", "result_of", "table"]


class RecordRefused(Exception):
    """A record that cannot be shown; ``step`` is where it failed (``load``, ``replay``)."""

    def __init__(self, step: str, detail: str, at: tuple[int, int] | None = None) -> None:
        super().__init__(f"the record cannot be replayed ({step}): {detail}")
        self.step = step
        self.detail = detail
        self.at = at


def table(state: GameState) -> dict[str, Any]:
    """The table as a spectator sees it, with every hand (``hands``: card codes per seat)."""
    view = player_view(state, None).to_dict()
    view["hands"] = [[c.code for c in hand] for hand in state.hands]
    return view


def replay_frames(record: GameRecord) -> tuple[list[dict[str, Any]], GameState]:
    """Every frame of the round and its last state; :class:`RecordRefused` names the
    action the rules refuse."""
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
                "replay", f"action {i} ({action} by P{seat}) is refused: {exc}", (i, seat)
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
    return frames, state


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


def replay_body(record: GameRecord) -> dict[str, Any]:
    """The replay of a record file, as ``POST /api/records/replay`` answers it."""
    frames, state = replay_frames(record)
    return {
        "id": None,
        "room": None,
        "round": None,
        "finished_at": None,
        "access": None,
        "preset": None,
        "mode": "round",
        "rules": record.rules.to_dict(),
        "players": [{"seat": s, "name": f"P{s}", "bot": None} for s in range(record.players)],
        "result": result_of(state),
        "hints": [{"seat": seat, "step": step} for seat, step in record.hints],
        "record": record.to_dict(),
        "frames": frames,
    }
