"""What a typed line means: a card to play, or one of the single-letter commands.

``parse_command`` only reads the line; whether the move is legal is the engine's call,
made by :mod:`nomercy.tui.game` with the same messages every front end gives.
Any line it cannot read raises :class:`InputError` with a one-line explanation.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomercy.cards import Card, Color
from nomercy.errors import InvalidCard
from nomercy.i18n import catalog

KEYS = {
    "d": "draw",
    "draw": "draw",
    "t": "take",
    "take": "take",
    "p": "pass",
    "pass": "pass",
    "keep": "pass",
    "u": "uno",
    "uno": "uno",
    "c": "catch",
    "catch": "catch",
    "x": "challenge",
    "challenge": "challenge",
    "?": "help",
    "h": "help",
    "help": "help",
    "a": "hint",
    "advice": "hint",
    "hint": "hint",
    "tips": "hint",
    "r": "rules",
    "rules": "rules",
    "q": "quit",
    "quit": "quit",
    "save": "quit",
}


class InputError(ValueError):
    """A line that means nothing here; the message says what to type instead.

    It carries a catalog ``key`` and its ``params`` (:mod:`nomercy.i18n`): the game
    shows it in the player's language; ``str()`` gives the English sentence."""

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(catalog("en").text(key, **params))


@dataclass(frozen=True, slots=True)
class Command:
    """A parsed line: ``kind`` is play, draw, take, pass, uno, catch, challenge, help, hint,
    rules or quit."""

    kind: str
    card: Card | None = None
    number: int | None = None
    color: Color | None = None
    target: int | None = None
    uno: bool = False
    seat: int | None = None


def parse_command(line: str) -> Command:
    """Read one line of the main prompt."""
    words = line.strip().split()
    if not words:
        raise InputError("term.err.empty")
    first = words[0].lower()
    if first in KEYS:
        kind = KEYS[first]
        if kind == "catch" and len(words) == 2:
            return Command("catch", seat=parse_seat(words[1]))
        if len(words) > 1:
            raise InputError("term.err.extra", word=first)
        return Command(kind)
    if first.isdigit():
        return _play(words[1:], number=int(first))
    try:
        card = Card.parse(first)
    except InvalidCard:
        raise InputError("term.err.not_a_card", word=words[0]) from None
    return _play(words[1:], card=card)


def _play(rest: list[str], card: Card | None = None, number: int | None = None) -> Command:
    color: Color | None = None
    target: int | None = None
    uno = False
    for word in rest:
        low = word.lower()
        if low in ("u", "uno"):
            uno = True
        elif low.lstrip("@p").isdigit():
            target = parse_seat(word)
        else:
            try:
                color = Color.parse(word)
            except InvalidCard:
                raise InputError("term.err.after_card", word=word) from None
    return Command("play", card=card, number=number, color=color, target=target, uno=uno)


def parse_color(line: str) -> Color:
    """A color at a color prompt: ``r``, ``Red``, ``B`` ..."""
    try:
        return Color.parse(line)
    except InvalidCard:
        raise InputError("term.err.not_a_color", word=line.strip()) from None


def parse_seat(word: str) -> int:
    """A seat: ``2``, ``P2`` or ``@2``."""
    digits = word.strip().lower().lstrip("@p")
    if not digits.isdigit():
        raise InputError("term.err.not_a_seat", word=word.strip())
    return int(digits)
