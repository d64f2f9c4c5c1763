"""Scenarios an independent audit found wrong, each fixed and named by its rule IDs."""

from __future__ import annotations

import json
import random

import pytest

from nomercy import Action, GameState, InvalidState, Rules, new_game, player_view
from nomercy.events import Drew, KnockedOut, Played, Reshuffled, Reversed
from nomercy.record import GameRecord
from nomercy.testing import RandomPlayer
from nomercy.views import PUBLIC_FIELDS, determinize

from .builders import C, act, color, make, refused, sizes


def test_U1_U3_W1_P3_K2_a_wild_reverse_draw4_that_hits_its_player_closes_the_uno_window() -> None:
    """Without stacking, 2 players: a Wild Reverse Draw 4 as the second-to-last card makes
    its own player draw 4 (W1/P3); holding five cards, they can no longer be caught (U3)."""
    s = make(["WR+4 R1", "B2 B3 B4"], "R5", "Y1 Y2 Y3 Y4 Y5 Y6", rules={"stacking": False})
    act(s, "play WR+4 G")
    assert sizes(s) == [5, 3] and s.uno_open == () and s.current == 1
    refused(s, "catch 0", "U3", seat=1, contains="cannot be caught")
    assert GameState.from_json(s.to_json()) == s


def test_E4_M3_seats_sitting_out_survive_a_json_round_trip() -> None:
    """E4 knocked_out_return=false: a seat dealt out of the round stays out after a reload."""
    s = new_game(4, seed=3, sitting_out={2})
    again = GameState.from_json(s.to_json())
    assert again == s and again.sitting_out == (2,) and again.active == [True, True, False, True]
    assert json.loads(s.to_json())["sitting_out"] == [2]
    while not again.is_over:
        assert again.current != 2
        again.apply(random.Random(again.step).choice(again.legal_actions()))


def test_E1_a_seat_in_play_with_no_cards_is_refused() -> None:
    """E1: a player with no cards has won; a round in play cannot hold one."""
    with pytest.raises(InvalidState, match=r"seat 1 is in the round with no cards"):
        make(["R1 R2", "", "G1"], "R5")


def test_T4_K8_a_stack_taken_across_a_reshuffle_reports_the_cards_in_the_order_they_moved() -> None:
    """T4/K8: two cards come from the old pile, then the reshuffle, then the rest."""
    s = make(["R1 R2", "G1 G2"], "W+6 B3 B4 B5 B6", "Y1 Y2", color="R", pending=(6, 6, 1))
    events = act(s, "take")
    assert events[0] == Drew(0, 2, (C("Y1"), C("Y2")), "stack")
    assert events[1] == Reshuffled(4)
    assert type(events[2]) is Drew and events[2].count == 4 and events[2].reason == "stack"
    assert sizes(s) == [8, 2]


def test_M2_a_hand_put_under_the_discard_pile_is_face_down_in_every_view() -> None:
    """M2 knockout_hand=discard_bottom: the knocked-out hand lies face down under the pile,
    so no view shows it; determinize samples those cards as unseen ones."""
    big = " ".join([f"Y{n}" for n in range(1, 10)] * 2 + ["B1", "B2", "B3", "B4", "G3"])
    s = make(
        ["R1 R2", big, "G1 G2"], "R+2 B9", "B5 B6 B7", pending=(2, 2, 0), current=1,
        rules={"knockout_hand": "discard_bottom"},
    )  # fmt: skip
    events = act(s, "take")
    assert any(isinstance(e, KnockedOut) for e in events)
    assert s.buried == 25 and len(s.discard) == 27
    for seat in (0, 2, None):
        view = player_view(s, seat)
        assert [c.code for c in view.discard] == ["B9", "R+2"] and view.buried == 25
    sample = determinize(player_view(s, 0), random.Random(1))
    assert sample.buried == 25 and sample.discard[-2:] == s.discard[-2:]


def test_E2_W1_a_last_wild_reverse_draw4_reports_its_reverse() -> None:
    """E2 last_card_draw=apply: the last card's Wild Reverse Draw 4 still turns play around."""
    s = make(["WR+4", "B2 B3", "G1 G2"], "R5", "Y1 Y2 Y3 Y4", rules={"last_card_draw": "apply"})
    events = act(s, "play WR+4 G")
    assert events[:2] == [Played(0, C("WR+4"), color("G"), None, False), Reversed(-1)]
    assert s.direction == -1 and sizes(s) == [0, 2, 6]


def test_state_format_1_is_still_read() -> None:
    """A version-1 save (uno_open a seat or null, no sitting_out) reads as before."""
    s = make(["R1", "G1 G2"], "R5", "Y1", current=1, uno_open=0)
    data = s.to_dict()
    data["format_version"] = 1
    for key in ("sitting_out", "challenge", "discard_buried"):
        del data[key]
    data["uno_open"] = 0
    assert GameState.from_dict(data) == s
    data["sitting_out"] = []
    with pytest.raises(InvalidState, match="format version 1 has no sitting_out"):
        GameState.from_dict(data)
    with pytest.raises(InvalidState, match="version 5 is not supported"):
        GameState.from_dict({**s.to_dict(), "format_version": 5})


def test_state_format_3_challenge_without_its_verdict_is_judged_on_the_cards_it_names() -> None:
    """W6: version 4 records a Wild Draw 4's guilt when it is played (``challenge.guilty``);
    a version-3 save has no verdict, and its challenge is judged on the cards it names."""
    s = GameState.from_dict(
        {
            "rules": {"preset": "classic"},
            "hands": [["W+4", "R1"], ["B2", "B3"], ["Y1", "Y2"]],
            "discard_pile": ["R5"],
            "draw_pile": ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9"],
        }
    )
    s.apply(Action.parse("play W+4 G"))
    written = s.to_dict()
    assert written["format_version"] == 4 and written["challenge"]["guilty"] is True
    old = {
        **written,
        "format_version": 3,
        "challenge": {k: v for k, v in written["challenge"].items() if k != "guilty"},
    }
    assert GameState.from_dict(old) == s


def test_state_format_2_is_read_and_plays_on_with_the_format_3_reshuffles() -> None:
    """Version 3 changed only how (seed, shuffles) key a reshuffle (T4): a version-2 save
    reads as the same state, and its next reshuffle is the version-3 one (docs)."""
    s = make(["G1 G2", "Y1 Y2"], "R5 Y5 B5 G5 Y7", "", current=0)
    data = {**s.to_dict(), "format_version": 2}
    old = GameState.from_dict(data)
    assert old == s
    act(old, "draw")  # the empty draw pile is refilled from the discard pile (T4)
    act(s, "draw")
    assert old == s and old.shuffles == 1


def test_a_record_of_the_old_shuffles_is_refused_with_the_reason() -> None:
    """Record format 1 was dealt by the string-seeded shuffles: replaying its seed now
    would deal another game, so it is refused rather than replayed wrongly."""
    record, _ = GameRecord.start(2, Rules(), seed=7)
    data = record.to_dict()
    assert data["format_version"] == 2
    assert GameRecord.from_dict(data) == record
    with pytest.raises(InvalidState, match="old string-seeded shuffles"):
        GameRecord.from_dict({**data, "format_version": 1})


@pytest.mark.parametrize("preset", ["no_mercy", "classic"])
def test_determinize_keeps_every_public_fact(preset: str) -> None:
    """Every public field of a state survives determinize (who played the last Draw card
    and the Roulette, the knock-out bonuses, seats sitting out, ...): sampled worlds credit
    knock-outs to the right knocker under knockout_bonus_to=knocker (E3)."""
    rules = Rules.preset(preset).replace(knockout_bonus_to="knocker")
    rng = random.Random(5)
    checked = 0
    for game in range(40):
        s = new_game(4, rules, seed=game, sitting_out={3} if game % 4 == 0 else ())
        while not s.is_over:
            seat = s.current
            assert seat is not None
            sample = determinize(player_view(s, seat), rng)
            for name in PUBLIC_FIELDS:
                ours, theirs = getattr(sample, name), getattr(s, name)
                assert ours == theirs, (name, ours, theirs)
            assert sample.discard[s.buried :] == s.discard[s.buried :]
            assert sample.hands[seat] == s.hands[seat] and list(map(len, sample.hands)) == sizes(s)
            checked += 1
            actor, action = RandomPlayer()(s, rng)  # mostly a play where drawing is allowed (T3)
            s.apply(action, actor)
    assert checked > 1000
