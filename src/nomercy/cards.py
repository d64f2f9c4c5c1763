"""Cards: colors, faces, the interned :class:`Card` value, deck compositions and notation.

Cards are interned: there is exactly one ``Card`` object per (color, face), so identity
comparison is equality and a hand is a plain list of shared objects. Two physical copies
of the red 7 are the same value; the engine never needs to tell them apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import IntEnum
from types import FunctionType
from typing import ClassVar, Final

from nomercy.errors import InvalidCard, InvalidRules

__all__ = [
    "CLASSIC_112_DECK",
    "CLASSIC_DECK",
    "NO_MERCY_DECK",
    "Card",
    "Color",
    "DeckSpec",
    "Face",
    "deck_cards",
    "parse_cards",
]


class Color(IntEnum):
    """The four colors (C1). Wild cards have no color of their own."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    @property
    def letter(self) -> str:
        return "RYGB"[self]

    @classmethod
    def parse(cls, text: str) -> Color:
        """``"r"``, ``"Red"``, ``"B"`` ... -> Color; raises :class:`InvalidCard`."""
        key = text.strip().upper()
        for color in cls:
            if key in (color.letter, color.name):
                return color
        raise InvalidCard(f"{text!r} is not a color: use R, Y, G or B")

    def __str__(self) -> str:
        return self.letter


class Face(IntEnum):
    """What is printed on a card (C2). 0-9 are the number faces."""

    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    SKIP = 10
    REVERSE = 11
    DRAW_2 = 12
    DRAW_4 = 13
    DISCARD_ALL = 14
    SKIP_EVERYONE = 15
    WILD_REVERSE_DRAW_4 = 16
    WILD_DRAW_6 = 17
    WILD_DRAW_10 = 18
    WILD_COLOR_ROULETTE = 19
    WILD = 20  # classic preset only
    WILD_DRAW_4 = 21  # classic preset only
    WILD_SHUFFLE_HANDS = 22  # classic_112 preset only (W7)

    @property
    def is_number(self) -> bool:
        return self <= 9

    @property
    def is_wild(self) -> bool:
        return self >= Face.WILD_REVERSE_DRAW_4

    @property
    def code(self) -> str:
        return _FACE_CODES[self]

    @property
    def title(self) -> str:
        """Human name, e.g. ``"Wild Draw 6"``."""
        return _FACE_TITLES[self]


_FACE_CODES: dict[Face, str] = {
    **{Face(n): str(n) for n in range(10)},
    Face.SKIP: "S",
    Face.REVERSE: "R",
    Face.DRAW_2: "+2",
    Face.DRAW_4: "+4",
    Face.DISCARD_ALL: "DA",
    Face.SKIP_EVERYONE: "SE",
    Face.WILD_REVERSE_DRAW_4: "WR+4",
    Face.WILD_DRAW_6: "W+6",
    Face.WILD_DRAW_10: "W+10",
    Face.WILD_COLOR_ROULETTE: "WCR",
    Face.WILD: "W",
    Face.WILD_DRAW_4: "W+4",
    Face.WILD_SHUFFLE_HANDS: "WSH",
}
_FACE_TITLES: dict[Face, str] = {
    **{Face(n): str(n) for n in range(10)},
    Face.SKIP: "Skip",
    Face.REVERSE: "Reverse",
    Face.DRAW_2: "Draw 2",
    Face.DRAW_4: "Draw 4",
    Face.DISCARD_ALL: "Discard All",
    Face.SKIP_EVERYONE: "Skip Everyone",
    Face.WILD_REVERSE_DRAW_4: "Wild Reverse Draw 4",
    Face.WILD_DRAW_6: "Wild Draw 6",
    Face.WILD_DRAW_10: "Wild Draw 10",
    Face.WILD_COLOR_ROULETTE: "Wild Color Roulette",
    Face.WILD: "Wild",
    Face.WILD_DRAW_4: "Wild Draw 4",
    Face.WILD_SHUFFLE_HANDS: "Wild Shuffle Hands",
}
# C5: the Draw cards and their values.
_DRAW_VALUES: dict[Face, int] = {
    Face.DRAW_2: 2,
    Face.DRAW_4: 4,
    Face.WILD_REVERSE_DRAW_4: 4,
    Face.WILD_DRAW_6: 6,
    Face.WILD_DRAW_10: 10,
    Face.WILD_DRAW_4: 4,
}


_interned: dict[tuple[Color | None, Face], Card] = {}
_by_code: dict[str, Card] = {}


class Card:
    """One card value, e.g. the red 7 or the Wild Draw 10. Immutable and interned.

    >>> Card.parse("w+10") is Card(None, Face.WILD_DRAW_10)
    True
    >>> str(Card.parse("r+2"))
    'R+2'
    """

    __slots__ = (
        "code",
        "color",
        "draw_value",
        "face",
        "index",
        "is_draw",
        "is_number",
        "is_wild",
        "points",
    )
    #: Every card value, indexed by ``Card.index`` (colored cards, then wilds).
    ALL: ClassVar[tuple[Card, ...]]

    def __new__(cls, color: Color | None, face: Face, _index: int = -1) -> Card:
        """The interned card of ``(color, face)``; raises :class:`InvalidCard` if none.

        ``_index`` is private: :func:`_build_cards` creates each card once with it.
        """
        card = _interned.get((color, face))
        if card is not None:
            return card
        if _index < 0:
            raise InvalidCard(_describe_bad_pair(color, face))
        return super().__new__(cls)

    def __init__(self, color: Color | None, face: Face, _index: int = -1) -> None:
        if _interned.get((color, face)) is self:  # __new__ returned the interned card
            return
        self.color: Final = color
        self.face: Final = face
        self.code: Final = face.code if color is None else color.letter + face.code
        self.index: Final = _index
        self.points: Final = int(face) if face.is_number else (50 if face.is_wild else 20)
        self.draw_value: Final = _DRAW_VALUES.get(face, 0)
        self.is_wild: Final = face.is_wild
        self.is_number: Final = face.is_number
        self.is_draw: Final = face in _DRAW_VALUES
        _interned[(color, face)] = self
        _by_code[self.code] = self

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the card notation of ``docs/rules.md``, case-insensitively (``"r7"``, ``"W+6"``)."""
        key = text.strip().upper()
        card = _by_code.get(key)
        if card is None:
            raise InvalidCard(
                f"{text!r} is not a card: write a color letter R/Y/G/B and a face "
                "(0-9, S, R, +2, +4, DA, SE), or a wild code (WR+4, W+6, W+10, WCR, W, W+4, WSH)"
            )
        return card

    @property
    def title(self) -> str:
        """Human name, e.g. ``"red Draw 2"`` or ``"Wild Draw 6"``."""
        if self.color is None:
            return self.face.title
        return f"{self.color.name.lower()} {self.face.title}"

    def sort_key(self) -> tuple[int, int]:
        """Order used to show hands: by color (wilds last), then face.

        Cards define no ordering of their own (``sorted(hand, key=Card.sort_key)``):
        equality is identity, and an ordering operator would make CPython compare cards
        through Python-level slots on every ``in`` and ``remove``."""
        return (4 if self.color is None else int(self.color), int(self.face))

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.code,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __setattr__(self, name: str, value: object) -> None:
        # Immutable: each attribute is set once, by __init__. Compiled, __init__ writes the
        # Final attributes in C without this, and any later write from Python lands here.
        if hasattr(self, name):
            raise AttributeError(f"{type(self).__name__} objects are immutable")
        object.__setattr__(self, name, value)


def _describe_bad_pair(color: Color | None, face: Face) -> str:
    if color is None:
        return f"a {Face(face).title} needs a color"
    return f"a {Face(face).title} is wild and has no color of its own"


def _build_cards() -> tuple[Card, ...]:
    cards: list[Card] = []
    for color in Color:
        for face in Face:
            if not face.is_wild:
                cards.append(Card(color, face, len(cards)))
    for face in Face:
        if face.is_wild:
            cards.append(Card(None, face, len(cards)))
    return tuple(cards)


#: True when this module runs compiled by mypyc (see ``docs/engine.md``, Speed): its
#: functions are then built-in functions, not Python ones.
COMPILED: Final = not isinstance(_build_cards, FunctionType)
Card.ALL = _build_cards()
#: The card kinds that the fixed-size twins were built for (the RL tables, the native
#: engine, the shipped network): every kind before the Wild Shuffle Hands (W7). They
#: refuse a deck that holds a later kind, so that existing shapes never change.
BASE_KINDS: Final = Card(None, Face.WILD_SHUFFLE_HANDS).index

#: A deck composition: card code -> number of copies.
DeckSpec = tuple[tuple[str, int], ...]


def _per_color(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    return [(color.letter + face, n) for color in Color for face, n in counts.items()]


#: C3: the 168-card No Mercy deck (house rule ``deck``'s default).
NO_MERCY_DECK: DeckSpec = (
    *_per_color({**{str(n): 2 for n in range(10)}, "S": 3, "R": 3, "+2": 3, "+4": 2, "DA": 3, "SE": 2}),
    ("WR+4", 8),
    ("W+6", 4),
    ("W+10", 4),
    ("WCR", 8),
)
_CLASSIC_COLORED: Final = {"0": 1, **{str(n): 2 for n in range(1, 10)}, "S": 2, "R": 2, "+2": 2}
#: Section 13: the classic 108-card deck, the older edition (preset ``classic``).
CLASSIC_DECK: DeckSpec = (
    *_per_color(_CLASSIC_COLORED),
    ("W", 4),
    ("W+4", 4),
)
#: C3, W7, W8: today's 112-card classic deck (preset ``classic_112``): the 108 cards, one
#: Wild Shuffle Hands and three blank wilds, which play as plain Wilds (W8), so 7 ``W``.
CLASSIC_112_DECK: DeckSpec = (
    *_per_color(_CLASSIC_COLORED),
    ("W", 7),
    ("W+4", 4),
    ("WSH", 1),
)


#: The largest custom deck accepted (C3): far above any real table, and it keeps a
#: hostile rules file (a server room, say) from asking for billions of cards.
MAX_DECK_SIZE = 1000


def normalize_deck(spec: object) -> DeckSpec:
    """Validate a deck composition (C3 custom decks) and return it in canonical form.

    Accepts ``"no_mercy"``, ``"classic"``, ``"classic_112"``, a mapping or pairs of card code -> count.
    """
    if isinstance(spec, str):
        named = {
            "no_mercy": NO_MERCY_DECK,
            "nomercy": NO_MERCY_DECK,
            "classic": CLASSIC_DECK,
            "classic_112": CLASSIC_112_DECK,
        }
        key = spec.strip().lower().replace("-", "_")
        if key not in named:
            raise InvalidRules(
                "deck",
                f"unknown deck {spec!r}: use 'no_mercy', 'classic', 'classic_112' or a mapping of "
                "card code to count",
            )
        return named[key]
    items: Iterable[object]
    if isinstance(spec, Mapping):
        items = spec.items()
    elif isinstance(spec, (list, tuple)):
        items = spec
    else:
        raise InvalidRules(
            "deck", f"expected a deck name or a mapping of card code to count, got {type(spec).__name__}"
        )
    counts: dict[Card, int] = {}
    for item in items:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise InvalidRules("deck", f"each deck entry must be (card code, count), got {item!r}")
        code, count = item
        if not isinstance(code, str):
            raise InvalidRules("deck", f"card codes are strings, got {code!r}")
        try:
            card = Card.parse(code)
        except InvalidCard as exc:
            raise InvalidRules("deck", str(exc)) from None
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InvalidRules("deck", f"the count of {card} must be a whole number >= 0, got {count!r}")
        counts[card] = counts.get(card, 0) + count
    result = tuple((card.code, n) for card, n in sorted(counts.items(), key=lambda kv: kv[0].index) if n)
    if not result:
        raise InvalidRules("deck", "the deck has no cards")
    total = sum(n for _, n in result)
    if total > MAX_DECK_SIZE:
        raise InvalidRules("deck", f"{total} cards is more than the {MAX_DECK_SIZE} a deck may hold")
    if not any(Card.parse(code).is_number for code, _ in result):
        raise InvalidRules("deck", "the deck needs at least one number card to start the discard pile (S3)")
    return result


def deck_cards(spec: DeckSpec) -> list[Card]:
    """Every physical card of a composition, in a fixed order (index order). A new list."""
    cards = _DECK_CACHE.get(spec)
    if cards is None:
        cards = []
        for code, count in spec:
            cards.extend([Card.parse(code)] * count)
        _DECK_CACHE[spec] = cards
    return cards[:]


_DECK_CACHE: dict[DeckSpec, list[Card]] = {}


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """``"R7 G+2 W+6"`` or ``["R7", "G+2"]`` -> cards."""
    parts = text.split() if isinstance(text, str) else list(text)
    return [Card.parse(p) for p in parts]
