"""A1-A6: Skip, Reverse, Draw 2, Draw 4, Discard All, Skip Everyone."""

from __future__ import annotations

from collections import Counter

from nomercy import Decision
from nomercy.events import DiscardedAll, Drew, Played, Reversed, RoundOver, Skipped, StackGrew

from .builders import C, act, bag, discard, hand, legal, make, refused

FOUR = ["G1 G2 G3", "Y1 Y2 Y3", "B1 B2 B3"]  # seats 1-3 of a four-player table


def test_A1_skip_next_player_loses_turn() -> None:
    """A1: after a Skip the next player loses their turn."""
    s = make(["RS R1 B9", *FOUR], "R5")
    assert act(s, "play RS") == [Played(0, C("RS")), Skipped((1,))]
    assert (s.current, s.decision, s.direction, s.color.letter) == (2, Decision.PLAY, 1, "R")


def test_A1_skip_counter_clockwise() -> None:
    """A1 with play counter-clockwise: the player on the right is skipped."""
    s = make(["RS R1 B9", *FOUR], "R5", direction=-1)
    assert act(s, "play RS") == [Played(0, C("RS")), Skipped((3,))]
    assert s.current == 2


def test_A2_reverse_changes_direction() -> None:
    """A2: play changes direction; the player on the other side goes next."""
    s = make(["RR R1 B9", *FOUR], "R5")
    assert act(s, "play RR") == [Played(0, C("RR")), Reversed(-1)]
    assert (s.direction, s.current, s.decision) == (-1, 3, Decision.PLAY)
    t = make(["G1 G2 G3", "RR R1 B9", "Y1 Y2 Y3", "B1 B2 B3"], "R5", current=1, direction=-1)
    act(t, "play RR")
    assert (t.direction, t.current) == (1, 2)


def test_A2_reverse_with_two_players_is_a_skip() -> None:
    """A2: with 2 players a Reverse works like a Skip: its player takes another turn."""
    s = make(["RR R1 B9", "G1 G2 G3"], "R5")
    act(s, "play RR")
    assert (s.current, s.decision, s.direction) == (0, Decision.PLAY, -1)


def test_A3_draw2_next_player_draws_two_and_loses_turn() -> None:
    """A3: the next player draws 2 and loses their turn (unless they stack, K)."""
    s = make(["R+2 R1 B9", *FOUR], "R5", "Y7 B8 G9")
    assert act(s, "play R+2") == [Played(0, C("R+2")), StackGrew(1, 2)]
    assert (s.current, s.decision, s.pending_total) == (1, Decision.STACK, 2)
    assert legal(s) == {"take"}
    assert act(s, "take") == [Drew(1, 2, (C("Y7"), C("B8")), "stack")]
    assert hand(s, 1) == bag("G1 G2 G3 Y7 B8")
    assert (s.current, s.decision, s.pending_total, s.color.letter) == (2, Decision.PLAY, 0, "R")


def test_A4_draw4_next_player_draws_four() -> None:
    """A4: a Draw 4: the next player draws 4 and loses their turn."""
    s = make(["B+4 R1 B9", *FOUR], "B5", "Y7 B8 G9 R9 Y8")
    act(s, "play B+4")
    act(s, "take")
    assert hand(s, 1) == bag("G1 G2 G3 Y7 B8 G9 R9")
    assert (s.current, s.color.letter, discard(s)) == (2, "B", "B+4 B5")


def test_A4_draw4_is_colored_plays_on_its_color_or_any_draw4() -> None:
    """A4: a Draw 4 plays on its color or on any Draw 4, not on another color's Draw 2."""
    s = make(["B+4 R1 B9", *FOUR], "G+4")
    assert "play B+4" in legal(s)
    s = make(["B+4 R1 Y9", *FOUR], "R+2")  # a red Draw 2 already taken: plain matching
    assert legal(s) == {"play R1"}
    refused(s, "play B+4", "T1", contains="a blue Draw 4 does not match the red Draw 2")


def test_A5_discard_all_discards_its_color_under_it() -> None:
    """A5: every other card of its color goes under it; it stays on top, its color in play;
    the cards under it (here a Draw 2 and a Skip) have no effect."""
    s = make(["RDA R3 R+2 RS G5 W+6", *FOUR], "R7")
    events = act(s, "play RDA")
    assert events[0] == Played(0, C("RDA")) and len(events) == 2
    gone = events[1]
    assert isinstance(gone, DiscardedAll) and gone.seat == 0
    assert Counter(c.code for c in gone.cards) == bag("R3 R+2 RS")  # their order is not a rule
    pile = discard(s).split()
    assert pile[0] == "RDA" and pile[-1] == "R7" and Counter(pile[1:-1]) == bag("R3 R+2 RS")
    assert hand(s, 0) == bag("G5 W+6")
    assert (s.color.letter, s.current, s.decision, s.pending_total) == ("R", 1, Decision.PLAY, 0)


def test_A5_discard_all_on_any_discard_all() -> None:
    """A5: played on its color or on any Discard All; it discards *its* color, not the top's."""
    s = make(["GDA G3 R2 R9", *FOUR], "RDA")
    assert legal(s) == {"play GDA", "play R2", "play R9"}
    act(s, "play GDA")
    assert hand(s, 0) == bag("R2 R9") and s.color.letter == "G" and discard(s) == "GDA G3 RDA"


def test_A5_discard_all_alone_has_no_effect() -> None:
    """A5: with no other card of its color it is just played; play passes on."""
    s = make(["YDA G3 R2", *FOUR], "Y7")
    assert act(s, "play YDA") == [Played(0, C("YDA"))]
    assert (s.current, s.color.letter) == (1, "Y")


def test_A5_discard_all_can_empty_the_hand_and_win() -> None:
    """A5/E1: a Discard All that takes the last cards wins the round."""
    s = make(["BDA B3 B+2", *FOUR], "B7")
    events = act(s, "play BDA")
    assert events[0] == Played(0, C("BDA")) and isinstance(events[1], DiscardedAll)
    assert Counter(c.code for c in events[1].cards) == bag("B3 B+2")
    assert isinstance(events[-1], RoundOver) and events[-1].winner == 0
    assert s.outcome is not None and s.outcome.reason == "played_out"


def test_A6_skip_everyone_player_goes_again() -> None:
    """A6: every other player is skipped and the player takes another, normal turn."""
    s = make(["RSE R1 B9", *FOUR], "R5")
    assert act(s, "play RSE") == [Played(0, C("RSE")), Skipped((1, 2, 3))]
    assert (s.current, s.decision, s.color.letter) == (0, Decision.PLAY, "R")
    assert legal(s) == {"play R1", "play R1 uno"}  # two cards left: with or without Uno (U1)


def test_A6_skip_everyone_then_nothing_matches_draw() -> None:
    """A6: the extra turn is normal: with no match, T2 applies (draw until playable)."""
    s = make(["RSE G1 B9", *FOUR], "R5", "Y8 R4")
    act(s, "play RSE")
    assert legal(s) == {"draw"}
    assert act(s, "draw") == [Drew(0, 2, (C("Y8"), C("R4")), "draw")]
    assert (s.decision, s.drawn) == (Decision.PLAY_DRAWN, C("R4"))


def test_A6_skip_everyone_skips_only_active_players() -> None:
    """A6 with M3: knocked-out seats are not listed as skipped."""
    s = make(["RSE R1 B9", "", "Y1 Y2 Y3", "B1 B2 B3"], "R5", knocked_out=[{"seat": 1, "by": 2}])
    assert act(s, "play RSE")[1] == Skipped((2, 3))
    assert s.current == 0
