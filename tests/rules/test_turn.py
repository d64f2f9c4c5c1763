"""T1-T5: matching, drawing until playable, drawing while able to play, the empty draw
pile, naming a color."""

from __future__ import annotations

from collections import Counter

from nomercy import Decision, Rules
from nomercy.events import Drew, Passed, Played, Reshuffled

from .builders import C, act, bag, discard, draw_pile, hand, legal, make, refused

WILD_PLAYS = {f"play {w} {c}" for w in ("W+6",) for c in "RYGB"}


def test_T1_match_color_number_or_wild() -> None:
    """T1: on a red 5, a red card or any 5 or any wild; nothing else."""
    s = make(["R2 G5 B7 Y+2 W+6 WCR GS", "G1 G2 G3", "Y1 Y2 Y3"], "R5")
    assert legal(s) == {"play R2", "play G5", "play WCR"} | WILD_PLAYS
    refused(s, "play B7", "T1", contains="a blue 7 does not match the red 5")
    refused(s, "play Y+2", "T1")
    refused(s, "play GS", "T1")
    events = act(s, "play G5")
    assert events == [Played(0, C("G5"))]
    assert (s.color.letter, s.current, s.decision) == ("G", 1, Decision.PLAY)
    assert discard(s) == "G5 R5"
    assert hand(s, 0) == bag("R2 B7 Y+2 W+6 WCR GS")


def test_T1_symbol_matches_same_symbol_in_any_color() -> None:
    """T1: a Draw 4 on any Draw 4, a Skip Everyone on any Skip Everyone (no pending total)."""
    s = make(["B+4 G+2 Y9", "G1 G2 G3", "Y1 Y2 Y3"], "R+4")
    assert legal(s) == {"play B+4"}
    s = make(["GSE YS B1", "G1 G2 G3", "Y1 Y2 Y3"], "RSE")
    assert legal(s) == {"play GSE"}


def test_T1_after_a_wild_match_the_named_color() -> None:
    """T1: after a wild card, match the color that was named, not the wild's symbol."""
    s = make(["G3 R6 B+4 W+10", "G1 G2 G4", "Y1 Y2 Y3"], "W+6", color="G")
    assert legal(s) == {"play G3"} | {f"play W+10 {c}" for c in "RYGB"}
    refused(s, "play R6", "T1", contains="with green in play")


def test_T1_wild_on_anything_no_challenge() -> None:
    """T1: a wild card can be played on any card at any time (no challenge rule)."""
    s = make(["W+10 WR+4 B3", "G1 G2 G4", "Y1 Y2 Y3"], "RSE")
    assert legal(s) == {f"play {w} {c}" for w in ("W+10", "WR+4") for c in "RYGB"}


def test_T2_draw_until_playable_then_must_play_it() -> None:
    """T2 default: draw one at a time until a playable card, then that card must be played."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "G9 Y2 R9 B3")
    assert legal(s) == {"draw"}
    events = act(s, "draw")
    assert events == [Drew(0, 3, (C("G9"), C("Y2"), C("R9")), "draw")]
    assert (s.current, s.decision, s.drawn) == (0, Decision.PLAY_DRAWN, C("R9"))
    assert draw_pile(s) == "B3"
    assert legal(s) == {"play R9"}
    refused(s, "pass", "T2", contains="you must play the R9")
    refused(s, "play G7", "T2")
    refused(s, "draw", "T2")
    act(s, "play R9")
    assert hand(s, 0) == bag("G7 Y1 B2 G9 Y2")
    assert (s.current, s.decision, s.drawn, discard(s)) == (1, Decision.PLAY, None, "R9 R5")


def test_T2_must_play_drawn_false_may_keep_it() -> None:
    """T2 ``must_play_drawn=false``: the playable drawn card may be kept, ending the turn."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "R9 B3", rules={"must_play_drawn": False})
    act(s, "draw")
    assert legal(s) == {"play R9", "pass"}
    assert act(s, "pass") == [Passed(0)]
    assert hand(s, 0) == bag("G7 Y1 B2 R9")
    assert (s.current, s.decision, s.drawn, discard(s)) == (1, Decision.PLAY, None, "R5")


def test_T2_drawn_wild_offers_every_color() -> None:
    """T2: a drawn wild is playable; its play names a color (T5)."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "B8 W+6")
    act(s, "draw")
    assert s.drawn == C("W+6") and legal(s) == WILD_PLAYS


def test_T2_draw_rule_one_unplayable_passes() -> None:
    """T2 ``draw_rule=one``: draw a single card; if it does not match, the turn passes."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "G9 R9", rules={"draw_rule": "one"})
    assert act(s, "draw") == [Drew(0, 1, (C("G9"),), "draw"), Passed(0)]
    assert (s.current, s.decision, draw_pile(s)) == (1, Decision.PLAY, "R9")
    assert hand(s, 0) == bag("G7 Y1 B2 G9")


def test_T2_draw_rule_one_playable_may_be_played() -> None:
    """T2 ``draw_rule=one`` (classic, with must_play_drawn=false): a matching card may be played."""
    rules = {"draw_rule": "one", "must_play_drawn": False}
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "R9 G9", rules=rules)
    assert act(s, "draw") == [Drew(0, 1, (C("R9"),), "draw")]
    assert legal(s) == {"play R9", "pass"}
    act(s, "play R9")
    assert (s.current, discard(s), draw_pile(s)) == (1, "R9 R5", "G9")


def test_T2_play_drawn_at_once_plays_a_forced_card_inside_the_draw() -> None:
    """T2 ``play_drawn_at_once`` (RLCard's UNO): a drawn card with one possible play is played
    by the draw itself; the turn moves on without a ``play_drawn`` decision."""
    rules = {"play_drawn_at_once": True}
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "G9 R9 B3", rules=rules)
    events = act(s, "draw")
    assert events[0] == Drew(0, 2, (C("G9"), C("R9")), "draw")
    assert events[1].type == "played" and events[1].card == C("R9")
    assert hand(s, 0) == bag("G7 Y1 B2 G9")
    assert (s.current, s.decision, s.drawn, discard(s), s.step) == (1, Decision.PLAY, None, "R9 R5", 1)


def test_T2_play_drawn_at_once_still_asks_for_a_wild_color() -> None:
    """T2 ``play_drawn_at_once``: a drawn wild leaves a color to name, so it stays a decision."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "W+6", rules={"play_drawn_at_once": True})
    act(s, "draw")
    assert (s.current, s.decision, s.drawn) == (0, Decision.PLAY_DRAWN, C("W+6"))
    assert legal(s) == WILD_PLAYS


def test_T2_play_drawn_at_once_needs_must_play_drawn() -> None:
    """T2: with ``must_play_drawn=false`` the drawn card may be kept, so nothing is played for you."""
    rules = {"play_drawn_at_once": True, "must_play_drawn": False}
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "R9", rules=rules)
    act(s, "draw")
    assert (s.decision, legal(s)) == (Decision.PLAY_DRAWN, {"play R9", "pass"})


def test_T3_draw_refused_while_holding_a_playable_card() -> None:
    """T3 default: you may only draw when nothing in your hand is playable."""
    s = make(["G5 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "R9")
    assert "draw" not in legal(s)
    refused(s, "draw", "T3", contains="you hold a playable card (G5)")


def test_T3_draw_when_playable_house_rule() -> None:
    """T3 ``draw_when_playable=true``: draw even when holding a playable card; T2 applies."""
    s = make(["G5 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5", "B9 R9", rules=Rules(draw_when_playable=True))
    assert legal(s) == {"play G5", "draw"}
    assert act(s, "draw") == [Drew(0, 2, (C("B9"), C("R9")), "draw")]
    assert (s.decision, s.drawn, legal(s)) == (Decision.PLAY_DRAWN, C("R9"), {"play R9"})


def test_T4_empty_draw_pile_reshuffles_discard_and_aside() -> None:
    """T4: the discard pile but its top, with set-aside hands, forms the new draw pile."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5 G3 Y2", "", aside="B7 R8")
    events = act(s, "draw")
    assert events[0] == Reshuffled(4)
    drew = events[1]
    assert isinstance(drew, Drew) and drew.seat == 0 and drew.reason == "draw"
    assert drew.cards is not None and drew.cards[-1] == C("R8")  # drawing stops at the red 8
    assert Counter(c.code for c in drew.cards) <= bag("G3 Y2 B7 R8")
    assert discard(s) == "R5" and s.aside == [] and s.shuffles == 1
    assert hand(s, 0) + Counter(c.code for c in s.draw_pile) == bag("G7 Y1 B2 G3 Y2 B7 R8")
    assert (s.decision, s.drawn) == (Decision.PLAY_DRAWN, C("R8"))


def test_T4_nothing_left_to_draw_passes_the_turn() -> None:
    """T4: if still no card can be drawn, drawing ends; draw-until-playable found nothing: pass.
    The events come in the order the cards moved: the last card of the old pile is drawn
    before the reshuffle, the next one after it."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5 G3", "Y9")
    events = act(s, "draw")
    y9, g3 = (C("Y9"),), (C("G3"),)
    assert events == [Drew(0, 1, y9, "draw"), Reshuffled(1), Drew(0, 1, g3, "draw"), Passed(0)]
    assert hand(s, 0) == bag("G7 Y1 B2 Y9 G3")
    assert (s.current, s.decision, discard(s), draw_pile(s)) == (1, Decision.PLAY, "R5", "")


def test_T4_taking_a_stack_from_a_short_pile_keeps_what_was_drawn() -> None:
    """T4 with K2: a pending 6 with only 3 cards left to draw: take 3, lose the turn."""
    s = make(["G7 Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "W+6", "B8 B9 Y7", color="R", pending=(6, 6, 2))
    events = act(s, "take")
    assert events == [Drew(0, 3, (C("B8"), C("B9"), C("Y7")), "stack")]
    assert hand(s, 0) == bag("G7 Y1 B2 B8 B9 Y7")
    assert (s.current, s.decision, s.pending_total, s.color.letter) == (1, Decision.PLAY, 0, "R")


def test_T5_wild_player_names_the_color() -> None:
    """T5: whoever plays a wild names the color play continues in; without one it is refused."""
    s = make(["W+6 R1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5")
    refused(s, "play W+6", "T5", contains="name a color for the Wild Draw 6")
    refused(s, "play R1 G", "T5", contains="only a wild card names a color")
    act(s, "play W+6 B")
    assert s.color.letter == "B" and discard(s) == "W+6 R5"


def test_T5_roulette_player_names_no_color() -> None:
    """T5/W4: a Wild Color Roulette's color is named by its victim, not its player."""
    s = make(["WCR Y1 B2", "G1 G2 G4", "Y5 Y6 Y3"], "R5")
    refused(s, "play WCR G", "W4")
    assert legal(s) >= {"play WCR"}
