"""The heuristic's score weights (``native.heuristic.WEIGHTS``) and their tuning
(``native.policy``): the reference's weights choose as the reference, a duplicate duel
is fair, tuning is reproducible, and the tuned weights beat the reference's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from nomercy import Rules, new_game
from nomercy.testing import BASE_MIXES

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

from nomercy.native.batch import Batch, index_action
from nomercy.native.heuristic import WEIGHT_NAMES, WEIGHTS, heuristic_choose, weighted_choose
from nomercy.native.policy import BASE_WEIGHTS, TUNED_WEIGHTS, duel_wins, tune, weights_table


def _choices(rules: Rules, players: int, seed: int, weights: np.ndarray) -> list[tuple[int, int]]:
    """(reference choice, weighted choice) at every decision of a game the reference plays."""
    batch = Batch(rules, 1, players)
    batch.load(0, new_game(players, rules, seed=seed))
    s = batch.tables[0]
    batch._mask[:] = 0
    out: list[tuple[int, int]] = []
    for _ in range(2000):
        seat = batch.current(0)
        if seat is None:
            break
        ref = int(heuristic_choose(s, batch.encoded, seat, batch.deck, batch._mask, batch._list))
        other = int(weighted_choose(s, batch.encoded, seat, batch.deck, batch._mask, batch._list, weights))
        out.append((ref, other))
        batch.step(0, ref)
        batch._mask[:] = 0
    return out


@pytest.mark.parametrize("mix", sorted(BASE_MIXES))
def test_the_reference_weights_choose_as_the_heuristic(mix: str) -> None:
    """``BASE_WEIGHTS`` are the reference's constants: ``weighted_choose`` with them is
    ``heuristic_choose`` (itself checked against the Python bot), at every decision."""
    rules = BASE_MIXES[mix]
    for players in (2, 4):
        pairs = [p for seed in range(6) for p in _choices(rules, players, seed, np.array(BASE_WEIGHTS))]
        assert len(pairs) > 30
        assert all(ref == other for ref, other in pairs)


def test_other_weights_choose_otherwise_and_legally() -> None:
    """The tuned weights change some choices, and every choice is still a legal action."""
    differ = 0
    for seed in range(6):
        batch = Batch(Rules(), 1, 2)
        batch.load(0, new_game(2, seed=seed))
        s = batch.tables[0]
        for _ in range(2000):
            seat = batch.current(0)
            if seat is None:
                break
            batch._mask[:] = 0
            ref = int(heuristic_choose(s, batch.encoded, seat, batch.deck, batch._mask, batch._list))
            tuned = int(
                weighted_choose(s, batch.encoded, seat, batch.deck, batch._mask, batch._list, TUNED_WEIGHTS)
            )
            assert index_action(tuned, seat, 2) in batch.state(0).legal_actions()
            differ += ref != tuned
            batch.step(0, tuned)
    assert differ > 0


def test_weights_are_named_once_each() -> None:
    assert len(set(WEIGHT_NAMES)) == len(WEIGHTS) == len(BASE_WEIGHTS) == len(TUNED_WEIGHTS)
    assert [v for _, v in WEIGHTS] == list(BASE_WEIGHTS)
    assert all(v > 0 for v in TUNED_WEIGHTS)
    assert [row[0] for row in weights_table(TUNED_WEIGHTS)] == list(WEIGHT_NAMES)
    with pytest.raises(ValueError, match="read-only"):
        BASE_WEIGHTS[0] = 1.0  # read-only: numba compiles the reference's in


def test_a_duel_of_equal_weights_is_exactly_even() -> None:
    """Each deal is played once with each side in each seat: with the same weights both
    plays are the same game, so each deal gives exactly one win (the duel is fair)."""
    seeds = list(range(300))
    assert duel_wins(Rules(), 2, BASE_WEIGHTS, BASE_WEIGHTS, seeds) == (300, 600)
    wins, games = duel_wins(Rules(), 4, BASE_WEIGHTS, BASE_WEIGHTS, seeds[:100])
    assert (wins, games) == (100, 400)
    with pytest.raises(ValueError, match="finite numbers"):
        duel_wins(Rules(), 2, [1.0], BASE_WEIGHTS, seeds)
    with pytest.raises(ValueError, match="seeds"):
        duel_wins(Rules(), 2, BASE_WEIGHTS, BASE_WEIGHTS, [-1])


def test_the_tuned_weights_beat_the_reference() -> None:
    """On deals the tuning never saw (seeds from 2**40), both seats in turn: TUNED_WEIGHTS
    win clearly more than half in 2 players (about 55% over 100,000 games) and do not
    lose in 4 (fair share 25%)."""
    seeds = [2**40 + k for k in range(3000)]
    wins, games = duel_wins(Rules(), 2, TUNED_WEIGHTS, BASE_WEIGHTS, seeds)
    assert wins / games > 0.52, wins / games
    wins, games = duel_wins(Rules(), 4, TUNED_WEIGHTS, BASE_WEIGHTS, seeds[:1000])
    assert wins / games > 0.24, wins / games


def test_tuning_is_reproducible_and_moves_the_weights() -> None:
    seen: list[tuple[int, float]] = []
    first = tune(Rules(), 2, iterations=3, games=200, seed=7, progress=lambda k, r, w: seen.append((k, r)))
    again = tune(Rules(), 2, iterations=3, games=200, seed=7)
    assert (first == again).all()
    assert not (first == BASE_WEIGHTS).all()
    assert [k for k, _ in seen] == [0, 1, 2] and all(0.0 <= r <= 1.0 for _, r in seen)
    with pytest.raises(ValueError, match="at least one"):
        tune(Rules(), 2, iterations=0)
    rng = random.Random(1)
    start = [v * rng.uniform(0.5, 2.0) for v in BASE_WEIGHTS]
    assert tune(Rules(), 2, iterations=1, games=50, seed=1, start=start).shape == BASE_WEIGHTS.shape
