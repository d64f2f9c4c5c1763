"""The environments' encoder (nomercy.encoding.fast) against the reference one.

``StateEncoder`` writes observations and masks straight from the state; the reference,
``encoding.observe`` / ``encoding.legal_mask``, reads ``player_view``. They must agree bit
for bit everywhere (the encoding's version did not change), and the fast one must not
see more than a view shows.
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")
pytest.importorskip("gymnasium", reason="the rl extra is not installed")

import nomercy  # noqa: E402
from nomercy import Action, Catch, GameState, Rules, determinize  # noqa: E402
from nomercy import encoding as enc  # noqa: E402
from nomercy.cards import Card  # noqa: E402
from nomercy.encoding.fast import StateEncoder, legal_index_list  # noqa: E402
from nomercy.rl import NoMercyEnv, VectorEnv  # noqa: E402
from nomercy.rl import pettingzoo as nm  # noqa: E402
from nomercy.rl.single import SingleAgentGame  # noqa: E402
from nomercy.views import player_view  # noqa: E402

from .helpers import random_states  # noqa: E402

#: Presets and house-rule mixes that reach every section: knock-outs under the discard
#: pile (M2, ``buried``), hands received by a Seven or Zero (U1 holding_one), the W6
#: challenge, RLCard's values (drawn cards played at once).
RULES = {
    "no_mercy": Rules(),
    "no_mercy+discard_bottom": Rules(knockout_hand="discard_bottom", uno_timing="holding_one"),
    "classic": Rules.preset("classic"),
    "classic+challenge": Rules.preset("classic").replace(
        wild_draw4_challenge=True, wild_draw4_restricted=False
    ),
    "rlcard": Rules.preset("rlcard"),
}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("name", list(RULES))
def test_the_fast_encoder_gives_the_reference_observation_and_mask_everywhere(
    players: int, name: str
) -> None:
    rules = RULES[name]
    if players > rules.max_players:
        pytest.skip(f"{name} seats at most {rules.max_players}")
    positions = buried = 0
    for seed in range(6):
        following = StateEncoder()  # one per round: counts the discard pile as it grows
        for state in random_states(players, rules, seed, max_steps=150):
            fresh = StateEncoder()  # counts it from scratch
            buried += state.buried > 0
            for seat in range(players):
                view = player_view(state, seat)
                want_obs, want_mask = enc.observe(view), enc.legal_mask(view)
                for encoder in (following, fresh):
                    assert _same(encoder.observe(state, seat), want_obs), (seed, state.step, seat)
                    assert _same(encoder.mask(state, seat), want_mask), (seed, state.step, seat)
                out_obs = np.full(enc.OBS_SIZE, 7.0, np.float32)
                out_mask = np.full(enc.NUM_ACTIONS, 3, np.int8)
                assert following.observe(state, seat, out_obs) is out_obs and _same(out_obs, want_obs)
                assert following.mask(state, seat, out_mask) is out_mask and _same(out_mask, want_mask)
                positions += 1
    assert positions > 150
    if name == "no_mercy+discard_bottom" and players >= 4:
        assert buried > 0  # the rounds did bury a hand under the discard pile


def test_the_discard_counts_follow_reshuffles_clones_and_other_states() -> None:
    """The kept counts are only reused for the same state, pile, reshuffle and burial."""
    encoder = StateEncoder()
    reshuffled = 0
    classic = Rules.preset("classic")  # long rounds: the draw pile runs out
    for seed in range(4):
        rng = random.Random(seed)
        state = nomercy.new_game(2, classic, seed=seed)
        copies: list[GameState] = []
        while not state.is_over and state.step < 500:
            seat = state.current
            assert seat is not None
            for source in (state, *copies[-2:]):  # interleave with older clones
                assert _same(encoder.observe(source, seat), enc.observe(player_view(source, seat)))
            copies.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
        reshuffled += state.shuffles > 0
    assert reshuffled > 0


def test_action_indices_by_identity_match_the_table_even_for_fresh_objects() -> None:
    state = nomercy.new_game(4, seed=9)
    for _ in range(60):
        if state.is_over:
            break
        for seat in range(4):
            legal = state.legal_actions(seat)
            want = [enc.action_to_index(a, seat, 4) for a in legal]
            assert legal_index_list(legal, seat, 4) == want
            fresh = [Action.parse(str(a)) for a in legal]  # equal values, new objects
            assert legal_index_list(fresh, seat, 4) == want
        state.apply(random.Random(state.step).choice(state.legal_actions()))
    with pytest.raises(ValueError, match="no index"):
        legal_index_list([Catch(1)], 1, 4)  # a seat cannot catch itself


@pytest.mark.parametrize("players", [2, 4])
def test_re_dealing_what_a_seat_cannot_see_changes_nothing(players: int) -> None:
    rng = random.Random(players)
    encoder = StateEncoder()
    checked = 0
    for seed in range(4):
        for state in random_states(players, Rules(knockout_hand="discard_bottom"), seed + 50):
            seat = rng.randrange(players)
            other = determinize(player_view(state, seat), rng)
            if all(
                sorted(state.hands[s], key=Card.sort_key) == sorted(other.hands[s], key=Card.sort_key)
                for s in range(players)
                if s != seat
            ):
                continue
            assert _same(encoder.observe(state, seat), encoder.observe(other, seat))
            assert _same(encoder.mask(state, seat), encoder.mask(other, seat))
            checked += 1
    assert checked > 50


def test_pettingzoo_observations_are_the_reference_ones() -> None:
    env = nm.env(players=4, rules="no_mercy")
    raw = env.unwrapped
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            view = player_view(raw.state_, raw._seat[agent])
            assert _same(obs["observation"], enc.observe(view))
            if terminated or truncated:
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            assert _same(obs["action_mask"], enc.legal_mask(view))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_gymnasium_observations_are_the_reference_ones() -> None:
    env = NoMercyEnv(players=3, seat=None, opponents=["random", "heuristic"])
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        done = False
        while True:
            state, seat = env.game.state, env.game.seat
            assert state is not None
            view = player_view(state, seat)
            assert _same(obs, enc.observe(view))
            if done:
                assert not info["action_mask"].any()
                break
            assert _same(info["action_mask"], enc.legal_mask(view))
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            action = int(np.random.default_rng(seed).choice(np.flatnonzero(info["action_mask"])))
            obs, _, done, _, info = env.step(action)


@pytest.mark.parametrize("opponents", ["random", ["random", "heuristic"]])
def test_random_bots_play_the_same_rounds_without_views(opponents: str | list[str]) -> None:
    """The shortcut for plain random bots (rl.single) plays what the bots' own loop plays."""
    rules = Rules()
    games = [SingleAgentGame(3, rules, opponents, seat=1) for _ in range(2)]
    games[1].shortcut = False
    for seed in range(30):
        for game in games:
            game.reset(seed)
        assert games[0].plain_random == (opponents == "random")
        assert not games[1].plain_random
        rng = random.Random(seed)
        while True:
            a, b = games[0].state, games[1].state
            assert a is not None and b is not None
            assert a == b
            if games[0].done:
                break
            view = player_view(a, 1)
            index = enc.action_to_index(rng.choice(view.legal_actions), 1, 3)
            assert games[0].play(index) == games[1].play(index)


def test_vector_rows_after_auto_reset_are_the_reference_ones() -> None:
    venv = VectorEnv(4, players=2)
    venv.reset(seed=1)
    ended = 0
    for _ in range(120):
        obs, masks, _, dones = venv.step(venv.sample_actions())
        ended += int(dones.sum())
        for i, game in enumerate(venv.games):
            assert game.state is not None
            view = player_view(game.state, 0)
            assert _same(obs[i], enc.observe(view)) and _same(masks[i], enc.legal_mask(view))
    assert ended > 0
