"""The native engine's table layout without numpy: the offsets in a table's vector, the
house rules' slots, and the action table's landmarks.

The action table is :mod:`nomercy.encoding.actions`'s, the one every part of the project
numbers actions by (standard library only, as this module); here are only the indices the
kernels need by name (where draw, pass, the colors and the catches sit).

``layout.py`` adds the numpy arrays the kernels read (the cards' properties, the action
table's columns); this part is the standard library only, so that the expert bot's native
playouts (``nomercy.native.search``) run on a plain install, with buffers from ``array``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from nomercy.actions import CALL_UNO, CHALLENGE, DRAW, PASS, TAKE, Action, Catch, ChooseColor, Play
from nomercy.cards import Color
from nomercy.encoding.actions import ACTIONS as ACTIONS  # the one table, named here too
from nomercy.encoding.actions import NUM_ACTIONS as NUM_ACTIONS
from nomercy.encoding.actions import action_to_index, seat_action
from nomercy.encoding.version import MAX_PLAYERS as MAX_PLAYERS  # a native table's seats too
from nomercy.errors import InvalidRules
from nomercy.rules import Rules

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
HSET: Final = 80  # each hand's set of card kinds, kept up to date: four 32-bit words a seat
# (bit k % 64 of 64-bit word k // 64, low half first), written wherever a hand changes
HANDS: Final = 104  # six hands of DECK slots, then the draw pile, discard pile and aside,
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


def rule_codes(rules: Rules) -> list[int]:
    """The house rules a round reads (:data:`ENCODED`), in their slots of the rules array."""
    r = [0] * NUM_RULES
    for name, (slot, code) in ENCODED.items():
        try:
            r[slot] = code(getattr(rules, name))
        except ValueError as exc:
            raise InvalidRules(name, str(exc)) from None
    return r


# -- the action table -----------------------------------------------------------------------------
K_PLAY: Final = 0
K_DRAW: Final = 1
K_PASS: Final = 2
K_TAKE: Final = 3
K_CHALLENGE: Final = 4
K_COLOR: Final = 5
K_UNO: Final = 6
K_CATCH: Final = 7


#: (card, uno, sub) -> action index: sub is the color of a wild's play, the seat offset
#: of a Seven's, and 0 otherwise (absent where no such play exists).
PLAY_CODES: Final[Mapping[tuple[int, int, int], int]] = {
    (a.card.index, int(a.uno), int(a.color) if a.color is not None else (a.target or 0)): i
    for i, a in enumerate(ACTIONS)
    if isinstance(a, Play)
}
A_DRAW: Final = ACTIONS.index(DRAW)
A_PASS: Final = ACTIONS.index(PASS)
A_TAKE: Final = ACTIONS.index(TAKE)
A_CHALLENGE: Final = ACTIONS.index(CHALLENGE)
A_COLOR0: Final = ACTIONS.index(ChooseColor(Color.RED))
A_UNO_CALL: Final = ACTIONS.index(CALL_UNO)
A_CATCH0: Final = ACTIONS.index(Catch(1)) - 1  # + offset


def action_index(action: Action, seat: int, players: int) -> int:
    """The table index of ``action`` taken by ``seat`` at a ``players``-seat table (seats as
    offsets from ``seat``): ``nomercy.encoding.actions.action_to_index``."""
    return action_to_index(action, seat, players)


def index_action(index: int, seat: int, players: int) -> Action:
    """The action of table index ``index`` taken by ``seat`` (offsets made seats again):
    ``nomercy.encoding.actions.seat_action``."""
    return seat_action(index, seat, players)
