"""Native expert playouts are the Python ones: the same value for every (world, candidate),
hence the same search and the same decisions for a seed and a budget.

Worlds come from the expert's own sampling (``determinize`` of a seat's view) of positions
reached by mixed heuristic and random play under every rule mix at 2, 3, 4 and 6 seats; every
turn action of the deciding seat is played out both ways and the float values must be
equal, not close. Then whole decisions and whole games: a native and a Python expert of
one seed choose alike. Plus legality, blindness and the option's checks.
"""

from __future__ import annotations

import os
import random

import pytest

from nomercy import GameState, Rules, new_game
from nomercy.bots import make
from nomercy.bots.expert import _EXP, ExpertBot, playout
from nomercy.bots.heuristic import best_action, score_actions, table_from_state, table_from_view
from nomercy.bots.runner import play_round
from nomercy.testing import BASE_MIXES, deal_cases
from nomercy.views import determinize, player_view

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

from nomercy.native.playout import Playouts

GAMES = int(os.environ.get("NOMERCY_PLAYOUT_GAMES", "3"))
MIXES = {**BASE_MIXES, "rlcard": Rules.preset("rlcard")}
CASES = deal_cases(MIXES, players=(2, 3, 4, 6))


def positions(rules: Rules, players: int, games: int, seed: int) -> list[GameState]:
    """Positions of half heuristic, half random games, every 5th decision."""
    rng = random.Random(seed)
    out: list[GameState] = []
    for g in range(games):
        state = new_game(players, rules, seed=seed * 100 + g)
        for step in range(400):
            if state.current is None:
                break
            if step % 5 == 0:
                out.append(state.clone())
            legal = state.legal_actions()
            heuristic = rng.random() < 0.5
            state.apply(best_action(table_from_state(state), legal) if heuristic else rng.choice(legal))
    return out


@pytest.mark.parametrize(("mix", "players"), CASES)
def test_native_playouts_give_the_python_values(mix: str, players: int) -> None:
    rules = MIXES[mix]
    rng = random.Random(players)
    native = Playouts(rules, players, _EXP, capacity=2)  # small: loading grows it
    checked = 0
    for k, state in enumerate(positions(rules, players, GAMES, seed=len(mix) * 7 + players)):
        seat = state.current
        assert seat is not None
        view = player_view(state, seat)
        actions = [a for a in view.legal_actions if not a.out_of_turn]
        depth = 1 + k % 25
        native.clear()
        worlds = [determinize(view, rng) for _ in range(2)]
        for w in worlds:
            native.add(w)
        jobs = [(w, a) for w in range(len(worlds)) for a in actions]
        got = native.values([w for w, _ in jobs], [a for _, a in jobs], seat, depth)
        for (w, a), value in zip(jobs, got, strict=True):
            s = worlds[w].clone()
            s.apply(a, seat)
            assert value == playout(s, seat, depth), (mix, players, state.to_json(), str(a), depth)
            checked += 1
        grid = native.grid(0, len(worlds), native.codes(actions, seat), seat, depth)
        assert grid.ravel().tolist() == got  # world-major, the actions in order within
    assert checked > 20


def _decision_positions(count: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        players = rng.choice((2, 3, 4, 5))
        state = new_game(players, seed=rng.getrandbits(32))
        for _ in range(rng.randint(0, 60)):
            if state.current is None:
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.current is not None:
            out.append(state)
    return out


def test_native_and_python_experts_decide_alike() -> None:
    """Same seed, same budget, the reference heuristic in the playouts: the same action and
    the same number of playouts."""
    searched = 0
    for i, state in enumerate(_decision_positions(40, seed=3)):
        view = player_view(state, state.current)
        fast = ExpertBot(seed=i, budget=30, native=True, policy="heuristic")
        slow = ExpertBot(seed=i, budget=30, native=False)
        action = fast.choose(view)
        assert action == slow.choose(view), state.to_json()
        assert fast.last_playouts == slow.last_playouts
        assert action in view.legal_actions
        searched += fast.last_playouts > 0
    assert searched > 20


def test_native_and_python_experts_play_the_same_games() -> None:
    for players, seed in ((2, 1), (4, 2)):
        logs: list[list[str]] = []
        for native in (True, False):
            log: list[str] = []
            bots = [
                ExpertBot(seed=10 + k, budget=12, native=native, policy="heuristic")
                if k % 2 == 0
                else make("heuristic", seed=k)
                for k in range(players)
            ]
            state = play_round(
                new_game(players, seed=seed), bots, lambda s, a, ev, log=log: log.append(f"{s}:{a}")
            )
            assert state.outcome is not None
            logs.append(log)
        assert logs[0] == logs[1] and len(logs[0]) > 10


def test_native_expert_is_blind_to_hidden_cards() -> None:
    """Hidden cards dealt again (the same view): the same decision."""
    rng = random.Random(8)
    for i, state in enumerate(_decision_positions(12, seed=9)):
        seat = state.current
        assert seat is not None
        view = player_view(state, seat)
        other = determinize(view, rng)
        assert player_view(other, seat) == view
        first = ExpertBot(seed=i, budget=20, native=True).choose(view)
        assert ExpertBot(seed=i, budget=20, native=True).choose(player_view(other, seat)) == first


def test_native_option_is_checked_and_large_tables_fall_back() -> None:
    with pytest.raises(ValueError, match="native"):
        make("expert", native="fast")
    with pytest.raises(ValueError, match="seat"):
        Playouts(Rules(), 7, _EXP)
    state = new_game(7, Rules(max_players=8), seed=3)
    view = player_view(state, state.current)
    assert len(score_actions(table_from_view(view), view.legal_actions)) > 1  # a search
    auto = ExpertBot(seed=1, budget=10)
    assert auto.native
    assert auto.choose(view) in view.legal_actions  # seven seats: Python playouts
    with pytest.raises(ValueError, match="at most 6 players"):
        ExpertBot(seed=1, budget=10, native=True).choose(view)


def test_the_playout_policy_option() -> None:
    """Native playouts play the tuned weights unless told otherwise; Python ones cannot."""
    assert ExpertBot(seed=1, native=True).policy == "tuned"
    assert ExpertBot(seed=1, native=False).policy == "heuristic"
    assert ExpertBot(seed=1, native=True, policy="heuristic").policy == "heuristic"
    with pytest.raises(ValueError, match="policy is heuristic or tuned"):
        make("expert", policy="greedy")
    with pytest.raises(ValueError, match="needs native=true"):
        make("expert", native=False, policy="tuned")


def test_tuned_playouts_play_other_games() -> None:
    """The weights reach the playouts: the reference's weights passed explicitly give the
    default values bit for bit, the tuned ones other values on some positions."""
    from nomercy.native.policy import BASE_WEIGHTS, TUNED_WEIGHTS

    rules = Rules()
    rng = random.Random(5)
    plain = Playouts(rules, 2, _EXP)
    base = Playouts(rules, 2, _EXP, mine=BASE_WEIGHTS, theirs=BASE_WEIGHTS)
    tuned = Playouts(rules, 2, _EXP, mine=TUNED_WEIGHTS, theirs=TUNED_WEIGHTS)
    differ = compared = 0
    for state in positions(rules, 2, 4, seed=2):
        seat = state.current
        if seat is None:
            continue
        world = determinize(player_view(state, seat), rng)
        legal = world.legal_actions()
        for playouts in (plain, base, tuned):
            playouts.clear()
            playouts.add(world)
        values = [p.values([0] * len(legal), legal, seat, 20) for p in (plain, base, tuned)]
        assert values[0] == values[1]
        compared += len(legal)
        differ += sum(a != b for a, b in zip(values[0], values[2], strict=True))
    assert compared > 50 and differ > 0
    with pytest.raises(ValueError, match="score weights"):
        Playouts(rules, 2, _EXP, mine=[1.0, 2.0])


def test_playouts_check_their_arguments() -> None:
    state = new_game(2, seed=1)
    seat = state.current
    assert seat is not None
    native = Playouts(Rules(), 2, _EXP)
    action = state.legal_actions()[0]
    with pytest.raises(ValueError, match="world indices"):
        native.values([0], [action], seat, 5)
    native.add(state)
    with pytest.raises(ValueError, match="worlds for"):
        native.values([0, 0], [action], seat, 5)
    with pytest.raises(ValueError, match="depth"):
        native.values([0], [action], seat, 0)
    with pytest.raises(ValueError, match="seats 3"):
        native.add(new_game(3, seed=1))
    codes = native.codes([action], seat)
    with pytest.raises(ValueError, match="not all loaded"):
        native.grid(0, 2, codes, seat, 5)
    with pytest.raises(ValueError, match="seat 2 is not"):
        native.grid(0, 1, codes, 2, 5)
    assert native.grid(0, 1, codes, seat, 5).shape == (1, 1)
    native.clear()
    with pytest.raises(ValueError, match="first world"):
        native.add_hidden([[], []], [], [], [], 1)
    assert len(native) == 0


@pytest.mark.parametrize(("mix", "players"), [c for c in CASES if c[1] in (2, 4)])
def test_worlds_of_one_view_load_as_a_full_load(mix: str, players: int) -> None:
    """``add(world, like_first=True)`` writes only the hidden cards, seed, drawn card and
    decision over the first world's table: the same table as a full load, bit for bit."""
    from nomercy.bots.inference import HandInference
    from nomercy.native.batch import Batch

    rules = MIXES[mix]
    rng = random.Random(4)
    full = Batch(rules, 1, players)
    loaded = 0
    for state in positions(rules, players, 2, seed=6)[:12]:
        if state.current is None:
            continue
        view = player_view(state, state.current)
        inference = HandInference()
        inference.sync(view)
        sampler = inference.sampler(view)
        playouts = Playouts(rules, players, _EXP, capacity=2)
        for k in range(7):
            if k % 3 == 2:  # a deal's card indices, written with no state
                deal = sampler.deal(rng)
                world = deal if isinstance(deal, GameState) else sampler.world(deal)
                if isinstance(deal, GameState):
                    index = playouts.add(world, like_first=True)
                else:
                    index = playouts.add_hidden(*deal)  # hands, draw pile, discard, aside, seed
            else:
                world = sampler.sample(rng) if k % 3 else determinize(view, rng)
                index = playouts.add(world, like_first=True)
            full.load(0, world)
            assert (playouts._batch.tables[index] == full.tables[0]).all()
            loaded += 1
    assert loaded >= 14
