"""U1-U3: calling Uno, catching a player who did not, and when a catch is refused."""

from __future__ import annotations

from nomercy import Catch, Decision
from nomercy.events import Caught, Drew, Played, UnoCalled
from nomercy.views import player_view

from .builders import C, act, bag, cs, hand, legal, make, refused

# Seat 0 is about to play down to one card; seats 1-3 hold cards that match red.
TABLE = ["R5 G1", "R1 R2 R3", "R4 R6 R7", "R8 R9 Y8"]
PILE = "B1 B2 B3 B4 B5 B6"


def test_U1_uno_called_as_part_of_the_play() -> None:
    """U1: a play that leaves one card may call Uno with it (``play R5 uno``)."""
    s = make(TABLE, "R0", PILE)
    assert legal(s) == {"play R5", "play R5 uno"}
    events = act(s, "play R5 uno")
    assert events == [Played(0, C("R5"), None, None, True)]  # one event per fact: no UnoCalled
    assert s.uno_open == () and s.to_dict()["uno_open"] == []
    assert s.legal_actions(2) == [] and s.legal_actions(0) == []
    refused(s, "catch 0", "U3", seat=2, contains="cannot be caught")


def test_U1_uno_only_with_a_play_that_leaves_one_card() -> None:
    """U1: calling Uno with a play that leaves more than one card is refused."""
    s = make(["R5 G1 G2", "R1 R2 R3", "R4 R6 R7"], "R0")
    assert "play R5 uno" not in legal(s)
    refused(s, "play R5 uno", "U1", contains="leaves you one card")
    refused(s, "uno", "U1", contains="nothing to call")


def test_U1_late_uno_call_closes_the_window() -> None:
    """U1: a player left with one card may still call Uno before anyone catches them."""
    s = make(TABLE, "R0", PILE)
    assert act(s, "play R5") == [Played(0, C("R5"))]
    assert s.uno_open == (0,) and s.catchable() == (0,) and s.to_dict()["uno_open"] == [0]
    assert player_view(s, 2).uno_open == (0,)
    assert legal(s, 0) == {"uno"}
    assert act(s, "uno", seat=0) == [UnoCalled(0)]
    assert s.uno_open == ()
    refused(s, "catch 0", "U3", seat=3)
    assert (s.current, s.decision) == (1, Decision.PLAY)


def test_U2_other_seats_are_offered_a_catch_while_the_window_is_open() -> None:
    """U2: every other active player, the deciding one included, may catch; legal_actions
    of a non-deciding seat offers ``catch N``."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    assert legal(s, 2) == {"catch 0"} and legal(s, 3) == {"catch 0"}
    assert legal(s, 0) == {"uno"}
    assert legal(s) == {"play R1", "play R2", "play R3", "catch 0"}
    assert "catch 0" in {str(a) for a in player_view(s, 3).legal_actions}


def test_U2_out_of_turn_tells_the_catch_and_the_late_call_from_turn_actions() -> None:
    """U1-U3: ``Action.out_of_turn`` is true for exactly what a non-deciding seat may do."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    assert {str(a) for a in s.legal_actions() if a.out_of_turn} == {"catch 0"}
    for seat in (0, 2, 3):  # not deciding: only out-of-turn actions are offered
        assert s.legal_actions(seat) and all(a.out_of_turn for a in s.legal_actions(seat))
    act(s, "play R1")
    assert not any(a.out_of_turn for seat in range(4) for a in s.legal_actions(seat))


def test_U2_catch_by_a_non_deciding_seat() -> None:
    """U2: a non-deciding seat catches; the caught player draws 2; the turn stays put."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    events = s.apply(Catch(0), seat=2)
    assert events == [Caught(0, 2), Drew(0, 2, (C("B1"), C("B2")), "uno_penalty")]
    assert hand(s, 0) == bag("G1 B1 B2")
    assert (s.uno_open, s.current, s.decision) == ((), 1, Decision.PLAY)
    refused(s, "catch 0", "U3", seat=3)  # caught once only
    assert s.legal_actions(3) == []


def test_U2_catch_by_the_next_player_before_their_turn() -> None:
    """U2: the next player may catch too, before beginning their turn, and then plays."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    act(s, "catch 0")
    assert hand(s, 0) == bag("G1 B1 B2") and s.current == 1
    act(s, "play R1")
    assert s.current == 2


def test_U2_uno_penalty_house_rule() -> None:
    """U2 ``uno_penalty``: the number of cards a caught player draws."""
    s = make(TABLE, "R0", PILE, rules={"uno_penalty": 4})
    act(s, "play R5")
    assert act(s, "catch 0", seat=3)[1] == Drew(0, 4, cs("B1 B2 B3 B4"), "uno_penalty")


def test_U3_catch_after_the_window_closed_is_refused() -> None:
    """U3: once the next player begins their turn nobody can catch: no penalty."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    act(s, "play R1")  # the next player began (and ended) their turn
    assert s.uno_open == () and s.legal_actions(3) == []
    refused(s, "catch 0", "U3", seat=3, contains="only until the next player begins their turn")
    assert hand(s, 0) == bag("G1")


def test_U3_the_window_closes_on_a_draw_too() -> None:
    """U3: any action of the next player's turn (here a draw) closes the window."""
    s = make(["R5 G1", "Y1 Y2 Y3", "R4 R6 R7"], "R0", "Y4 R9")
    act(s, "play R5")
    act(s, "draw")
    refused(s, "catch 0", "U3", seat=2)


def test_U3_no_catching_yourself_or_a_player_with_more_cards() -> None:
    """U3/U1: you cannot catch yourself, nor a player who is not open to a catch."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    refused(s, "catch 0", "U1", seat=0, contains="cannot catch yourself")
    refused(s, "catch 3", "U3", seat=2)


def test_U_uno_calls_false_no_calls_no_catches() -> None:
    """U1-U3 house rule ``uno_calls=false``: no calls and nothing to catch."""
    s = make(TABLE, "R0", PILE, rules={"uno_calls": False})
    assert legal(s) == {"play R5"}
    refused(s, "play R5 uno", "U1", contains="uno_calls")
    act(s, "play R5")
    assert s.uno_open == () and s.legal_actions(2) == []
    refused(s, "catch 0", "U1", seat=2, contains="uno_calls")
    refused(s, "uno", "U1", seat=0, contains="uno_calls")


def test_U2_only_seats_at_the_table_are_offered_a_catch() -> None:
    """U2: ``legal_actions(seat)`` for a seat that is not at the table offers nothing (it
    offered ``catch 0`` to seat -1 and raised IndexError for seat 9: fixed)."""
    s = make(TABLE, "R0", PILE)
    act(s, "play R5")
    assert s.legal_actions(-1) == [] and s.legal_actions(9) == []
    refused(s, "catch 0", "U2", seat=-1, contains="not an active player")
