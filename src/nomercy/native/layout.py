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

from collections.abc import Callable, Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from nomercy.actions import CALL_UNO, CHALLENGE, DRAW, PASS, TAKE, Action, Catch, ChooseColor, Play
from nomercy.cards import Card, Color, Face
from nomercy.errors import InvalidRules
from nomercy.rules import Rules

__all__ = ["ACTIONS", "ENCODED", "MAX_PLAYERS", "NOT_ENCODED", "NUM_ACTIONS", "encode_rules", "width"]

#: Most seats a native table has (S1's usual largest table; the RL tables have six too).
MAX_PLAYERS: Final = 6

# -- scalar offsets in a table's vector ------------------------------------------------------
PLAYERS: Final = 0
DEALER: Final = 1
COLOR: Final = 2  # -1: no color in play
DIRECTION: Final = 3
CURRENT: Final = 4  # -1: the round is over
DECISION: Final = 5  # nomercy.state.Decision values
PENDING: Final = 6
LAST_VALUE: Final = 7
LAST_BY: Final = 8  # -1: None
DRAWN: Final = 9  # card index or -1
ROULETTE_BY: Final = 10
ACTIVE_COUNT: Final = 11
BURIED: Final = 12
SHUFFLES: Final = 13
STEP: Final = 14
WD4_COLOR: Final = 15
WD4_CARDS: Final = 16
KO_LEN: Final = 17
UO_LEN: Final = 18
WINNER: Final = 19  # -1 while in play
REASON: Final = 20  # 0 played_out, 1 last_standing
OUT_KO_LEN: Final = 21  # how many knock-outs the outcome lists (the first ones)
SEED_LO: Final = 22  # the seed's low and high 32 bits (the seed mod 2**64)
SEED_HI: Final = 23
PILE_LEN: Final = 24
DISC_LEN: Final = 25
ASIDE_LEN: Final = 26
DECK: Final = 27  # slots per pile or hand: the deck's size
PILE_IN: Final = 28  # cards reshuffles put into the draw pile this round: a counter for the
# simulator's cards drawn (the pile's length alone hides what a reshuffle added); no rule reads it
MT_READY: Final = 29  # the shuffle number whose generator the table's MT19937 region holds
# freshly seeded (0: none; random play seeds a round's first reshuffle early, at its deal)
WD4_GUILTY: Final = 30  # W6: 1 when the Wild Draw 4's player held the color under it
ACTIVE: Final = 32  # six flags
SITTING: Final = 38  # six flags
KO_SEAT: Final = 44  # knocked_out, in order: seats ...
KO_BY: Final = 50  # ... and who caused it (-1: None)
UO: Final = 56  # uno_open, in order
BONUS: Final = 62
POINTS: Final = 68  # the outcome's points
HLEN: Final = 74  # hand lengths
HANDS: Final = 80  # six hands of DECK slots, then the draw pile, discard pile and aside,
# then scratch space: a seventh hand (N2 passes hands through it) and a shuffle's MT19937
# state (624 words and its index). The kernels allocate nothing: their C needs no memory
# management and no reference counting.
MT_WORDS: Final = 625


def width(deck: int) -> int:
    """The length of a table's vector for a deck of ``deck`` cards."""
    return HANDS + (MAX_PLAYERS + 4) * deck + MT_WORDS


def pile_at(deck: int) -> int:
    return HANDS + MAX_PLAYERS * deck


# -- the rules as an int array ------------------------------------------------------------------
R_FIRST: Final = 0  # 0 number, 1 apply, 2 official
R_DRAW_ONE: Final = 1
R_MUST_PLAY_DRAWN: Final = 2
R_DRAW_WHEN_PLAYABLE: Final = 3
R_TPR_SELF: Final = 4
R_TPRD_SELF: Final = 5
R_REVEALED: Final = 6
R_STACKING: Final = 7
R_D10_STACKABLE: Final = 8
R_STACK_MATCH: Final = 9
R_SEVEN_ZERO: Final = 10
R_MERCY: Final = 11  # 0: no Mercy limit
R_KO_BOTTOM: Final = 12
R_UNO_CALLS: Final = 13
R_UNO_PENALTY: Final = 14
R_HOLDING_ONE: Final = 15
R_LAST_APPLY: Final = 16
R_KNOCKER: Final = 17
R_WD4_RESTRICTED: Final = 18
R_WD4_CHALLENGE: Final = 19
R_AT_ONCE: Final = 20
R_HAND_SIZE: Final = 21
NUM_RULES: Final = 24


def _choice(*choices: str) -> Callable[[Any], int]:
    """An enum-like rule as its position in ``choices``: a two-way rule is a flag, 1 for
    the second choice. A choice not listed fails to encode (:func:`encode_rules`)."""

    def code(value: Any) -> int:
        if value not in choices:
            raise ValueError(f"the native engine plays {' or '.join(map(repr, choices))}, not {value!r}")
        return choices.index(value)

    return code


#: Every house rule a round reads: field -> (its slot in the rules array, its value there).
#: With :data:`NOT_ENCODED` this names every ``Rules`` field (a test fails on one in
#: neither, or on a name no longer a field), so a new house rule cannot slip past the
#: native engine; :func:`encode_rules` fills the array from this table alone.
ENCODED: Final[Mapping[str, tuple[int, Callable[[Any], int]]]] = {
    "first_card": (R_FIRST, _choice("number", "apply", "official")),
    "draw_rule": (R_DRAW_ONE, _choice("until_playable", "one")),
    "must_play_drawn": (R_MUST_PLAY_DRAWN, int),
    "draw_when_playable": (R_DRAW_WHEN_PLAYABLE, int),
    "two_player_reverse": (R_TPR_SELF, _choice("opponent", "self")),
    "two_player_reverse_draw": (R_TPRD_SELF, _choice("opponent", "self")),
    "roulette_color": (R_REVEALED, _choice("named", "revealed")),
    "stacking": (R_STACKING, int),
    "draw10_stackable": (R_D10_STACKABLE, int),
    "stack_color": (R_STACK_MATCH, _choice("any", "match")),
    "seven_zero": (R_SEVEN_ZERO, int),
    "mercy_limit": (R_MERCY, lambda limit: limit or 0),
    "knockout_hand": (R_KO_BOTTOM, _choice("aside", "discard_bottom")),
    "uno_calls": (R_UNO_CALLS, int),
    "uno_penalty": (R_UNO_PENALTY, int),
    "uno_timing": (R_HOLDING_ONE, _choice("own_play", "holding_one")),
    "last_card_draw": (R_LAST_APPLY, _choice("ignore", "apply")),
    "knockout_bonus_to": (R_KNOCKER, _choice("winner", "knocker")),
    "wild_draw4_restricted": (R_WD4_RESTRICTED, int),
    "wild_draw4_challenge": (R_WD4_CHALLENGE, int),
    "play_drawn_at_once": (R_AT_ONCE, int),
    "hand_size": (R_HAND_SIZE, int),
}

#: The ``Rules`` fields the rules array does not carry, and why the native engine still
#: plays them exactly (the differential test runs a case for every value of each).
NOT_ENCODED: Final[Mapping[str, str]] = {
    "deck": "travels as the deck array itself (Batch.deck, the cards of any composition), "
    "and sizes every pile and hand region of a table",
    "max_players": "a table's size, not a round's rule: Batch refuses more players than "
    "min(MAX_PLAYERS, max_players), as new_game refuses more than max_players (S1)",
    "target_score": "a scored match's business (nomercy.match, between rounds): the kernels "
    "play single rounds, and a round never reads it",
    "knocked_out_return": "a scored match's business: it decides who is dealt into the next "
    "round, which reaches a native table as that round's sitting_out seats (Batch.deal)",
}


def encode_rules(rules: Rules) -> npt.NDArray[np.int64]:
    """The house rules a round reads (:data:`ENCODED`), as the int array the kernels take."""
    r = np.zeros(NUM_RULES, np.int64)
    for name, (slot, code) in ENCODED.items():
        try:
            r[slot] = code(getattr(rules, name))
        except ValueError as exc:
            raise InvalidRules(name, str(exc)) from None
    return r


# -- cards --------------------------------------------------------------------------------------
NUM_CARDS: Final = len(Card.ALL)
C_COLOR: Final = np.array([-1 if c.color is None else int(c.color) for c in Card.ALL], np.int64)
C_FACE: Final = np.array([int(c.face) for c in Card.ALL], np.int64)
C_DRAW: Final = np.array([c.draw_value for c in Card.ALL], np.int64)
C_POINTS: Final = np.array([c.points for c in Card.ALL], np.int64)
C_WILD: Final = np.array([c.is_wild for c in Card.ALL], np.bool_)
C_NUMBER: Final = np.array([c.is_number for c in Card.ALL], np.bool_)

F_ZERO: Final = int(Face.ZERO)
F_SEVEN: Final = int(Face.SEVEN)
F_SKIP: Final = int(Face.SKIP)
F_REVERSE: Final = int(Face.REVERSE)
F_DISCARD_ALL: Final = int(Face.DISCARD_ALL)
F_SKIP_EVERYONE: Final = int(Face.SKIP_EVERYONE)
F_WRD4: Final = int(Face.WILD_REVERSE_DRAW_4)
F_ROULETTE: Final = int(Face.WILD_COLOR_ROULETTE)
F_WD4: Final = int(Face.WILD_DRAW_4)

# -- the action table -----------------------------------------------------------------------------
K_PLAY: Final = 0
K_DRAW: Final = 1
K_PASS: Final = 2
K_TAKE: Final = 3
K_CHALLENGE: Final = 4
K_COLOR: Final = 5
K_UNO: Final = 6
K_CATCH: Final = 7


def _build_actions() -> tuple[Action, ...]:
    """Every action with seats as offsets from the actor, in the order of the RL action
    table (``nomercy.rl.encoding.ACTIONS``, ENV_VERSION 2; a test checks they agree)."""
    table: list[Action] = []
    for card in Card.ALL:
        for uno in (False, True):
            if card.is_wild and card.face is not Face.WILD_COLOR_ROULETTE:
                table.extend(Play(card, color, None, uno) for color in Color)
            elif card.face is Face.SEVEN:
                table.append(Play(card, None, None, uno))
                table.extend(Play(card, None, off, uno) for off in range(1, MAX_PLAYERS))
            else:
                table.append(Play(card, None, None, uno))
    table += [DRAW, PASS, TAKE, CHALLENGE]
    table += [ChooseColor(color) for color in Color]
    table.append(CALL_UNO)
    table += [Catch(off) for off in range(1, MAX_PLAYERS)]
    return tuple(table)


#: index -> action, seats written as offsets from the acting seat (1 = the next seat up).
ACTIONS: Final = _build_actions()
NUM_ACTIONS: Final = len(ACTIONS)
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
for _i, _a in enumerate(ACTIONS):
    if isinstance(_a, Play):
        _sub = int(_a.color) if _a.color is not None else (_a.target or 0)
        PLAY_INDEX[_a.card.index, int(_a.uno), _sub] = _i
A_DRAW: Final = ACTIONS.index(DRAW)
A_PASS: Final = ACTIONS.index(PASS)
A_TAKE: Final = ACTIONS.index(TAKE)
A_CHALLENGE: Final = ACTIONS.index(CHALLENGE)
A_COLOR0: Final = ACTIONS.index(ChooseColor(Color.RED))
A_UNO_CALL: Final = ACTIONS.index(CALL_UNO)
A_CATCH0: Final = ACTIONS.index(Catch(1)) - 1  # + offset
