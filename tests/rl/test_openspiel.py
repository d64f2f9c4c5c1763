"""The OpenSpiel game, through OpenSpiel's random simulation test."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra (open_spiel) is not installed")
import numpy as np  # noqa: E402

import nomercy.rl.openspiel_game  # noqa: E402, F401  (registers python_nomercy)
from nomercy.encoding import OBS_SIZE, observe  # noqa: E402
from nomercy.views import player_view  # noqa: E402

from .helpers import PLAYERS, PRESETS  # noqa: E402


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_sim_test_passes(players: int, preset: str) -> None:
    game = pyspiel.load_game("python_nomercy", {"players": players, "preset": preset})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def _play_out(game: object, seed: int) -> object:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_returns_are_zero_sum_and_name_the_winner() -> None:
    game = pyspiel.load_game("python_nomercy", {"players": 3})
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    for seed in range(3):
        state = _play_out(game, seed)
        returns = state.returns()  # type: ignore[attr-defined]
        assert abs(sum(returns)) < 1e-9 and sorted(returns) == [-0.5, -0.5, 1.0]


def test_one_chance_node_picks_the_seed_then_no_more_chance() -> None:
    game = pyspiel.load_game("python_nomercy", {"players": 2, "seed_outcomes": 10})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 10
    state.apply_action(7)
    assert state.game_state.seed == 7
    for _ in range(30):
        if state.is_terminal():
            break
        assert not state.is_chance_node()
        state.apply_action(state.legal_actions()[0])


def test_house_rules_parameters_and_observer_tensors() -> None:
    game = pyspiel.load_game(
        "python_nomercy", {"players": 4, "preset": "classic", "rules": "uno_penalty=4;stack_color=match"}
    )
    state = game.new_initial_state()
    state.apply_action(3)
    rules = state.game_state.rules
    assert rules.uno_penalty == 4 and rules.stack_color == "match" and not rules.stacking
    player = state.current_player()
    assert np.array_equal(
        np.asarray(state.observation_tensor(player)), observe(player_view(state.game_state, player))
    )
    info = np.asarray(state.information_state_tensor(player))
    assert info.shape[0] > OBS_SIZE and np.array_equal(info[:OBS_SIZE], state.observation_tensor(player))
    text = state.observation_string(player)
    assert f"P{player} holds" in text and text.count("holds") == 1  # only its own hand


def test_max_game_length_stops_the_round_as_a_draw() -> None:
    game = pyspiel.load_game("python_nomercy", {"players": 2, "max_game_length": 6})
    state = game.new_initial_state()
    state.apply_action(1)
    moves = 0
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
        moves += 1
    assert moves <= 5 and (state.game_state.is_over or state.returns() == [0.0, 0.0])
