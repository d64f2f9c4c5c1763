"""X1-X6: the worked examples of docs/rules.md section 12, played exactly as written."""

from __future__ import annotations

from nomercy import Decision
from nomercy.events import ColorNamed, Drew, KnockedOut, Played, Reversed, RoundOver, StackGrew

from .builders import C, act, bag, color, cs, filler, hand, legal, make, refused

A, B, C_, D = 0, 1, 2, 3  # seats of players A, B, C, D, clockwise


def test_X1_a_stack_of_three() -> None:
    """X1: A plays a red Draw 2 (2), B stacks a red Draw 4 (6), C a Wild Draw 6 (12). D's
    only Draw card, a blue Draw 2, is lower than 6: D cannot stack, draws 12 and loses the
    turn; D had 13 cards, now 25: knocked out (M1). Play moves on to A."""
    d_hand = "B+2 " + filler(12, "G")
    pile = "R1 R2 R3 R4 R6 R7 R8 R9 Y1 Y2 Y3 Y4 Y5 Y6"
    s = make(["R+2 R5 B5", "R+4 B7 B8", "W+6 Y8 Y9", d_hand], "R0", pile)
    assert act(s, "play R+2") == [Played(A, C("R+2")), StackGrew(B, 2)]
    assert act(s, "play R+4") == [Played(B, C("R+4")), StackGrew(C_, 6)]
    assert act(s, "play W+6 G") == [Played(C_, C("W+6"), color("G")), StackGrew(D, 12)]
    assert (s.current, s.decision, s.pending_total, s.last_draw_value) == (D, Decision.STACK, 12, 6)
    assert len(s.hands[D]) == 13
    assert legal(s) == {"take"}  # D cannot stack
    refused(s, "play B+2", "K3", contains="a Draw 2 cannot be stacked on a Wild Draw 6")
    events = act(s, "take")
    assert events == [Drew(D, 12, tuple(map(C, pile.split()[:12])), "stack"), KnockedOut(D, C_, 25)]
    assert s.active == [True, True, True, False] and s.hands[D] == []
    assert (s.current, s.decision, s.pending_total, s.color.letter) == (A, Decision.PLAY, 0, "G")
    assert " ".join(c.code for c in reversed(s.draw_pile)) == "Y5 Y6"


def test_X2_scoring_a_round() -> None:
    """X2: four players, D knocked out earlier; you play your last card. A holds a red 7, a
    green Skip Everyone and a Wild Draw 10 (77); B a yellow 0, a blue 9 and a blue Draw 4
    (29); D: 250. You score 356."""
    you, a, b, d = 0, 1, 2, 3
    s = make(["R3", "R7 GSE W+10", "Y0 B9 B+4", ""], "R5", knocked_out=[{"seat": d, "by": a}])
    events = act(s, "play R3")
    assert events[-1] == RoundOver(you, "played_out", {0: 356, 1: 0, 2: 0, 3: 0})
    assert s.outcome is not None and s.outcome.points == (356, 0, 0, 0)
    assert sum(C(x).points for x in ["R7", "GSE", "W+10"]) == 77
    assert sum(C(x).points for x in ["Y0", "B9", "B+4"]) == 29
    assert (a, b) == (1, 2)


def test_X3_roulette() -> None:
    """X3: the next player names green and turns up a red 3, a Wild Draw 6, a blue Skip and
    a green 8: they keep all four, lose their turn, and green is in play."""
    s = make(["WCR R1 R2", "Y1 Y2 Y3", "B1 B2 B3"], "R5", "R3 W+6 BS G8 Y9")
    act(s, "play WCR")
    assert (s.current, s.decision) == (1, Decision.ROULETTE)
    events = act(s, "color G")
    assert events == [ColorNamed(1, color("G")), Drew(1, 4, cs("R3 W+6 BS G8"), "roulette")]
    assert hand(s, 1) == bag("Y1 Y2 Y3 R3 W+6 BS G8")
    assert (s.current, s.decision, s.color.letter) == (2, Decision.PLAY, "G")


def test_X4_two_player_wild_reverse_draw4() -> None:
    """X4: with 2 players A plays a Wild Reverse Draw 4: A faces 4 (default). A stacks a
    Wild Draw 6: B faces 10."""
    s = make(["WR+4 W+6 R1", "Y1 Y2 Y3"], "R5")
    assert act(s, "play WR+4 B") == [Played(0, C("WR+4"), color("B")), Reversed(-1), StackGrew(0, 4)]
    assert (s.current, s.decision, s.pending_total) == (0, Decision.STACK, 4)
    assert act(s, "play W+6 G") == [Played(0, C("W+6"), color("G")), StackGrew(1, 10)]
    assert (s.current, s.decision, s.pending_total, s.last_draw_value) == (1, Decision.STACK, 10, 6)


def test_X5_stacking_is_not_forced() -> None:
    """X5: a player holding a Wild Draw 10 facing a Draw 2 may take the 2 instead."""
    s = make(["R1 R2", "W+10 G1 G2", "Y1 Y2"], "R+2", "B1 B2 B3", current=1, pending=(2, 2, 0))
    assert "take" in legal(s) and "play W+10 R" in legal(s)
    assert act(s, "take") == [Drew(1, 2, (C("B1"), C("B2")), "stack")]
    assert hand(s, 1) == bag("W+10 G1 G2 B1 B2")
    assert (s.current, s.decision) == (2, Decision.PLAY)


def test_X6_draw2_on_draw4_refused_with_a_clear_error() -> None:
    """X6: a Draw 2 on a Draw 4 is refused in a stack (K3); the error says why."""
    s = make(["R1 R2", "G+2 G1 G2", "Y1 Y2"], "R+4", current=1, pending=(4, 4, 0))
    message = refused(s, "play G+2", "K3")
    assert message == "a Draw 2 cannot be stacked on a Draw 4: stack equal or higher (K3)"
