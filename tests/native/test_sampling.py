"""Random play's sampler: ``legal_list`` (one pass, no mask) lists exactly the actions that
``legal`` lists, in the same order, in every position random play reaches, so one uniform
index into it is a uniform choice among the legal actions (what ``random_play`` draws).
"""

from __future__ import annotations

import random

import pytest

from nomercy import Rules
from nomercy.testing import BASE_MIXES, deal_cases

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

import numpy as np

from nomercy.native import Batch
from nomercy.native import kernels as K
from nomercy.native import layout as L

MIXES = {**BASE_MIXES, "rlcard": Rules.preset("rlcard")}
CASES = deal_cases(MIXES, players=(2, 3, 4, 6))


@pytest.mark.parametrize(("mix", "players"), CASES, ids=[f"{m}-{p}p" for m, p in CASES])
def test_the_sampler_names_the_listed_actions_in_order(mix: str, players: int) -> None:
    rules = MIXES[mix]
    batch = Batch(rules, 1, players)
    row, encoded = batch.tables[0], batch.encoded
    mask = np.zeros(L.NUM_ACTIONS, np.uint8)
    listed = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    one_pass = np.full(L.NUM_ACTIONS + 1, -7, np.int64)
    rng = random.Random(players)
    decisions = 0
    seen: set[int] = set()
    for seed in range(10):
        batch.deal(0, seed)
        while row[L.CURRENT] >= 0:
            count = K.legal_mask(row, encoded, -1, mask, listed)
            assert K.legal_list(row, encoded, one_pass) == count == one_pass[0]
            named = one_pass[1 : count + 1].tolist()
            assert named == listed[1 : count + 1].tolist()
            seen.update(int(L.A_KIND[a]) for a in named)
            decisions += 1
            K.apply_action(row, encoded, -1, named[rng.randrange(count)])
        assert K.legal_list(row, encoded, one_pass) == 0 == one_pass[0]  # over: nothing to choose
    assert decisions > 10 * 5 and len(seen) >= 3  # plays, draws or takes, and more were met


def test_random_plays_draw_picks_each_legal_action_alike() -> None:
    """random_play's draw, repeated on one position: each legal action is chosen about as
    often as the others (a chi-square bound far outside chance, so it cannot flake)."""
    batch = Batch(Rules(), 1, 4)
    for seed in range(100):
        batch.deal(0, seed)
        if batch.legal_mask(0).sum() >= 4:
            break
    start = batch.tables.copy()
    legal = np.flatnonzero(batch.legal_mask(0))
    index = {int(a): i for i, a in enumerate(legal)}
    counts = np.zeros(len(legal), np.int64)
    listed = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    rng = np.array([7], np.uint64)
    trials = 4000
    for _ in range(trials):
        row = start[0].copy()
        count = K.legal_list(row, batch.encoded, listed)
        action = listed[1 + K._below(rng, count)]
        counts[index[int(action)]] += 1
    expected = trials / len(legal)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 10 * len(legal)  # uniform gives about len(legal) - 1
