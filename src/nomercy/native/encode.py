"""The observation and action mask of a native table, compiled: the native encoder of
:mod:`nomercy.encoding`, twin of :class:`nomercy.encoding.fast.StateEncoder`.

The layout is not written here: the caller passes the starts of the sections this encoder
writes (:data:`OFFSETS`, ``nomercy.encoding.sections.START`` in :data:`SECTIONS` order)
and an action lookup table (the identity since the native engine numbers its actions by
the one table, ``nomercy.encoding.actions``), so the encoding keeps one definition and a
kernel compiled ahead of time cannot keep an old layout (the C translation freezes module
globals into the compiled code and does not notice when another module changes them).
``tests/encoding`` fails when :data:`SECTIONS` lacks a section or names an unknown one.

Like the reference, :func:`observe` reads for ``seat`` only its own hand, the face-up
discard pile (``discard[buried:]``), hand, pile and set-aside sizes, the public scalars
and the drawn card when ``seat`` decides: never another hand or the draw pile's order.
"""

# Unannotated kernels, as in kernels.py (pyproject.toml's mypy override says so).

from __future__ import annotations

import functools
from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.encoding.actions import NUM_ACTIONS
from nomercy.encoding.rules import rules_features
from nomercy.encoding.sections import START
from nomercy.native._compiled import kernel
from nomercy.native.cdecl import F32Array, I8Array, I32Array, I64Array, U8Array
from nomercy.native.kernels import _wrap, legal
from nomercy.native.layout import (
    ACTIVE,
    ASIDE_LEN,
    BURIED,
    COLOR,
    CURRENT,
    DECISION,
    DECK,
    DIRECTION,
    DISC_LEN,
    DRAWN,
    HANDS,
    HLEN,
    LAST_VALUE,
    MAX_PLAYERS,
    PENDING,
    PILE_LEN,
    PLAYERS,
    UO,
    UO_LEN,
)
from nomercy.rules import Rules

__all__ = ["ACTION_LOOKUP", "OFFSETS", "SECTIONS", "mask", "observe", "rules_row"]

#: The observation sections whose starts :func:`observe` takes, in this order.
SECTIONS = (
    "hand",
    "top",
    "color",
    "clockwise",
    "pending_total",
    "last_draw_value",
    "decision",
    "drawn",
    "seat_present",
    "active",
    "hand_sizes",
    "current_player",
    "uno_open",
    "discard",
    "draw_pile_size",
    "aside_size",
    "rules",
)
#: The ``offsets`` argument of :func:`observe`: each section's start, in :data:`SECTIONS` order.
OFFSETS: Final = tuple(START[name] for name in SECTIONS)
#: The ``rl_of_native`` argument of :func:`mask`: native index -> table index. One table
#: numbers both, so it is the identity (kept as an argument: the compiled kernels take it).
ACTION_LOOKUP: Final = tuple(range(NUM_ACTIONS))
_HAND, _TOP, _COLOR, _CW, _PENDING, _LAST, _DECISION, _DRAWN = range(8)
_PRESENT, _ACTIVE, _SIZES, _CURRENT, _UNO, _DISCARD, _PILE, _ASIDE = range(8, 16)
_RULES = 16


@functools.lru_cache(maxsize=64)
def _row(rules: Rules) -> npt.NDArray[np.float32]:
    row = np.array(rules_features(rules), np.float32)
    row.flags.writeable = False
    return row


def rules_row(rules: Rules) -> npt.NDArray[np.float32]:
    """The ``rules`` argument of :func:`observe`: the rules section's numbers
    (``nomercy.encoding.rules``), float32, read-only. The rules are constant for a batch of
    tables, so they are computed once here, not by the kernel at every step."""
    return _row(rules)


_kernel = kernel


@_kernel
def observe(s: I32Array, seat: int, offsets: I64Array, rules: F32Array, out: F32Array):
    """``StateEncoder().observe(to_state(s), seat)`` into the float32 vector ``out``;
    ``rules`` is the table's :func:`rules_row`, copied into the rules section."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    deck = s[DECK]
    h0 = HANDS + seat * deck
    hand = offsets[_HAND]
    for i in range(s[HLEN + seat]):
        out[hand + s[h0 + i]] += 1.0
    d0 = HANDS + (MAX_PLAYERS + 1) * deck
    size = s[DISC_LEN]
    out[offsets[_TOP] + s[d0 + size - 1]] = 1.0
    color = s[COLOR]
    if color >= 0:
        out[offsets[_COLOR] + color] = 1.0
    if s[DIRECTION] == 1:
        out[offsets[_CW]] = 1.0
    out[offsets[_PENDING]] = s[PENDING]
    out[offsets[_LAST]] = s[LAST_VALUE]
    out[offsets[_DECISION] + s[DECISION]] = 1.0
    current = s[CURRENT]
    if current == seat and s[DRAWN] >= 0:
        out[offsets[_DRAWN] + s[DRAWN]] = 1.0
    n = s[PLAYERS]
    for k in range(n):
        other = _wrap(seat + k, n)
        out[offsets[_PRESENT] + k] = 1.0
        if s[ACTIVE + other]:
            out[offsets[_ACTIVE] + k] = 1.0
        out[offsets[_SIZES] + k] = s[HLEN + other]
    if current >= 0:
        out[offsets[_CURRENT] + _wrap(current - seat, n)] = 1.0
    for i in range(s[UO_LEN]):
        out[offsets[_UNO] + _wrap(s[UO + i] - seat, n)] = 1.0
    discard = offsets[_DISCARD]
    for i in range(s[BURIED], size):
        out[discard + s[d0 + i]] += 1.0
    out[offsets[_PILE]] = s[PILE_LEN]
    out[offsets[_ASIDE]] = s[ASIDE_LEN]
    r0 = offsets[_RULES]
    for i in range(rules.shape[0]):
        out[r0 + i] = rules[i]


@_kernel
def mask(
    s: I32Array, R: I64Array, seat: int, rl_of_native: I64Array, out: I8Array, scratch: U8Array, lst: I64Array
):
    """``StateEncoder().mask(to_state(s), seat)`` into the int8 vector ``out``: the legal
    actions of ``seat`` (``kernels.legal``) through the lookup table ``rl_of_native``.
    ``scratch`` is an all-zero mask over the native table (left so), ``lst`` as for
    ``legal``. Returns how many actions are legal."""
    for i in range(out.shape[0]):
        out[i] = 0
    count = legal(s, R, seat, scratch, lst)
    for i in range(1, count + 1):
        a = lst[i]
        scratch[a] = 0
        out[rl_of_native[a]] = 1
    return count
