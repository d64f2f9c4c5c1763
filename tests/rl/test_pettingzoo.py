"""The PettingZoo AEC environment, through PettingZoo's own checkers."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
import numpy as np
import pettingzoo
from pettingzoo.test import api_test, seed_test

import nomercy
import nomercy.rl  # registers nomercy/NoMercy-v3
from nomercy.encoding import NUM_ACTIONS, OBS_SIZE
from nomercy.rl import pettingzoo as nm

from .helpers import PLAYERS, PRESETS


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")  # dict observations
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")  # likewise
@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_api_test_and_seed_test_pass(players: int, preset: str) -> None:
    rules = PRESETS[preset]
    api_test(nm.env(players=players, rules=rules), num_cycles=300, verbose_progress=False)
    seed_test(lambda **kw: nm.env(players=players, rules=rules, **kw), num_cycles=300)


def test_registered_in_pettingzoos_registry() -> None:
    env = pettingzoo.make("aec", "nomercy/NoMercy-v3", players=3)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.action_space("player_0").n == NUM_ACTIONS
    assert env.observation_space("player_0")["observation"].shape == (OBS_SIZE,)


def _play(env: pettingzoo.AECEnv, seed: int) -> dict[str, float]:
    """A random round; the total reward each agent saw, and which agents were terminated."""
    env.reset(seed=seed)
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            assert obs["action_mask"].sum() == 0
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_round_end_rewards_are_plus_one_and_minus_one() -> None:
    for seed in range(5):
        totals = _play(nm.env(players=4), seed)
        assert sorted(totals.values()) == [-1.0, -1.0, -1.0, 1.0]


def test_knocked_out_seats_are_terminated_at_once_m1() -> None:
    """M1: a seat knocked out mid-round is terminated (reward -1) while the others play on."""
    for seed in range(60):
        env = nm.raw_env(players=6)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            agent = env.agent_selection
            obs, _, terminated, _, _ = env.last()
            if terminated:
                seat = int(agent.split("_")[1])
                state = env.state_
                if state is not None and not state.is_over:
                    assert not state.active[seat]  # terminated mid-round: knocked out (M1)
                    assert env.rewards[agent] == -1.0 or env._cumulative_rewards[agent] == -1.0
                    return
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pytest.fail("no knock-out in 60 random six-player rounds")


def test_points_rewards_sum_to_zero_e3() -> None:
    for seed in range(5):
        totals = _play(nm.env(players=4, reward="points"), seed)
        assert abs(sum(totals.values())) < 1e-6
        assert max(totals.values()) > 0


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = nm.raw_env(players=2)
    env.reset(seed=5)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.state_.to_json()  # type: ignore[union-attr]
    with pytest.raises((nomercy.IllegalAction, ValueError)):
        env.step(illegal)
    assert env.state_.to_json() == before  # type: ignore[union-attr]


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    human = nm.env(players=2, render_mode="human")
    human.reset(seed=2)
    assert human.render() is None and "P0:" in capsys.readouterr().out
    env = nm.env(players=2, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "P0" in text and "holds" not in text  # public: no hands
    with pytest.raises(ValueError, match="render_mode"):
        nm.env(players=2, render_mode="rgb_array")
