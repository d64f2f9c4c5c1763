"""The engine's shuffle is ``random.shuffle`` exactly (S2, T4): seeds must deal the same
games on every machine and before and after the speed-up, so this pins it."""

from __future__ import annotations

import random

import pytest

import nomercy
from nomercy.engine import shuffle, shuffle_rng


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 64, 65, 108, 168, 1023, 1024, 1500])
def test_s2_shuffle_is_random_shuffle(size: int) -> None:
    for seed in range(25):
        ours, theirs = list(range(size)), list(range(size))
        rng_ours, rng_theirs = random.Random(seed), random.Random(seed)
        shuffle(rng_ours, ours)
        rng_theirs.shuffle(theirs)
        assert ours == theirs
        assert rng_ours.getstate() == rng_theirs.getstate(), "the RNG must be left in the same state"


def test_s2_deal_is_the_documented_shuffle_of_the_deck() -> None:
    """S2/S4: new_game deals from random.shuffle of the deck with the seed's first RNG."""
    rules = nomercy.Rules()
    for seed in range(20):
        pile = nomercy.full_deck(rules)
        rng = shuffle_rng(seed, 0)
        rng.shuffle(pile)
        state = nomercy.new_game(4, rules, seed)
        assert state.dealer == rng.randrange(4)
        dealt = [c for h in state.hands for c in h]
        assert sorted(dealt + state.draw_pile + state.discard, key=lambda c: c.index) == sorted(
            pile, key=lambda c: c.index
        )
        assert state.draw_pile == pile[: len(state.draw_pile)]
