"""The ``heuristic`` bot as native code: the same choice as ``nomercy.bots.heuristic``.

``bots/heuristic.py`` stays the reference (the rules a good human would recognise); the
kernels here are its second implementation over a native table, checked against it by
``tests/native/test_heuristic.py`` at every decision of many games:

* :func:`heuristic_choose` picks the action index that ``HeuristicBot.choose`` picks from
  the seat's :class:`~nomercy.PlayerView`: the same scores, as the same float64
  arithmetic in the same order, and the same tie-break (the first best action in the
  reference's order of the legal actions: by card index, then color or target seat,
  then draw / challenge / take / pass).
* :func:`heuristic_react` is ``HeuristicBot.react``: a late Uno always, a catch unless
  the bot's generator misses it (``random() < catch_miss``). The generator is CPython's
  ``random.Random(seed)`` itself (MT19937 seeded by init_by_array, ``random()`` from two
  words), so a seeded native bot draws what the Python bot draws.
* :func:`heuristic_play` plays whole games with a heuristic bot in every seat, asking
  reactions as ``nomercy.bots.runner`` does, so that game ``g`` ends exactly as
  ``play_round(new_game(players, rules, seed), [HeuristicBot(seed=k) ...])``.

Blindness: a decision reads only what the seat's view holds, the seat's own hand and
the public facts (hand sizes, the face-up discard pile above any buried cards, the color,
direction, pending total, who is active, who is open to a catch), never another hand, the
draw pile or the seed. The table row holds all of it; these kernels just do not look.
"""

# The kernels are unannotated, as in kernels.py: the translator infers their types from the arrays
# passed in (pyproject.toml's mypy override for this module says so). The Python API below
# them is typed.

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.actions import Action
from nomercy.engine import GameState
from nomercy.native.batch import Batch, index_action
from nomercy.native.cdecl import F64Array, I32Array, I32Array2, I64Array, I64Array2, U8Array
from nomercy.native.kernels import (
    D_CHOOSE_COLOR,
    D_PLAY_DRAWN,
    D_ROULETTE,
    D_STACK,
    M32,
    _inline,
    _kernel,
    apply_action,
    deal,
    legal,
    mt_next,
    mt_seed,
    next_seat,
    previous_seat,
    seat_after,
    top_card,
)
from nomercy.native.layout import (
    A_CARD,
    A_CATCH0,
    A_COLOR,
    A_KIND,
    A_OFF,
    A_UNO,
    A_UNO_CALL,
    ACTIVE,
    BURIED,
    C_COLOR,
    C_DRAW,
    C_FACE,
    C_POINTS,
    C_WILD,
    CURRENT,
    DEALER,
    DECISION,
    DECK,
    DIRECTION,
    DISC_LEN,
    F_DISCARD_ALL,
    F_REVERSE,
    F_ROULETTE,
    F_SEVEN,
    F_SKIP,
    F_SKIP_EVERYONE,
    F_WRD4,
    F_ZERO,
    HANDS,
    HLEN,
    K_CATCH,
    K_CHALLENGE,
    K_DRAW,
    K_PASS,
    K_PLAY,
    K_TAKE,
    K_UNO,
    KO_BY,
    KO_LEN,
    KO_SEAT,
    MAX_PLAYERS,
    NUM_CARDS,
    OUT_KO_LEN,
    PENDING,
    PILE_LEN,
    PLAY_INDEX,
    PLAYERS,
    POINTS,
    R_AT_ONCE,
    R_MERCY,
    R_MUST_PLAY_DRAWN,
    R_SEVEN_ZERO,
    R_STACKING,
    R_TPRD_SELF,
    REASON,
    SHUFFLES,
    UO,
    UO_LEN,
    WINNER,
)
from nomercy.native.weights import WEIGHTS
from nomercy.rules import Rules

__all__ = [
    "BASE_WEIGHTS",
    "GAME_COLUMNS",
    "MT_STATE",
    "WEIGHTS",
    "WEIGHT_NAMES",
    "HeuristicGames",
    "generator",
    "generator_random",
    "heuristic_action",
    "heuristic_choose",
    "heuristic_games",
    "heuristic_offer",
    "heuristic_play",
    "heuristic_play_on",
    "heuristic_playouts",
    "heuristic_react",
    "heuristic_reaction",
    "mt_random",
    "weighted_choose",
]

#: Words of one bot's generator state: MT19937's 624 and its index.
MT_STATE: Final = 625
_NO_LIMIT = 10**6  # the reference's stand-in for "no Mercy limit"
_ROULETTE_EXPECTED = 3
_LAST = NUM_CARDS * 8  # rank of the non-play turn actions, after every play

# -- one row of heuristic_play's results, per game ------------------------------------------
O_WINNER: Final = 0
O_REASON: Final = 1  # 0 played_out, 1 last_standing
O_DEALER: Final = 2
O_FIRST: Final = 3  # the seat that decided first
O_DECISIONS: Final = 4  # actions applied, reactions included (the simulator's "decisions")
O_CARDS_DRAWN: Final = 5
O_LARGEST_STACK: Final = 6
O_CATCHES: Final = 7
O_RESHUFFLES: Final = 8
O_KNOCKOUTS: Final = 9
O_KO_SEAT: Final = 10  # six slots, the first O_KNOCKOUTS used
O_KO_BY: Final = 16  # six slots: who caused each knock-out (-1: nobody)
O_POINTS: Final = 22  # six slots, the first ``players`` used
O_STEPS: Final = 28  # turn decisions (the runner's max_steps counts these)
OUT_WIDTH: Final = 29
#: The names of the columns of :attr:`HeuristicGames.table`, in order.
GAME_COLUMNS: Final = (
    *("winner", "reason", "dealer", "first_player", "decisions", "cards_drawn", "largest_stack"),
    *("catches", "reshuffles", "knockouts"),
    *(f"knocked_out_{i}" for i in range(MAX_PLAYERS)),
    *(f"knocked_out_by_{i}" for i in range(MAX_PLAYERS)),
    *(f"points_{i}" for i in range(MAX_PLAYERS)),
    "steps",
)


# -- the weights of the scores ---------------------------------------------------------------------------
# Every constant the reference's scores trade against each other, by name: the heuristic
# is ``BASE_WEIGHTS``; :mod:`nomercy.native.policy` tunes other values for the expert's
# playouts. The thresholds (two cards, ten under the limit) are rules of thumb, not weights.

WEIGHT_NAMES: Final = tuple(name for name, _ in WEIGHTS)
#: The reference heuristic's weights (read-only: the C translation freezes them in as constants).
BASE_WEIGHTS: Final = np.array([value for _, value in WEIGHTS], np.float64)
BASE_WEIGHTS.flags.writeable = False
(
    W_STACK_BASE,
    W_STACK_PER_CARD,
    W_STACK_KO,
    W_STACK_NEAR_OUT,
    W_STACK_INSURANCE,
    W_TAKE_PER_CARD,
    W_TAKE_NEAR_LIMIT,
    W_DRAW,
    W_CHALLENGE_PER_CARD,
    W_DANGER_POINTS,
    W_WILD_KEEP,
    W_POINTS,
    W_COLOR_HELD,
    W_SELF_DRAW_FOLLOW,
    W_SELF_DRAW_ALONE,
    W_DRAW_KO,
    W_DRAW_NEAR_OUT,
    W_DRAW_BASE,
    W_DRAW_PER_CARD,
    W_DRAW_INSURANCE,
    W_SEVEN_GAIN,
    W_SEVEN_THREAT,
    W_ZERO_GAIN,
    W_DISCARD_SHED,
    W_DISCARD_BASE,
    W_DISCARD_DANGER,
    W_SKIP_ALL,
    W_SKIP_ALL_DANGER,
    W_SKIP,
    W_SKIP_NEAR_OUT,
    W_REVERSE_NEAR_OUT,
    W_ROULETTE_KO,
    W_ROULETTE_NEAR_OUT,
    W_ROULETTE_BASE,
) = range(len(WEIGHTS))


# -- the generator: CPython's random.Random(int).random() ----------------------------------------


@_inline
def mt_random(mt: I32Array, m0: int):
    """``random.Random.random()``: 53 bits from two words, as CPython's random_random."""
    a = mt_next(mt, m0) >> 5
    b = mt_next(mt, m0) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@_kernel
def _seed_generator(mt: I32Array, m0: int, seed: int):
    """``random.Random(seed)`` for ``0 <= seed < 2**63`` into ``mt[m0:m0+625]``."""
    mt_seed(mt, m0, (seed >> 32) & M32, 0, seed & M32)


@_kernel
def _random_kernel(mt: I32Array, m0: int):
    return mt_random(mt, m0)


# -- choosing ---------------------------------------------------------------------------------------


@_inline
def _held(s: I32Array, seat: int, color: int):
    """How many cards of ``color`` the seat's own hand holds."""
    h0 = HANDS + seat * s[DECK]
    k = 0
    for i in range(s[HLEN + seat]):
        if C_COLOR[s[h0 + i]] == color:
            k += 1
    return k


@_inline
def _victim(s: I32Array, R: I64Array, seat: int, card: int, n_active: int):
    """``engine.draw_victim``: who answers the Draw card ``card`` played by ``seat``."""
    if C_FACE[card] == F_WRD4:
        if R[R_TPRD_SELF] and n_active == 2:
            return seat
        return seat_after(s, -s[DIRECTION], seat)
    return seat_after(s, s[DIRECTION], seat)


@_inline
def _is_turn(mask: U8Array, a: int):
    """A turn action the reference bot scores: not out of turn, and of a play offered
    with and without the Uno call, only the one with it (U1)."""
    kind = A_KIND[a]
    if kind == K_UNO or kind == K_CATCH:  # noqa: SIM109 - no tuple in the hot loop
        return False
    if kind == K_PLAY and not A_UNO[a]:
        sub = A_COLOR[a] if A_COLOR[a] >= 0 else A_OFF[a]
        twin = PLAY_INDEX[A_CARD[a], 1, sub]
        if twin >= 0 and mask[twin]:
            return False
    return True


@_inline
def _rank(s: I32Array, seat: int, a: int):
    """The action's place in the reference's legal order (ties go to the lowest)."""
    kind = A_KIND[a]
    if kind == K_PLAY:
        card = A_CARD[a]
        if A_COLOR[a] >= 0:
            return card * 8 + A_COLOR[a]
        if A_OFF[a] > 0:
            return card * 8 + (seat + A_OFF[a]) % s[PLAYERS]  # Sevens by absolute seat
        return card * 8
    if kind == K_CHALLENGE:
        return _LAST
    if kind == K_TAKE:
        return _LAST + 1
    return _LAST + 2  # draw, pass (never both) and colors (ranked apart)


@_inline
def _score_stack(s, R, seat, card, mine, pending, limit, high, danger, n_active, P):
    """``heuristic._score_stack``, rule 2 (``P``: the weights, ``BASE_WEIGHTS`` for the reference)."""
    value = C_DRAW[card]
    total = pending + value
    victim = _victim(s, R, seat, card, n_active)
    if victim == seat:
        return -5_000.0
    score = P[W_STACK_BASE] - P[W_STACK_PER_CARD] * value
    if s[HLEN + victim] + total >= limit:
        return score + P[W_STACK_KO]
    if s[HLEN + victim] <= 2:
        score += P[W_STACK_NEAR_OUT]
    if value >= 6 and high == 1 and pending <= 2 and mine + pending <= limit - 10 and not danger:
        score -= P[W_STACK_INSURANCE]
    return score


@_inline
def _score(s, R, seat, a, mine, pending, limit, threat, danger, high, n_active, nxt, prev, P):
    """``heuristic._score``: the same branches, the same float64 operations in order, each
    constant the weight ``P[W_...]`` (``BASE_WEIGHTS`` holds the reference's)."""
    kind = A_KIND[a]
    if kind == K_TAKE:
        if mine + pending >= limit:
            return -10_000.0
        return -P[W_TAKE_PER_CARD] * pending - (P[W_TAKE_NEAR_LIMIT] if mine + pending >= limit - 5 else 0.0)
    if kind == K_DRAW:
        return -P[W_DRAW]
    if kind == K_CHALLENGE:
        return -P[W_CHALLENGE_PER_CARD] * (pending + 2)
    if kind == K_PASS:
        return -1.0
    if kind != K_PLAY:
        return -100.0
    card = A_CARD[a]
    face = C_FACE[card]
    if mine == 1:
        return 10_000.0
    score = 0.0
    if danger:
        score += P[W_DANGER_POINTS] * C_POINTS[card]
    elif C_WILD[card]:
        score -= P[W_WILD_KEEP]
    else:
        score += P[W_POINTS] * C_POINTS[card]
    new_color = A_COLOR[a] if C_WILD[card] else C_COLOR[card]
    if new_color >= 0:
        same = 1 if C_COLOR[card] == new_color else 0
        score += P[W_COLOR_HELD] * (_held(s, seat, new_color) - same)
    value = C_DRAW[card]
    if s[DECISION] == D_STACK:
        return score + _score_stack(s, R, seat, card, mine, pending, limit, high, danger, n_active, P)
    if value:
        victim = _victim(s, R, seat, card, n_active)
        if victim == seat:
            h0 = HANDS + seat * s[DECK]
            follow = 0
            for i in range(mine):
                c = s[h0 + i]
                if C_DRAW[c] >= 4 and c != card:  # the reference's `c is not card`: interned cards
                    follow += 1
            return score + (P[W_SELF_DRAW_FOLLOW] if follow else -P[W_SELF_DRAW_ALONE])
        if s[HLEN + victim] + value >= limit:
            score += P[W_DRAW_KO]
        elif s[HLEN + victim] <= 2:
            score += P[W_DRAW_NEAR_OUT]
        else:
            score += P[W_DRAW_BASE] + P[W_DRAW_PER_CARD] * value
            if value >= 6 and high <= 1:
                score -= P[W_DRAW_INSURANCE]
        return score
    if face == F_SEVEN and A_OFF[a] > 0:
        size = s[HLEN + (seat + A_OFF[a]) % s[PLAYERS]]
        gain = (mine - 1) - size
        return score + P[W_SEVEN_GAIN] * gain + (P[W_SEVEN_THREAT] if size == threat else 0.0)
    if face == F_ZERO and R[R_SEVEN_ZERO]:
        return score + P[W_ZERO_GAIN] * ((mine - 1) - s[HLEN + prev])
    if face == F_DISCARD_ALL:
        shed = _held(s, seat, C_COLOR[card]) - 1
        if shed + 1 == mine:
            return 10_000.0
        return score + P[W_DISCARD_SHED] * shed - P[W_DISCARD_BASE] + (P[W_DISCARD_DANGER] if danger else 0.0)
    if face == F_SKIP_EVERYONE:
        return score + P[W_SKIP_ALL] + (P[W_SKIP_ALL_DANGER] if danger else 0.0)
    if face == F_SKIP or (face == F_REVERSE and n_active == 2):
        return score + P[W_SKIP] + (P[W_SKIP_NEAR_OUT] if s[HLEN + nxt] <= 2 else 0.0)
    if face == F_REVERSE:
        return score + (P[W_REVERSE_NEAR_OUT] if s[HLEN + nxt] <= 2 < s[HLEN + prev] else 0.0)
    if face == F_ROULETTE:
        if s[HLEN + nxt] + _ROULETTE_EXPECTED >= limit:
            return score + P[W_ROULETTE_KO]
        return score + (P[W_ROULETTE_NEAR_OUT] if s[HLEN + nxt] <= 2 else P[W_ROULETTE_BASE])
    return score


@_inline
def _color_score(s: I32Array, deck: I32Array, seat: int, color: int, roulette: int):
    """``heuristic._score_colors``: as a Roulette's victim the most unseen color (the deck
    less the own hand and the face-up discard pile), else the most held."""
    held = _held(s, seat, color)
    if not roulette:
        return held
    unseen = 0
    for i in range(deck.shape[0]):
        if C_COLOR[deck[i]] == color:
            unseen += 1
    unseen -= held
    d0 = HANDS + (MAX_PLAYERS + 1) * s[DECK]
    for i in range(s[BURIED], s[DISC_LEN]):  # face-down buried cards are not seen
        if C_COLOR[s[d0 + i]] == color:
            unseen -= 1
    return unseen * 10 + held


@_inline
def _context(s: I32Array, R: I64Array, seat: int):
    """What every score of ``seat``'s turn reads besides the action: its hand size, the
    pending total, the Mercy limit, the smallest other hand and whether it is about to go
    out, its high Draw cards, the active seats, and the seats after and before it."""
    n = s[PLAYERS]
    mine = s[HLEN + seat]
    pending = s[PENDING]
    limit = R[R_MERCY] if R[R_MERCY] else _NO_LIMIT
    n_active = 0
    threat = _NO_LIMIT
    for o in range(n):
        if s[ACTIVE + o]:
            n_active += 1
            if o != seat and s[HLEN + o] < threat:
                threat = s[HLEN + o]
    danger = threat <= 2
    h0 = HANDS + seat * s[DECK]
    high = 0
    for i in range(mine):
        if C_DRAW[s[h0 + i]] >= 6:
            high += 1
    return mine, pending, limit, threat, danger, high, n_active, next_seat(s, seat), previous_seat(s, seat)


@_kernel
def heuristic_choose(s: I32Array, R: I64Array, seat: int, deck: I32Array, mask: U8Array, lst: I64Array):
    """``HeuristicBot.choose`` for the deciding ``seat`` of table ``s``: an action index.

    ``R`` is the encoded rules, ``deck`` the deck's card indices (``Batch.deck``: a
    Roulette's victim counts the unseen cards of each color from it), ``mask`` all zeros
    (left so) and ``lst`` room for every action, as :func:`kernels.legal` takes them.
    Reads only the seat's hand and public facts (module docstring). Returns -1 when
    ``seat`` is not deciding.
    """
    return _choose(s, R, seat, deck, mask, lst, BASE_WEIGHTS)


@_kernel
def weighted_choose(
    s: I32Array, R: I64Array, seat: int, deck: I32Array, mask: U8Array, lst: I64Array, P: F64Array
):
    """:func:`heuristic_choose` with the weights ``P`` (float64, ``WEIGHT_NAMES`` long) in
    place of the reference's constants: the same rules, other trade-offs
    (:mod:`nomercy.native.policy` tunes them). ``BASE_WEIGHTS`` chooses as the reference."""
    return _choose(s, R, seat, deck, mask, lst, P)


@_inline
def _choose(s: I32Array, R: I64Array, seat: int, deck: I32Array, mask: U8Array, lst: I64Array, P: F64Array):
    """The body of :func:`heuristic_choose`, weighted by ``P``."""
    if s[CURRENT] < 0 or seat != s[CURRENT]:
        return -1
    count = legal(s, R, -1, mask, lst)
    turns = 0
    only = -1
    for i in range(1, count + 1):
        a = lst[i]
        if _is_turn(mask, a):
            turns += 1
            only = a
    best = only
    if turns > 1:
        decision = s[DECISION]
        if decision == D_ROULETTE or decision == D_CHOOSE_COLOR:  # noqa: SIM109
            roulette = decision == D_ROULETTE
            most = -1
            best = -1
            for i in range(1, count + 1):
                a = lst[i]
                if _is_turn(mask, a):
                    v = _color_score(s, deck, seat, A_COLOR[a], roulette)
                    if best < 0 or v > most or (v == most and A_COLOR[a] < A_COLOR[best]):
                        most = v
                        best = a
        else:
            mine, pending, limit, threat, danger, high, n_active, nxt, prev = _context(s, R, seat)
            top = 0.0
            rank = 0
            best = -1
            for i in range(1, count + 1):
                a = lst[i]
                if not _is_turn(mask, a):
                    continue
                v = _score(s, R, seat, a, mine, pending, limit, threat, danger, high, n_active, nxt, prev, P)
                r = _rank(s, seat, a)
                if best < 0 or v > top or (v == top and r < rank):
                    top = v
                    rank = r
                    best = a
    for i in range(1, count + 1):
        mask[lst[i]] = 0
    return best


# -- reacting -------------------------------------------------------------------------------------------


@_kernel
def heuristic_offer(s: I32Array, R: I64Array, seat: int):
    """What ``HeuristicBot.react`` would take for ``seat`` before its generator has a say:
    a late Uno call (U1) if the seat is open to a catch, else the catch of the first seat
    open to one (U2), else -1. A catch is then made unless a ``random()`` draw falls below
    ``catch_miss`` (:func:`heuristic_react`; a caller with another generator draws its own)."""
    n = s[PLAYERS]
    if s[CURRENT] < 0 or seat < 0 or seat >= n or not s[ACTIVE + seat] or s[UO_LEN] == 0:
        return -1
    for i in range(s[UO_LEN]):
        if s[UO + i] == seat:
            return A_UNO_CALL
    return A_CATCH0 + (s[UO] - seat) % n


@_kernel
def heuristic_react(s: I32Array, R: I64Array, seat: int, mt: I32Array, m0: int, catch_miss: float):
    """``HeuristicBot.react`` for ``seat``: :func:`heuristic_offer`, a catch kept unless
    ``mt_random(mt, m0) < catch_miss``; -1 for no action. ``mt[m0:m0+625]`` is the bot's
    generator (drawn only when a catch is offered, as the reference draws)."""
    a = heuristic_offer(s, R, seat)
    if a < 0 or a == A_UNO_CALL:
        return a
    if mt_random(mt, m0) >= catch_miss:
        return a
    return -1


# -- whole games ------------------------------------------------------------------------------------------


@_inline
def _hands_total(s: I32Array, n: int):
    total = 0
    for seat in range(n):
        total += s[HLEN + seat]
    return total


@_inline
def _forced_play(s: I32Array, seat: int, top: int, others: int, ko: int, direction: int):
    """How many cards a draw action played, after a reshuffle (``_apply_counted``): a
    forced play of the card drawn (``play_drawn_at_once``) lies on the discard pile above
    the old top card, or, when its Draw effect made a reshuffle after it, is the only
    face-up card: then another seat drew, was knocked out, or play turned round."""
    if s[CURRENT] == seat and s[DECISION] == D_PLAY_DRAWN:
        return 0
    face_up = s[DISC_LEN] - s[BURIED]
    if face_up >= 2:
        return face_up - 1
    moved = _hands_total(s, s[PLAYERS]) - s[HLEN + seat] != others or s[DIRECTION] != direction
    for k in range(ko, s[KO_LEN]):
        if s[KO_SEAT + k] != seat:
            moved = True
    if top_card(s) != top or moved:
        return 1
    return 0


@_kernel
def _apply_counted(s: I32Array, R: I64Array, seat: int, a: int, out: I64Array2, g: int):
    """Apply the legal action ``a`` by ``seat`` and count what the simulator's row counts:
    cards drawn, stacks grown, catches, reshuffles. Without a reshuffle the cards drawn
    are what left the draw pile; with one, what the hands gained plus what left them
    (the cards played, and each knocked-out hand, which holds the Mercy limit)."""
    n = s[PLAYERS]
    before = _hands_total(s, n)
    kind = A_KIND[a]
    played = 0
    if kind == K_PLAY:
        card = A_CARD[a]
        played = 1
        if C_FACE[card] == F_DISCARD_ALL:  # A5: the rest of its color goes too
            played = _held(s, seat, C_COLOR[card])
    ko = s[KO_LEN]
    shuffles = s[SHUFFLES]
    pending = s[PENDING]
    pile = s[PILE_LEN]
    top = top_card(s)
    others = before - s[HLEN + seat]
    direction = s[DIRECTION]
    apply_action(s, R, seat, a)
    out[g, O_DECISIONS] += 1
    if s[SHUFFLES] == shuffles:
        out[g, O_CARDS_DRAWN] += pile - s[PILE_LEN]
    else:
        if kind == K_DRAW and R[R_AT_ONCE] and R[R_MUST_PLAY_DRAWN]:
            played = _forced_play(s, seat, top, others, ko, direction)
        gained = _hands_total(s, n) - before
        out[g, O_CARDS_DRAWN] += gained + played + (s[KO_LEN] - ko) * R[R_MERCY]
        out[g, O_RESHUFFLES] += s[SHUFFLES] - shuffles
    if kind == K_CATCH:
        out[g, O_CATCHES] += 1
    if R[R_STACKING] and s[PENDING] > pending and s[PENDING] > out[g, O_LARGEST_STACK]:
        out[g, O_LARGEST_STACK] = s[PENDING]


@_inline
def _play_on(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    players: int,
    catch_miss: float,
    max_steps: int,
    out: I64Array2,
    g: int,
    mt: I32Array,
    mask: U8Array,
    lst: I64Array,
):
    """Play table ``s`` to the end with the bots whose generators ``mt`` holds, counting
    into ``out[g]`` (:func:`heuristic_play`'s loop); False if it ran past ``max_steps``."""
    out[g, O_DEALER] = s[DEALER]
    out[g, O_FIRST] = s[CURRENT]
    steps = 0
    while s[CURRENT] >= 0:
        if steps >= max_steps:
            return False
        actor = s[CURRENT]
        a = heuristic_choose(s, R, actor, deck, mask, lst)
        _apply_counted(s, R, actor, a, out, g)
        steps += 1
        while s[UO_LEN] > 0 and s[CURRENT] >= 0:
            acted = False
            for i in range(1, players + 1):
                seat = (actor + i) % players
                if not s[ACTIVE + seat]:
                    continue
                r = heuristic_react(s, R, seat, mt, seat * MT_STATE, catch_miss)
                if r < 0:
                    continue
                _apply_counted(s, R, seat, r, out, g)
                acted = True
                break
            if not acted:
                break
    out[g, O_STEPS] = steps
    out[g, O_WINNER] = s[WINNER]
    out[g, O_REASON] = s[REASON]
    out[g, O_KNOCKOUTS] = s[OUT_KO_LEN]
    for k in range(MAX_PLAYERS):
        out[g, O_KO_SEAT + k] = s[KO_SEAT + k] if k < s[OUT_KO_LEN] else -1
        out[g, O_KO_BY + k] = s[KO_BY + k] if k < s[OUT_KO_LEN] else -1
        out[g, O_POINTS + k] = s[POINTS + k] if k < players else 0
    return True


@_kernel
def heuristic_play(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    game_seeds: I64Array,
    bot_seeds: I64Array2,
    catch_miss: float,
    max_steps: int,
    out: I64Array2,
    mt: I32Array,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
):
    """Play game ``g`` for every ``g < len(game_seeds)`` with a heuristic bot in every seat.

    Game ``g`` is dealt as ``new_game(players, rules, game_seeds[g])`` on table
    ``S[g % len(S)]`` (so with as many tables as games every table keeps its final
    position); the bot in ``seat`` is ``HeuristicBot(seed=bot_seeds[g, seat],
    catch_miss=catch_miss)``. Each turn the deciding seat's bot chooses; then, while a
    seat is open to a catch, the active seats are asked in seat order starting after the
    one that chose, the first reaction is applied and they are asked again
    (``bots.runner.reactions``). ``out[g]`` (``OUT_WIDTH`` int64 columns, zeroed here)
    gets the game's row: ``GAME_COLUMNS`` names them.

    Arguments: ``R`` the encoded rules, ``deck`` the deck's card indices (int32),
    ``game_seeds`` int64 seeds ``0 <= seed < 2**63``, ``bot_seeds`` an int64 ``(games,
    players)`` array of seeds ``0 <= seed < 2**63``, ``max_steps`` the turns after which a
    game counts as endless, ``mt`` int32 scratch of ``MAX_PLAYERS * MT_STATE`` words (the
    bots' generators), ``mask`` uint8 zeros and ``lst`` int64 scratch of ``NUM_ACTIONS +
    1``, ``sitting`` int64 zeros of ``MAX_PLAYERS``. Returns the games played: ``g`` when
    game ``g`` ran past ``max_steps`` (the runner's RuntimeError), else all of them.
    """
    tables = S.shape[0]
    for g in range(game_seeds.shape[0]):
        s = S[g % tables]
        for c in range(OUT_WIDTH):
            out[g, c] = 0
        seed = game_seeds[g]
        deal(s, R, deck, players, seed & M32, (seed >> 32) & M32, -1, sitting)
        for seat in range(players):
            _seed_generator(mt, seat * MT_STATE, bot_seeds[g, seat])
        if not _play_on(s, R, deck, players, catch_miss, max_steps, out, g, mt, mask, lst):
            return g
    return game_seeds.shape[0]


@_kernel
def heuristic_play_on(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    bot_seeds: I64Array2,
    catch_miss: float,
    max_steps: int,
    out: I64Array2,
    mt: I32Array,
    mask: U8Array,
    lst: I64Array,
):
    """Play every table of ``S`` on from where it stands to the end of its round, table
    ``g`` with ``HeuristicBot(seed=bot_seeds[g, seat], catch_miss=catch_miss)`` in every
    seat, as :func:`heuristic_play` plays a dealt game (the playouts of a sampled
    position). ``out[g]`` counts the continuation only (``O_DEALER`` and ``O_FIRST`` are
    the table's dealer and the seat deciding when it starts); the arguments are
    :func:`heuristic_play`'s. Returns the tables played: ``g`` when table ``g`` ran past
    ``max_steps`` turns, else all of them.
    """
    for g in range(S.shape[0]):
        s = S[g]
        for c in range(OUT_WIDTH):
            out[g, c] = 0
        for seat in range(players):
            _seed_generator(mt, seat * MT_STATE, bot_seeds[g, seat])
        if not _play_on(s, R, deck, players, catch_miss, max_steps, out, g, mt, mask, lst):
            return g
    return S.shape[0]


# -- the Python API -----------------------------------------------------------------------------------------


def generator(seed: int) -> npt.NDArray[np.int32]:
    """A bot's generator, as ``random.Random(seed)``: the state :func:`heuristic_reaction`
    draws from (``0 <= seed < 2**63``, the seeds ``nomercy.seeding.derive_seed`` makes)."""
    if not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"a native bot seed is a whole number 0 <= seed < 2**63, got {seed!r}")
    mt = np.zeros(MT_STATE, np.int32)
    _seed_generator(mt, 0, seed)
    return mt


def generator_random(mt: npt.NDArray[np.int32]) -> float:
    """The generator's next ``random()``, as ``random.Random.random``."""
    return float(_random_kernel(mt, 0))


def heuristic_action(batch: Batch, table: int) -> Action:
    """The heuristic's choice for the deciding seat of ``batch``'s ``table``, as the
    reference bot chooses from that seat's view (seats absolute)."""
    seat = batch.current(table)
    if seat is None:
        raise ValueError(f"table {table}'s round is over: nobody decides")
    batch._mask[:] = 0  # Batch.step leaves its mask set; the kernel wants zeros
    index = heuristic_choose(batch.tables[table], batch.encoded, seat, batch.deck, batch._mask, batch._list)
    return index_action(int(index), seat, batch.players)


def heuristic_reaction(
    batch: Batch, table: int, seat: int, mt: npt.NDArray[np.int32], catch_miss: float = 0.2
) -> Action | None:
    """``HeuristicBot.react`` for ``seat`` at ``table``, drawing from the generator ``mt``
    (:func:`generator`) only when the reference would; None for no action."""
    if not 0 <= seat < batch.players:
        raise ValueError(f"seat {seat} is not at this {batch.players}-player table")
    _check_miss(catch_miss)
    index = int(heuristic_react(batch.tables[table], batch.encoded, seat, mt, 0, float(catch_miss)))
    return None if index < 0 else index_action(index, seat, batch.players)


def _check_miss(catch_miss: float) -> None:
    if not 0.0 <= float(catch_miss) <= 1.0:
        raise ValueError(f"catch_miss must be a probability 0-1, got {catch_miss!r}")


class HeuristicGames:
    """The rows of :func:`heuristic_games`: ``table[g]`` is game ``g``, ``GAME_COLUMNS``
    name its columns; ``batch`` holds the tables the games were played on."""

    def __init__(self, table: npt.NDArray[np.int64], batch: Batch) -> None:
        self.table = table
        self.batch = batch

    def __len__(self) -> int:
        return int(self.table.shape[0])

    def column(self, name: str) -> npt.NDArray[np.int64]:
        """One column by its name in ``GAME_COLUMNS`` (``winner``, ``points_0``, ...)."""
        if name not in GAME_COLUMNS:
            raise ValueError(f"no column {name!r}: choose from {', '.join(GAME_COLUMNS)}")
        return self.table[:, GAME_COLUMNS.index(name)]

    def final_state(self, game: int) -> GameState:
        """Game ``game``'s final position, while its table still holds it (the last
        ``len(batch)`` games)."""
        if not len(self) - len(self.batch) <= game < len(self):
            raise ValueError(f"game {game}'s table was dealt again: play with more tables to keep it")
        return self.batch.state(game % len(self.batch))


def heuristic_games(
    rules: Rules,
    players: int,
    game_seeds: Sequence[int],
    bot_seeds: Sequence[Sequence[int]],
    *,
    catch_miss: float = 0.2,
    tables: int = 1,
    max_steps: int = 100_000,
) -> HeuristicGames:
    """Play one heuristic game per seed natively, as ``play_round(new_game(players, rules,
    game_seeds[g]), [HeuristicBot(seed=bot_seeds[g][seat], catch_miss=catch_miss) ...])``.

    ``tables`` tables take turns (game ``g`` on table ``g % tables``); raises
    RuntimeError, as the runner does, for a game that runs past ``max_steps`` turns.
    """
    _check_miss(catch_miss)
    seeds = np.array(list(game_seeds), np.int64)
    bots = np.array([list(row) for row in bot_seeds], np.int64).reshape(-1, players)
    if bots.shape[0] != seeds.shape[0]:
        raise ValueError(f"{bots.shape[0]} rows of bot seeds for {seeds.shape[0]} games")
    if (seeds.size and seeds.min() < 0) or (bots.size and bots.min() < 0):
        raise ValueError("native game and bot seeds are whole numbers 0 <= seed < 2**63")
    batch = Batch(rules, tables, players)
    out = np.zeros((len(seeds), OUT_WIDTH), np.int64)
    mt = np.zeros(MAX_PLAYERS * MT_STATE, np.int32)
    batch._mask[:] = 0
    played = heuristic_play(
        batch.tables,
        batch.encoded,
        batch.deck,
        players,
        seeds,
        bots,
        float(catch_miss),
        max_steps,
        out,
        mt,
        batch._mask,
        batch._list,
        batch._no_one,
    )
    if played < len(seeds):
        raise RuntimeError(f"game {played} (seed {seeds[played]}) did not end within {max_steps} steps")
    return HeuristicGames(out, batch)


def heuristic_playouts(
    batch: Batch,
    bot_seeds: Sequence[Sequence[int]],
    *,
    catch_miss: float = 0.2,
    max_steps: int = 100_000,
) -> HeuristicGames:
    """Play every table of ``batch`` on from its position (``Batch.load``: a sampled
    state, an action forced) to the end of the round, with ``HeuristicBot(seed=
    bot_seeds[t][seat], catch_miss=catch_miss)`` in every seat of table ``t``, as
    ``play_round(batch.state(t), bots)`` would. Row ``t`` counts the continuation only.

    Raises ValueError for a table whose round is already over, RuntimeError for one that
    runs past ``max_steps`` turns.
    """
    _check_miss(catch_miss)
    bots = np.array([list(row) for row in bot_seeds], np.int64).reshape(-1, batch.players)
    if bots.shape[0] != len(batch):
        raise ValueError(f"{bots.shape[0]} rows of bot seeds for {len(batch)} tables")
    if bots.size and bots.min() < 0:
        raise ValueError("native bot seeds are whole numbers 0 <= seed < 2**63")
    over = [t for t in range(len(batch)) if batch.current(t) is None]
    if over:
        raise ValueError(f"table {over[0]}'s round is over: nothing to play on")
    out = np.zeros((len(batch), OUT_WIDTH), np.int64)
    mt = np.zeros(MAX_PLAYERS * MT_STATE, np.int32)
    batch._mask[:] = 0
    played = heuristic_play_on(
        batch.tables,
        batch.encoded,
        batch.deck,
        batch.players,
        bots,
        float(catch_miss),
        max_steps,
        out,
        mt,
        batch._mask,
        batch._list,
    )
    if played < len(batch):
        raise RuntimeError(f"table {played} did not end within {max_steps} steps")
    return HeuristicGames(out, batch)
