"""The fast encoder: observations and masks written straight from a
:class:`~nomercy.GameState`, what the environments step with.

:func:`nomercy.encoding.reference.observe` and :func:`~nomercy.encoding.reference.legal_mask`
read a :class:`~nomercy.PlayerView`, the readable reference of the encoding. Building a view per
step (a 30-field tuple, copies of the hand, the discard pile and the legal actions) and
hashing every legal action for the mask cost about as much as the rules' own step, so the
environments write the same numbers with a :class:`StateEncoder` instead:

- it reads, for seat ``seat``, exactly what ``player_view(state, seat)`` copies and the
  reference encoder uses: the seat's own hand, the face-up discard pile
  (``discard[buried:]``), the sizes of the hands, the draw pile and the set-aside cards,
  the public fields, and the drawn card only when ``seat`` is the deciding seat. Never
  another hand, the order of the draw pile, the set-aside or buried cards, or the seed;
- writes go through ``memoryview`` s of preallocated buffers (a numpy item assignment
  costs twice as much), the discard pile's counts are kept and only the cards played
  since the last call are added, and each legal action's table index is found by the
  action object's identity (the engine hands out interned actions) instead of hashing it.

It writes every section of ``OBS_SECTIONS``, which it names in :data:`SECTIONS`
(``tests/encoding`` checks the list against the sections). ``tests/rl/test_fast_encoding.py``
checks that both encoders give the same observations and masks, bit for bit, over many
random positions of every preset and table size, and that re-dealing what a seat cannot
see changes nothing.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.actions import Action, Catch, Play
from nomercy.encoding.actions import NUM_ACTIONS, action_to_index
from nomercy.encoding.rules import RULES_SIZE, rules_features
from nomercy.encoding.sections import OBS_SIZE, START
from nomercy.encoding.version import MAX_PLAYERS, NUM_CARDS
from nomercy.engine import GameState
from nomercy.rules import Rules

__all__ = ["SECTIONS", "StateEncoder", "legal_index_list"]

#: The sections :meth:`StateEncoder.observe` writes (each at its start, below).
SECTIONS: Final = (
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
_HAND: Final = START["hand"]
_TOP: Final = START["top"]
_COLOR: Final = START["color"]
_CW: Final = START["clockwise"]
_PENDING: Final = START["pending_total"]
_LAST: Final = START["last_draw_value"]
_DECISION: Final = START["decision"]
_DRAWN: Final = START["drawn"]
_PRESENT: Final = START["seat_present"]
_ACTIVE: Final = START["active"]
_SIZES: Final = START["hand_sizes"]
_CURRENT: Final = START["current_player"]
_UNO: Final = START["uno_open"]
_DISCARD: Final = START["discard"]
_PILE: Final = START["draw_pile_size"]
_ASIDE: Final = START["aside_size"]
_RULES: Final = START["rules"]
_RULES_STOP: Final = _RULES + RULES_SIZE

#: ``_SEATS[n][seat]``: (k, seat + k mod n) for every relative seat k at an n-seat table.
_SEATS: Final = [
    [tuple((k, (seat + k) % n) for k in range(n)) for seat in range(n)] for n in range(MAX_PLAYERS + 1)
]

# -- action indices by identity ----------------------------------------------------------

#: id(action) -> index for actions without a seat in them. ``_KEEP`` holds every such
#: action, so no other object can take its id while the entry exists.
_SEATLESS_BY_ID: dict[int, int] = {}
#: id(action) -> (absolute seat in it, index by offset) for Seven plays and catches.
_SEATED_BY_ID: dict[int, tuple[int, tuple[int, ...]]] = {}
_KEEP: list[Action] = []
_BY_ID_MAX: Final = 4096


def _seated_entry(action: Action) -> tuple[int, tuple[int, ...]]:
    """The absolute seat named in ``action`` (a Seven play or a catch), and its table
    index for every offset of the actor from that seat (-1: none)."""
    if isinstance(action, Play):
        assert action.target is not None
        target = action.target
    else:
        assert isinstance(action, Catch)
        target = action.seat
    by_offset = [-1]
    for offset in range(1, MAX_PLAYERS):
        try:  # an actor at that offset, on a full table: the index depends on the offset only
            by_offset.append(action_to_index(action, (target - offset) % MAX_PLAYERS, MAX_PLAYERS))
        except ValueError:
            by_offset.append(-1)
    return target, tuple(by_offset)


def _index_of(action: Action, seat: int, players: int) -> int:
    """The index of an action not found by identity: the reference way (which raises for
    an action outside the table), then remembered by identity."""
    seated = _SEATED_BY_ID.get(id(action))
    if seated is not None:
        index = seated[1][(seated[0] - seat) % players]
        if index >= 0:
            return index
    index = action_to_index(action, seat, players)
    if len(_KEEP) >= _BY_ID_MAX:  # actions built afresh each time: start over
        _SEATLESS_BY_ID.clear()
        _SEATED_BY_ID.clear()
        _KEEP.clear()
    _KEEP.append(action)
    if isinstance(action, Catch) or (isinstance(action, Play) and action.target is not None):
        _SEATED_BY_ID[id(action)] = _seated_entry(action)
    else:
        _SEATLESS_BY_ID[id(action)] = index
    return index


def legal_index_list(legal: list[Action], seat: int, players: int) -> list[int]:
    """Table indices of ``legal`` (actions of ``seat``), as ``action_to_index`` gives them."""
    get = _SEATLESS_BY_ID.get
    out: list[int] = []
    for action in legal:
        index = get(id(action))
        out.append(_index_of(action, seat, players) if index is None else index)
    return out


# -- the encoder --------------------------------------------------------------------------


def _floats(array: npt.NDArray[np.float32]) -> memoryview[float]:
    """A writable float view of a float32 array: item writes in C, no numpy scalars."""
    return array.data.cast("B").cast("f")


_ZERO_OBS: Final = _floats(np.zeros(OBS_SIZE, np.float32))
_ZERO_MASK: Final = np.zeros(NUM_ACTIONS, np.int8).data
_ZERO_CARDS: Final = _floats(np.zeros(NUM_CARDS, np.float32))


class StateEncoder:
    """Writes a seat's observation and mask from a state; one per environment (it keeps
    the discard pile's counts between calls, keyed by the state object)."""

    __slots__ = (
        "_counts",
        "_counts_mv",
        "_mask",
        "_mask_mv",
        "_obs",
        "_obs_mv",
        "_pile",
        "_pile_buried",
        "_pile_len",
        "_pile_shuffles",
        "_pile_state",
        "_rules",
        "_rules_mv",
    )

    def __init__(self) -> None:
        self._obs = np.zeros(OBS_SIZE, np.float32)
        self._obs_mv = _floats(self._obs)
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self._mask_mv = self._mask.data
        self._counts = np.zeros(NUM_CARDS, np.float32)
        self._counts_mv = _floats(self._counts)
        self._pile_state: GameState | None = None
        self._pile: list[object] | None = None
        self._pile_shuffles = self._pile_buried = self._pile_len = -1
        # The rules section, computed again only when the state's rules change.
        self._rules: Rules | None = None
        self._rules_mv = _floats(np.zeros(RULES_SIZE, np.float32))

    def observe(
        self, state: GameState, seat: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``observe(player_view(state, seat))``, into ``out`` or a new array."""
        mv = self._obs_mv
        mv[:] = _ZERO_OBS
        for card in state.hands[seat]:
            mv[_HAND + card.index] += 1.0
        discard = state.discard
        mv[_TOP + discard[-1].index] = 1.0
        color = state.color
        if color is not None:
            mv[_COLOR + color] = 1.0
        if state.direction == 1:
            mv[_CW] = 1.0
        mv[_PENDING] = state.pending_total
        mv[_LAST] = state.last_draw_value
        mv[_DECISION + state.decision] = 1.0
        current = state.current
        if current == seat and state.drawn is not None:
            mv[_DRAWN + state.drawn.index] = 1.0
        n = state.players
        active = state.active
        hands = state.hands
        for k, other in _SEATS[n][seat]:
            mv[_PRESENT + k] = 1.0
            if active[other]:
                mv[_ACTIVE + k] = 1.0
            mv[_SIZES + k] = len(hands[other])
        if current is not None:
            mv[_CURRENT + (current - seat) % n] = 1.0
        for open_seat in state.uno_open:
            mv[_UNO + (open_seat - seat) % n] = 1.0
        mv[_DISCARD : _DISCARD + NUM_CARDS] = self._discard_counts(state)
        mv[_PILE] = len(state.draw_pile)
        mv[_ASIDE] = len(state.aside)
        rules = state.rules
        if rules is not self._rules:
            self._rules = rules
            self._rules_mv = _floats(np.array(rules_features(rules), np.float32))
        mv[_RULES:_RULES_STOP] = self._rules_mv
        if out is None:
            return self._obs.copy()
        out[:] = self._obs
        return out

    def mask(
        self,
        state: GameState,
        seat: int,
        out: npt.NDArray[np.int8] | None = None,
        legal: list[Action] | None = None,
    ) -> npt.NDArray[np.int8]:
        """``legal_mask(player_view(state, seat))``, into ``out`` or a new array.

        ``legal``: ``state.legal_actions(seat)`` when the caller has it already.
        """
        mv = self._mask_mv
        mv[:] = _ZERO_MASK
        if legal is None:
            legal = state.legal_actions(seat)
        get = _SEATLESS_BY_ID.get
        players = state.players
        for action in legal:
            index = get(id(action))
            mv[_index_of(action, seat, players) if index is None else index] = 1
        if out is None:
            return self._mask.copy()
        out[:] = self._mask
        return out

    def _discard_counts(self, state: GameState) -> memoryview[float]:
        """Copies of each card kind in the face-up discard pile, updated by what was added.

        Between reshuffles (``shuffles``) and knock-outs that bury a hand (``buried``) the
        face-up pile only grows past its old length (plays are appended; a Discard All's
        cards go under the card just appended), so the cards at ``[old length:]`` are the
        new ones. Anything else (another state, a reshuffle, a burial) counts afresh.
        """
        discard = state.discard
        buried = state.buried
        size = len(discard)
        counts = self._counts_mv
        if (
            state is self._pile_state
            and discard is self._pile
            and state.shuffles == self._pile_shuffles
            and buried == self._pile_buried
            and size >= self._pile_len
        ):
            start = self._pile_len
        else:
            counts[:] = _ZERO_CARDS
            start = buried
            self._pile_state = state
            self._pile = discard  # type: ignore[assignment]
            self._pile_shuffles = state.shuffles
            self._pile_buried = buried
        for i in range(start, size):
            counts[discard[i].index] += 1.0
        self._pile_len = size
        return counts
