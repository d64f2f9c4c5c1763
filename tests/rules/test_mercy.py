"""M1-M4: the Mercy Rule: knock-outs at 25 cards, the knocked-out hand, the last one standing."""

from __future__ import annotations

from collections import Counter

from nomercy import Decision
from nomercy.events import ColorNamed, Drew, KnockedOut, Reshuffled, RoundOver, StackGrew

from .builders import C, act, bag, color, discard, draw_pile, filler, hand, legal, make, refused, sizes

BIG = filler(24, "YB")  # 24 yellow and blue numbers: one more card knocks out


def test_M1_knock_out_partway_through_a_stack() -> None:
    """M1: a player reaching 25 cards while taking a stack is out at once; drawing stops."""
    s = make(["R1 R2", BIG, "G1 G2"], "W+6", "R3 R4 R5 R6 R7 R8", current=1, color="G", pending=(6, 6, 0))
    assert act(s, "take") == [Drew(1, 1, (C("R3"),), "stack"), KnockedOut(1, 0, 25)]
    assert draw_pile(s) == "R4 R5 R6 R7 R8"
    assert (s.active, s.hands[1], s.current, s.decision) == ([True, False, True], [], 2, Decision.PLAY)
    assert [(k.seat, k.by) for k in s.knocked_out] == [(1, 0)]


def test_M1_knock_out_partway_through_a_roulette() -> None:
    """M1: turning up Roulette cards stops at the Mercy limit; the Roulette's player caused it."""
    s = make(["R1 R2", BIG, "G1 G2"], "WCR", "R3 R4 G5", current=1, color="G", decision="roulette",
             roulette_by=0)  # fmt: skip
    events = act(s, "color G")
    assert events == [ColorNamed(1, color("G")), Drew(1, 1, (C("R3"),), "roulette"), KnockedOut(1, 0, 25)]
    assert (s.current, s.color.letter, draw_pile(s)) == (2, "G", "R4 G5")


def test_M1_knock_out_drawing_until_playable_is_self_caused() -> None:
    """M1: drawing until playable can knock you out too; nobody caused it (E3)."""
    s = make(["R1 R2", BIG, "G1 G2"], "G0", "R3 G4", current=1)
    assert act(s, "draw") == [Drew(1, 1, (C("R3"),), "draw"), KnockedOut(1, None, 25)]
    assert (s.current, s.decision) == (2, Decision.PLAY)


def test_M1_knock_out_by_an_uno_penalty() -> None:
    """M1 with U2: the catch penalty is drawn card by card and can knock the player out."""
    s = make(["R1 R2 R3", "Y1", "Y7 Y8"], "R5", filler(30, "GB"), rules={"uno_penalty": 30},
             uno_open=1, current=2)  # fmt: skip
    events = act(s, "catch 1", seat=0)
    assert [e.type for e in events] == ["caught", "drew", "knocked_out"]
    assert events[-1] == KnockedOut(1, 0, 25)
    assert s.active == [True, False, True] and s.current == 2


def test_M1_mercy_limit_house_rule() -> None:
    """M1 ``mercy_limit``: another limit, or ``None`` to disable the Mercy Rule."""
    s = make(["R1 R2", BIG, "G1 G2"], "W+6", "R3 R4 R5 R6 R7 R8", current=1, color="G", pending=(6, 6, 0),
             rules={"mercy_limit": None})  # fmt: skip
    act(s, "take")
    assert sizes(s) == [2, 30, 2] and s.knocked_out == [] and s.current == 2
    s = make(["R1 R2", "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8", "G1 G2"], "W+6", "R3 R4 R5 R6 R7 R8", current=1, color="G",
             pending=(6, 6, 0), rules={"mercy_limit": 10})  # fmt: skip
    assert act(s, "take")[-1] == KnockedOut(1, 0, 10)


def test_M2_knocked_out_hand_set_aside_for_the_next_reshuffle() -> None:
    """M2 default ``knockout_hand=aside``: the hand is set aside and shuffled into the next
    new draw pile (T4)."""
    s = make(["R1 R2", BIG, "G1 G2"], "W+6", "R3", current=1, color="Y", pending=(6, 6, 0))
    act(s, "take")
    assert Counter(c.code for c in s.aside) == bag(BIG + " R3")
    assert discard(s) == "W+6" and draw_pile(s) == ""
    assert (s.current, legal(s)) == (2, {"draw"})
    events = act(s, "draw")  # seat 2 holds no yellow: it draws from the set-aside cards
    assert events[0] == Reshuffled(25)
    drew = events[1]
    assert isinstance(drew, Drew) and drew.cards is not None and drew.cards[-1].code.startswith("Y")
    assert s.aside == []
    assert Counter(c.code for c in drew.cards) + Counter(c.code for c in s.draw_pile) == bag(BIG + " R3")


def test_M2_discard_bottom_house_rule() -> None:
    """M2 ``knockout_hand=discard_bottom``: the hand goes under the discard pile at once."""
    s = make(["R1 R2", BIG, "G1 G2"], "W+6 R9", "R3", current=1, color="G", pending=(6, 6, 0),
             rules={"knockout_hand": "discard_bottom"})  # fmt: skip
    act(s, "take")
    assert s.aside == []
    assert discard(s).startswith("W+6 R9 ")
    assert Counter(discard(s).split()[2:]) == bag(BIG + " R3")


def test_M3_knocked_out_player_skipped_in_turn_order() -> None:
    """M3: turn order skips a knocked-out player."""
    s = make(["R1 R2 R3", "", "G1 G2 G3", "Y1 Y2 Y3"], "R5", knocked_out=[{"seat": 1, "by": 0}])
    act(s, "play R1")
    assert s.current == 2
    s = make(["RS R2 R3", "", "G1 G2 G3", "Y1 Y2 Y3"], "R5", knocked_out=[1])
    act(s, "play RS")
    assert s.current == 3  # the Skip skips seat 2, the next *active* player


def test_M3_knocked_out_player_not_a_seven_target_nor_in_a_zero() -> None:
    """M3: Sevens cannot target a knocked-out player; Zeros pass around them."""
    s = make(["R7 R0 R3", "", "G1 G2 G3", "Y1 Y2"], "R5", knocked_out=[1])
    assert {a for a in legal(s) if a.startswith("play R7")} == {"play R7 @2", "play R7 @3"}
    refused(s, "play R7 @1", "M3", contains="knocked out")
    act(s, "play R0")
    assert hand(s, 1) == Counter() and hand(s, 2) == bag("R7 R3")
    assert hand(s, 3) == bag("G1 G2 G3") and hand(s, 0) == bag("Y1 Y2")
    assert s.current == 2


def test_M3_knocked_out_player_takes_no_part() -> None:
    """M3: a knocked-out seat has no legal actions and cannot catch."""
    s = make(["R1 R2 R3", "", "G1", "Y1 Y2 Y3"], "R5", knocked_out=[1], uno_open=2, current=3)
    assert s.legal_actions(1) == []
    refused(s, "catch 2", "U2", seat=1, contains="not an active player")


def test_M4_last_one_standing_wins() -> None:
    """M4: when only one player is left, that player wins the round (and, E3, scores 250 for
    each knock-out)."""
    s = make(["R1 R2", BIG, ""], "W+10", "R3 R4", current=1, color="G", pending=(10, 10, 0),
             knocked_out=[{"seat": 2, "by": 0}])  # fmt: skip
    events = act(s, "take")
    assert events == [
        Drew(1, 1, (C("R3"),), "stack"),
        KnockedOut(1, 0, 25),
        RoundOver(0, "last_standing", {0: 500, 1: 0, 2: 0}),
    ]
    assert s.outcome is not None
    assert (s.outcome.winner, s.outcome.reason, s.outcome.points) == (0, "last_standing", (500, 0, 0))
    assert [(k.seat, k.by) for k in s.outcome.knocked_out] == [(2, 0), (1, 0)]
    assert (s.current, s.decision, s.is_over) == (None, Decision.OVER, True)


def test_M3_count_of_players_two_left_of_four() -> None:
    """M3: the count of players skips knocked-out seats: with two of four left, a Reverse
    works like a Skip (A2/P1) and a Wild Reverse Draw 4 hits its own player (W1/P3)."""
    s = make(["RR R2 R3", "", "G1 G2 G3", ""], "R5", knocked_out=[1, 3])
    act(s, "play RR")
    assert (s.current, s.direction) == (0, -1)
    s = make(["WR+4 R2 R3", "", "G1 G2 G3", ""], "R5", knocked_out=[1, 3])
    assert act(s, "play WR+4 G")[-1] == StackGrew(0, 4)
