"""The Gymnasium single-agent environment, through Gymnasium's own checker."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed")
import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import nomercy
import nomercy.bots
from nomercy.cards import Card
from nomercy.rl import GYM_ENV_ID, NoMercyEnv

from .helpers import PLAYERS, PRESETS


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_check_env_passes(players: int, preset: str) -> None:
    env = gymnasium.make(GYM_ENV_ID, players=players, rules=PRESETS[preset])
    check_env(env.unwrapped, skip_render_check=True)


def _episode(env: NoMercyEnv, seed: int) -> tuple[float, int]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, done, reward = 0, False, 0.0
    while not done:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and np.array_equal(mask, info["action_mask"].astype(bool))
        assert mask.any()
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated and env.observation_space.contains(obs)
        steps += 1
    return float(reward), steps


def test_episodes_end_with_plus_or_minus_one_and_seeds_repeat() -> None:
    env = NoMercyEnv(players=3, opponents="random")
    results = [_episode(env, seed) for seed in range(8)]
    assert {r for r, _ in results} <= {1.0, -1.0}
    assert len({r for r, _ in results}) == 2
    assert [_episode(env, seed) for seed in range(8)] == results


def test_learner_seat_and_named_opponents() -> None:
    env = NoMercyEnv(players=3, opponents=["random", "random"], seat=None)
    seats = set()
    for seed in range(10):
        _, info = env.reset(seed=seed)
        seats.add(info["seat"])
        assert env.game.state is not None and env.game.state.current == info["seat"]
    assert len(seats) > 1
    with pytest.raises(ValueError, match="unknown bot"):
        NoMercyEnv(players=2, opponents="nobody")
    with pytest.raises(ValueError, match="opponents"):
        NoMercyEnv(players=3, opponents=["random"])


def test_illegal_action_loses_or_raises() -> None:
    env = NoMercyEnv(players=2)
    _, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and "illegal_action" in info
    strict = NoMercyEnv(players=2, illegal_action="raise")
    strict.reset(seed=4)
    before = strict.game.state.to_json()  # type: ignore[union-attr]
    with pytest.raises(nomercy.IllegalAction):
        strict.step(illegal)
    assert strict.game.state.to_json() == before  # type: ignore[union-attr]


def test_ansi_render_shows_only_the_learners_hand() -> None:
    env = NoMercyEnv(players=2, render_mode="ansi")
    env.reset(seed=9)
    text = env.render()
    state = env.game.state
    assert isinstance(text, str) and state is not None
    assert "P0 holds: " + " ".join(c.code for c in sorted(state.hands[0], key=Card.sort_key)) in text
    assert "P1 holds" not in text


@pytest.mark.parametrize("bot", nomercy.bots.available())
def test_every_registered_bot_can_be_the_opponent(bot: str) -> None:
    """Bots play through the shared runner, reactions (U2 catches) included."""
    env = NoMercyEnv(players=3, opponents=bot)
    reward, steps = _episode(env, seed=1)
    assert reward in (1.0, -1.0) and steps >= 1


def test_module_prefixed_id_imports_and_registers() -> None:
    env = gymnasium.make("nomercy.rl:nomercy/NoMercy-v3", players=2)
    _, info = env.reset(seed=0)
    assert info["action_mask"].any()
