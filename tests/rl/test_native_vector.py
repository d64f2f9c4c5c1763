"""The native vector environment (nomercy.rl.native_vector) against the Python path.

Every step of seeded runs is replayed on the Python engine from the environment's log
(each deal's seed, each action applied, by whom): the replayed round must be the native
table (``GameState`` equality), the learner's reward must be the one ``SingleAgentGame``
computes, and the native observation and mask must be ``StateEncoder``'s, bit for bit.
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")
pytest.importorskip("gymnasium", reason="the rl extra is not installed")
pytest.importorskip("numpy", reason="the native engine needs the fast extra")

from gymnasium import spaces  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

from nomercy import GameState, IllegalAction, Rules, determinize, new_game  # noqa: E402
from nomercy.actions import Action  # noqa: E402
from nomercy.bots.heuristic import HeuristicBot  # noqa: E402
from nomercy.bots.runner import reactions  # noqa: E402
from nomercy.bots.runner import step as bot_step  # noqa: E402
from nomercy.cards import Card  # noqa: E402
from nomercy.encoding import NUM_ACTIONS, OBS_SIZE, check_deck, index_to_action  # noqa: E402
from nomercy.encoding.fast import StateEncoder  # noqa: E402
from nomercy.native import Batch, action_index, index_action  # noqa: E402
from nomercy.native import encode as E  # noqa: E402
from nomercy.native import layout as L  # noqa: E402
from nomercy.rl.common import knockout_reward, round_rewards  # noqa: E402
from nomercy.rl.native_vector import (  # noqa: E402
    OBS_OFFSETS,
    RL_OF_NATIVE,
    NativeGymVectorEnv,
    NativeVectorEnv,
    _seed_words,
)
from nomercy.testing import RULE_MIXES  # noqa: E402
from nomercy.views import player_view  # noqa: E402

#: Rule mixes that reach every section of the encoding (as tests/rl/test_fast_encoding.py):
#: knock-outs (M1) and buried hands (M2), hands received by a Seven or Zero, the W6
#: challenge, drawn cards played at once.
RULES = {
    "no_mercy": Rules(),
    "no_mercy+discard_bottom": Rules(knockout_hand="discard_bottom", uno_timing="holding_one"),
    "classic": Rules.preset("classic"),
    "classic+challenge": Rules.preset("classic").replace(
        wild_draw4_challenge=True, wild_draw4_restricted=False
    ),
    "rlcard": Rules.preset("rlcard"),
}
LOG = 4096


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _python_reward(state: GameState, seat: int, mode: str) -> float:
    """``SingleAgentGame.reward`` at the end of the learner's round."""
    if not state.active[seat]:
        return knockout_reward(mode)  # type: ignore[arg-type]
    return round_rewards(state, mode)[seat]  # type: ignore[arg-type]


class _Replay:
    """The Python engine following one row of a native env through its log."""

    def __init__(self, env: NativeVectorEnv, row: int) -> None:
        self.env, self.row = env, row
        self.state: GameState | None = None
        self.rounds = 0

    def follow(self, learner_action: int | None) -> tuple[float, bool]:
        """Replay the row's log of the last call; return (reward, done) as Python sees them."""
        env, row, seat = self.env, self.row, self.env.seat
        log, logn = env.log
        assert 0 < logn[row] <= LOG
        reward, done = 0.0, False
        entries = log[row, : logn[row]].tolist()
        first = True
        for entry in entries:
            if entry < 0:  # a deal: the round before it ended (or never reached the learner)
                if self.state is not None and not first:
                    assert self.state.is_over or not self.state.active[seat]
                    if learner_action is not None and not done:
                        reward, done = _python_reward(self.state, seat, env.reward_mode), True
                        assert _same(StateEncoder().observe(self.state, seat), env.final_observations[row])
                self.state = new_game(env.players, env.rules, seed=-entry - 1)
                self.rounds += 1
                first = False
                continue
            actor, action = divmod(entry, NUM_ACTIONS)
            state = self.state
            assert state is not None and not state.is_over
            if first:  # the learner's own action, as SingleAgentGame.play applies it
                assert learner_action is not None and actor == seat and state.current == seat
                state.apply(index_to_action(state, learner_action, seat), seat)
                first = False
                continue
            assert actor != seat and state.active[seat]  # an opponent's turn or reaction
            move = index_action(action, actor, env.players)
            heuristic = self._name(actor) == "heuristic"
            if actor != state.current:  # a reaction: only a heuristic opponent reacts
                assert move.out_of_turn and heuristic
            elif heuristic and not move.out_of_turn:  # its turn (a catch then is a reaction)
                assert move == HeuristicBot(seed=0).choose(player_view(state, actor))
            state.apply(move, actor)  # IllegalAction if not legal
        state = self.state
        assert state is not None
        assert not state.is_over and state.active[seat] and state.current == seat
        assert state == env.state(row)
        return reward, done

    def _name(self, seat: int) -> str:
        others = [s for s in range(self.env.players) if s != self.env.seat]
        return self.env.opponent_names[others.index(seat)]


def _check_row(env: NativeVectorEnv, row: int, replay: _Replay) -> None:
    state = replay.state
    assert state is not None
    encoder = StateEncoder()
    assert _same(encoder.observe(state, env.seat), env.observations[row])
    assert _same(encoder.mask(state, env.seat), env.masks[row])


def _replay_run(env: NativeVectorEnv, seed: int, steps: int) -> int:
    """Step ``env`` with random legal actions, replaying every row on the Python engine
    after every call; return how many of the learner's rounds ended."""
    env.reset(seed=seed)
    replays = [_Replay(env, row) for row in range(env.num_envs)]
    for row, replay in enumerate(replays):
        assert replay.follow(None) == (0.0, False)
        _check_row(env, row, replay)
    ended = 0
    for _ in range(steps):
        actions = env.sample_actions()
        _, _, rewards, dones = env.step(actions)
        for row, replay in enumerate(replays):
            reward_py, done_py = replay.follow(int(actions[row]))
            assert (float(rewards[row]), bool(dones[row])) == (reward_py, done_py)
            _check_row(env, row, replay)
            ended += done_py
    return ended


@pytest.mark.parametrize(
    ("name", "players", "reward"),
    [
        ("no_mercy", 2, "win"),
        ("no_mercy", 4, "points"),
        ("no_mercy", 6, "win"),
        ("no_mercy+discard_bottom", 5, "points"),
        ("classic", 3, "win"),
        ("classic+challenge", 4, "points"),
        ("rlcard", 2, "win"),
    ],
)
def test_every_step_is_the_python_engine_and_encoding(name: str, players: int, reward: str) -> None:
    env = NativeVectorEnv(4, players, RULES[name], seat=players // 2, reward=reward, log_size=LOG)
    assert _replay_run(env, 11, 250) >= 2  # rounds did end and were dealt again


def _encodable(rules: Rules) -> bool:
    """The tables have a place for every card kind of the deck (not W7's Wild Shuffle Hands)."""
    try:
        check_deck(rules)
    except ValueError:
        return False
    return True


#: The mixes whose deck the tables describe; the others are refused (test_the_112_card_deck_is_refused).
MIXES = [(name, rules) for name, rules in RULE_MIXES.items() if _encodable(rules)]


def test_the_112_card_deck_is_refused() -> None:
    """W7: a mix with the Wild Shuffle Hands is refused by name, not played with a wrong table."""
    refused = [name for name, rules in RULE_MIXES.items() if not _encodable(rules)]
    assert refused, "no rule mix holds the 112-card deck any more: drop the filter"
    with pytest.raises(ValueError, match="WSH"):
        NativeVectorEnv(2, 2, RULE_MIXES[refused[0]])


@pytest.mark.parametrize("reward", ["win", "points"])
@pytest.mark.parametrize(("name", "rules"), MIXES, ids=[name for name, _ in MIXES])
def test_every_house_rule_mix_steps_as_the_python_engine(name: str, rules: Rules, reward: str) -> None:
    """The project's rule mixes (nomercy.testing), each at another table size and seat."""
    index = [n for n, _ in MIXES].index(name)
    players = 2 + index % 5
    env = NativeVectorEnv(2, players, rules, seat=index % players, reward=reward, log_size=LOG)
    _replay_run(env, 100 + index, 120)


class _Draw:
    """A row's opponent generator (slot 0, xorshift64*) in Python: the heuristic opponents'
    ``rng.random`` for their catches, the only draws from it when every opponent is one."""

    def __init__(self, word: int) -> None:
        self.x = int(word)

    def random(self) -> float:
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 27
        self.x = x
        return (((x * 2685821657736338717) & 0xFFFFFFFFFFFFFFFF) >> 32) / 2**32


class _HeuristicReplay:
    """The Python loop of ``SingleAgentGame`` (``bots.runner`` steps and reactions) with
    ``HeuristicBot`` opponents drawing from the row's generator: it must write the row's
    log itself, entry for entry (only the deal seeds are read from the log)."""

    def __init__(self, env: NativeVectorEnv, row: int, word: int) -> None:
        self.env, self.row = env, row
        draw = _Draw(word)
        self.bots: list[HeuristicBot | None] = []
        for s in range(env.players):
            bot = None if s == env.seat else HeuristicBot(seed=0)
            if bot is not None:
                bot.rng = draw  # type: ignore[assignment]
            self.bots.append(bot)
        self.state: GameState | None = None
        self.reactions = 0

    def follow(self, learner_action: int | None) -> tuple[float, bool]:
        env, seat = self.env, self.env.seat
        log, logn = env.log
        entries = log[self.row, : logn[self.row]].tolist()
        made: list[int] = []

        def apply(action: Action, actor: int) -> list[object]:
            state = self.state
            assert state is not None
            if actor != state.current:
                self.reactions += 1
            made.append(actor * NUM_ACTIONS + action_index(action, actor, env.players))
            return state.apply(action, actor)  # type: ignore[return-value]

        def advance() -> None:
            state = self.state
            assert state is not None
            while state.outcome is None and state.current != seat and state.active[seat]:
                bot_step(state, self.bots, apply=apply)  # type: ignore[arg-type]

        reward, done = 0.0, False
        if learner_action is not None:
            state = self.state
            assert state is not None
            apply(index_to_action(state, learner_action, seat), seat)
            reactions(state, self.bots, after=seat, apply=apply)  # type: ignore[arg-type]
            advance()
            if state.is_over or not state.active[seat]:
                reward, done = _python_reward(state, seat, env.reward_mode), True
                assert _same(StateEncoder().observe(state, seat), env.final_observations[self.row])
        while self.state is None or self.state.is_over or not self.state.active[seat]:
            assert len(made) < len(entries) and entries[len(made)] < 0, "a deal was due"
            made.append(entries[len(made)])
            self.state = new_game(env.players, env.rules, seed=-made[-1] - 1)
            advance()
        assert made == entries
        assert self.state == env.state(self.row)
        return reward, done


@pytest.mark.parametrize(
    ("name", "players", "reward"),
    [
        ("no_mercy", 2, "win"),
        ("no_mercy", 4, "points"),
        ("no_mercy", 6, "win"),
        ("no_mercy+discard_bottom", 5, "points"),
        ("classic", 3, "win"),
        ("classic+challenge", 4, "points"),
        ("rlcard", 2, "win"),
    ],
)
def test_heuristic_opponents_play_as_the_python_bots(name: str, players: int, reward: str) -> None:
    """Every opponent action (turns and reactions, catches kept or missed) is what the
    Python loop with HeuristicBot opponents does from the same table and generator."""
    rows, seed = 3, 21
    env = NativeVectorEnv(rows, players, RULES[name], "heuristic", players // 2, reward, log_size=LOG)
    env.reset(seed=seed)
    words = _seed_words(seed, rows)[:, 0]
    replays = [_HeuristicReplay(env, row, int(words[row])) for row in range(rows)]
    for row, replay in enumerate(replays):
        assert replay.follow(None) == (0.0, False)
        _check_row(env, row, replay)  # type: ignore[arg-type]
    ended = 0
    for _ in range(150):
        actions = env.sample_actions()
        _, _, rewards, dones = env.step(actions)
        for row, replay in enumerate(replays):
            assert (float(rewards[row]), bool(dones[row])) == replay.follow(int(actions[row]))
            _check_row(env, row, replay)  # type: ignore[arg-type]
            ended += bool(dones[row])
    assert ended >= 2


def test_heuristic_opponents_catch_and_miss() -> None:
    """Catches are made out of turn (the reaction round runs) and some are missed."""
    env = NativeVectorEnv(8, 4, Rules(), "heuristic", 1, log_size=LOG)
    env.reset(seed=3)
    words = _seed_words(3, 8)[:, 0]
    replays = [_HeuristicReplay(env, row, int(words[row])) for row in range(8)]
    for replay in replays:
        replay.follow(None)
    for _ in range(200):
        actions = env.sample_actions()
        env.step(actions)
        for row, replay in enumerate(replays):
            replay.follow(int(actions[row]))
    assert sum(r.reactions for r in replays) > 0
    assert sum(r.bots[0].rng.x != int(words[i]) for i, r in enumerate(replays)) > 0  # type: ignore[union-attr]


@pytest.mark.parametrize("players", [3, 5])
def test_mixed_opponents_step_as_the_python_engine(players: int) -> None:
    """Random and heuristic opponents at one table: legal, heuristic turns as the Python
    bot chooses them, reactions only by the heuristic seats."""
    names = ["heuristic" if i % 2 == 0 else "random" for i in range(players - 1)]
    env = NativeVectorEnv(3, players, Rules(), names, seat=1, log_size=LOG)
    assert _replay_run(env, 5, 150) >= 1


def test_the_replay_check_is_not_vacuous() -> None:
    """A native table changed behind the environment's back is caught by the replay."""
    env = NativeVectorEnv(2, 3, Rules(), log_size=LOG)
    env.reset(seed=4)
    replays = [_Replay(env, row) for row in range(2)]
    for replay in replays:
        replay.follow(None)
    table = env._rows.batch.tables[1]  # type: ignore[union-attr]
    table[L.DIRECTION] = -table[L.DIRECTION]
    actions = env.sample_actions()
    env.step(actions)
    replays[0].follow(int(actions[0]))
    with pytest.raises((AssertionError, IllegalAction)):
        replays[1].follow(int(actions[1]))


def test_hidden_cards_do_not_reach_the_observation_or_the_mask() -> None:
    """Tables that differ only in what the learner cannot see encode alike, natively."""
    rules = Rules(knockout_hand="discard_bottom")
    env = NativeVectorEnv(6, 4, rules, seat=1)
    env.reset(seed=3)
    batch = Batch(rules, 1, 4)
    rng = random.Random(0)
    obs = np.zeros(OBS_SIZE, np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    scratch, lst = np.zeros(NUM_ACTIONS, np.uint8), np.zeros(NUM_ACTIONS + 1, np.int64)
    checked = 0
    for _ in range(40):
        env.step(env.sample_actions())
        for row in range(env.num_envs):
            state = env.state(row)
            other = determinize(player_view(state, 1), rng)
            if all(
                sorted(state.hands[s], key=Card.sort_key) == sorted(other.hands[s], key=Card.sort_key)
                for s in (0, 2, 3)
            ):
                continue
            batch.load(0, other)
            E.observe(batch.tables[0], 1, OBS_OFFSETS, E.rules_row(rules), obs)
            E.mask(batch.tables[0], batch.encoded, 1, RL_OF_NATIVE, mask, scratch, lst)
            assert _same(obs, env.observations[row]) and _same(mask, env.masks[row])
            checked += 1
    assert checked > 100


def _trace(env: NativeVectorEnv, seed: object, steps: int) -> list[np.ndarray]:
    obs, masks = env.reset(seed=seed)  # type: ignore[arg-type]
    out = [obs.copy(), masks.copy()]
    for _ in range(steps):
        obs, masks, rewards, dones = env.step(env.sample_actions())
        out += [obs.copy(), masks.copy(), rewards.copy(), dones.copy()]
    return out


def test_auto_reset_deals_a_finished_row_again_in_the_same_step() -> None:
    env = NativeVectorEnv(8, players=2)
    env.reset(seed=5)
    finished = 0
    for _ in range(400):
        obs, masks, rewards, dones = env.step(env.sample_actions())
        assert (masks.sum(axis=1) > 0).all()
        assert (rewards[~dones] == 0).all()
        for row in np.flatnonzero(dones):
            assert rewards[row] in (1.0, -1.0)
            assert not np.array_equal(env.final_observations[row], obs[row])
            assert env.final_observations[row, 147 + 5] == 1.0 or env.final_observations[row, 230] == 0.0
            finished += 1
    assert finished >= 20 and len(env.episode_returns) == finished


def test_rows_are_seeded_one_by_one_and_reproducibly() -> None:
    a = _trace(NativeVectorEnv(3, players=4), 7, 120)
    assert all(_same(x, y) for x, y in zip(a, _trace(NativeVectorEnv(3, players=4), 7, 120), strict=True))
    assert not all(
        np.array_equal(x, y) for x, y in zip(a, _trace(NativeVectorEnv(3, players=4), 8, 120), strict=True)
    )
    # row i of seed s is the row seeded s + i alone, or by a list
    alone = _trace(NativeVectorEnv(1, players=4), 9, 120)
    assert all(_same(x[2:3], y) for x, y in zip(a, alone, strict=True))
    listed = _trace(NativeVectorEnv(3, players=4), [7, 8, 9], 120)
    assert all(_same(x, y) for x, y in zip(a, listed, strict=True))


def test_worker_processes_play_the_same_rows() -> None:
    local = _trace(NativeVectorEnv(5, players=3), 1, 60)
    with NativeVectorEnv(5, players=3, workers=2) as env:
        assert all(_same(x, y) for x, y in zip(local, _trace(env, 1, 60), strict=True))
        obs = env.observations.copy()
        actions = env.sample_actions()
        actions[4] = int(np.flatnonzero(env.masks[4] == 0)[0])
        with pytest.raises(ValueError, match="row 4"):
            env.step(actions)
        assert _same(obs, env.observations)
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros(5, np.int64))


def test_worker_processes_play_heuristic_opponents_alike() -> None:
    local = _trace(NativeVectorEnv(4, players=4, opponents=["heuristic", "random", "heuristic"]), 2, 60)
    with NativeVectorEnv(4, players=4, opponents=["heuristic", "random", "heuristic"], workers=2) as env:
        assert all(_same(x, y) for x, y in zip(local, _trace(env, 2, 60), strict=True))


def test_bad_input_raises_and_changes_nothing() -> None:
    env = NativeVectorEnv(3, players=2, log_size=64)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, np.int64))
    env.reset(seed=0)
    before = [env.state(row) for row in range(3)]
    obs, masks = env.observations.copy(), env.masks.copy()
    illegal = env.sample_actions()
    illegal[1] = int(np.flatnonzero(masks[1] == 0)[0])
    for actions, message in [
        (np.zeros(4, np.int64), "expected 3 actions"),
        (np.zeros((3, 1), np.int64), "expected 3 actions"),
        (np.zeros(3, np.float32), "integer"),
        (np.array([0, NUM_ACTIONS, 0]), "row 1: action 224 is outside"),
        (np.array([-1, 0, 0]), "row 0: action -1 is outside"),
        (illegal, f"row 1: action {illegal[1]} is not legal"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.step(actions)
        assert [env.state(row) for row in range(3)] == before
        assert _same(obs, env.observations) and _same(masks, env.masks)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"players": 7}, "2 to 6"),
        ({"seat": 2}, "learner seat"),
        ({"reward": "score"}, "reward"),
        ({"opponents": "expert"}, "no native kernel: choose from heuristic, random"),
        ({"opponents": ["random", "random"]}, "2 opponents named for 1"),
        ({"workers": 9}, "workers"),
        ({"workers": 1, "log_size": 8}, "in-process"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"num_envs": 2, "players": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        NativeVectorEnv(**args)  # type: ignore[arg-type]


def test_bad_seeds_are_refused() -> None:
    env = NativeVectorEnv(2)
    for seed, message in [([1], "1 seeds for 2 rows"), (-1, "seed"), ([0, "x"], "seed"), (True, "seed")]:
        with pytest.raises(ValueError, match=message):
            env.reset(seed=seed)  # type: ignore[arg-type]


def test_the_gymnasium_vector_api() -> None:
    n = 4
    env = NativeGymVectorEnv(n, players=3, rules="no_mercy")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.num_envs == n
    assert env.single_observation_space == spaces.Box(0.0, 1000.0, (OBS_SIZE,), np.float32)
    assert env.single_action_space == spaces.Discrete(NUM_ACTIONS)
    assert env.observation_space.shape == (n, OBS_SIZE) and env.observation_space.dtype == np.float32
    assert isinstance(env.action_space, spaces.MultiDiscrete) and env.action_space.shape == (n,)
    obs, info = env.reset(seed=2)
    assert obs.dtype == np.float32 and obs in env.observation_space
    assert info["action_mask"].shape == (n, NUM_ACTIONS) and info["action_mask"].dtype == np.int8
    assert info["_action_mask"].all()
    finals = 0
    for _ in range(300):
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and _same(masks, info["action_mask"].astype(bool))
        actions = np.array([env.single_action_space.sample(mask=m.astype(np.int8)) for m in masks])
        assert actions in env.action_space
        obs, rewards, terminations, truncations, info = env.step(actions)
        assert obs in env.observation_space
        assert rewards.shape == (n,) and rewards.dtype == np.float32
        assert terminations.dtype == np.bool_ and truncations.dtype == np.bool_ and not truncations.any()
        if terminations.any():
            assert _same(info["_final_obs"], terminations) and info["final_obs"].shape == (n, OBS_SIZE)
            finals += 1
        else:
            assert "final_obs" not in info
    assert finals > 5
    env.close()


def test_gymnasium_vector_wrappers_see_the_episodes() -> None:
    env = RecordEpisodeStatistics(NativeGymVectorEnv(4, players=2))
    env.reset(seed=0)
    inner = env.unwrapped
    assert isinstance(inner, NativeGymVectorEnv)
    ended = 0
    for _ in range(100):
        _, rewards, terminations, _, info = env.step(inner.env.sample_actions())
        ended += int(terminations.sum())
        if terminations.any():
            assert _same(info["_episode"], terminations)
            assert (info["episode"]["r"][terminations] == rewards[terminations]).all()
    assert ended > 10 and len(env.return_queue) == ended
    env.close()


def test_the_sampler_picks_each_legal_action_alike_and_nothing_else() -> None:
    """``vector.sample`` reads the masks eight flags to a word: every pick is a legal
    action of its row (the first and last of a word, of a row, alone in a row), -1 for a
    row with none, and each legal action of a row comes up about equally often."""
    from nomercy.native import vector as V

    width = -(-NUM_ACTIONS // 8) * 8
    flags = np.zeros((6, width), np.int8)
    flags[0, [0, 7, 8, 63, NUM_ACTIONS - 1]] = 1
    flags[1, NUM_ACTIONS - 1] = 1
    flags[2, 0] = 1
    flags[4, :NUM_ACTIONS] = 1
    flags[5, 9:40:3] = 1  # row 3 has none
    words = flags.view(np.uint64)
    rng = np.arange(1, 19, dtype=np.uint64).reshape(6, 3)
    out = np.empty(6, np.int64)
    counts = np.zeros((6, width), np.int64)
    for _ in range(6000):
        V.sample(words, rng, out)
        assert out[3] == -1
        for row in (0, 1, 2, 4, 5):
            assert flags[row, out[row]] == 1
            counts[row, out[row]] += 1
    for row in (0, 5):
        legal = np.flatnonzero(flags[row])
        expected = 6000 / len(legal)
        chi2 = float((((counts[row, legal] - expected) ** 2) / expected).sum())
        assert chi2 < 3 * len(legal) + 30, (row, counts[row, legal])
