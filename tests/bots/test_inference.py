"""The expert's inference from other seats' draws: only what the rules imply, never wrong.

Under T3 (``draw_when_playable=false``) a seat draws only when none of its cards can be
played (T1), and a draw until playable (T2) stops at the first playable card. These
tests build event sequences by hand for the bookkeeping, then check over many random
games that the true hand always fits what is inferred and that sampled worlds keep every
public fact and every inferred constraint.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from nomercy import Action, GameState, Rules, new_game, parse_cards
from nomercy.bots import Bot, make
from nomercy.bots.inference import ALL_CARDS, HandInference, mask_of, unplayable_mask
from nomercy.bots.runner import step
from nomercy.cards import Card, Color, Face, deck_cards
from nomercy.events import Drew, Event, Played, Reshuffled, redact
from nomercy.testing import RULE_MIXES
from nomercy.views import player_view

from .helpers import position

#: Not red, not a 5, not wild: what a seat that drew on a red 5 may hold (T1, T3).
NO_RED_5 = unplayable_mask(Color.RED, Face.FIVE)


def cards(codes: str) -> int:
    return mask_of(parse_cards(codes))


def fits(hand: list[Card], known: Counter[Card], groups: list[list[int]]) -> bool:
    """Whether ``hand`` less ``known`` can fill the groups' slots (a bipartite matching)."""
    rest = Counter(hand)
    rest.subtract(known)
    if any(n < 0 for n in rest.values()):
        return False
    hidden = list(rest.elements())
    slots = [mask for count, mask in groups for _ in range(count)]
    if len(slots) != len(hidden):
        return False
    owner = [-1] * len(slots)

    def place(i: int, seen: set[int]) -> bool:
        for j, mask in enumerate(slots):
            if mask >> hidden[i].index & 1 and j not in seen:
                seen.add(j)
                if owner[j] < 0 or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(hidden)))


def follow(state: GameState, seat: int, actions: list[str]) -> HandInference:
    """``seat``'s inference synced now, then fed the redacted events of ``actions``."""
    inference = HandInference()
    inference.sync(player_view(state, seat))
    for text in actions:
        inference.observe(redact(state.apply(Action.parse(text)), seat))
    return inference


def test_t3_a_draw_proves_the_hand_and_the_cards_drawn_before_the_last_unplayable() -> None:
    """T1-T3: P1 draws on a red 5: its 3 cards and the first 2 drawn are neither red, nor
    5s, nor wild; the third drawn (R9) ended the draw and is played (T2 must_play_drawn)."""
    s = position(["R1 R2 R3", "B1 B2 G3"], discard="R5", draw="Y4 Y6 R9 G8", current=1)
    inference = follow(s, 0, ["draw"])
    assert sorted(inference.groups[1] or []) == sorted([[3, NO_RED_5], [2, NO_RED_5], [1, ALL_CARDS]])
    inference.observe(redact(s.apply(Action.parse("play R9")), 0))
    assert inference.groups[1] == [[3, NO_RED_5], [2, NO_RED_5]]
    assert fits(s.hands[1], inference.known[1], inference.groups[1])


def test_t3_drawing_by_choice_proves_nothing() -> None:
    """T3 with draw_when_playable=true: a draw says nothing about the hand."""
    rules = Rules(draw_when_playable=True)
    s = position(["R1 R2 R3", "B1 R7 G3"], discard="R5", draw="Y4 Y6 R9 G8", current=1, rules=rules.to_dict())
    inference = follow(s, 0, ["draw"])
    assert inference.groups[1] == [[3, ALL_CARDS], [3, ALL_CARDS]]


def test_t2_t4_a_draw_across_a_reshuffle_leaves_only_its_last_card_free() -> None:
    """T4: a draw reported in two parts around a reshuffle: only its very last card may
    be the playable one."""
    s = position(["R1 R2 R3", "B1 B2 G3"], discard="R5", current=1)
    inference = HandInference()
    inference.sync(player_view(s, 0))
    events: list[Event] = [Drew(1, 2, None, "draw"), Reshuffled(40), Drew(1, 3, None, "draw")]
    inference.observe(events)
    groups = inference.groups[1] or []
    assert sum(g[0] for g in groups if g[1] == NO_RED_5) == 3 + 1 + 1 + 2
    assert [g for g in groups if g[1] != NO_RED_5] == [[1, ALL_CARDS]]


def test_k2_taking_a_stack_proves_nothing() -> None:
    """K2: taking a pending total is a choice, so the taken cards are free and the hand
    keeps what it had."""
    s = position(["R1 R2 R3", "B1 B2 G3"], discard="R5", current=1)
    inference = HandInference()
    inference.sync(player_view(s, 0))
    inference.observe([Drew(1, 4, None, "stack")])
    assert inference.groups[1] == [[3, ALL_CARDS], [4, ALL_CARDS]]


def test_a_played_card_of_an_excluded_kind_comes_out_of_the_free_cards() -> None:
    """A red card played after a draw on red: it was taken later (here a K2 stack)."""
    s = position(["R1 R2 R3", "B1 B2 G3"], discard="R5", current=1)
    inference = HandInference()
    inference.sync(player_view(s, 0))
    inference.observe([Drew(1, 2, None, "draw")])
    inference.observe([Played(1, Card.parse("R9"))])  # T2: the card that ended the draw
    inference.observe([Drew(1, 4, None, "stack")])
    inference.observe([Played(1, Card.parse("R7"))])
    assert inference.groups[1] == [[3, NO_RED_5], [1, NO_RED_5], [3, ALL_CARDS]]


def test_a_played_card_allowed_by_groups_that_do_not_nest_merges_them() -> None:
    """A blue 1 allowed by "no red" and by "no green" groups: which one held it is
    unknown, so they become one group allowing either (never a guess)."""
    s = position(["R1 R2 R3", "B1 B2"], discard="R5", current=1)
    inference = HandInference()
    inference.sync(player_view(s, 0))
    no_red = ALL_CARDS & ~cards("R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 RS RR RDA RSE R+2 R+4")
    no_green = ALL_CARDS & ~cards("G0 G1 G2 G3 G4 G5 G6 G7 G8 G9 GS GR GDA GSE G+2 G+4")
    inference.groups[1] = [[1, no_red], [1, no_green]]
    inference.observe([Played(1, Card.parse("B1"))])
    assert inference.groups[1] == [[1, no_red | no_green]]
    inference.groups[1] = [[1, no_red], [2, ALL_CARDS]]
    inference.observe([Played(1, Card.parse("G1"))])  # nested: the tighter group gives it
    assert inference.groups[1] == [[2, ALL_CARDS]]


def test_n1_the_groups_follow_a_seven_and_a_hand_given_away_is_known() -> None:
    """N1: P1's narrowed hand goes to P2 with P2's Seven, P2's old hand to P1; a hand
    that P0 gives away is known exactly (the card memory), so it has no hidden groups."""
    s = position(["B9 G9 Y9", "B1 B2 G3", "R7 Y2 Y3"], discard="R5", draw="Y4 R9", current=1)
    inference = follow(s, 0, ["draw", "play R9", "play R7 @1"])
    assert inference.groups[2] == [[3, NO_RED_5], [1, NO_RED_5]]
    assert inference.groups[1] == [[2, ALL_CARDS]]
    assert fits(s.hands[2], inference.known[2], inference.groups[2] or [])
    s = position(["R7 B9 G9", "B1 B2 G3"], discard="R5", draw="Y4 R9", current=1)
    mine = follow(s, 0, ["draw", "play R9"])
    mine.sync(player_view(s, 0))
    mine.observe(redact(s.apply(Action.parse("play R7 @1")), 0))
    assert mine.groups[1] == [] and mine.known[1] == Counter(parse_cards("B9 G9"))


def test_n2_the_groups_pass_round_with_a_zero() -> None:
    """N2: every hand moves to the next seat in the direction of play, its groups with it."""
    s = position(["R7 B9 G9", "B1 B2 G3", "R0 Y2 Y3"], discard="R5", draw="Y4 R9", current=1, direction=1)
    inference = follow(s, 0, ["draw", "play R9"])
    narrowed = inference.groups[1]
    inference.observe(redact(s.apply(Action.parse("play R0")), 0))  # P2's Zero passes hands on
    assert inference.groups[2] == narrowed
    assert inference.groups[1] == []  # P0's own old hand, known exactly
    assert inference.known[1] == Counter(parse_cards("R7 B9 G9"))
    assert fits(s.hands[2], inference.known[2], inference.groups[2] or [])


def test_inference_reads_only_redacted_events() -> None:
    """Two tables that differ only in P1's hidden cards (both unplayable on R5, the same
    number drawn) leave the same inference: nothing hidden is read."""
    a = position(["R1 R2 R3", "B1 B2 G3"], discard="R5", draw="Y4 R9", current=1)
    b = position(["R1 R2 R3", "Y1 G2 G3"], discard="R5", draw="B4 R8", current=1)
    ia = follow(a, 0, ["draw"])
    ib = follow(b, 0, ["draw"])
    assert ia.groups == ib.groups


MIXES = {
    **RULE_MIXES,
    "mixed_t3": dataclasses.replace(RULE_MIXES["no_mercy_mixed"], draw_when_playable=False),
    "plain_keep": dataclasses.replace(RULE_MIXES["no_mercy_plain"], must_play_drawn=False),
    "classic_restricted": dataclasses.replace(
        RULE_MIXES["classic"],
        draw_when_playable=False,
        wild_draw4_restricted=True,
        wild_draw4_challenge=False,
    ),
}


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_the_true_hand_always_fits_and_worlds_keep_every_fact(mix: str) -> None:
    """Over random heuristic and random games (T1-T4, K2, N1, N2, A5, W4, M1 move cards),
    every seat's inference fits the true hand of every other seat, and each sampled world
    shows the deciding seat exactly its view, holds the whole deck and fits the groups."""
    rules = MIXES[mix]
    rng = random.Random(7)
    narrowed = 0
    for game in range(12):
        players = 2 + game % 4
        state = new_game(players, rules=rules, seed=game)
        bots = [make("heuristic" if (game + i) % 3 else "random", seed=game * 7 + i) for i in range(players)]
        inferences = [HandInference() for _ in range(players)]
        while state.current is not None:
            seat = state.current
            view = player_view(state, seat)
            inferences[seat].sync(view)
            for who, inference in enumerate(inferences):
                for other, groups in enumerate(inference.groups):
                    if other == who or groups is None or not state.active[other]:
                        continue
                    narrowed += any(mask != ALL_CARDS for _, mask in groups)
                    assert fits(state.hands[other], inference.known[other], groups), (game, who, other)
            if state.step % 5 == 0:
                _check_worlds(inferences[seat], state, rng)
            _step(state, bots, inferences)
    if not rules.draw_when_playable:  # T3 by choice: only Discard Alls narrow (A5)
        assert narrowed > 50


def _check_worlds(inference: HandInference, state: GameState, rng: random.Random) -> None:
    seat = state.current
    assert seat is not None
    sampler = inference.sampler(player_view(state, seat))
    deck = Counter(deck_cards(state.rules.deck))
    for _ in range(3):
        world = sampler.sample(rng)
        assert player_view(world, seat) == player_view(state, seat)
        every = [*world.draw_pile, *world.discard, *world.aside, *(c for h in world.hands for c in h)]
        assert Counter(every) == deck
        for other, groups in enumerate(inference.groups):
            if other != seat and world.active[other] and sampler.fallbacks == 0:
                assert fits(world.hands[other], inference.known[other], groups or [])


def _step(state: GameState, bots: list[Bot], inferences: list[HandInference]) -> None:
    """The deciding seat's bot acts, then any out-of-turn reactions (as the runner does)."""
    for result in step(state, bots):
        for who, inference in enumerate(inferences):
            inference.observe(redact(result.events, who))


def test_sampled_worlds_never_give_a_seat_a_card_its_draw_ruled_out() -> None:
    """T3 in the worlds: after P1 drew on a red 5, no world gives it a red, a 5 or a wild
    among the cards it held or drew before the last."""
    s = position(["R1 R2 R3", "B1 B2 G3"], discard="R5", draw="Y4 Y6 R9 G8", current=1)
    inference = follow(s, 0, ["draw", "play R9"])
    view = player_view(s, 0)
    inference.sync(view)
    sampler = inference.sampler(view)
    rng = random.Random(3)
    for _ in range(200):
        world = sampler.sample(rng)
        assert all(NO_RED_5 >> c.index & 1 for c in world.hands[1])
    assert sampler.fallbacks == 0


def test_a5_a_discard_all_leaves_no_card_of_its_color() -> None:
    """A5: P1's Discard All takes every red card from its hand, so none is left there."""
    s = position(["B9 G9 Y9", "B1 RDA R3 G2"], discard="R5", current=1)
    inference = follow(s, 0, ["play RDA"])
    no_red = ALL_CARDS & ~cards("R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 RS RR RDA RSE R+2 R+4")
    assert inference.groups[1] == [[2, no_red]]
    assert fits(s.hands[1], inference.known[1], inference.groups[1] or [])


def test_t5_assumed_color_naming_is_followed_only_while_the_hand_is_unchanged() -> None:
    """T5 under the ``assume`` modelling assumption (not a rule): P1's wild names blue,
    so worlds favour a P1 holding most blue, until P1's hand changes (here a draw)."""
    from nomercy.bots.inference import _agrees

    s = position(["R1 R2 R3 G4", "W+6 B1 B2 B3 Y1 G1 R7"], discard="R5", draw="Y4 R9 G8", current=1)
    inference = follow(s, 0, ["play W+6 B"])
    assert inference.named == {1: Color.BLUE}
    s.apply(Action.parse("take"))  # P0 takes the 6: P1's hand did not change
    view = player_view(s, 0)
    inference.sync(view)
    rng = random.Random(2)
    agree = {}
    for assume in (False, True):
        inference.assume = assume
        sampler = inference.sampler(view)
        worlds = [sampler.sample(rng) for _ in range(200)]
        agree[assume] = sum(_agrees([[c.index for c in h] for h in w.hands], {1: Color.BLUE}) for w in worlds)
    assert agree[True] > 150 > agree[False]
    inference.observe([Drew(1, 1, None, "stack")])
    assert inference.named == {}
