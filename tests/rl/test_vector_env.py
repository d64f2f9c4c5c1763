"""The batched numpy environment: shapes, auto-reset and determinism."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")
pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from nomercy.rl import NUM_ACTIONS, OBS_SIZE, VectorEnv  # noqa: E402
from nomercy.views import player_view  # noqa: E402


def _run(venv: VectorEnv, seed: int, steps: int) -> list[np.ndarray]:
    obs, masks = venv.reset(seed=seed)
    trace = [obs.copy(), masks.copy()]
    for _ in range(steps):
        obs, masks, rewards, dones = venv.step(venv.sample_actions())
        trace += [obs.copy(), masks.copy(), rewards.copy(), dones.copy()]
    return trace


def test_shapes_and_dtypes() -> None:
    venv = VectorEnv(5, players=3, rules="classic")
    obs, masks = venv.reset(seed=1)
    assert obs.shape == (5, OBS_SIZE) and obs.dtype == np.float32
    assert masks.shape == (5, NUM_ACTIONS) and masks.dtype == np.int8
    assert (masks.sum(axis=1) > 0).all()
    obs, masks, rewards, dones = venv.step(venv.sample_actions())
    assert rewards.shape == (5,) and rewards.dtype == np.float32
    assert dones.shape == (5,) and dones.dtype == np.bool_
    with pytest.raises(ValueError, match="expected 5 actions"):
        venv.step(np.zeros(4, np.int64))


def test_auto_reset_starts_a_new_round_in_the_same_step() -> None:
    venv = VectorEnv(4, players=2)
    venv.reset(seed=3)
    finished = 0
    for _ in range(3000):
        obs, masks, rewards, dones = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all()  # every row can act: finished rows were re-dealt
        for i in np.flatnonzero(dones):
            assert rewards[i] in (1.0, -1.0)
            assert not np.array_equal(venv.final_observations[i], obs[i])
            assert venv.games[i].state is not None and not venv.games[i].done
            finished += 1
        assert (rewards[~dones] == 0).all()
        if finished >= 10:
            break
    assert finished >= 10 and len(venv.episode_returns) == finished


def test_same_seed_same_rounds() -> None:
    a = _run(VectorEnv(3, players=4), seed=7, steps=200)
    b = _run(VectorEnv(3, players=4), seed=7, steps=200)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = _run(VectorEnv(3, players=4), seed=8, steps=200)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_step_before_reset_is_refused() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        VectorEnv(2).step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": True}, "num_envs must be a whole number"),
        ({"num_envs": 2, "seat": 2}, "learner seat 2 is not at this 2-player table"),
        ({"num_envs": 2, "seat": True}, "learner seat True"),
        ({"num_envs": 2, "opponents": ["random", "heuristic"]}, "2 opponents named for 1 opponent seats"),
    ],
)
def test_bad_arguments_are_refused_as_the_native_env_refuses_them(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        VectorEnv(**kwargs)  # type: ignore[arg-type]


def test_rows_are_the_learners_own_observation_and_mask() -> None:
    from nomercy.encoding import legal_mask, observe

    venv = VectorEnv(3, players=3, seat=1)
    venv.reset(seed=5)
    for _ in range(20):
        obs, masks, _, _ = venv.step(venv.sample_actions())
        for i, game in enumerate(venv.games):
            assert game.state is not None
            view = player_view(game.state, 1)
            assert np.array_equal(obs[i], observe(view)) and np.array_equal(masks[i], legal_mask(view))
