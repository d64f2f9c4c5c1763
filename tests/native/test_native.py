"""The native engine's API: dealing, conversion both ways, actions, refusals, random play."""

from __future__ import annotations

import random

import pytest

import nomercy
from nomercy import GameState, IllegalAction, Rules, new_game
from nomercy.actions import Action

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

import numpy as np

from nomercy.native import ACTIONS, NUM_ACTIONS, Batch, action_index, index_action
from nomercy.native import layout as L


def test_the_action_table_is_the_encodings() -> None:
    """One action numbering for the whole project: the native engine has no table of its own."""
    from nomercy import encoding

    assert ACTIONS is encoding.ACTIONS and NUM_ACTIONS == 224


@pytest.mark.parametrize("players", [2, 3, 6])
def test_action_index_round_trips_for_every_seat(players: int) -> None:
    for seat in range(players):
        for index in range(NUM_ACTIONS):
            if L.A_OFF[index] >= players:
                continue  # an offset past the table's seats: no such action here
            action = index_action(index, seat, players)
            assert action_index(action, seat, players) == index
            assert action_index(Action.parse(str(action)), seat, players) == index


@pytest.mark.parametrize("preset", ["no_mercy", "classic", "rlcard"])
def test_a_dealt_table_is_new_game(preset: str) -> None:
    rules = Rules.preset(preset)
    batch = Batch(rules, 5, 4)
    batch.reset([0, 1, 2**40 + 3, 2**64 - 1, 987654321])
    for table, seed in enumerate([0, 1, 2**40 + 3, 2**64 - 1, 987654321]):
        assert batch.state(table) == new_game(4, rules, seed)
    batch.deal(0, 77, dealer=2, sitting_out=(1,))
    assert batch.state(0) == new_game(4, rules, 77, 2, (1,))


def test_any_state_loads_into_a_table_and_back() -> None:
    rng = random.Random(4)
    for preset in ("no_mercy", "classic"):
        rules = Rules.preset(preset)
        batch = Batch(rules, 2, 3)
        state = new_game(3, rules, 5)
        while not state.is_over:
            batch.load(1, state)
            assert batch.state(1) == state
            state.apply(rng.choice(state.legal_actions()))
        batch.load(1, state)
        assert batch.state(1) == state and batch.current(1) is None


def test_a_hand_built_state_plays_on_natively() -> None:
    """docs/state-format.md's worked example: stacked on natively as the reference does."""
    state = GameState.from_dict(
        {
            "players": 3,
            "hands": [["B4", "Y9", "GS", "R+2"], ["W+10", "R5", "G2"], ["G7", "B0"]],
            "draw_pile": ["R1", "Y2", "B8", "G5", "YR", "B+4", "R9", "WCR"],
            "discard_pile": ["W+6", "G3", "Y3"],
            "color": "G",
            "direction": -1,
            "current": 1,
            "decision": "stack",
            "pending": {"total": 6, "last_value": 6, "by": 2},
            "seed": 7,
        }
    )
    batch = Batch(Rules(), 1, 3)
    batch.load(0, state)
    assert sorted(map(str, batch.legal_actions(0))) == sorted(map(str, state.legal_actions()))
    batch.step(0, Action.parse("take"))
    state.apply(Action.parse("take"))
    assert batch.state(0) == state and len(state.hand(1)) == 9


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    batch = Batch(Rules(), 1, 4)
    batch.deal(0, 3)
    before = batch.tables.copy()
    legal = set(np.flatnonzero(batch.legal_mask(0)).tolist())
    illegal = next(i for i in range(NUM_ACTIONS) if i not in legal)
    with pytest.raises(IllegalAction):
        batch.step(0, illegal)
    with pytest.raises(IllegalAction):
        batch.step(0, Action.parse("catch 1"), seat=2)  # nobody is open to a catch
    with pytest.raises(IllegalAction):
        batch.step(0, 10_000)
    assert np.array_equal(batch.tables, before)


def test_what_a_table_cannot_hold_is_refused_with_a_reason() -> None:
    with pytest.raises(nomercy.InvalidRules, match="players"):
        Batch(Rules(max_players=10), 1, 7)
    batch = Batch(Rules(), 1, 2)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        batch.deal(0, 2**64)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        batch.load(0, new_game(2, Rules(), 2**64 + 1))
    with pytest.raises(ValueError, match="house rules"):
        batch.load(0, new_game(2, Rules.preset("classic"), 1))


def test_random_play_finishes_games_and_leaves_tables_the_reference_accepts() -> None:
    rules = Rules.preset("no_mercy")
    batch = Batch(rules, 8, 4)
    batch.reset(range(8))
    games = batch.random_play(20_000, seed=1, first_game_seed=100)
    assert games > 20_000 // 400
    for table in range(8):
        state = batch.state(table)
        assert GameState.from_json(state.to_json()) == state  # a consistent state
        assert state.card_count() == 168
        assert not state.is_over
    assert batch.tables[:, L.STEP].max() < 5000


@pytest.mark.parametrize(
    ("seed", "number"), [(0, 0), (0, 5), (1, 0), (2**32 - 1, 3), (2**40 + 7, 1), (2**64 - 1, 2**32 - 1)]
)
def test_the_native_generator_is_cpythons_mt19937_for_the_shuffle_key(seed: int, number: int) -> None:
    """Shuffle n of a seed is random.Random(shuffle_key(seed, n)): the native MT19937
    draws the same words, past the first 624 (one lazy twist after another)."""
    import random

    from nomercy.dealing import shuffle_key
    from nomercy.native import kernels

    table = np.zeros(L.width(1) + 10, np.int32)
    m0 = 5
    kernels.mt_seed(table, m0, seed & 0xFFFFFFFF, seed >> 32, number)
    words = [kernels.mt_next(table, m0) for _ in range(1300)]
    rng = random.Random(shuffle_key(seed, number))
    assert words == [rng.getrandbits(32) for _ in range(1300)]


@pytest.mark.parametrize("length", [0, 1, 2, 5, 168, 1000])
@pytest.mark.parametrize(("seed", "number"), [(0, 0), (7, 2), (2**40 + 7, 1)])
def test_the_block_twisting_shuffle_is_cpythons_shuffle(length: int, seed: int, number: int) -> None:
    """S1, T4: ``_shuffle`` twists the generator a block at a time and never branches on
    a draw, yet orders a region as ``random.Random(key).shuffle`` does, past 624 draws too
    (1,000 cards take about 1,400, so two block twists); a draw after it (the dealer's)
    is the generator's next ``randrange``."""
    import random

    from nomercy.dealing import shuffle_key
    from nomercy.native import kernels

    table = np.zeros(L.MT_WORDS + 1000, np.int32)
    start = L.MT_WORDS
    table[start : start + length] = np.arange(length) * 3 + 1
    kernels.mt_seed(table, 0, seed & 0xFFFFFFFF, seed >> 32, number)
    mt = table[: L.MT_WORDS]
    kernels._shuffle(mt, table[start : start + length])
    expected = [int(x) for x in np.arange(length) * 3 + 1]
    rng = random.Random(shuffle_key(seed, number))
    rng.shuffle(expected)
    assert table[start : start + length].tolist() == expected
    assert [kernels._below_block(mt, n) for n in (4, 3, 1000, 2)] == [
        rng.randrange(n) for n in (4, 3, 1000, 2)
    ]


@pytest.mark.parametrize("first", [0, 1000, 2**32 - 20, 2**40 + 7, 2**64 - 30])
@pytest.mark.parametrize("number", [0, 3, 2**32 - 1])
def test_generators_seeded_side_by_side_are_the_ones_seeded_alone(first: int, number: int) -> None:
    """``mt_seed_lanes`` steps the seedings of a pool's columns side by side: each column
    holds the words ``mt_seed`` leaves for its key, also where the keys of one pass have
    different lengths (seeds 0 and 1, or either side of 2**32), for a full pool and for
    a few lanes."""
    from nomercy.native import kernels

    for lanes in (kernels.SEED_LANES, 3):
        pool = np.zeros((kernels.POOL_ROWS, kernels.SEED_LANES), np.uint32)
        seeds = [(first + lane) % 2**64 for lane in range(lanes)]
        for lane, seed in enumerate(seeds):
            kernels.lane_key(pool, lane, seed - 2**64 if seed >= 2**63 else seed, number)  # int64
        generators = np.zeros((kernels.SEED_LANES, L.MT_WORDS), np.int32)
        kernels.mt_seed_lanes(pool, lanes, generators)
        for lane, seed in enumerate(seeds):
            alone = np.zeros(L.MT_WORDS, np.int32)
            kernels.mt_seed(alone, 0, seed & 0xFFFFFFFF, seed >> 32, number)
            assert np.array_equal(generators[lane], alone), (lanes, lane)
            assert int(kernels.lane_seed(pool, lane)) % 2**64 == seed


@pytest.mark.parametrize("players", [2, 4])
def test_a_deal_from_a_pooled_generator_is_the_deal(players: int) -> None:
    """S1-S4: random play deals new rounds from generators seeded side by side
    (``deal_seeded``); each table is the one ``deal`` (and so ``new_game``) makes, but for
    the generator region: ``deal_seeded`` shuffles with the pooled generator where it lies,
    and no later draw of the round reads shuffle 0's generator (``MT_READY`` stays 0)."""
    from nomercy.native import kernels

    batch = Batch(Rules(), 2, players)
    pool = np.zeros((kernels.POOL_ROWS, kernels.SEED_LANES), np.uint32)
    seeds = [2**32 - 1 + lane for lane in range(4)]
    for lane, seed in enumerate(seeds):
        kernels.lane_key(pool, lane, seed, 0)
    generators = np.zeros((kernels.SEED_LANES, L.MT_WORDS), np.int32)
    kernels.mt_seed_lanes(pool, len(seeds), generators)
    for lane, seed in enumerate(seeds):
        args = (batch.encoded, batch.deck, players, seed & 0xFFFFFFFF, seed >> 32, -1, batch._no_one)
        kernels.deal(batch.tables[0], *args)
        kernels.deal_seeded(batch.tables[1], *args, generators[lane])
        game = slice(0, batch.tables.shape[1] - L.MT_WORDS)  # all but the generator region
        assert np.array_equal(batch.tables[0, game], batch.tables[1, game])
        assert batch.tables[1, L.MT_READY] == 0
        assert batch.state(1) == new_game(players, Rules(), seed)


@pytest.mark.parametrize(("copies", "players"), [(1, 2), (1, 4), (4, 3), (5, 2)])
def test_a_deal_from_a_twisted_lane_is_the_deal(copies: int, players: int) -> None:
    """S1-S4: random play deals from generators seeded, twisted and partly tempered in the
    columns of a pool (``mt_seed_lanes_twisted``, ``deal_pooled``); each table is the one
    ``deal`` (and so ``new_game``) makes. Decks of 672 and 990 cards draw past the
    tempered rows and past the block (about 900 and 1,350 words: the generator moves out
    of the pool, then a third block is twisted)."""
    from nomercy.cards import NO_MERCY_DECK
    from nomercy.native import kernels

    deck = {code: count * copies for code, count in NO_MERCY_DECK}
    if copies == 5:
        deck["W+6"] += 150  # 990 cards: a deck holds 1,000 at most
    rules = Rules(deck=tuple(deck.items()))
    batch = Batch(rules, 2, players)
    pool = np.zeros((kernels.POOL_ROWS, kernels.SEED_LANES), np.uint32)
    seeds = [3, 2**32 - 1, 2**40 + 5, 2**64 - 2]
    for lane, seed in enumerate(seeds):
        kernels.lane_key(pool, lane, seed, 0)
    kernels.mt_seed_lanes_twisted(pool, len(seeds))
    game = slice(0, batch.tables.shape[1] - L.MT_WORDS)  # all but the generator region
    for lane, seed in enumerate(seeds):
        args = (batch.encoded, batch.deck, players, seed & 0xFFFFFFFF, seed >> 32, -1, batch._no_one)
        kernels.deal(batch.tables[0], *args)
        kernels.deal_pooled(batch.tables[1], *args, pool, lane)
        assert np.array_equal(batch.tables[0, game], batch.tables[1, game])
        assert batch.tables[1, L.MT_READY] == 0
        assert batch.state(1) == new_game(players, rules, seed)


@pytest.mark.parametrize(("preset", "players"), [("no_mercy", 4), ("no_mercy", 6), ("classic", 3)])
def test_random_play_is_the_reference_game_across_reshuffles(preset: str, players: int) -> None:
    """T4, S1-S4: every decision of random play is a legal move of the reference engine,
    and every new round is ``new_game`` of the next seed. Random play seeds a reshuffle's
    generator only when the round reshuffles (nothing waits in ``MT_READY`` after a deal);
    those reshuffles order the draw pile as the reference's ``(seed, shuffle)`` key does,
    and the test checks that it saw some."""

    def successors(state: GameState) -> list[GameState]:
        out = []
        for action in state.legal_actions():
            after = state.clone()
            after.apply(action)
            out.append(after)
        return out

    rules = Rules.preset(preset)
    batch = Batch(rules, 1, players)
    batch.reset([3])
    next_seed = 1000
    reshuffles = 0
    for decision in range(6000):
        before = batch.state(0)
        games = batch.random_play(1, seed=decision, first_game_seed=next_seed)
        after = batch.state(0)
        if games:
            assert after == new_game(players, rules, next_seed)
            assert int(batch.tables[0, L.MT_READY]) == 0
            next_seed += 1
            continue
        assert after in successors(before), decision
        reshuffles += after.shuffles > before.shuffles
    assert reshuffles >= 3
    assert next_seed - 1000 >= 4  # new rounds checked against new_game


def test_random_play_plays_a_round_to_its_end_then_the_next_table() -> None:
    """Random play finishes a table's round, deals it the next seed (``new_game`` of that
    seed, S1-S4) and goes on at the next table; the pool's keys here cross 2**32."""
    rules = Rules.preset("no_mercy")
    first = 2**32 - 2

    def played(decisions: int) -> tuple[int, Batch]:
        batch = Batch(rules, 2, 4)
        batch.reset([7, 8])
        return batch.random_play(decisions, seed=5, first_game_seed=first), batch

    decisions = 1
    while played(decisions)[0] == 0:
        decisions += 1
    games, batch = played(decisions)
    assert games == 1 and batch.state(0) == new_game(4, rules, first)
    assert batch.state(1) == new_game(4, rules, 8)  # not reached yet
    games, batch = played(decisions + 1)
    assert batch.state(0) == new_game(4, rules, first)  # left for the next table
    assert batch.tables[1, L.STEP] == 1
