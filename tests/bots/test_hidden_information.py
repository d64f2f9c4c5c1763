"""Bots decide from the view alone: states that differ only in hidden cards get one answer."""

from __future__ import annotations

import random

import pytest

from nomercy import GameState
from nomercy.bots import make
from nomercy.cards import Card
from nomercy.views import player_view

from .test_expert import random_positions


def shuffle_hidden(state: GameState, seed: int, seat: int) -> GameState:
    """The same position with every card ``seat`` cannot see dealt again at random."""
    other = state.clone()
    hidden = [c for s, h in enumerate(other.hands) if s != seat for c in h] + other.draw_pile + other.aside
    rng = random.Random(seed)
    rng.shuffle(hidden)
    for s, hand in enumerate(other.hands):
        if s != seat:
            n = len(hand)
            other.hands[s] = hidden[:n]
            del hidden[:n]
    other.aside = hidden[: len(state.aside)]
    del hidden[: len(state.aside)]
    other.draw_pile = hidden
    other.seed = seed  # the seed decides reshuffles: hidden too
    return other


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("heuristic", {}),
        ("expert", {"budget": 10}),
        ("random", {}),
        ("careful", {}),
        ("beginner", {}),
        ("stacker", {}),
        ("gambler", {"level": "strong", "budget": 10}),
    ],
)
def test_hidden_cards_do_not_change_a_decision(name: str, options: dict[str, int | str]) -> None:
    changed = 0
    for i, state in enumerate(random_positions(25, seed=21)):
        seat = state.current
        assert seat is not None
        other = shuffle_hidden(state, 1000 + i, seat)
        if [sorted(h, key=Card.sort_key) for h in other.hands] != [
            sorted(h, key=Card.sort_key) for h in state.hands
        ]:
            changed += 1
        assert player_view(other, seat) == player_view(state, seat)
        a = make(name, seed=i, **options).choose(player_view(state, seat))
        b = make(name, seed=i, **options).choose(player_view(other, seat))
        assert a == b
    assert changed > 20  # the hidden cards really moved
