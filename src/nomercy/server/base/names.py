"""Nickname rules: one normal form, and names that cannot fool the other players.

A nickname is shown to everyone at the table, so it must be readable and honest:

- it is normalised to Unicode NFKC (full-width letters, ligatures and other look-alike
  forms become their plain characters), then trimmed;
- bidirectional controls (embeddings, overrides, isolates) are refused: they can flip
  the text shown after them, e.g. make a chat line seem to come from someone else;
- a name made only of invisible characters (spaces, zero-width marks, fillers) is refused;
- a name that reads as one of the table's bots ("Bot 2", "bot", "\u0412ot 1" with a Cyrillic Ve)
  is refused: bots are named "Bot N (level)" and no person may pass for one;
- runs of spaces inside a name become one space.

Two names are one name when a person could not tell them apart; :func:`name_key` says
which. It removes every default-ignorable code point (Unicode's
``Default_Ignorable_Code_Point``: zero-width marks, the combining grapheme joiner U+034F,
variation selectors U+FE0F and U+E0100, Mongolian selectors U+180B, fillers, soft hyphens),
normalises, collapses spaces, folds case, and takes the Unicode TR39 confusable *skeleton*
(ICU's ``SpoofChecker``, through PyICU: the Unicode consortium's own data and algorithm,
updated with each Unicode version, not a list kept here). "Ana", "ANA", "An\u200da" and
"\u0410na" share a key; so do "Paloma" and "Paloma\u034f". The room refuses a second
player whose key is already seated, sign-up refuses a key another account holds, and a
guest may not sit under an account's key (see ``docs/accounts.md``, "Names").
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import icu

NICKNAME_MAX = 24
#: The longest key stored (``nomercy_accounts.name_key``); a longer skeleton is stored as its hash.
KEY_MAX = 96

#: LRE RLE PDF LRO RLO, LRI RLI FSI PDI, and the invisible marks LRM RLM ALM.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
#: Unicode's default-ignorable code points: drawn as nothing where a font does not know them.
_IGNORABLE = icu.UnicodeSet("[:Default_Ignorable_Code_Point:]")
_IGNORABLE.freeze()  # read-only from here on: safe to share between threads
#: Characters that draw nothing though Unicode does not class them as spaces, format or
#: default-ignorable (the Braille blank; the Khmer vowels and Mongolian separator are
#: default-ignorable in recent Unicode versions, listed here for older ICU data).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
_SPOOF = icu.SpoofChecker()
#: A name that reads as a bot's ("Bot", "bot 2", "B0t (expert)"), on the skeleton with
#: ASCII digits kept (the skeleton draws "1" as "l", which would pass "Bot1" for a word).
_BOT = re.compile(r"^b[o0]t(?![a-z])")
_SPACES = re.compile(r"\s+")
#: Runs of white space that are not control characters (those are refused, not collapsed).
_SPACE_RUNS = re.compile(r"[^\S\x00-\x1f\x7f-\x9f]+")
_DIGITS = re.compile(r"([0-9]+)")


def ignorable(ch: str) -> bool:
    """Does ``ch`` draw nothing: default-ignorable, a format or control character, a filler?"""
    return ch in _BLANK_LETTERS or _IGNORABLE.contains(ch) or unicodedata.category(ch) in ("Cf", "Cc")


def _visible(ch: str) -> bool:
    if ignorable(ch):
        return False
    category = unicodedata.category(ch)
    # Separators (Z*), format (Cf), controls (Cc) and combining marks alone draw nothing.
    return not (category[0] == "Z" or category in ("Mn", "Me"))


def _plain(nickname: str) -> str:
    """NFKC, the invisible dropped, white space as one space, trimmed."""
    value = unicodedata.normalize("NFKC", nickname)
    value = "".join(
        " " if ch.isspace() or unicodedata.category(ch)[0] == "Z" else ch for ch in value if not ignorable(ch)
    )
    return unicodedata.normalize("NFKC", _SPACES.sub(" ", value).strip())


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text`` with case folded: equal for strings drawn alike."""
    once = str(_SPOOF.getSkeleton(0, text)).casefold()
    return str(_SPOOF.getSkeleton(0, once))


def name_key(nickname: str) -> str:
    """What a person sees of ``nickname``, for telling players apart: equal keys, same-looking names."""
    key = skeleton(_plain(nickname))
    if len(key) > KEY_MAX:
        return "#" + hashlib.sha256(key.encode("utf-8")).hexdigest()
    return key


def looks_like_a_bot(nickname: str) -> bool:
    """Would a person read ``nickname`` as a bot's name ("Bot N (level)")?"""
    parts = _DIGITS.split(_plain(nickname))
    drawn = "".join(p if i % 2 else skeleton(p) for i, p in enumerate(parts))
    return _BOT.match(drawn) is not None


def clean_nickname(value: str) -> str:
    """The nickname in normal form, or ValueError with a message for the player."""
    value = _SPACE_RUNS.sub(" ", unicodedata.normalize("NFKC", value)).strip()
    if not value:
        raise ValueError("nickname is empty")
    if len(value) > NICKNAME_MAX:
        raise ValueError(f"nickname is longer than {NICKNAME_MAX} characters")
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in value):
        raise ValueError("nickname contains control characters")
    if any(ch in BIDI_CONTROLS for ch in value):
        raise ValueError("nickname contains text-direction controls: type the name without them")
    if not any(_visible(ch) for ch in value):
        raise ValueError("nickname has no visible characters")
    if looks_like_a_bot(value):
        raise ValueError("nickname looks like a bot's name: bots are named 'Bot N', choose another")
    return value
