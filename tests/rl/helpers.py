"""Shared helpers of the RL tests: table sizes, presets, and random rounds to sample from."""

from __future__ import annotations

import random
from collections.abc import Iterator

import nomercy
from nomercy import GameState, Rules

PLAYERS = (2, 4, 6)
PRESETS = {"no_mercy": Rules(), "classic": Rules.preset("classic")}


def random_states(players: int, rules: Rules, seed: int, max_steps: int = 400) -> Iterator[GameState]:
    """Every state (before each action) of a random round, with out-of-turn actions taken."""
    rng = random.Random(seed)
    state = nomercy.new_game(players, rules, seed=seed)
    for _ in range(max_steps):
        if state.is_over:
            return
        yield state
        seat = state.current
        assert seat is not None
        others = [s for s in range(players) if s != seat and state.legal_actions(s)]
        if others and rng.random() < 0.5:
            s = rng.choice(others)
            state.apply(rng.choice(state.legal_actions(s)), s)
        else:
            state.apply(rng.choice(state.legal_actions()))
