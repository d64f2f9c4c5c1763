"""Nickname rules: one normal form, and names that cannot fool the other players.

A nickname is shown to everyone at the table, so it must be readable and honest:

- it is normalised to Unicode NFKC (full-width letters, ligatures and other look-alike
  forms become their plain characters), then trimmed;
- bidirectional controls (embeddings, overrides, isolates) are refused: they can flip
  the text shown after them, e.g. make a chat line seem to come from someone else;
- a name made only of invisible characters (spaces, zero-width marks, fillers) is refused;
- a name that reads as one of the table's bots ("Bot 2", "bot") is refused;
- runs of spaces inside a name become one space.

Two players at one table must be told apart by a person, so a name is compared by its
:func:`name_key`: invisible characters dropped (zero-width joiners and spaces, soft
hyphens, fillers), spaces collapsed, case folded, and the Cyrillic and Greek letters
that are drawn like Latin ones read as those ("Ana", "ANA", "An\u200da", "\u0410na" all
have the key "ana"). The room refuses a second player whose key is already seated.
"""

from __future__ import annotations

import re
import unicodedata

NICKNAME_MAX = 24

#: LRE RLE PDF LRO RLO, LRI RLI FSI PDI, and the invisible marks LRM RLM ALM.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
#: Characters that draw nothing though Unicode does not class them as spaces or format.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
_BOT = re.compile(r"^bot(?![a-z])", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
#: Runs of white space that are not control characters (those are refused, not collapsed).
_SPACE_RUNS = re.compile(r"[^\S\x00-\x1f\x7f-\x9f]+")

#: Cyrillic and Greek letters drawn like a Latin letter in common fonts (a short list in the
#: spirit of Unicode's confusables, not all of it): read as that letter when names are compared.
_LOOKALIKES = str.maketrans(
    # Cyrillic capitals, then small letters
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425\u0406\u0408\u0405\u04ae\u04c0"
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04bb\u051b\u051d\u04af\u04cf"
    # Greek capitals, then small letters
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03bf\u03bd\u03ba\u03c1\u03c5"
    # Latin letters drawn like others: dotless i, script a and g
    "\u0131\u0251\u0261",
    "ABEKMHOPCTYXIJSYIaeopcyxijsdhqwylABEZHIKMNOPTYXovkpuiag",
)


def _visible(ch: str) -> bool:
    if ch in _BLANK_LETTERS:
        return False
    category = unicodedata.category(ch)
    # Separators (Z*), format (Cf), controls (Cc) and combining marks alone draw nothing.
    return not (category[0] == "Z" or category in ("Cf", "Cc", "Mn", "Me"))


def name_key(nickname: str) -> str:
    """What a person sees of ``nickname``, for telling players apart: equal keys, same-looking names."""
    value = unicodedata.normalize("NFKC", nickname)
    value = "".join(
        " " if ch.isspace() or unicodedata.category(ch)[0] == "Z" else ch
        for ch in value
        if ch not in _BLANK_LETTERS and unicodedata.category(ch) not in ("Cf", "Cc")
    )
    value = _SPACES.sub(" ", value).strip().translate(_LOOKALIKES)
    return unicodedata.normalize("NFKC", value.casefold())


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
    if _BOT.match(value):
        raise ValueError("nickname looks like a bot's name: bots are named 'Bot N', choose another")
    return value
