"""The engine's shuffle is ``random.shuffle`` exactly (S2, T4): seeds must deal the same
games on every machine and before and after the speed-up, so this pins it, and pins the
integer key of each shuffle (state format 3) that the native engine reproduces."""

from __future__ import annotations

import random

import pytest

import nomercy
from nomercy.dealing import shuffle_key
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


def test_t4_each_shuffle_is_keyed_by_an_integer_of_the_seed_and_its_number() -> None:
    """State format 3: shuffle n of a seed is MT19937 seeded with the integer
    (seed mod 2**64) * 2**32 + n, so no string hashing stands between a seed and its deal."""
    for seed, number in [(0, 0), (0, 1), (1, 0), (229, 3), (2**32 - 1, 7), (2**63 + 5, 2**32 - 1)]:
        key = shuffle_key(seed, number)
        assert key == (seed << 32) + number
        assert shuffle_rng(seed, number).getstate() == random.Random(key).getstate()
    assert shuffle_key(1, 0) != shuffle_key(0, 1) != shuffle_key(0, 0)


def test_s2_a_seed_is_read_modulo_2_to_the_64() -> None:
    """Documented (docs/state-format.md): seeds that differ by a multiple of 2**64 deal the
    same round; the state still keeps the seed it was given."""
    a = nomercy.new_game(4, seed=12345)
    b = nomercy.new_game(4, seed=12345 + 3 * 2**64)
    assert b.seed == 12345 + 3 * 2**64
    assert a.hands == b.hands and a.draw_pile == b.draw_pile and a.dealer == b.dealer
