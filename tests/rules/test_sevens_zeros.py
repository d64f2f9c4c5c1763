"""N1-N4: Sevens swap hands, Zeros pass them, and the ``seven_zero`` house rule."""

from __future__ import annotations

from nomercy import Decision
from nomercy.events import HandsPassed, HandsSwapped, Played, RoundOver

from .builders import C, act, bag, hand, legal, make, refused

HANDS = ["R7 R0 G1 G2", "Y1 Y2 Y3", "B1 B2 B3 B4 B5", "R8 R9"]


def test_N1_seven_swaps_with_chosen_player() -> None:
    """N1: playing a 7 swaps your whole hand with another active player of your choice."""
    s = make(HANDS, "R5")
    assert {"play R7 @1", "play R7 @2", "play R7 @3"} <= legal(s)
    assert not any(a.startswith("play R7") and "@" not in a for a in legal(s))
    events = act(s, "play R7 @2")
    assert events == [Played(0, C("R7"), None, 2), HandsSwapped(0, 2)]
    assert hand(s, 0) == bag("B1 B2 B3 B4 B5") and hand(s, 2) == bag("R0 G1 G2")
    assert hand(s, 1) == bag("Y1 Y2 Y3") and hand(s, 3) == bag("R8 R9")
    assert (s.current, s.decision, s.color.letter) == (1, Decision.PLAY, "R")  # N3


def test_N1_seven_needs_a_valid_target() -> None:
    """N1: a Seven must name another player at the table."""
    s = make(HANDS, "R5")
    refused(s, "play R7", "N1", contains="name a player to swap with")
    refused(s, "play R7 @0", "N1")
    refused(s, "play R7 @7", "N1")
    refused(s, "play R0 @2", "N1", contains="only a Seven")


def test_N2_zero_passes_every_hand_in_direction_of_play() -> None:
    """N2: when a 0 is played every active hand passes to the next player, all at once."""
    s = make(HANDS, "R5")
    assert act(s, "play R0") == [Played(0, C("R0")), HandsPassed(1)]
    assert hand(s, 1) == bag("R7 G1 G2")
    assert hand(s, 2) == bag("Y1 Y2 Y3")
    assert hand(s, 3) == bag("B1 B2 B3 B4 B5")
    assert hand(s, 0) == bag("R8 R9")
    assert (s.current, s.decision, s.direction) == (1, Decision.PLAY, 1)  # N3


def test_N2_zero_counter_clockwise() -> None:
    """N2/N3: counter-clockwise, hands pass to the right and play goes on to the right."""
    s = make(HANDS, "R5", direction=-1)
    assert act(s, "play R0") == [Played(0, C("R0")), HandsPassed(-1)]
    assert hand(s, 3) == bag("R7 G1 G2")
    assert hand(s, 2) == bag("R8 R9")
    assert hand(s, 1) == bag("B1 B2 B3 B4 B5")
    assert hand(s, 0) == bag("Y1 Y2 Y3")
    assert s.current == 3


def test_N3_play_goes_on_after_a_swap_in_the_same_direction() -> None:
    """N3: after a swap, play continues with the next player in the same direction."""
    s = make(HANDS, "R5", direction=-1)
    act(s, "play R7 @1")
    assert (s.current, s.direction) == (3, -1)


def test_N4_last_seven_wins_no_hands_move() -> None:
    """N4: a 7 that is the player's last card wins at once; no hands move."""
    s = make(["R7", "Y1 Y2 Y3", "B1 B2 B3 B4 B5", "R8 R9"], "R5")
    assert legal(s) == {"play R7"}
    events = act(s, "play R7")
    assert events[0] == Played(0, C("R7")) and isinstance(events[-1], RoundOver)
    assert [e.type for e in events] == ["played", "round_over"]
    assert hand(s, 2) == bag("B1 B2 B3 B4 B5")
    assert s.outcome is not None and s.outcome.winner == 0


def test_N4_last_zero_wins_no_hands_move() -> None:
    """N4: a 0 that is the player's last card wins at once; no hands pass."""
    s = make(["R0", "Y1 Y2 Y3", "B1 B2 B3 B4 B5", "R8 R9"], "R5")
    events = act(s, "play R0")
    assert [e.type for e in events] == ["played", "round_over"]
    assert hand(s, 1) == bag("Y1 Y2 Y3") and hand(s, 3) == bag("R8 R9")
    assert s.outcome is not None and s.outcome.winner == 0 and s.outcome.points[0] == 6 + 15 + 17


def test_N_seven_zero_false_plain_numbers() -> None:
    """N1-N2 house rule ``seven_zero=false``: Sevens and Zeros are plain number cards."""
    s = make(HANDS, "R5", rules={"seven_zero": False})
    assert {"play R7", "play R0"} <= legal(s)
    refused(s, "play R7 @2", "N1")
    assert act(s, "play R7") == [Played(0, C("R7"))]
    assert hand(s, 0) == bag("R0 G1 G2") and hand(s, 2) == bag("B1 B2 B3 B4 B5") and s.current == 1
    s = make(HANDS, "R5", rules={"seven_zero": False})
    assert act(s, "play R0") == [Played(0, C("R0"))]
    assert hand(s, 0) == bag("R7 G1 G2") and hand(s, 1) == bag("Y1 Y2 Y3")
