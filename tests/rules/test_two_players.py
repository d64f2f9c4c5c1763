"""P1-P4: the two-player game."""

from __future__ import annotations

import random
from collections import Counter

from nomercy import Decision, Rules, new_game, player_view
from nomercy.actions import Play
from nomercy.events import Drew, HandsPassed, HandsSwapped, Played, Reversed, Skipped, StackGrew

from .builders import C, act, bag, hand, make


def test_P1_reverse_and_skip_everyone_work_like_skip() -> None:
    """P1: with 2 players Reverse and Skip Everyone work like Skip: the player goes again."""
    s = make(["RR RSE G1 G2", "Y1 Y2 Y3"], "R5")
    act(s, "play RR")
    assert (s.current, s.decision) == (0, Decision.PLAY)
    assert act(s, "play RSE") == [Played(0, C("RSE")), Skipped((1,))]
    assert (s.current, s.decision) == (0, Decision.PLAY)


def test_P2_turn_comes_straight_back() -> None:
    """P2: after a Skip, or a Draw card the opponent does not stack, the turn comes back."""
    s = make(["RS R+2 G1 G2", "Y1 Y2 Y3"], "R5", "B1 B2 B3")
    assert act(s, "play RS") == [Played(0, C("RS")), Skipped((1,))]
    assert s.current == 0
    assert act(s, "play R+2")[-1] == StackGrew(1, 2)
    act(s, "take")
    assert (s.current, s.decision) == (0, Decision.PLAY)
    assert hand(s, 1) == bag("Y1 Y2 Y3 B1 B2")


def test_P3_wild_reverse_draw4_drawn_by_its_player() -> None:
    """P3/W1: a Wild Reverse Draw 4 is drawn by its own player unless stacked."""
    s = make(["WR+4 G1 G2", "Y1 Y2 Y3"], "R5", "B1 B2 B3 B4 B5")
    act(s, "play WR+4 Y")
    assert (s.current, s.pending_total) == (0, 4)
    act(s, "take")
    assert hand(s, 0) == bag("G1 G2 B1 B2 B3 B4") and s.current == 1


def test_P4_seven_and_zero_swap_the_two_hands() -> None:
    """P4: a 7 swaps with your opponent; a 0 swaps the two hands too."""
    s = make(["R7 G0 G2", "Y1 Y2 Y3 Y4"], "R5")
    assert {str(a) for a in s.legal_actions() if str(a).startswith("play R7")} == {"play R7 @1"}
    assert act(s, "play R7 @1")[-1] == HandsSwapped(0, 1)
    assert hand(s, 0) == bag("Y1 Y2 Y3 Y4") and hand(s, 1) == bag("G0 G2")
    s = make(["R0 G7 G2", "Y1 Y2 Y3 Y4"], "R5")
    assert act(s, "play R0")[-1] == HandsPassed(1)
    assert hand(s, 0) == bag("Y1 Y2 Y3 Y4") and hand(s, 1) == bag("G7 G2") and s.current == 1


def test_P3_K6_wild_reverse_draw4_stacked_comes_back_to_its_player() -> None:
    """P3/K6 (our reading of W1 "with 2 players the next player in the new direction is
    you"): with the default ``two_player_reverse_draw=self`` a Wild Reverse Draw 4 stacked
    on a total sends the total to its own player, who may stack again or take it."""
    s = make(["R1 R2", "WR+4 W+6 Y3"], "R+2", current=1, pending=(2, 2, 0))
    assert act(s, "play WR+4 B")[-2:] == [Reversed(-1), StackGrew(1, 6)]
    assert (s.current, s.decision, s.pending_total) == (1, Decision.STACK, 6)
    assert act(s, "play W+6 B")[-1] == StackGrew(0, 12)


def test_A2_P1_two_player_reverse_opponent() -> None:
    """A2/P1 ``two_player_reverse=opponent`` (RLCard's game): with 2 players a Reverse only
    turns the direction, so the opponent plays next; ``self`` (default) plays again."""
    for value, after in (("opponent", 1), ("self", 0)):
        s = make(["RR R1 B9", "G1 G2 G3"], "R5", rules={"two_player_reverse": value})
        assert act(s, "play RR") == [Played(0, C("RR")), Reversed(-1)]
        assert (s.direction, s.current, s.decision) == (-1, after, Decision.PLAY)


def test_W1_K6_draw_victim_names_who_answers_the_draw_card() -> None:
    """W1/K6: ``draw_victim`` (what bots and views ask) names the seat that then faces the
    card: the next seat, the previous one after a Wild Reverse Draw 4, and the player
    itself with two players under ``two_player_reverse_draw=self``."""
    seen: Counter[str] = Counter()
    for players in (2, 3, 4):
        for reverse_draw in ("self", "opponent"):
            for stacking in (True, False):
                rules = Rules(two_player_reverse_draw=reverse_draw, stacking=stacking)
                rng = random.Random(f"{players}{reverse_draw}{stacking}")
                for seed in range(12):
                    s = new_game(players, rules=rules, seed=seed)
                    while s.outcome is None:
                        seat = s.current
                        assert seat is not None
                        action = rng.choice(s.legal_actions())
                        if type(action) is not Play or not action.card.draw_value:
                            s.apply(action)
                            continue
                        view = player_view(s, seat)
                        expected = view.draw_victim(seat, action.card)
                        nxt, prv = view.next_seat(seat), view.previous_seat(seat)
                        facing = [e.seat for e in s.apply(action) if isinstance(e, (StackGrew, Drew))]
                        if facing:
                            assert facing[0] == expected, (players, rules, seed, action)
                            where = "self" if expected == seat else "next" if expected == nxt else "previous"
                            seen[where] += 1
                            assert where != "previous" or prv != nxt
    assert seen["self"] and seen["next"] and seen["previous"], seen
