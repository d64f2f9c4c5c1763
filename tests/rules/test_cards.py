"""C1-C5: colors, kinds, the 168-card deck, points and draw values."""

from __future__ import annotations

from collections import Counter

import pytest

from nomercy import Card, Color, Face, InvalidCard, InvalidRules, InvalidState, Rules, full_deck

from .builders import C, make

NO_MERCY_WILDS = {"WR+4": 8, "W+6": 4, "W+10": 4, "WCR": 8}
PER_COLOR = {**{str(n): 2 for n in range(10)}, "S": 3, "R": 3, "+2": 3, "+4": 2, "DA": 3, "SE": 2}


def test_C1_four_colors_and_wilds_have_none() -> None:
    """C1: red, yellow, green, blue; a wild card has no color of its own."""
    assert [c.name for c in Color] == ["RED", "YELLOW", "GREEN", "BLUE"]
    deck = full_deck()
    assert {c.color for c in deck if not c.is_wild} == set(Color)
    assert {c.color for c in deck if c.is_wild} == {None}
    with pytest.raises(InvalidCard, match="wild and has no color"):
        Card(Color.RED, Face.WILD_DRAW_6)


def test_C2_kinds_in_the_no_mercy_deck() -> None:
    """C2: numbers 0-9, six colored actions, four wilds; no plain Wild or Wild Draw 4."""
    faces = {c.face for c in full_deck()}
    colored_actions = {
        Face.SKIP,
        Face.REVERSE,
        Face.DRAW_2,
        Face.DRAW_4,
        Face.DISCARD_ALL,
        Face.SKIP_EVERYONE,
    }
    wilds = {Face.WILD_REVERSE_DRAW_4, Face.WILD_DRAW_6, Face.WILD_DRAW_10, Face.WILD_COLOR_ROULETTE}
    assert faces == {Face(n) for n in range(10)} | colored_actions | wilds
    assert Face.WILD not in faces and Face.WILD_DRAW_4 not in faces
    # The classic-only kinds exist only for the classic deck (docs/rules.md C2, W5).
    classic_faces = {c.face for c in full_deck(Rules.preset("classic"))}
    assert {Face.WILD, Face.WILD_DRAW_4} <= classic_faces


def test_C3_deck_of_168_composition() -> None:
    """C3: per color 2x each number, Skip/Reverse/Draw 2/Discard All x3, Draw 4/Skip Everyone x2."""
    deck = full_deck()
    assert len(deck) == 168
    counts = Counter(c.code for c in deck)
    expected = {color + face: n for color in "RYGB" for face, n in PER_COLOR.items()}
    expected.update(NO_MERCY_WILDS)
    assert counts == expected
    assert sum(1 for c in deck if not c.is_wild) == 144
    assert sum(1 for c in deck if c.is_wild) == 24


def test_C3_custom_deck_is_accepted_and_validated() -> None:
    """C3 house rule ``deck``: a custom composition is accepted; bad ones fail naming the field."""
    rules = Rules(deck={"R1": 10, "G2": 10, "W+6": 2})
    assert Counter(c.code for c in full_deck(rules)) == {"R1": 10, "G2": 10, "W+6": 2}
    with pytest.raises(InvalidRules, match="XX") as info:
        Rules(deck={"R1": 20, "XX": 2})
    assert info.value.field == "deck"
    with pytest.raises(InvalidRules, match="whole number") as info:
        Rules(deck={"R1": -1})
    assert info.value.field == "deck"
    with pytest.raises(InvalidRules, match=r"number card.*\(S3\)"):
        Rules(deck={"RS": 30, "W+6": 4})
    with pytest.raises(InvalidRules, match="no cards"):
        Rules(deck={})
    with pytest.raises(InvalidRules, match="unknown deck"):
        Rules(deck="tarot")
    with pytest.raises(InvalidRules) as info:
        Rules(deck={"R1": 5})  # 7 cards each for two players cannot be dealt
    assert info.value.field == "hand_size"


def test_C3_a_position_cannot_hold_more_copies_than_the_deck() -> None:
    """C3: a hand-built state with a third red 5 is impossible and refused, naming C3."""
    with pytest.raises(InvalidState, match=r"3 copies of R5 but the deck has 2 \(C3\)"):
        make(["R5 R5", "G1"], "R5")


@pytest.mark.parametrize(
    ("code", "points"),
    [("R0", 0), ("G7", 7), ("B9", 9), ("YS", 20), ("RR", 20), ("G+2", 20), ("B+4", 20), ("RDA", 20),
     ("YSE", 20), ("WR+4", 50), ("W+6", 50), ("W+10", 50), ("WCR", 50)],
)  # fmt: skip
def test_C4_points(code: str, points: int) -> None:
    """C4: a number card is worth its face, a colored action 20, a wild 50."""
    assert C(code).points == points


def test_C4_points_are_what_the_winner_scores() -> None:
    """C4 via E3: the winner scores 0 + 9 + 20 + 50 for the cards left in the other hand."""
    s = make(["R3", "R0 B9 GSE W+10"], "R5")
    s.apply(s.legal_actions()[0])
    assert s.outcome is not None
    assert s.outcome.points == (79, 0)


@pytest.mark.parametrize(
    ("code", "value"),
    [("R+2", 2), ("B+4", 4), ("WR+4", 4), ("W+6", 6), ("W+10", 10), ("WCR", 0), ("GS", 0), ("Y7", 0)],
)
def test_C5_draw_values(code: str, value: int) -> None:
    """C5: Draw 2/4, Wild Reverse Draw 4, Wild Draw 6/10 are Draw cards; Roulette is not."""
    card = C(code)
    assert card.draw_value == value
    assert card.is_draw == (value > 0)
