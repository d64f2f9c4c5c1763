"""E1-E4: winning a round, a last Draw card, round points and the scored match."""

from __future__ import annotations

import random

import pytest

from nomercy import Decision, GameOver, IllegalAction, Match, Rules
from nomercy.events import Drew, KnockedOut, Played, RoundOver

from .builders import C, act, cs, filler, make, refused

BIG = filler(24, "YB")


def test_E1_playing_the_last_card_wins() -> None:
    """E1: the round ends when a player plays their last card; that player wins."""
    s = make(["R3", "G1 G2 R9", "Y7 W+6"], "R5")
    events = act(s, "play R3")
    assert events == [Played(0, C("R3")), RoundOver(0, "played_out", {0: 69, 1: 0, 2: 0})]
    assert s.outcome is not None and (s.outcome.winner, s.outcome.reason) == (0, "played_out")
    assert (s.current, s.current_player, s.decision, s.is_over) == (None, None, Decision.OVER, True)
    assert s.legal_actions() == [] and s.legal_actions(1) == []


def test_E1_no_action_after_the_round_ends() -> None:
    """E1: once the round is over every action is refused (GameOver), state unchanged."""
    s = make(["R3", "G1 G2 R9", "Y7 W+6"], "R5")
    act(s, "play R3")
    with pytest.raises(GameOver, match=r"\(E1\)"):
        act(s, "draw", seat=1)
    refused(s, "catch 0", "E1", seat=2)


def test_E2_last_draw_card_ignored_by_default() -> None:
    """E2 default ``last_card_draw=ignore``: no draw follows a last Draw card."""
    s = make(["R+2", "G1 G2 R9", "Y7 W+6"], "R5", "B1 B2 B3")
    events = act(s, "play R+2")
    assert events == [Played(0, C("R+2")), RoundOver(0, "played_out", {0: 69, 1: 0, 2: 0})]
    assert len(s.hands[1]) == 3 and s.pending_total == 0


def test_E2_last_draw_card_applied() -> None:
    """E2 ``last_card_draw=apply``: the next player draws the penalty (no stacking) before
    points are counted."""
    s = make(["R+2", "G1 G2 W+6", "Y7"], "R5", "B1 B2 B3", rules={"last_card_draw": "apply"})
    assert "play R+2" in {str(a) for a in s.legal_actions()}
    events = act(s, "play R+2")
    assert events == [
        Played(0, C("R+2")),
        Drew(1, 2, (C("B1"), C("B2")), "penalty"),
        RoundOver(0, "played_out", {0: 3 + 50 + 1 + 2 + 7, 1: 0, 2: 0}),
    ]


def test_E2_last_card_stacked_on_a_total_applied() -> None:
    """E2 ``apply``: a last Draw card stacked on a pending total: the next player draws it all."""
    s = make(["R1 R2", "W+6", "Y7 Y8"], "R+2", "B1 B2 B3 B4 B5 B6 B7 B8 B9", current=1, color="R",
             pending=(2, 2, 0), rules={"last_card_draw": "apply"})  # fmt: skip
    events = act(s, "play W+6 G")
    assert events[1] == Drew(2, 8, cs("B1 B2 B3 B4 B5 B6 B7 B8"), "penalty")
    assert s.outcome is not None and s.outcome.points[1] == 3 + 15 + 36


def test_E2_last_wild_reverse_draw4_applied_hits_previous_player() -> None:
    """E2 ``apply`` with W1: a last Wild Reverse Draw 4 reverses, the previous player draws."""
    s = make(["R1 R2", "WR+4", "Y7 Y8"], "R5", "B1 B2 B3 B4 B5", current=1, rules={"last_card_draw": "apply"})
    events = act(s, "play WR+4 G")
    assert Drew(0, 4, cs("B1 B2 B3 B4"), "penalty") in events
    assert len(s.hands[2]) == 2


def test_E2_last_card_draw_applied_can_knock_out() -> None:
    """E2 ``apply`` with M1: the penalty can knock the next player out; 250 for the winner."""
    s = make(["R+2", BIG, "G7"], "R5", "R3 R4", rules={"last_card_draw": "apply"})
    events = act(s, "play R+2")
    assert events[1:] == [
        Drew(1, 1, (C("R3"),), "penalty"),
        KnockedOut(1, 0, 25),
        RoundOver(0, "played_out", {0: 257, 1: 0, 2: 0}),
    ]


def test_E3_points_of_other_hands_plus_250_per_knock_out() -> None:
    """E3: the winner scores the other active hands (C4) plus 250 per knock-out; a
    knocked-out hand does not count; nobody else scores."""
    s = make(["G4", "R7 GSE W+10", "", "Y0 B9 B+4", ""], "G5",
             knocked_out=[{"seat": 2, "by": 1}, {"seat": 4, "by": None}])  # fmt: skip
    act(s, "play G4")
    assert s.outcome is not None and s.outcome.points == (77 + 29 + 500, 0, 0, 0, 0)


def test_E3_knockout_bonus_to_knocker_stack() -> None:
    """E3 ``knockout_bonus_to=knocker``: for a stack, the player who played its *last* Draw
    card scores the 250 at once; the winner scores only the cards."""
    rules = {"knockout_bonus_to": "knocker"}
    s = make(["W+6 R9 R8", BIG, "R+2 G5 G6"], "R5", "R3 R4 R6", current=2, rules=rules)
    act(s, "play R+2")  # seat 2 starts the stack on seat 0 ...
    act(s, "play W+6 G")  # ... seat 0 stacks the last Draw card on seat 1
    assert act(s, "take")[-1] == KnockedOut(1, 0, 25)
    assert s.bonus == [250, 0, 0]
    assert (s.current, s.outcome) == (2, None)


def test_E3_knockout_bonus_to_knocker_scores_at_round_end() -> None:
    """E3 ``knocker``: the knocker's 250 shows in the round's points beside the winner's cards."""
    rules = {"knockout_bonus_to": "knocker"}
    s = make(["R1 R9", BIG, "G2"], "W+6", "R3", current=1, color="G", pending=(6, 6, 0), rules=rules)
    act(s, "take")
    act(s, "play G2")
    assert s.outcome is not None and s.outcome.points == (250, 0, 10)


def test_E3_knockout_bonus_to_knocker_roulette_and_catch_and_self() -> None:
    """E3 ``knocker``: a Roulette's player, a catcher score; a self-caused knock-out, nobody."""
    rules = {"knockout_bonus_to": "knocker"}
    s = make(["R1 R2", BIG, "G1 G2"], "WCR", "R3", current=1, color="G", decision="roulette", roulette_by=0,
             rules=rules)  # fmt: skip
    act(s, "color G")
    assert s.bonus == [250, 0, 0]
    s = make(["R1 R2 R3", "Y1", "Y7 Y8"], "R5", filler(30, "GB"), rules={**rules, "uno_penalty": 30},
             uno_open=1, current=2)  # fmt: skip
    act(s, "catch 1", seat=0)
    assert s.bonus == [250, 0, 0]
    s = make(["R1 R2", BIG, "G1 G2"], "G0", "R3 G4", current=1, rules=rules)
    act(s, "draw")
    assert s.knocked_out[0].by is None and s.bonus == [0, 0, 0]


def _play_round(m: Match, rng: random.Random) -> None:
    while not m.round_over:
        m.apply(rng.choice(m.state.legal_actions()))


def test_E4_match_to_target_score() -> None:
    """E4: rounds are played until a total reaches ``target_score``; totals add each round's
    points; the dealer moves one seat left each round."""
    assert Rules().target_score == 1000 and Rules.preset("classic").target_score == 500
    m = Match(players=4, rules=Rules(target_score=2000), seed=3, dealer=1)
    rng = random.Random(3)
    totals = [0, 0, 0, 0]
    dealers = []
    while True:
        dealers.append(m.state.dealer)
        assert [len(h) for h in m.state.hands] == [7, 7, 7, 7]  # knocked_out_return default
        _play_round(m, rng)
        totals = [t + p for t, p in zip(totals, m.rounds[-1].points, strict=True)]
        assert m.scores == totals
        assert m.is_over == (max(totals) >= 2000)
        if m.is_over:
            break
        m.next_round()
    assert len(m.rounds) >= 2
    assert dealers == [(1 + i) % 4 for i in range(len(dealers))]
    assert m.winner is not None and m.scores[m.winner] == max(m.scores) >= 2000
    with pytest.raises(IllegalAction, match="match is over"):
        m.next_round()


def test_E4_knocked_out_return_false() -> None:
    """E4 ``knocked_out_return=false``: a player knocked out sits out the rest of the match:
    dealt nothing, never deciding, skipped by the deal."""
    rules = Rules(target_score=100_000, knocked_out_return=False)
    for seed in range(60):  # the first seeded match whose first round knocks one player out
        m = Match(players=4, rules=rules, seed=seed, dealer=0)
        _play_round(m, random.Random(seed))
        if len(m.rounds[-1].knocked_out) == 1:
            break
    else:
        raise AssertionError("no seed in 0-59 knocks exactly one player out in round 1")
    (out,) = m.rounds[-1].knocked_out
    assert m.eliminated == {out} and not m.is_over
    m.next_round()
    s = m.state
    assert s.active == [seat != out for seat in range(4)]
    assert s.hands[out] == [] and all(len(s.hands[x]) == 7 for x in range(4) if x != out)
    assert s.dealer == (1 if out != 1 else 2) and s.legal_actions(out) == []
    rng = random.Random(1)
    while not m.round_over:
        assert m.state.current != out
        m.apply(rng.choice(m.state.legal_actions()))
    assert m.rounds[-1].winner != out


def test_E4_knocked_out_return_default_deals_everyone_back_in() -> None:
    """E4 default ``knocked_out_return=true``: every player is dealt back in each round."""
    for seed in range(60):
        m = Match(players=4, rules=Rules(target_score=100_000), seed=seed, dealer=0)
        _play_round(m, random.Random(seed))
        if m.rounds[-1].knocked_out:
            break
    assert m.rounds[-1].knocked_out and m.eliminated == set()
    m.next_round()
    assert m.state.active == [True] * 4 and [len(h) for h in m.state.hands] == [7] * 4
