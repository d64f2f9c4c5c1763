"""The expert's review of a round (nomercy.bots.review) and the coach's suggestion.

Python playouts throughout (``native=False``) with few worlds: the figures are rough, the
behaviour is what is checked. Calibration and speed are benchmarks
(``benchmarks/review_calibration.py``, ``benchmarks/review_speed.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from nomercy import GameState
from nomercy.actions import Action
from nomercy.bots import make
from nomercy.bots.review import Reviewer, ReviewError, review, suggest
from nomercy.bots.runner import play_round
from nomercy.record import GameRecord


def played(players: int = 2, seed: int = 5) -> GameRecord:
    """A finished round of heuristic bots, as its record."""
    record, state = GameRecord.start(players, seed=seed)
    bots = [make("heuristic", seed=seat) for seat in range(players)]

    def apply(action: Action, seat: int) -> Any:
        record.add(seat, action)
        return state.apply(action, seat)

    play_round(state, bots, apply=apply)
    return record


def test_every_turn_decision_is_reviewed_with_the_action_chosen() -> None:
    record = played()
    result = review(record, seed=1, worlds=3, native=False)
    turns = [(seat, action) for seat, action in record.actions if not action.out_of_turn]
    assert [(v.seat, v.chosen) for v in result.verdicts] == turns
    assert result.winner is not None and result.actions == len(record.actions)
    estimated = [v for v in result.verdicts if not v.forced]
    assert estimated, "a whole round has decisions with a choice"
    for v in estimated:
        assert v.chosen in [e.action for e in v.estimates] and v.best in [e.action for e in v.estimates]
        assert v.best_win == max(e.win for e in v.estimates)
        assert v.win is not None and v.best_win is not None
        assert v.loss == pytest.approx(v.best_win - v.win)
        assert all(0.0 <= e.win <= 1.0 and e.stderr >= 0.0 for e in v.estimates)


def test_the_review_is_deterministic_and_a_seat_filter_changes_nothing_else() -> None:
    record = played(3, seed=8)
    whole = review(record, seed=4, worlds=3, native=False).to_dict()
    assert review(record, seed=4, worlds=3, native=False).to_dict() == whole
    one = review(record, seed=4, worlds=3, native=False, seats=[1]).to_dict()
    assert one["decisions"] == [d for d in whole["decisions"] if d["seat"] == 1]
    other = review(record, seed=5, worlds=3, native=False).to_dict()
    assert other["decisions"] != whole["decisions"]


def test_the_json_form_is_versioned_and_complete() -> None:
    data = review(played(), seed=1, worlds=2, native=False).to_dict()
    assert data["format"] == "nomercy.review" and data["format_version"] == 1
    assert data["settings"] == {"seed": 1, "worlds": 2, "depth": 400, "native": False}
    decision = next(d for d in data["decisions"] if not d["forced"])
    assert set(decision) == {
        "index", "step", "seat", "decision", "chosen", "best", "forced", "win", "win_stderr",
        "best_win", "loss", "loss_stderr", "loss_interval", "candidates",
    }  # fmt: skip
    lo, hi = decision["loss_interval"]
    assert lo <= decision["loss"] <= hi
    assert {row["seat"] for row in data["seats"]} == {d["seat"] for d in data["decisions"]}


def position(**fields: Any) -> GameState:
    base: dict[str, Any] = {
        "draw_pile": ["R0", "G0", "B0", "Y0", "R1", "G1", "B1", "Y1"],
        "discard_pile": ["Y3"],
    }
    base.update(fields)
    return GameState.from_dict(base)


def test_a_move_that_wins_at_once_is_the_expert_choice_and_the_other_a_loss() -> None:
    """A5, E1: the Discard All takes the Seven with it and empties the hand: a certain win.
    Playing the Seven first leaves a Discard All alone and the round open."""
    start = position(hands=[["YDA", "Y7"], ["R3", "R4", "G5"]])
    verdict = Reviewer(start, seed=2, worlds=8, native=False).judge(Action.parse("play Y7 @1"))
    assert verdict is not None and verdict.seat == 0
    assert str(verdict.best) == "play YDA"
    assert verdict.best_win == 1.0
    assert verdict.win is not None and verdict.win < 1.0 and verdict.loss > 0.0


def test_estimates_use_only_the_deciding_seats_view() -> None:
    """Two tables that differ only in P1's hidden cards (swapped with the draw pile) look
    the same from P0's seat: its estimates are the same, world for world."""
    seen = {"hands": [["R7", "B8", "G2", "R2"], ["R3", "R4", "G5"]], "discard_pile": ["R5"], "seed": 3}
    a = GameState.from_dict({**seen, "draw_pile": ["Y1", "Y2", "B4", "G9", "B6", "Y8"]})
    hands = [seen["hands"][0], ["Y1", "Y2", "B4"]]
    b = GameState.from_dict({**seen, "hands": hands, "draw_pile": ["R3", "R4", "G5", "G9", "B6", "Y8"]})
    one = Reviewer(a, seed=9, worlds=6, native=False).judge()
    two = Reviewer(b, seed=9, worlds=6, native=False).judge()
    assert one is not None and two is not None
    assert one.estimates == two.estimates and one.best == two.best


def test_an_illegal_record_names_the_action() -> None:
    record = played()
    seat, action = record.actions[3]
    record.actions[3] = (1 - seat, action)
    with pytest.raises(ReviewError, match="action 3"):
        review(record, worlds=2, native=False)


def test_the_coach_suggests_for_the_deciding_seat() -> None:
    start = position(hands=[["YDA", "Y7"], ["R3", "R4", "G5"]])
    found = suggest(start, [], seed=1, worlds=4, native=False)
    assert found is not None and str(found.action) == "play YDA" and found.win == 1.0
    assert suggest(start, [(0, Action.parse("play YDA"))], worlds=2, native=False) is None  # E1: over


def test_a_record_keeps_the_coach_hints_and_old_records_read_as_before() -> None:
    record = played()
    plain = record.to_dict()
    assert "hints" not in plain  # a round without the coach writes what it always wrote
    assert GameRecord.from_dict(plain).hints == []
    record.hints.append((0, 4))
    again = GameRecord.from_json(record.to_json())
    assert again.hints == [(0, 4)] and again == record
    from nomercy.errors import InvalidState

    with pytest.raises(InvalidState, match="hint"):
        GameRecord.from_dict({**plain, "hints": [[7, 1]]})
