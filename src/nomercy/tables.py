"""Lookup tables the rules derive from the card set, built once at import.

The engine asks the same questions millions of times (which cards match the top card,
which plays a card has), so their answers are precomputed here, each in one table:
lists indexed by ``Card.index`` and frozensets that C-level set operations intersect
with a hand. Nothing here changes after import.
"""

from __future__ import annotations

from typing import Final

from nomercy.actions import Catch, Play
from nomercy.cards import Card, Color, Face

__all__ = [
    "CATCH",
    "MATCH_BY_TOP",
    "OF_COLOR",
    "PLAIN_AND_UNO",
    "PLAIN_PLAYS",
    "SPECIAL",
    "SPECIAL_CARDS",
    "SPECIAL_CHECK",
    "SPECIAL_SEVEN_ZERO",
    "UNO_PLAYS",
    "WD4_CARDS",
    "match_set",
    "seven_play",
]

#: Per card index: its plain plays (one per color for a wild that names one) ...
PLAIN_PLAYS: Final[list[tuple[Play, ...]]] = []
#: ... the same plays calling Uno (U1) ...
UNO_PLAYS: Final[list[tuple[Play, ...]]] = []
for _card in Card.ALL:
    # Wilds name their color with the play (T5), but for the Roulette (W4) and the Wild
    # Shuffle Hands, whose player names it after the deal (W7).
    if _card.is_wild and _card.face not in (Face.WILD_COLOR_ROULETTE, Face.WILD_SHUFFLE_HANDS):
        PLAIN_PLAYS.append(tuple(Play(_card, c) for c in Color))
        UNO_PLAYS.append(tuple(Play(_card, c, None, True) for c in Color))
    else:
        PLAIN_PLAYS.append((Play(_card),))
        UNO_PLAYS.append((Play(_card, None, None, True),))
#: ... and both, plain first: the plays of a card that leaves one card in hand.
PLAIN_AND_UNO: Final = [PLAIN_PLAYS[i] + UNO_PLAYS[i] for i in range(len(Card.ALL))]

_SEVENS: Final[dict[tuple[int, int, bool], Play]] = {}
#: ``Catch(seat)`` for every seat a table can have.
CATCH: Final = [Catch(seat) for seat in range(64)]


def seven_play(card: Card, target: int, uno: bool) -> Play:
    """The interned play of a Seven at ``target`` (N1)."""
    key = (card.index, target, uno)
    play = _SEVENS.get(key)
    if play is None:
        play = _SEVENS[key] = Play(card, None, target, uno)
    return play


#: The cards of each color, to count and filter a hand by color in C (A5).
OF_COLOR: Final = [frozenset(c for c in Card.ALL if c.color is color) for color in Color]
_OF_FACE: Final = {face: frozenset(c for c in Card.ALL if c.face is face) for face in Face}
_WILDS: Final = frozenset(c for c in Card.ALL if c.is_wild)
#: T1: the cards that may be played on a face with a color in play.
_MATCH_SETS: Final[dict[tuple[Color | None, Face], frozenset[Card]]] = {
    (color, face): _WILDS | OF_COLOR[color] | _OF_FACE[face] for color in Color for face in Face
}
#: The same by top card index, then color in play: two list lookups on the hottest line.
MATCH_BY_TOP: Final = [[_MATCH_SETS[(color, c.face)] for color in Color] for c in Card.ALL]
WD4_CARDS: Final = _OF_FACE[Face.WILD_DRAW_4]


def match_set(color: Color | None, face: Face) -> frozenset[Card]:
    """T1: the cards that may be played on ``face`` with ``color`` in play."""
    if color is None:  # no color in play: only while a first wild's color is unnamed
        return _WILDS | _OF_FACE[face]
    return _MATCH_SETS[(color, face)]


#: Per card index: plays that depend on more than the card (Sevens: targets; Zeros,
#: Discard All and the Wild Shuffle Hands: how many cards they leave; the Wild Draw 4: its
#: restriction).
SPECIAL: Final = [
    c.face in (Face.SEVEN, Face.ZERO, Face.DISCARD_ALL, Face.WILD_DRAW_4, Face.WILD_SHUFFLE_HANDS)
    for c in Card.ALL
]
#: The same as a set, for one C-level isdisjoint() test of a hand's matching cards ...
SPECIAL_SEVEN_ZERO: Final = frozenset(c for c in Card.ALL if SPECIAL[c.index])
#: ... and without N1-N2 (seven_zero off), where Sevens and Zeros are plain cards.
SPECIAL_CARDS: Final = frozenset(c for c in SPECIAL_SEVEN_ZERO if c.face not in (Face.SEVEN, Face.ZERO))
#: Per card index: plays that need the full legality check (wilds: a color; Sevens: a target).
SPECIAL_CHECK: Final = [c.is_wild or c.face is Face.SEVEN for c in Card.ALL]
