"""W1-W4: Wild Reverse Draw 4, Wild Draw 6, Wild Draw 10, Wild Color Roulette."""

from __future__ import annotations

import pytest

from nomercy import Decision
from nomercy.events import ColorNamed, Drew, Played, Reversed, StackGrew

from .builders import C, act, bag, color, cs, discard, draw_pile, hand, legal, make, refused

FOUR = ["G1 G2 G3", "Y1 Y2 Y3", "B1 B2 B3"]


def test_W1_reverse_then_previous_player_draws_four() -> None:
    """W1: direction changes; with 3+ players the player who went just before faces +4."""
    s = make(["G1 G2 G3", "WR+4 R1 B9", "Y1 Y2 Y3", "B4 B5 B6"], "R5", "Y7 Y8 Y9 B7 B8", current=1)
    events = act(s, "play WR+4 G")
    assert events == [Played(1, C("WR+4"), color("G")), Reversed(-1), StackGrew(0, 4)]
    assert (s.direction, s.current, s.decision, s.pending_total, s.color.letter) == (
        -1, 0, Decision.STACK, 4, "G",
    )  # fmt: skip
    act(s, "take")
    assert hand(s, 0) == bag("G1 G2 G3 Y7 Y8 Y9 B7")
    assert (s.current, s.decision) == (3, Decision.PLAY)  # play goes on counter-clockwise


def test_W1_two_players_self_default() -> None:
    """W1/P3 default ``two_player_reverse_draw=self``: its own player faces the 4."""
    s = make(["WR+4 R1 B9", "G1 G2 G3"], "R5", "Y7 Y8 Y9 B7 B8")
    assert act(s, "play WR+4 B")[-1] == StackGrew(0, 4)
    assert (s.current, s.decision, s.pending_total, s.direction) == (0, Decision.STACK, 4, -1)
    act(s, "take")
    assert hand(s, 0) == bag("R1 B9 Y7 Y8 Y9 B7")
    assert (s.current, s.decision) == (1, Decision.PLAY)


def test_W1_two_players_opponent_house_rule() -> None:
    """W1 ``two_player_reverse_draw=opponent``: the opponent faces the 4."""
    s = make(["WR+4 R1 B9", "G1 G2 G3"], "R5", rules={"two_player_reverse_draw": "opponent"})
    assert act(s, "play WR+4 B")[-1] == StackGrew(1, 4)
    assert (s.current, s.decision, s.pending_total) == (1, Decision.STACK, 4)


@pytest.mark.parametrize(("card", "value"), [("W+6", 6), ("W+10", 10)])
def test_W2_W3_wild_draw_next_player_draws(card: str, value: int) -> None:
    """W2/W3: the player names the color; the next player draws 6 / 10 and loses the turn."""
    pile = "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B4 B5"
    s = make(["R1 R2 R3", f"{card} G4 B9", "G5 G6 G7", "B1 B2 B3"], "R5", pile, current=1)
    assert act(s, f"play {card} B") == [Played(1, C(card), color("B")), StackGrew(2, value)]
    act(s, "take")
    assert sum(hand(s, 2).values()) == 3 + value
    assert draw_pile(s) == " ".join(pile.split()[value:])
    assert (s.current, s.decision, s.color.letter, discard(s)) == (3, Decision.PLAY, "B", f"{card} R5")


def test_W4_roulette_next_player_names_and_turns_up() -> None:
    """W4: the next player names a color and turns up cards until one of it appears; a
    wild turned up does not count; they keep all and lose their turn; named color in play."""
    s = make(["WCR R1 B9", "G1 G2 G3", "Y1 Y2 Y3", "B1 B2 B3"], "R5", "R3 WR+4 B4 Y+2 G8 R9")
    assert act(s, "play WCR") == [Played(0, C("WCR"))]
    assert (s.current, s.decision, s.roulette_by) == (1, Decision.ROULETTE, 0)
    assert legal(s) == {"color R", "color Y", "color G", "color B"}
    refused(s, "play G1", "W4")
    refused(s, "draw", "W4")
    events = act(s, "color G")
    assert events == [ColorNamed(1, color("G")), Drew(1, 5, cs("R3 WR+4 B4 Y+2 G8"), "roulette")]
    assert hand(s, 1) == bag("G1 G2 G3 R3 WR+4 B4 Y+2 G8")
    assert (s.current, s.decision, s.color.letter, s.roulette_by) == (2, Decision.PLAY, "G", None)
    assert draw_pile(s) == "R9" and discard(s) == "WCR R5"


def test_W4_roulette_wild_turned_up_does_not_count_named_equals_revealed() -> None:
    """W4 ``roulette_color=revealed``: the color of the last card turned up, the same as named
    unless the pile ran out."""
    s = make(["WCR R1 B9", "G1 G2 G3", "Y1 Y2"], "R5", "W+6 Y4 R7", rules={"roulette_color": "revealed"})
    act(s, "play WCR")
    act(s, "color Y")
    assert hand(s, 1) == bag("G1 G2 G3 W+6 Y4") and s.color.letter == "Y"


@pytest.mark.parametrize(("setting", "expected"), [("named", "G"), ("revealed", "Y")])
def test_W4_roulette_pile_runs_dry(setting: str, expected: str) -> None:
    """W4/T4: if the pile runs dry the turning up ends; the color in play is the named one
    (default) or, with ``roulette_color=revealed``, the last card's."""
    rules = {"roulette_color": setting}
    s = make(["R1 B9", "G1 G2 G3", "Y1 Y2"], "WCR", "R3 Y4", rules=rules, current=1, color="B",
             decision="roulette", roulette_by=0)  # fmt: skip
    assert act(s, "color G") == [ColorNamed(1, color("G")), Drew(1, 2, (C("R3"), C("Y4")), "roulette")]
    assert (s.color.letter, s.current, s.decision) == (expected, 2, Decision.PLAY)
    assert draw_pile(s) == "" and discard(s) == "WCR"


def test_W4_roulette_is_not_a_draw_card_and_needs_no_color() -> None:
    """W4/C5: playing the Roulette starts no pending total; naming its color is refused."""
    s = make(["WCR R1 B9", "G1 G2 G3"], "R5", "G4")
    refused(s, "play WCR B", "W4", contains="named by its victim")
    act(s, "play WCR")
    assert s.pending_total == 0 and s.decision is Decision.ROULETTE


# The classic deck's wild cards, with explicit house rules rather than the classic preset,
# whose Wild Draw 4 may be challenged (W6).
CLASSIC_WILDS = {"deck": "classic", "draw_rule": "one", "stacking": False, "seven_zero": False,
                 "mercy_limit": None}  # fmt: skip


def test_W5_classic_wild_names_a_color_and_wild_draw4_hits_the_next_player() -> None:
    """W5: a Wild only names the color; a Wild Draw 4 names it and the next player draws 4
    and misses the turn (no stacking); both go on anything (T1)."""
    s = make(["W W+4 G2", "Y1 Y2 Y3", "B2 B3 B4"], "R5", "G3 G4 G5 G6 G7", rules=CLASSIC_WILDS)
    assert legal(s) == {"play W R", "play W Y", "play W G", "play W B",
                        "play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"}  # fmt: skip
    assert act(s, "play W Y") == [Played(0, C("W"), color("Y"))]
    assert (s.current, s.color.letter, s.pending_total) == (1, "Y", 0)
    act(s, "play Y1")
    act(s, "draw")  # seat 2 holds no yellow and no 1: draws one card (G3) and passes
    events = act(s, "play W+4 B")
    assert events == [Played(0, C("W+4"), color("B")), Drew(1, 4, cs("G4 G5 G6 G7"), "penalty")]
    assert hand(s, 1) == bag("Y2 Y3 G4 G5 G6 G7")
    assert (s.current, s.decision, s.color.letter) == (2, Decision.PLAY, "B")


def test_W5_classic_wild_draw4_stacks_as_a_four() -> None:
    """W5/K3: with ``stacking`` on, a Wild Draw 4 is a Draw card worth 4 (C5): it stacks on a
    Draw 2, another Wild Draw 4 may be stacked on it, a Draw 2 may not."""
    s = make(["W+4 G2 G8", "W+4 R+2 Y3", "B1 B2 B3"], "R+2", rules={**CLASSIC_WILDS, "stacking": True},
             pending=(2, 2, 2))  # fmt: skip
    assert {"play W+4 R", "take"} <= legal(s)
    act(s, "play W+4 G")
    assert (s.current, s.pending_total) == (1, 6)
    assert legal(s) == {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B", "take"}
    refused(s, "play R+2", "K3", contains="stack equal or higher")


def test_W5_wild_draw4_restricted_only_when_nothing_else_plays() -> None:
    """W5 ``wild_draw4_restricted=true`` (RLCard's game): a Wild Draw 4 is offered and
    accepted only when no other card of the hand can be played, a playable Wild included."""
    rules = {**CLASSIC_WILDS, "wild_draw4_restricted": True}
    s = make(["W+4 R7 G2", "Y1 Y2 Y3"], "R5", "G3 G4 G5 G6", rules=rules)
    assert legal(s) == {"play R7"}
    refused(s, "play W+4 B", "wild_draw4_restricted", contains="only when nothing else can")
    s = make(["W+4 W G2", "Y1 Y2 Y3"], "R5", "G3 G4 G5 G6", rules=rules)
    assert "play W+4 B" not in legal(s) and "play W B" in legal(s)
    refused(s, "play W+4 B", "wild_draw4_restricted")
    s = make(["W+4 G2 G8", "Y1 Y2 Y3"], "R5", "G3 G4 G5 G6", rules=rules)
    assert legal(s) == {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"}
    act(s, "play W+4 Y")
    assert hand(s, 1) == bag("Y1 Y2 Y3 G3 G4 G5 G6") and s.current == 0
