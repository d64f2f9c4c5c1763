"""The heuristic bot's decisions in hand-built positions (rule IDs from docs/rules.md)."""

from __future__ import annotations

from collections import Counter

from nomercy import Action, Card, Catch, Color, Play
from nomercy.bots import make
from nomercy.views import player_view

from .helpers import position


def choose(state, seat: int = 0) -> Action:  # type: ignore[no-untyped-def]
    return make("heuristic", seed=1).choose(player_view(state, seat))


def test_k2_stacks_with_its_lowest_sufficient_draw_card() -> None:
    """K2/K3: facing +2 with a Draw 4 and a Wild Draw 10, it stacks the Draw 4."""
    s = position(
        ["B+4 W+10 G1 G2 Y3", "Y1 Y2 Y3 Y4 Y6", "G3 G4 G6 G8 G9", "B1 B2 B3 B6 B8"],
        discard="R+2 R5",
        pending={"total": 2, "last_value": 2, "by": 3},
        decision="stack",
    )
    assert choose(s) == Play(Card.parse("B+4"))


def test_k2_m1_stacks_the_card_that_pushes_the_victim_over_the_mercy_limit() -> None:
    """K2 + M1: with the next player on 17 cards, +2 +6 knocks them out; +2 +4 does not."""
    big = "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y6 Y6 Y8 Y8 Y9 Y9 G1 G1 G2"
    s = position(
        ["B+4 W+6 G4 G6", big, "G8 G9 B1", "B2 B3 B6"],
        discard="R+2 R5",
        pending={"total": 2, "last_value": 2, "by": 3},
        decision="stack",
    )
    action = choose(s)
    assert isinstance(action, Play) and action.card == Card.parse("W+6")


def test_k2_stacks_rather_than_take_a_big_total() -> None:
    """K2: facing +6 with its only Wild Draw 10 it stacks instead of taking six cards."""
    s = position(
        ["W+10 G1 G2 Y3", "Y1 Y2 Y3 Y4 Y6", "G3 G4 G6 G8 G9", "B1 B2 B3 B6 B8"],
        discard="W+6 R5",
        color="R",
        pending={"total": 6, "last_value": 6, "by": 3},
        decision="stack",
    )
    action = choose(s)
    assert isinstance(action, Play) and action.card == Card.parse("W+10")


def test_k2_takes_two_to_keep_its_only_wild_draw_10_as_insurance() -> None:
    """K2 (stacking is a choice): +2 pending, small hand, its one Wild Draw 10: it takes."""
    s = position(
        ["W+10 G1 G2 Y3", "Y1 Y2 Y3 Y4 Y6", "G3 G4 G6 G8 G9", "B1 B2 B3 B6 B8"],
        discard="R+2 R5",
        pending={"total": 2, "last_value": 2, "by": 3},
        decision="stack",
    )
    assert choose(s).kind == "take"


def test_n1_aims_a_seven_at_the_smallest_hand() -> None:
    """N1: its only playable card is a Seven; it swaps with the seat holding fewest cards."""
    s = position(
        ["R7 B1 B2 G3 G4 Y6", "Y1 Y2 Y3 Y4 Y6 Y8", "G6 G8", "B3 B4 B6 B8 B9"],
        discard="R5",
    )
    assert choose(s) == Play(Card.parse("R7"), target=2)


def test_n1_plays_a_seven_only_when_the_swap_gains() -> None:
    """N1: a Seven into a bigger hand loses cards; it plays its other red card instead."""
    s = position(
        ["R7 R1 B1", "Y1 Y2 Y3 Y4 Y6 Y8", "G6 G8 G9 G1", "B3 B4 B6 B8 B9"],
        discard="R5",
    )
    assert choose(s) == Play(Card.parse("R1"))


def test_t5_names_the_color_it_holds_most_of() -> None:
    """T5: a wild names the color with the most cards left in hand (green here)."""
    s = position(
        ["W+6 W+10 G1 G2 G3 B4", "Y1 Y2 Y3 Y4 Y6", "Y8 Y9 B1", "B2 B3 B6"],
        discard="R5",
    )
    action = choose(s)
    assert isinstance(action, Play) and action.card.is_wild
    assert action.color is Color.GREEN


def test_w4_victim_names_the_color_with_the_most_unseen_cards() -> None:
    """W4: it turns up cards until its color; naming the color most left unseen is cheapest.

    Its hand holds many blue cards and the discard pile many red and green ones, so
    yellow is the most plentiful among the cards it cannot see.
    """
    s = position(
        ["B1 B2 B3 B4 B6 B8 B9 BS", "Y1 Y2", "G1 G2", "B+2 B+2"],
        discard="WCR R1 R2 R3 R4 R6 R8 G3 G4 G6 G8 Y5",
        color="Y",
        decision="roulette",
        roulette_by=3,
    )
    assert choose(s) == Action.parse("color Y")


def test_s3_first_wild_names_the_color_it_holds_most_of() -> None:
    """S3 (first_card=apply) + T5: naming the first wild's color, it picks its main color."""
    s = position(
        ["B1 B2 B3 Y4 Y6", "Y1 Y2", "G1 G2", "R1 R2"],
        discard="W+6",
        color=None,
        decision="choose_color",
        rules={"first_card": "apply"},
    )
    assert choose(s) == Action.parse("color B")


def test_u1_always_calls_uno() -> None:
    """U1: of a play offered with and without the call, it takes the one with the call."""
    s = position(["R1 R2", "Y1 Y2 Y3", "G1 G2 G3", "B1 B2 B3"], discard="R5")
    action = choose(s)
    assert isinstance(action, Play) and action.uno


def test_u2_catches_a_player_who_did_not_call() -> None:
    """U2: P1 was left one card without calling; P0 catches unless its catch misses."""
    s = position(["R1 R2 R3", "Y1", "G1 G2 G3", "B1 B2 B3"], discard="R5", current=2, uno_open=1)
    view = player_view(s, 0)
    assert Catch(1) in view.legal_actions
    assert make("heuristic", seed=3, catch_miss=0.0).react(view) == Catch(1)
    assert make("heuristic", seed=3, catch_miss=1.0).react(view) is None
    bot = make("heuristic", seed=3, catch_miss=0.5)
    got = Counter(bot.react(view) for _ in range(400))
    assert 120 < got[Catch(1)] < 280 and got[None] == 400 - got[Catch(1)]


def test_u1_late_uno_call_through_react() -> None:
    """U1: the seat open to a catch calls Uno itself when asked out of turn."""
    s = position(["R1 R2 R3", "Y1", "G1 G2 G3", "B1 B2 B3"], discard="R5", current=2, uno_open=1)
    assert make("heuristic", seed=3).react(player_view(s, 1)) == Action.parse("uno")


def test_a5_holds_discard_all_until_it_sheds_several_cards() -> None:
    """A5: with one other red card it plays that card; with three it plays Discard All."""
    few = position(["RDA R1 B2 G3 Y4", "Y1 Y2 Y3", "G1 G2 G3", "B1 B3 B4"], discard="R5")
    assert choose(few) == Play(Card.parse("R1"))
    many = position(["RDA R1 R2 R3 B4 G6", "Y1 Y2 Y3", "G1 G2 G3", "B1 B3 B6"], discard="R5")
    assert choose(many) == Play(Card.parse("RDA"))


def test_c4_dumps_high_points_when_an_opponent_is_about_to_go_out() -> None:
    """C4/E3: normally it keeps its 50-point wild; next to a one-card player it sheds it."""
    calm = position(["R1 WCR B2 B3", "Y1 Y2 Y3 Y4", "G1 G2 G3 G4", "B1 B4 B6 B8"], discard="R5")
    assert choose(calm) == Play(Card.parse("R1"))
    tense = position(["R1 WCR B2 B3", "Y1", "G1 G2 G3 G4", "B1 B4 B6 B8"], discard="R5")
    assert choose(tense) == Play(Card.parse("WCR"))


def test_a1_skips_a_player_about_to_go_out() -> None:
    """A1: with the next player on one card, a Skip beats a plain number."""
    s = position(["R1 RS B2 B3", "Y1", "G1 G2 G3 G4", "B1 B4 B6 B8"], discard="R5")
    assert choose(s) == Play(Card.parse("RS"))


def test_decisions_are_always_legal_over_random_play() -> None:
    """Over whole games between heuristic bots every decision is legal (apply would raise)."""
    from nomercy import new_game
    from nomercy.bots.runner import play_round

    for seed in range(6):
        players = 2 + seed % 4
        bots = [make("heuristic", seed=seed * 10 + i) for i in range(players)]
        state = play_round(new_game(players, seed=seed), bots)
        assert state.outcome is not None


def test_m1_a_knock_out_beats_keeping_the_insurance() -> None:
    """M1/M4 over rule 3: +2 pending, its only Wild Draw 10 knocks the last opponent out."""
    big = "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y6 Y6 Y8 Y8 Y9 Y9 G1 G1 G2"
    s = position(
        ["B+2 W+10 G4 G6 G8 B1", big],
        discard="R+2 R5",
        pending={"total": 2, "last_value": 2, "by": 1},
        decision="stack",
    )
    action = choose(s)
    assert isinstance(action, Play) and action.card == Card.parse("W+10")


def test_w4_plays_a_roulette_at_a_next_player_near_the_mercy_limit() -> None:
    """W4 + M1: the next player holds 23 cards; a Roulette is likely to knock them out."""
    big = "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y6 Y6 Y8 Y8 Y9 Y9 G1 G1 G2 G2 G3 G3 G4 G4 G6"
    s = position(["R1 WCR B2 B3", big, "G8 G9 B1", "B4 B6 B8"], discard="R5")
    assert choose(s) == Play(Card.parse("WCR"))
