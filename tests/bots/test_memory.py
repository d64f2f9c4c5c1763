"""The expert's card memory: only public facts, and never wrong about a hand."""

from __future__ import annotations

import random
from collections import Counter

from nomercy import Action, new_game, parse_cards
from nomercy.bots.memory import CardMemory
from nomercy.cards import Card
from nomercy.events import redact
from nomercy.views import determinize, player_view

from .helpers import position


def test_n1_a_seven_tells_where_the_old_hand_went() -> None:
    """N1: after P0 swaps with P2, P0 knows P2 holds its old hand (less the Seven)."""
    s = position(["R7 B1 G2 Y3", "Y1 Y2 Y4", "G1 G3 G4 G6 G8", "B2 B3 B4"], discard="R5")
    memory = CardMemory()
    memory.sync(player_view(s, 0))
    events = s.apply(Action.parse("play R7 @2"))
    memory.observe(redact(events, 0))
    assert memory.known[2] == Counter(parse_cards("B1 G2 Y3"))
    memory.sync(player_view(s, 0))
    assert memory.known[2] == Counter(parse_cards("B1 G2 Y3"))
    rng = random.Random(1)
    for _ in range(20):
        world = determinize(player_view(s, 0), rng)
        memory.constrain(world, rng)
        assert sorted(world.hands[2], key=Card.sort_key) == sorted(parse_cards("B1 G2 Y3"), key=Card.sort_key)


def test_memory_is_never_wrong_over_random_games() -> None:
    """Whatever it claims a seat holds, that seat holds (N1, N2, W4, A5, M1 all move cards)."""
    rng = random.Random(3)
    claims = 0
    for game in range(60):
        players = 2 + game % 4
        state = new_game(players, seed=game)
        memories = [CardMemory() for _ in range(players)]
        while state.current is not None:
            seat = state.current
            memories[seat].sync(player_view(state, seat))
            for other, memory in enumerate(memories):
                for s, known in enumerate(memory.known):
                    if s != other and known:
                        claims += 1
                        assert Counter(state.hands[s]) >= known, (game, other, s)
            events = state.apply(rng.choice(state.legal_actions()))
            for other, memory in enumerate(memories):
                memory.observe(redact(events, other))
    assert claims > 100


def test_constrained_worlds_keep_every_card() -> None:
    """Moving known cards never loses or duplicates one (C3: the deck stays whole)."""
    rng = random.Random(5)
    state = new_game(4, seed=8)
    memory = CardMemory()
    while state.current is not None and not any(memory.known):
        seat = state.current
        if seat == 0:
            memory.sync(player_view(state, 0))
        events = state.apply(rng.choice(state.legal_actions()))
        memory.observe(redact(events, 0))
    if state.current is None:
        return
    memory.sync(player_view(state, 0))
    deck = Counter(c for h in state.hands for c in h) + Counter(state.draw_pile + state.discard + state.aside)
    for _ in range(10):
        world = determinize(player_view(state, 0), rng)
        memory.constrain(world, rng)
        got = Counter(c for h in world.hands for c in h)
        got.update(world.draw_pile + world.discard + world.aside)
        assert got == deck
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]


def test_e4_a_new_round_forgets_the_last_one() -> None:
    """E4: in a match the next round is dealt afresh; nothing known carries over."""
    from nomercy.events import RoundOver

    s = position(["R7 B1 G2 Y3", "Y1 Y2 Y4", "G1 G3 G4 G6 G8", "B2 B3 B4"], discard="R5")
    memory = CardMemory()
    memory.sync(player_view(s, 0))
    memory.observe(redact(s.apply(Action.parse("play R7 @2")), 0))
    assert memory.known[2]
    memory.observe([RoundOver(1, "played_out", {1: 10})])
    assert memory.known == [] and memory.seat is None
