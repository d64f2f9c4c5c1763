"""Nickname rules: one normal form, and names that cannot fool the other players.

A nickname is shown to everyone at the table, so it must be readable and honest:

- it is normalised to Unicode NFKC (full-width letters, ligatures and other look-alike
  forms become their plain characters), then trimmed;
- bidirectional controls (embeddings, overrides, isolates) are refused: they can flip
  the text shown after them, e.g. make a chat line seem to come from someone else;
- a name made only of invisible characters (spaces, zero-width marks, fillers) is refused;
- a name that reads as one of the table's bots ("Bot 2", "bot") is refused.
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


def _visible(ch: str) -> bool:
    if ch in _BLANK_LETTERS:
        return False
    category = unicodedata.category(ch)
    # Separators (Z*), format (Cf), controls (Cc) and combining marks alone draw nothing.
    return not (category[0] == "Z" or category in ("Cf", "Cc", "Mn", "Me"))


def clean_nickname(value: str) -> str:
    """The nickname in normal form, or ValueError with a message for the player."""
    value = unicodedata.normalize("NFKC", value).strip()
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
