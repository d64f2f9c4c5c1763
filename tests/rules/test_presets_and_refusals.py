"""Section 13 presets, and refusals in general: every IllegalAction names its rule and
changes nothing."""

from __future__ import annotations

import random
import re

import pytest

from nomercy import (
    Action,
    Decision,
    GameState,
    IllegalAction,
    InvalidRules,
    InvalidState,
    NotYourTurn,
    Rules,
    full_deck,
    new_game,
)
from nomercy.testing import RandomPlayer

from .builders import act, bag, color, hand, legal, make, refused

CLASSIC = Rules.preset("classic")


def test_presets_no_mercy_is_the_default() -> None:
    """Section 13: ``no_mercy`` is every rule at its default; aliases find the presets."""
    assert Rules.preset("no_mercy") == Rules() == Rules.preset("default")
    assert Rules.preset("Classic") == Rules.preset("standard") == CLASSIC
    with pytest.raises(InvalidRules, match="unknown preset"):
        Rules.preset("speed")


def test_preset_classic_values() -> None:
    """Section 13 ``classic``: 108 cards, draw one (may play it), no stacking, no 7/0, no
    Mercy Rule, target 500."""
    assert sum(n for _, n in CLASSIC.deck) == 108
    assert (CLASSIC.draw_rule, CLASSIC.must_play_drawn, CLASSIC.stacking, CLASSIC.seven_zero) == (
        "one", False, False, False,
    )  # fmt: skip
    assert (CLASSIC.mercy_limit, CLASSIC.target_score) == (None, 500)
    s = new_game(4, CLASSIC, seed=7)
    assert [len(h) for h in s.hands] == [7, 7, 7, 7]


def test_preset_classic_wild_draw4_and_plain_wild() -> None:
    """Classic (W5, W6): a Wild Draw 4 may be played even with a red card in hand; its
    victim may challenge it or take the 4 (no stacking); a plain Wild just names a color;
    Sevens swap nothing; drawing is allowed while holding a playable card (T3)."""
    s = make(["W+4 W R7 G2", "Y1 Y2 W+4", "B1 B2"], "R5", "G3 G4 G5 G6 G7", rules=CLASSIC)
    assert {"play W+4 R", "play W R", "play R7", "draw"} <= legal(s)
    events = act(s, "play W+4 B")
    assert [e.type for e in events] == ["played"]
    assert (s.current, s.decision, s.pending_total) == (1, Decision.CHALLENGE, 4)
    assert legal(s) == {"challenge", "take"}
    assert [e.type for e in act(s, "take")] == ["drew"]
    assert hand(s, 1) == bag("Y1 Y2 W+4 G3 G4 G5 G6")
    assert (s.current, s.color.letter) == (2, "B")


def test_preset_classic_draw_one_and_no_mercy_limit() -> None:
    """Classic: draw one card and pass if it does not match; 30 cards knock nobody out."""
    big = "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3 B4 B5 B6 B7 B8 B9 Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3"
    s = make(["R1 R2", big], "G0", "R3 G9", current=1, rules=CLASSIC)
    assert [e.type for e in act(s, "draw")] == ["drew", "passed"]
    assert len(s.hands[1]) == 31 and s.knocked_out == [] and s.current == 0


def test_C3_no_mercy_positions_refuse_classic_cards() -> None:
    """C2/C3: a plain Wild is not in the no_mercy deck; a position holding one is refused."""
    with pytest.raises(InvalidState, match=r"deck has 0 \(C3\)"):
        make(["W R1", "G1 G2"], "R5")


def test_refusal_wrong_seat() -> None:
    """T1: only the deciding seat may play, draw or take; the error says whose turn it is."""
    s = make(["R1 R2 R3", "G1 G2 R9", "Y1 Y2 Y3"], "R5")
    before = s.to_json()
    with pytest.raises(NotYourTurn, match=r"it is P0's turn, not P2's \(T1\)"):
        act(s, "play Y1", seat=2)
    with pytest.raises(NotYourTurn):
        act(s, "draw", seat=1)
    assert s.to_json() == before


def test_refusal_card_not_held_and_wrong_moment() -> None:
    """T1/T2/K2/W4/S3: refusals for a card not in hand and for actions at the wrong moment."""
    s = make(["R1 R2 R3", "G1 G2 R9", "Y1 Y2 Y3"], "R5", "B1")
    refused(s, "play R9", "T1", contains="you have no red 9")
    refused(s, "pass", "T2")
    refused(s, "color G", "T1")
    refused(s, "take", "K2")
    refused(s, "uno", "U1")
    s = make(["R1 R2 R3", "G1 G2 R9", "Y1 Y2 Y3"], "W+6", current=1, decision="choose_color", color=None)
    refused(s, "play G1", "S3", contains="name the color of the first card first")
    act(s, "color G")
    assert s.color is not None and color("G") is s.color


RULE_NAMED = re.compile(rf"\((?:[CSTAWKNMUEPX][1-9]|{'|'.join(Rules.field_names())})\b[^)]*\)")


def _candidates(s: GameState, rng: random.Random) -> list[tuple[Action, int | None]]:
    """Well-formed actions for seeded probing, legal or not, from any seat."""
    codes = [c.code for c in s.hands[s.current or 0]] + rng.sample(ALL_CODES, 6)
    out: list[tuple[Action, int | None]] = []
    for code in codes:
        extra = rng.choice(["", " R", " @1", " uno", " G @0"])
        out.append((Action.parse(f"play {code}{extra}"), None))
    for text in ("draw", "take", "pass", "color B", "uno", f"catch {rng.randrange(s.players)}"):
        out.append((Action.parse(text), rng.choice([None, rng.randrange(s.players)])))
    return out


ALL_CODES = sorted({c.code for c in full_deck()})


@pytest.mark.parametrize("preset", ["no_mercy", "classic"])
def test_every_refusal_names_its_rule_and_changes_nothing(preset: str) -> None:
    """Across seeded games, every IllegalAction message names a rule ID (or the house rule
    that refuses it) and leaves ``to_json()`` unchanged."""
    refusals = 0
    for seed in range(8):
        s = new_game(2 + seed % 5, Rules.preset(preset), seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            for action, seat in _candidates(s, rng):
                before = s.to_json()
                try:
                    s.clone().apply(action, seat)
                except IllegalAction as exc:
                    refusals += 1
                    assert RULE_NAMED.search(str(exc)), f"{action} by {seat}: {exc!r} names no rule"
                    assert s.to_json() == before
            # Mostly a play where drawing instead is allowed (T3): classic games stay short.
            seat, action = RandomPlayer()(s, rng)
            s.apply(action, seat)
    assert refusals > 500
