"""The multi-agent native environment (nomercy.rl.selfplay) against the Python engine.

Every step of seeded random self-play is checked: the deciding seat's observation and mask
are ``StateEncoder``'s for the table's state (what a PlayerView shows, bit for bit), the
action applied on the Python engine gives the native table's next state (T-rules: the
same game), a finished round rewards exactly one winner (E1), and the same seed plays the
same rounds.
"""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")
pytest.importorskip("nomercy.native", reason="the native engine needs the fast extra")

from nomercy.bots.heuristic import HeuristicBot  # noqa: E402
from nomercy.encoding import index_to_action  # noqa: E402
from nomercy.encoding.fast import StateEncoder  # noqa: E402
from nomercy.rl.selfplay import SelfPlayEnv  # noqa: E402
from nomercy.views import player_view  # noqa: E402


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_self_play_is_the_python_engine_step_by_step(players: int) -> None:
    env = SelfPlayEnv(6, players=players, seed=11)
    obs, masks, seats = env.reset()
    encoder = StateEncoder()
    ends = 0
    for _ in range(300):
        acts = env.sample_actions()
        before = [env.state(row) for row in range(env.num_envs)]
        for row, state in enumerate(before):
            seat = int(seats[row])
            assert state.current == seat
            assert np.array_equal(obs[row], encoder.observe(state, seat))
            assert np.array_equal(masks[row], encoder.mask(state, seat))
            assert masks[row, acts[row]] == 1
        obs, masks, seats, rewards, dones = env.step(acts)
        for row, state in enumerate(before):
            state.apply(index_to_action(state, int(acts[row])), state.current)
            if dones[row]:
                ends += 1
                assert state.outcome is not None
                winner = state.outcome.winner
                expected = [1.0 if s == winner else -1.0 for s in range(players)]
                assert rewards[row].tolist() == expected  # one winner (E1), the rest lose
                assert rewards[row].sum() == 2 - players
            else:
                assert state == env.state(row)
                assert not rewards[row].any()
    assert ends > 0


def test_the_same_seed_plays_the_same_rounds() -> None:
    def run(seed: int) -> list[float]:
        env = SelfPlayEnv(4, players=3, seed=seed)
        obs, _, _ = env.reset()
        trace = [float(obs.sum())]
        for _ in range(120):
            obs, _, seats, rewards, _ = env.step(env.sample_actions())
            trace += [float(obs.sum()), float(seats.sum()), float(rewards.sum())]
        return trace

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_a_row_plays_the_same_deal_whatever_the_batch() -> None:
    small, large = SelfPlayEnv(1, seed=5), SelfPlayEnv(8, seed=5)
    small.reset()
    large.reset()
    assert small.state(0) == large.state(0)


def test_the_heuristic_labels_are_the_python_heuristic_bots_turns() -> None:
    env = SelfPlayEnv(8, players=2, seed=2)
    env.reset()
    for _ in range(40):
        acts = env.heuristic_actions()
        for row in range(env.num_envs):
            state = env.state(row)
            view = player_view(state, state.current)
            assert index_to_action(state, int(acts[row])) == HeuristicBot(seed=0).choose(view)
        env.step(acts)


def test_opponents_play_in_batch_and_only_the_learner_seat_comes_back() -> None:
    env = SelfPlayEnv(12, players=2, seed=1)
    calls: list[int] = []

    def snapshot(obs: object, masks: np.ndarray) -> np.ndarray:
        calls.append(len(masks))
        return np.asarray(masks.argmax(axis=1), np.int64)  # the first legal action

    env.set_opponents(["heuristic", "random", snapshot])
    learner = np.arange(12) % 2
    _, _, seats = env.reset()
    assert np.array_equal(seats, learner)
    finished = 0
    for _ in range(400):
        _, _, seats, rewards, dones = env.step(env.sample_actions())
        assert np.array_equal(seats, learner)
        finished += int(dones.sum())
        assert np.all(rewards[dones].sum(axis=1) == 0)
    assert finished > 0 and calls and max(calls) > 1
    env.set_opponents([])  # every seat the learner's again
    _, _, seats, _, _ = env.step(env.sample_actions())
    assert not np.array_equal(seats, learner) or len(set(seats.tolist())) == 2


def test_bad_actions_and_opponents_are_refused_and_change_nothing() -> None:
    env = SelfPlayEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0, 0])
    _, masks, _ = env.reset()
    before = env.state(0)
    illegal = int(np.flatnonzero(masks[0] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step([illegal, int(masks[1].argmax())])
    with pytest.raises(ValueError, match="outside"):
        env.step([-1, 0])
    assert env.state(0) == before
    with pytest.raises(ValueError, match="native player"):
        env.set_opponents(["expert"])
    with pytest.raises(ValueError, match="learner"):
        env.set_opponents(["random"], learner=5)
