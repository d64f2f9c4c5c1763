"""K1-K8: the pending draw total, stacking and taking."""

from __future__ import annotations

import pytest

from nomercy import Decision, GameState
from nomercy.events import Drew, KnockedOut, Played, Reversed, StackGrew

from .builders import C, act, bag, color, cs, discard, draw_pile, filler, hand, legal, make, refused, sizes

DRAWS = ["B+2", "B+4", "WR+4", "W+6", "W+10"]
VALUE = {"R+2": 2, "B+2": 2, "R+4": 4, "B+4": 4, "WR+4": 4, "W+6": 6, "W+10": 10}
PILE = "G6 G7 G8 G9 R6 R7 R8 R9 Y6 Y7 Y8 Y9 B6 B7 B8 G6 G7 G8 G9 R6"


def _facing(last: str, hand1: str, rules: dict[str, object] | None = None) -> GameState:
    """Seat 1 of 4 faces the pending total of ``last``, played by seat 0, red in play."""
    return make(
        ["R1 R2 R3", hand1, "Y7 Y8 Y9", "B7 B8 B9"], last, "G1 G2 G3 G4 G5 G6 G7 G8 G9 G1 G2 G3 G4 G5",
        rules=rules, current=1, color="R", pending=(VALUE[last], VALUE[last], 0),
    )  # fmt: skip


def _play_text(card: str) -> str:
    return f"play {card} R" if card.startswith("W") else f"play {card}"


def test_K1_pending_total_starts_and_grows() -> None:
    """K1: a Draw card played on you starts a pending total; a stacked one adds to it."""
    s = make(["R+2 R1 B9", "B+4 G4 G5", "W+6 Y1 Y2", "B1 B2 B3"], "R5")
    assert act(s, "play R+2")[-1] == StackGrew(1, 2)
    assert (s.pending_total, s.last_draw_value, s.last_draw_by) == (2, 2, 0)
    assert act(s, "play B+4")[-1] == StackGrew(2, 6)
    assert (s.pending_total, s.last_draw_value, s.last_draw_by) == (6, 4, 1)
    assert act(s, "play W+6 Y")[-1] == StackGrew(3, 12)
    assert (s.pending_total, s.last_draw_value, s.last_draw_by, s.current) == (12, 6, 2, 3)


def test_K2_stack_or_take_is_a_choice() -> None:
    """K2: facing a total you may stack (equal or higher) or take it all; never forced."""
    s = _facing("R+2", "B+2 W+10 G9")
    assert legal(s) == {"play B+2", "take"} | {f"play W+10 {c}" for c in "RYGB"}
    events = act(s, "take")
    assert events == [Drew(1, 2, (C("G1"), C("G2")), "stack")]
    assert hand(s, 1) == bag("B+2 W+10 G9 G1 G2")
    assert (s.current, s.decision, s.pending_total, s.last_draw_value, s.last_draw_by) == (
        2, Decision.PLAY, 0, 0, None,
    )  # fmt: skip


def test_K2_take_only_when_facing_a_total() -> None:
    """K2: there is nothing to take without a pending total."""
    s = make(["R1 R2 R3", "G1 G2 G3"], "R5")
    refused(s, "take", "K2")


def test_K2_stacking_false_victim_draws_at_once() -> None:
    """K2 ``stacking=false`` (classic table): the Draw card's victim draws and loses the turn."""
    s = make(["R+2 R1 B9", "B+4 G4 G5", "Y1 Y2 Y3"], "R5", "G7 G8 G9", rules={"stacking": False})
    assert act(s, "play R+2") == [Played(0, C("R+2")), Drew(1, 2, (C("G7"), C("G8")), "penalty")]
    assert hand(s, 1) == bag("B+4 G4 G5 G7 G8")
    assert (s.current, s.decision, s.pending_total) == (2, Decision.PLAY, 0)


@pytest.mark.parametrize("last", ["R+2", "R+4", "WR+4", "W+6", "W+10"])
@pytest.mark.parametrize("card", DRAWS)
def test_K3_what_stacks_on_what(last: str, card: str) -> None:
    """K3: a Draw card stacks if its value is equal to or higher than the last one's."""
    s = _facing(last, f"{card} G9 Y5")
    allowed = VALUE[card] >= VALUE[last]
    plays = {a for a in legal(s) if a.startswith(f"play {card} ")} | ({f"play {card}"} & legal(s))
    assert bool(plays) == allowed
    if allowed:
        act(s, _play_text(card))
        assert s.pending_total == VALUE[last] + VALUE[card]
        assert s.last_draw_value == VALUE[card] and s.last_draw_by == 1
        assert s.current == (0 if card == "WR+4" else 2) and s.decision is Decision.STACK
    else:
        refused(s, _play_text(card), "K3", contains="stack equal or higher")


def test_K3_draw2_cannot_stack_on_draw4() -> None:
    """K3: a Draw 2 on a Draw 4 is refused with a message that says why."""
    s = _facing("R+4", "B+2 G9 Y5")
    assert legal(s) == {"take"}
    refused(s, "play B+2", "K3", contains="a Draw 2 cannot be stacked on a Draw 4")


def test_K3_draw10_stackable_false_ends_the_stack() -> None:
    """K3 ``draw10_stackable=false``: nothing stacks on a Wild Draw 10; the next player takes."""
    s = _facing("W+10", "W+10 G9 Y5", rules={"draw10_stackable": False})
    assert legal(s) == {"take"}
    refused(s, "play W+10 R", "K3", contains="draw10_stackable")
    s = _facing("W+6", "W+10 G9 Y5", rules={"draw10_stackable": False})
    act(s, "play W+10 B")  # a Wild Draw 10 still stacks on a lower card
    assert (s.current, s.pending_total, s.last_draw_value) == (2, 16, 10)
    s.hands[2].append(C("W+10"))  # even holding one, the next player must take it
    assert legal(s) == {"take"}


def test_K3_draw10_stackable_default_stacks_on_draw10() -> None:
    """K3 default ``draw10_stackable=true``: a Wild Draw 10 on a Wild Draw 10 ("equal or higher")."""
    s = _facing("W+10", "W+10 G9 Y5")
    act(s, "play W+10 Y")
    assert (s.current, s.pending_total, s.color.letter) == (2, 20, "Y")


@pytest.mark.parametrize("card", ["RS", "RR", "RSE", "RDA", "R7", "R0", "WCR"])
def test_K4_only_draw_cards_answer(card: str) -> None:
    """K4: Skip, Reverse, Skip Everyone, Discard All, numbers and the Roulette do not answer a
    pending total; the player can only stack or take (and cannot draw)."""
    s = _facing("R+2", f"{card} G9 Y5")
    assert legal(s) == {"take"}
    text = "play R7 @2" if card == "R7" else f"play {card}"
    refused(s, text, "K4", contains="only a Draw card answers it")
    refused(s, "draw", "K4")
    refused(s, "color G", "K2")


def test_K5_stack_color_any_default() -> None:
    """K5 default ``stack_color=any``: a colored Draw card stacks regardless of the color."""
    s = _facing("R+2", "B+4 G+2 Y5")
    assert {"play B+4", "play G+2"} <= legal(s)
    act(s, "play B+4")
    assert s.color.letter == "B" and s.pending_total == 6


def test_K5_stack_color_match() -> None:
    """K5 ``stack_color=match``: a colored Draw card must match the color in play or the
    last card's symbol; wilds are always allowed."""
    rules = {"stack_color": "match"}
    s = _facing("R+2", "B+4 G+4 R+4 B+2 W+6 Y5", rules=rules)
    assert legal(s) == {"take", "play R+4", "play B+2"} | {f"play W+6 {c}" for c in "RYGB"}
    refused(s, "play B+4", "K5", contains="must match the color in play")
    refused(s, "play G+4", "K5")
    s = _facing("R+4", "B+4 Y5", rules=rules)  # a Draw 4 on a Draw 4
    assert "play B+4" in legal(s)
    s = make(["R1 R2", "B+4 G+4 Y5", "Y7 Y8", "B7 B9"], "WR+4", current=1, color="G", pending=(4, 4, 0),
             rules=rules)  # fmt: skip
    assert legal(s) == {"take", "play G+4"}


def test_K6_wild_reverse_draw4_in_a_stack_reverses() -> None:
    """K6: a Wild Reverse Draw 4 added to a stack reverses; the total goes the new way."""
    s = make(["R+2 R1 B9", "WR+4 G4 G5", "Y1 Y2 Y3", "B1 B2 B3"], "R5", PILE)
    act(s, "play R+2")
    events = act(s, "play WR+4 Y")
    assert events == [Played(1, C("WR+4"), color("Y")), Reversed(-1), StackGrew(0, 6)]
    assert (s.direction, s.current, s.pending_total, s.decision) == (-1, 0, 6, Decision.STACK)
    act(s, "take")
    assert (s.current, s.color.letter) == (3, "Y")


def test_K7_color_after_a_stack_and_who_plays_next() -> None:
    """K7: a wild Draw card's player names the color; after the total is taken, play goes on
    in that color with the player after the one who took it."""
    s = make(["W+6 R1 B9", "W+10 G4 G5", "Y1 Y2 Y3", "B1 B2 B3"], "R5", PILE)
    act(s, "play W+6 B")
    assert s.color.letter == "B"
    act(s, "play W+10 Y")
    assert s.color.letter == "Y"
    act(s, "take")
    assert sizes(s) == [2, 2, 19, 3]
    assert (s.current, s.decision, s.color.letter, discard(s)) == (3, Decision.PLAY, "Y", "W+10 W+6 R5")
    assert legal(s) == {"draw"}  # the blue cards do not match yellow


def test_K8_mercy_while_taking_stops_the_draw() -> None:
    """K8/M1: the Mercy Rule applies after every card drawn: at 25 the taker is out and the
    rest of the total stays in the draw pile."""
    pile = "G1 G2 G3 G4 G5 G6 G7 G8 G9 B1 B2"
    hands = ["R1 R2 R3", "B+2 " + filler(19, "YG"), "B7 B8 B9", "R7 R8 R9"]
    s = make(hands, "W+10", pile, current=1, color="R", pending=(10, 10, 0))
    events = act(s, "take")
    assert events == [Drew(1, 5, cs("G1 G2 G3 G4 G5"), "stack"), KnockedOut(1, 0, 25)]
    assert draw_pile(s) == "G6 G7 G8 G9 B1 B2"
    assert s.hands[1] == [] and s.active[1] is False
    assert (s.current, s.decision, s.pending_total) == (2, Decision.PLAY, 0)
