"""Message catalogs: the words of the game in English and Norwegian Bokmål.

The catalogs are JSON files in ``catalogs/`` beside this module, one folder per language, with the same
keys in every language (``tests/test_catalogs.py`` holds them to that):

- ``game.json``: what every front end says, the cards, the choices, costs, reasons and
  prompts of :mod:`nomercy.decisions`, the rules summary and the game log;
- ``terminal.json``: the terminal game's own words (``nomercy play``);
- ``web.json``: the browser client's own words (served to the page with ``game.json``).

A message is a string with ``{name}`` or ``{name:kind}`` placeholders, or an object that
picks a string: by CLDR plural category of the ``count`` parameter (``one``, ``other``;
``zero`` for a count of 0 where the sentence differs), or ``you``/``other`` when the
``seat`` parameter is the reader's own seat. Kinds: ``card``, ``cards``, ``color``,
``seat`` (a name, or the reader's "you"), ``object`` (the same as an object: "deg" in
Norwegian), ``owner`` ("your", "Ann's"), ``seats`` (a list of seats). The browser's
``i18n.js`` reads the same format with ``Intl.PluralRules``; here plural categories and
numbers come from Babel (CLDR).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal

from nomercy.cards import Card, Color
from nomercy.decisions import Line

__all__ = ["LANGUAGES", "Catalog", "Words", "catalog", "resolve_language"]

#: The languages the project speaks, each named in its own language.
LANGUAGES: dict[str, str] = {"en": "English", "nb": "Norsk bokmål"}
#: Locale names read as one of ours: Norwegian of any written form reads Bokmål.
_ALIASES = {"no": "nb", "nb": "nb", "nn": "nb", "en": "en"}
_PLACEHOLDER = re.compile(r"\{(\w+)(?::(\w+))?\}")


def resolve_language(requested: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``requested`` (``--lang``) if given, else the first of
    ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that names one we speak, else
    English. A requested language we do not speak raises ValueError naming ours."""
    if requested is not None:
        found = _ours(requested)
        if found is None:
            raise ValueError(f"{requested!r} is not a language of this game: use {', '.join(LANGUAGES)}")
        return found
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for part in env.get(name, "").split(":"):
            found = _ours(part)
            if found is not None:
                return found
    return "en"


def _ours(name: str) -> str | None:
    """``nb_NO.UTF-8``, ``no``, ``en-GB`` ... -> ``nb`` or ``en``; None for others (``C``)."""
    base = name.split(".")[0].split("@")[0].replace("-", "_").strip()
    if not base or base in ("C", "POSIX"):
        return None
    try:
        language = Locale.parse(base).language
    except (ValueError, TypeError, UnknownLocaleError):
        language = base.split("_")[0].lower()
    return _ALIASES.get(language)


@cache
def _messages(lang: str, part: str) -> dict[str, Any]:
    data = (
        resources.files("nomercy.i18n").joinpath("catalogs", lang, f"{part}.json").read_text(encoding="utf-8")
    )
    messages: dict[str, Any] = json.loads(data)
    return messages


@dataclass(frozen=True)
class Words:
    """How a front end writes the things a sentence names: a seat's name, a card."""

    #: The reader's own seat (sentences say "you"), or None for a spectator.
    me: int | None = None
    seat_name: Callable[[int], str] = lambda seat: f"P{seat}"
    #: A card as text; the default is its name in words ("red Draw 2").
    card: Callable[[Card], str] | None = None


class Catalog:
    """The messages of one language for one front end (``game`` plus its own part)."""

    def __init__(self, lang: str, part: str = "terminal", messages: Mapping[str, Any] | None = None) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"{lang!r} is not a language of this game: use {', '.join(LANGUAGES)}")
        self.lang = lang
        self.locale = Locale.parse(lang)
        self.messages: dict[str, Any] = (
            dict(messages) if messages is not None else {**_messages(lang, "game"), **_messages(lang, part)}
        )

    # -- lookups -------------------------------------------------------------------------

    def __contains__(self, key: str) -> bool:
        return key in self.messages

    def number(self, value: int) -> str:
        """A number as the language writes it (1 000 in Norwegian)."""
        return str(format_decimal(value, locale=self.locale))

    def plural(self, count: int) -> str:
        """The CLDR plural category of ``count`` (``one``, ``other``)."""
        return str(self.locale.plural_form(abs(count)))

    def color(self, color: Color | str | None) -> str:
        letter = color.letter if isinstance(color, Color) else color
        return str(self.messages["color." + letter] if letter else self.messages["color.none"])

    def card_name(self, card: Card | str) -> str:
        """``R+2`` -> "red Draw 2" ("rød Trekk 2")."""
        card = Card.parse(card) if isinstance(card, str) else card
        code = card.code
        if card.color is None:
            return str(self.messages["face." + code])
        face = code[1:]
        name = face if card.is_number else str(self.messages["face." + face])
        return self.format(
            self.messages["card.colored"],
            {"color": self.color(card.color), "face": name},
            Words(),
            capital=False,
        )

    # -- sentences -------------------------------------------------------------------------

    def text(self, key: str, words: Words | None = None, /, **params: Any) -> str:
        """The message ``key`` with ``params`` filled in, its first letter a capital."""
        return self.format(self.messages[key], params, words or Words())

    def phrase(self, key: str, words: Words | None = None, /, **params: Any) -> str:
        """Like :meth:`text`, for a piece of a sentence: no capital letter added."""
        return self.format(self.messages[key], params, words or Words(), capital=False)

    def line(self, line: Line, words: Words | None = None) -> str:
        """A :class:`~nomercy.decisions.Line` in words."""
        return self.text(line.key, words, **line.args)

    def pick(self, message: Any, params: Mapping[str, Any], words: Words) -> str:
        """The string of a message for these parameters (plural and "you" forms)."""
        while isinstance(message, dict):
            if "you" in message:
                seat = params.get("seat")
                message = message["you"] if seat is not None and seat == words.me else message["other"]
                continue
            count = int(params.get("count", 0))
            if count == 0 and "zero" in message:
                message = message["zero"]
            else:
                message = message.get(self.plural(count), message["other"])
        return str(message)

    def format(self, message: Any, params: Mapping[str, Any], words: Words, capital: bool = True) -> str:
        text = self.pick(message, params, words)
        out = _PLACEHOLDER.sub(lambda m: self._value(m.group(1), m.group(2), params, words), text)
        return out[:1].upper() + out[1:] if capital else out

    def _value(self, name: str, kind: str | None, params: Mapping[str, Any], words: Words) -> str:
        value = params[name]
        if kind == "card":
            card = Card.parse(value) if isinstance(value, str) else value
            return words.card(card) if words.card is not None else self.card_name(card)
        if kind == "cards":  # card codes, space-separated
            cards = [Card.parse(v) for v in str(value).split()]
            return " ".join(words.card(c) if words.card is not None else self.card_name(c) for c in cards)
        if kind == "color":
            return self.color(value)
        if kind in ("seat", "object"):
            return self.seat(int(value), words, kind == "object")
        if kind == "owner":  # "your", "Ann's"
            if int(value) == words.me:
                return str(self.messages["seat.your"])
            return str(self.messages["seat.owner"]).format(name=words.seat_name(int(value)))
        if kind == "seats":  # seat numbers, comma-separated
            return self.seats([int(v) for v in str(value).split(",")], words)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.number(value)
        return str(value)

    def seat(self, seat: int, words: Words, object_form: bool = False) -> str:
        if seat == words.me:
            return str(self.messages["seat.you_object" if object_form else "seat.you"])
        return words.seat_name(seat)

    def seats(self, seats: Sequence[int], words: Words) -> str:
        """``[0, 2]`` -> "you and Cy" (the reader first)."""
        ordered = sorted(seats, key=lambda s: s != words.me)
        names = [self.seat(s, words) for s in ordered]
        if len(names) == 1:
            return names[0]
        two = str(self.messages["list.two"])
        tail = two.format(first=names[-2], second=names[-1])
        for name in reversed(names[:-2]):
            tail = str(self.messages["list.many"]).format(first=name, rest=tail)
        return tail


@cache
def catalog(lang: str, part: str = "terminal") -> Catalog:
    """The shared catalog of a language and front end."""
    return Catalog(lang, part)
