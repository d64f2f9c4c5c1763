"""The native engine's data layout: one int32 vector per table, the rules as an int array,
the card properties and the action table as numpy arrays.

A table is one flat ``int32`` vector (a row of the batch's ``(tables, width)`` array), so
copying a position for search is one array copy and the kernels compile to plain indexing. The
scalars sit at fixed offsets; the hands and piles follow as fixed-size regions of ``deck``
slots each (a pile or a hand can never hold more than the whole deck), every pile and hand
in the reference's order (index 0 is a hand's first card and a pile's *bottom* card), so
that the conversion to a :class:`~nomercy.GameState` is exact, order included.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.actions import Catch, ChooseColor, Play
from nomercy.cards import BASE_KINDS, Card, Face
from nomercy.native.slots import *  # noqa: F403 - the offsets, rule slots and action table
from nomercy.native.slots import (
    ACTIONS,
    ENCODED,
    K_CATCH,
    K_CHALLENGE,
    K_COLOR,
    K_DRAW,
    K_PASS,
    K_PLAY,
    K_TAKE,
    K_UNO,
    MAX_PLAYERS,
    NOT_ENCODED,
    NUM_ACTIONS,
    PLAY_CODES,
    rule_codes,
    width,
)
from nomercy.rules import Rules

__all__ = ["ACTIONS", "ENCODED", "MAX_PLAYERS", "NOT_ENCODED", "NUM_ACTIONS", "encode_rules", "width"]


def encode_rules(rules: Rules) -> npt.NDArray[np.int64]:
    """The house rules a round reads (:data:`ENCODED`), as the int array the kernels take."""
    return np.array(rule_codes(rules), np.int64)


# -- cards --------------------------------------------------------------------------------------
#: The card kinds the kernels know (``BASE_KINDS``): a deck holding a later one (the Wild
#: Shuffle Hands, W7) is refused by ``Batch`` and plays on the Python engine.
NUM_CARDS: Final = BASE_KINDS
_KINDS_KNOWN: Final = Card.ALL[:NUM_CARDS]
C_COLOR: Final = np.array([-1 if c.color is None else int(c.color) for c in _KINDS_KNOWN], np.int64)
C_FACE: Final = np.array([int(c.face) for c in _KINDS_KNOWN], np.int64)
C_DRAW: Final = np.array([c.draw_value for c in _KINDS_KNOWN], np.int64)
C_POINTS: Final = np.array([c.points for c in _KINDS_KNOWN], np.int64)
C_WILD: Final = np.array([c.is_wild for c in _KINDS_KNOWN], np.bool_)
C_NUMBER: Final = np.array([c.is_number for c in _KINDS_KNOWN], np.bool_)

F_ZERO: Final = int(Face.ZERO)
F_SEVEN: Final = int(Face.SEVEN)
F_SKIP: Final = int(Face.SKIP)
F_REVERSE: Final = int(Face.REVERSE)
F_DISCARD_ALL: Final = int(Face.DISCARD_ALL)
F_SKIP_EVERYONE: Final = int(Face.SKIP_EVERYONE)
F_WRD4: Final = int(Face.WILD_REVERSE_DRAW_4)
F_ROULETTE: Final = int(Face.WILD_COLOR_ROULETTE)
F_WD4: Final = int(Face.WILD_DRAW_4)

# -- the action table's columns ----------------------------------------------------------------
_KINDS: Final = {"play": K_PLAY, "draw": K_DRAW, "pass": K_PASS, "take": K_TAKE, "challenge": K_CHALLENGE}
_KINDS.update({"color": K_COLOR, "uno": K_UNO, "catch": K_CATCH})
A_KIND: Final = np.array([_KINDS[a.kind] for a in ACTIONS], np.int64)
A_CARD: Final = np.array([a.card.index if isinstance(a, Play) else -1 for a in ACTIONS], np.int64)
A_COLOR: Final = np.array(
    [int(a.color) if isinstance(a, (Play, ChooseColor)) and a.color is not None else -1 for a in ACTIONS],
    np.int64,
)
A_OFF: Final = np.array(
    [
        (a.target if a.target is not None else 0)
        if isinstance(a, Play)
        else (a.seat if isinstance(a, Catch) else 0)
        for a in ACTIONS
    ],
    np.int64,
)
A_UNO: Final = np.array([isinstance(a, Play) and a.uno for a in ACTIONS], np.bool_)
#: [card, uno, sub] -> action index: sub is the color of a wild's play, the seat offset
#: of a Seven's, and 0 otherwise (-1 where no such play exists).
PLAY_INDEX: Final = np.full((NUM_CARDS, 2, MAX_PLAYERS), -1, np.int64)
for (_card, _uno, _sub), _i in PLAY_CODES.items():
    PLAY_INDEX[_card, _uno, _sub] = _i
