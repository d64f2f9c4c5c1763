"""The native heuristic bot is the reference bot (``nomercy.bots.heuristic``), decision by
decision and game by game.

At every decision of seeded games under every rule mix and table size, the native choice
must be ``HeuristicBot.choose`` of the seat's view, and every seat's native reaction the
reference's ``react`` drawing from a generator seeded alike; hand-built positions pin the
rules where the scores are close (stacks, Sevens, the Roulette's color, the Wild Draw 4
challenge, a drawn card, ties); whole games played natively end as the bot runner's do,
row for row. ``NOMERCY_HEURISTIC_GAMES`` scales the games per case (default 20: about
90,000 positions over the 50 cases and 600 whole games, a few seconds of CPU once numba's
cache holds the kernels).
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from nomercy import Action, GameState, Rules, new_game
from nomercy.bots.heuristic import HeuristicBot, react
from nomercy.bots.runner import play_round, step
from nomercy.testing import BASE_MIXES, RULE_MIXES, deal_cases
from nomercy.views import determinize, player_view

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

from nomercy.native import Batch
from nomercy.native.heuristic import (
    GAME_COLUMNS,
    generator,
    generator_random,
    heuristic_action,
    heuristic_games,
    heuristic_playouts,
    heuristic_reaction,
)
from nomercy.sim.runner import RunSpec, bot_seed, play_game

GAMES = int(os.environ.get("NOMERCY_HEURISTIC_GAMES", "20"))
MIXES = {**BASE_MIXES, "rlcard": Rules.preset("rlcard")}
CASES = deal_cases(MIXES)
BOT = HeuristicBot(seed=0)


def _move(state: GameState, rng: random.Random) -> tuple[int, Action]:
    """Half heuristic, half random moves (so positions stray from the bot's own games);
    while a seat is open to a catch, now and then another seat's out-of-turn action."""
    if state.uno_open and rng.random() < 0.3:
        seats = [x for x in range(state.players) if x != state.current and state.legal_actions(x)]
        if seats:
            seat = rng.choice(seats)
            return seat, rng.choice(state.legal_actions(seat))
    seat = state.current
    assert seat is not None
    if rng.random() < 0.5:
        return seat, BOT.choose(player_view(state, seat))
    return seat, rng.choice(state.legal_actions())


def _compare_reactions(batch: Batch, state: GameState, rng: random.Random, where: str) -> int:
    """Every active seat's reaction, native and reference, from generators seeded alike."""
    compared = 0
    for seat in range(state.players):
        if not state.active[seat]:
            continue
        seed = rng.getrandbits(63)
        miss = rng.choice((0.0, 0.2, 0.5, 1.0))
        py = random.Random(seed)
        mt = generator(seed)
        for _ in range(3):  # the generators stay in step: the same draws, or none
            want = react(player_view(state, seat), py.random, miss)
            got = heuristic_reaction(batch, 0, seat, mt, miss)
            assert got == want, f"{where}: P{seat} reacts {got}, the reference {want}"
        assert generator_random(mt) == py.random(), f"{where}: P{seat}'s generators drifted"
        compared += 1
    return compared


@pytest.mark.parametrize(("mix", "players"), CASES, ids=[f"{m}-{p}p" for m, p in CASES])
def test_every_native_choice_is_the_reference_bots(mix: str, players: int) -> None:
    rules = MIXES[mix]
    batch = Batch(rules, 1, players)
    decisions = reactions = 0
    for seed in range(500 * players, 500 * players + GAMES):
        rng = random.Random(seed)
        state = new_game(players, rules, seed)
        batch.deal(0, seed)
        steps = 0
        while state.current is not None and steps < 3000:
            where = f"{mix} {players}p seed {seed} step {steps}"
            want = BOT.choose(player_view(state, state.current))
            assert heuristic_action(batch, 0) == want, f"{where} ({state.decision.name})"
            decisions += 1
            if state.uno_open:
                reactions += _compare_reactions(batch, state, rng, where)
            if steps % 25 == 24:  # blindness: another world behind the same view
                world = determinize(player_view(state, state.current), rng)
                other = Batch(rules, 1, players)
                other.load(0, world)
                assert heuristic_action(other, 0) == want, f"{where}: the choice saw hidden cards"
            seat, action = _move(state, rng)
            state.apply(action, seat)
            batch.step(0, action, seat)
            steps += 1
    assert decisions >= GAMES


def _position(hands: list[str], discard: str = "R5", **fields: Any) -> GameState:
    data: dict[str, Any] = {
        "players": len(hands),
        "hands": [h.split() for h in hands],
        "discard_pile": discard.split(),
        "draw_pile": fields.pop("draw", "").split(),
        "current": 0,
        **fields,
    }
    return GameState.from_dict(data)


_BIG = "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y6 Y6 Y8 Y8 Y9 Y9 G1 G1 G2"
POSITIONS: dict[str, tuple[GameState, str]] = {
    # K2: the lowest sufficient Draw card.
    "stack-lowest": (
        _position(
            ["B+4 W+10 G1 G2 Y3", "Y1 Y2 Y3 Y4 Y6", "G3 G4 G6 G8 G9", "B1 B2 B3 B6 B8"],
            "R+2 R5",
            pending={"total": 2, "last_value": 2, "by": 3},
            decision="stack",
        ),
        "play B+4",
    ),
    # K2 + M1: the card that takes the victim to the Mercy limit.
    "stack-knock-out": (
        _position(
            ["B+4 W+6 G4 G6", _BIG, "G8 G9 B1", "B2 B3 B6"],
            "R+2 R5",
            pending={"total": 2, "last_value": 2, "by": 3},
            decision="stack",
        ),
        "play W+6 G",
    ),
    # K2: take two rather than spend the one Wild Draw 10.
    "stack-insurance": (
        _position(
            ["W+10 G1 G2 Y3", "Y1 Y2 Y3 Y4 Y6", "G3 G4 G6 G8 G9", "B1 B2 B3 B6 B8"],
            "R+2 R5",
            pending={"total": 2, "last_value": 2, "by": 3},
            decision="stack",
        ),
        "take",
    ),
    # K6: a Wild Reverse Draw 4 aims the total back at the seat before.
    "stack-reverse": (
        _position(
            ["WR+4 R+2 G4 G6", "Y1 Y2 Y3", "G8 G9 B1 B3", "B2"],
            "R+2 R5",
            pending={"total": 2, "last_value": 2, "by": 3},
            decision="stack",
        ),
        "play WR+4 G",
    ),
    # N1: the Seven at the smallest hand.
    "seven-smallest": (
        _position(["R7 R1 B2 G3 Y4 Y6", "Y1 Y2 Y3 Y4 Y6", "G1 G2", "B1 B3 B4 B6"]),
        "play R7 @2",
    ),
    # N1, a tie between seats 0 and 3 for seat 2: the reference lists targets by seat, not
    # by offset (offset 1 is seat 3), so seat 0 wins the tie.
    "seven-tie": (
        _position(["Y1 Y2", "B1 B3 B4 B6 B8", "R7 R1 B2 G3 Y4 Y6", "G1 G2"], current=2),
        "play R7 @0",
    ),
    # W4: the victim names the color with the most unseen cards.
    "roulette-victim": (
        _position(
            ["B1 B2 B3 B4 B6 B8 B9 BS", "Y1 Y2", "G1 G2", "B+2 B+2"],
            "WCR R1 R2 R3 R4 R6 R8 G3 G4 G6 G8 Y5",
            color="Y",
            decision="roulette",
            roulette_by=3,
        ),
        "color Y",
    ),
    # W4 with buried cards (M2 discard_bottom): the face-down ones count as unseen. Seven
    # yellows are buried under the pile and four greens lie face up, so green is the
    # less plentiful and the victim names yellow, which it cannot see.
    "roulette-buried": (
        _position(
            ["B1 B2 R1", "Y1 Y2", "G1 G2"],
            "WCR G1 G2 G3 G4 Y1 Y2 Y3 Y4 Y6 Y8 Y9",
            color="R",
            decision="roulette",
            roulette_by=2,
            discard_buried=7,
            rules={"knockout_hand": "discard_bottom"},
        ),
        "color Y",
    ),
    # W6: challenging an unlawful-looking Wild Draw 4 costs less than taking it.
    "wd4-challenge": (
        _position(
            ["R1 G2 Y3", "B1 B2 B3 B4", "G4 G6 G8"],
            "W+4 R5",
            color="B",
            pending={"total": 4, "last_value": 4, "by": 2},
            decision="challenge",
            challenge={"color": "G", "cards": 3},
            rules=Rules.preset("classic").to_dict(only_changes=True),
        ),
        "challenge",
    ),
    # T2: a drawn card that may be kept.
    "play-drawn": (
        _position(
            ["R2 R3 B4 G6", "Y1 Y2 Y3", "G1 G2 G3"],
            decision="play_drawn",
            drawn="R2",
            rules={"must_play_drawn": False},
        ),
        "play R2",
    ),
    # T5: a first wild names the color held most.
    "choose-color": (
        _position(
            ["G1 G2 G3 B1", "Y1 Y2 Y3", "R1 R2 R3"],
            "W+6",
            color=None,
            decision="choose_color",
            rules={"first_card": "apply"},
        ),
        "color G",
    ),
    # U1: of a play with and without the call, the one with it; ties by card index.
    "uno-call-tie": (_position(["G5 B5", "Y1 Y2 Y3", "G1 G2 G3"]), "play G5 uno"),
    # W1: with two players a Wild Reverse Draw 4 comes back under "self": only with a follow-up.
    "two-player-reverse-self": (
        _position(
            ["WR+4 B+4 B1 B2", "Y1 Y2 Y3 Y4"],
            "R5",
            rules={"two_player_reverse_draw": "self"},
        ),
        "play WR+4 B",
    ),
}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_hand_built_positions_choose_as_the_reference(name: str) -> None:
    state, expected = POSITIONS[name]
    batch = Batch(state.rules, 1, state.players)
    batch.load(0, state)
    assert state.current is not None
    want = HeuristicBot(seed=0).choose(player_view(state, state.current))
    got = heuristic_action(batch, 0)
    assert got == want
    assert str(got) == expected


def test_the_choice_is_blind_to_hidden_cards() -> None:
    """Two tables that differ only in other hands and the draw pile's order: one choice."""
    rng = random.Random(5)
    rules = Rules()
    batch = Batch(rules, 2, 4)
    for seed in range(12):
        state = new_game(4, rules, seed)
        for _ in range(rng.randrange(30)):
            if state.current is None:
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.current is None:
            continue
        view = player_view(state, state.current)
        a, b = determinize(view, random.Random(seed)), determinize(view, random.Random(seed + 99))
        assert a.hands[state.current] == b.hands[state.current]
        batch.load(0, a)
        batch.load(1, b)
        assert heuristic_action(batch, 0) == heuristic_action(batch, 1)


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1], ids=lambda s: f"seed-{s}")
def test_the_generator_is_cpythons_random(seed: int) -> None:
    mt = generator(seed)
    py = random.Random(seed)
    assert [generator_random(mt) for _ in range(1300)] == [py.random() for _ in range(1300)]


def _row(native: dict[str, int], players: int) -> dict[str, Any]:
    """A native result as the simulator's row fields."""
    knocked = native["knockouts"]
    by = [native[f"knocked_out_by_{i}"] for i in range(knocked)]
    seats = [native[f"knocked_out_{i}"] for i in range(knocked)]
    return {
        "dealer": native["dealer"],
        "first_player": native["first_player"],
        "winner": native["winner"],
        "reason": ("played_out", "last_standing")[native["reason"]],
        "decisions": native["decisions"],
        "cards_drawn": native["cards_drawn"],
        "largest_stack": native["largest_stack"],
        "knockouts": knocked,
        "knocked_out": seats,
        "knocked_out_by": [-1 if b == s else b for b, s in zip(by, seats, strict=True)],
        "catches": native["catches"],
        "reshuffles": native["reshuffles"],
        "points": [native[f"points_{i}"] for i in range(players)],
    }


GAME_CASES = [
    ("no_mercy", 4),
    ("no_mercy", 2),
    ("classic", 3),
    ("rlcard", 2),
    ("no_mercy_mixed", 5),
    ("mix_b", 3),
]


@pytest.mark.parametrize(("mix", "players"), GAME_CASES, ids=[f"{m}-{p}p" for m, p in GAME_CASES])
def test_native_games_give_the_simulators_rows(mix: str, players: int) -> None:
    """``nomercy.sim`` heuristic games and native ones from the same seeds: the same rows."""
    rules = MIXES[mix]
    spec = RunSpec(games=5 * GAMES, players=players, rules=rules, bots=("heuristic",), seed=7)
    rows = [play_game(spec, i) for i in range(spec.games)]
    seeds = [row["seed"] for row in rows]
    result = heuristic_games(rules, players, seeds, [[bot_seed(s, k) for k in range(players)] for s in seeds])
    for g, row in enumerate(rows):
        native = _row(dict(zip(GAME_COLUMNS, result.table[g].tolist(), strict=True)), players)
        assert native == {k: row[k] for k in native}, f"game {g} (seed {seeds[g]})"


def test_native_games_end_in_the_runners_final_states() -> None:
    """Every table keeps its last game: the same final state as ``play_round``'s, with an
    unusual ``catch_miss`` (the generator decides which catches happen)."""
    rules = RULE_MIXES["mix_c"]
    seeds = [11, 12, 13]
    bots = [[1000 * s + k for k in range(4)] for s in seeds]
    result = heuristic_games(rules, 4, seeds, bots, catch_miss=0.6, tables=len(seeds))
    for g, seed in enumerate(seeds):
        players = [HeuristicBot(seed=k, catch_miss=0.6) for k in bots[g]]
        final = play_round(new_game(4, rules, seed), players)
        assert result.final_state(g) == final
        assert result.column("winner")[g] == final.outcome.winner  # type: ignore[union-attr]


def test_refusals_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="2\\*\\*63"):
        generator(-1)
    with pytest.raises(ValueError, match="catch_miss"):
        heuristic_games(Rules(), 2, [1], [[1, 2]], catch_miss=1.5)
    with pytest.raises(ValueError, match="rows of bot seeds"):
        heuristic_games(Rules(), 2, [1, 2], [[1, 2]])
    result = heuristic_games(Rules(), 2, [1, 2], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="dealt again"):
        result.final_state(0)
    with pytest.raises(ValueError, match="no column"):
        result.column("loser")
    batch = Batch(Rules(), 1, 2)
    batch.load(0, result.final_state(1))
    with pytest.raises(ValueError, match="over"):
        heuristic_action(batch, 0)
    with pytest.raises(RuntimeError, match="did not end"):
        heuristic_games(Rules(), 2, [1], [[1, 2]], max_steps=3)


def test_playouts_from_a_loaded_position_end_as_play_round() -> None:
    """``heuristic_playouts`` plays a mid-round position on as ``play_round`` does from
    the same state with the same bots: the same final state, the same winner."""
    rules = RULE_MIXES["mix_c"]
    batch = Batch(rules, 3, 4)
    starts: list[GameState] = []
    seed = 20
    while len(starts) < 3:
        seed += 1
        state = new_game(4, rules, seed)
        bots = [HeuristicBot(seed=seed * 10 + k) for k in range(4)]
        for _ in range(8 + 4 * len(starts)):  # a few turns in, reactions included
            if state.outcome is None:
                list(step(state, bots))
        if state.outcome is None:
            batch.load(len(starts), state)
            starts.append(state.clone())
    seeds = [[500 + 10 * t + k for k in range(4)] for t in range(3)]
    result = heuristic_playouts(batch, seeds, catch_miss=0.4)
    for t, start in enumerate(starts):
        final = play_round(start, [HeuristicBot(seed=k, catch_miss=0.4) for k in seeds[t]])
        assert batch.state(t) == final
        assert result.column("winner")[t] == final.outcome.winner  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="round is over"):
        heuristic_playouts(batch, seeds)
    with pytest.raises(ValueError, match="rows of bot seeds"):
        heuristic_playouts(batch, seeds[:1])
