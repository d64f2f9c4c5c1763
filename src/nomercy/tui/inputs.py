"""What a typed line means: a card to play, or one of the single-letter commands.

``parse_command`` only reads the line; whether the move is legal is the engine's call,
made by :mod:`nomercy.tui.game` with the same messages every front end gives.
Any line it cannot read raises :class:`InputError` with a one-line explanation.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomercy.cards import Card, Color
from nomercy.errors import InvalidCard

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
    "r": "rules",
    "rules": "rules",
    "q": "quit",
    "quit": "quit",
    "save": "quit",
}

HELP = """\
Type, then Enter:
  3       play the card marked 3       r7  g+4  wcr  play a card by its code
  w+6 b   play a wild, naming blue     r7 2          play a Seven at P2
  r5 u    play and call Uno            u             call Uno with your next play
  d       draw                         t             take the pending stack
  c       catch a player who did not call Uno
  x       challenge a Wild Draw 4 played at you (classic; t takes it)
  p       keep a card you drew (only where the house rules allow it)
  r       rules summary      ?  this help      q  save and quit (Ctrl-C too)
Cards: a color letter R Y G B and a face: 0-9, S skip, R reverse, +2, +4,
DA discard all, SE skip everyone. Wilds: WR+4, W+6, W+10, WCR (roulette)."""


class InputError(ValueError):
    """A line that means nothing here; the message says what to type instead."""


@dataclass(frozen=True, slots=True)
class Command:
    """A parsed line: ``kind`` is play, draw, take, pass, uno, catch, challenge, help, rules or quit."""

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
        raise InputError("type a card's number or code (e.g. 3 or r7), d to draw, or ? for help")
    first = words[0].lower()
    if first in KEYS:
        kind = KEYS[first]
        if kind == "catch" and len(words) == 2:
            return Command("catch", seat=parse_seat(words[1]))
        if len(words) > 1:
            raise InputError(f"{first!r} takes nothing after it; ? shows every key")
        return Command(kind)
    if first.isdigit():
        return _play(words[1:], number=int(first))
    try:
        card = Card.parse(first)
    except InvalidCard:
        raise InputError(
            f"{words[0]!r} is not a card or a key: type a number, a code like r7, or ? for help"
        ) from None
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
                raise InputError(
                    f"{word!r}: after a card, give a color (r y g b), a seat for a Seven, or u for Uno"
                ) from None
    return Command("play", card=card, number=number, color=color, target=target, uno=uno)


def parse_color(line: str) -> Color:
    """A color at a color prompt: ``r``, ``Red``, ``B`` ..."""
    try:
        return Color.parse(line)
    except InvalidCard:
        raise InputError(f"{line.strip()!r} is not a color: type r, y, g or b") from None


def parse_seat(word: str) -> int:
    """A seat: ``2``, ``P2`` or ``@2``."""
    digits = word.strip().lower().lstrip("@p")
    if not digits.isdigit():
        raise InputError(f"{word.strip()!r} is not a seat: type a player's number, e.g. 2 for P2")
    return int(digits)
