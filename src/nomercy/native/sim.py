"""Whole games between native seat policies, counted for the simulator's rows.

``nomercy.sim.native_runner`` drives :func:`play_games`; the rules stay in ``kernels.py``
(nothing here moves a card). What this module adds is what the Python simulator does
around the engine:

- the legal actions in the order of ``GameState.legal_actions()`` (:func:`ordered_legal`),
  since a seeded bot picks by position in that list;
- each seat's ``random.Random(bot_seed)``, reproduced on MT19937 (``kernels.mt_seed``
  seeds any key below 2**64 as CPython does; :func:`mt_random` is ``random()``), and the
  seeds themselves (:func:`derive_seeds`, ``nomercy.seeding.derive_seed`` once hashed);
- the seat policies (:func:`choose`, :func:`react`: the seam where a policy plugs in):
  the random bot and the heuristic (``nomercy.native.heuristic``, whose kernels are the
  Python ``HeuristicBot``'s second implementation);
- the row's counts, read from the table before and after each action (the cards drawn
  from the draw pile's length and the ``PILE_IN`` counter of what reshuffles put into it).

The loop keeps its place in ``cursor``.
"""

# The kernels are unannotated (the translator infers their types), as in kernels.py; pyproject.toml's
# [[tool.mypy.overrides]] lists this module with it.

from __future__ import annotations

import numpy as np

from nomercy.native._compiled import inline, kernel
from nomercy.native.cdecl import I32Array, I32Array2, I64Array, I64Array2, U8Array, U32Array2
from nomercy.native.heuristic import heuristic_choose, heuristic_react
from nomercy.native.kernels import apply_action, deal, legal, mt_below, mt_next, mt_seed
from nomercy.native.layout import (
    A_CARD,
    A_COLOR,
    A_KIND,
    A_OFF,
    A_UNO,
    ACTIVE,
    CURRENT,
    DEALER,
    DECISION,
    K_CATCH,
    K_PLAY,
    K_UNO,
    KO_BY,
    KO_SEAT,
    OUT_KO_LEN,
    PENDING,
    PILE_IN,
    PILE_LEN,
    PLAYERS,
    POINTS,
    REASON,
    SHUFFLES,
    UO_LEN,
    WINNER,
)

_kernel = kernel
_inline = inline

#: Seat policies (``kinds[seat]``).
P_RANDOM = 0
P_HEURISTIC = 1

#: What :func:`play_games` returns.
DONE = 0
ENDLESS = 2  # a round ran past max_steps actions

#: cursor: the chunk's game being played, its phase, and the seat the reactions follow.
C_GAME = 0
C_PHASE = 1  # PH_DEAL, PH_TURN or PH_REACT
C_AFTER = 2
CURSOR = 3
PH_DEAL = 0
PH_TURN = 1
PH_REACT = 2

#: stats[game]: the row's counts, then how the round began and ended.
S_DECISIONS = 0
S_DRAWN = 1
S_LARGEST = 2
S_CATCHES = 3
S_RESHUFFLES = 4
S_DEALER = 5
S_FIRST = 6
S_WINNER = 7
S_REASON = 8
S_KNOCKOUTS = 9
S_KO_SEAT = 10  # six seats, in knock-out order ...
S_KO_BY = 16  # ... and who caused each (-1: None)
S_POINTS = 22  # six seats
NUM_STATS = 28

D_STACK = 2
#: One MT19937 state: 624 words and the index of the next one.
MT_WORDS = 625


@_kernel
def seed_rng(mt: I32Array, seed: int):
    """``random.Random(seed)`` into ``mt`` (625 int32 words), for 0 <= seed < 2**64."""
    mt_seed(mt, 0, (seed >> np.int64(32)) & 0xFFFFFFFF, 0, seed & 0xFFFFFFFF)


_M32 = 0xFFFFFFFF


def _genrand_start() -> np.ndarray:
    """MT19937's init_genrand(19650218), where every init_by_array starts."""
    mt = np.zeros(624, np.int64)
    mt[0] = 19650218
    for i in range(1, 624):
        mt[i] = (1812433253 * (int(mt[i - 1]) ^ (int(mt[i - 1]) >> 30)) + i) & _M32
    return mt


_START = _genrand_start()


@_kernel
def derive_seeds(keys: U32Array2, mt: I64Array, out: I64Array):
    """``random.Random(key).getrandbits(63)`` for each row of ``keys`` (a key's 32-bit
    words, least significant first; zero words on top are padding) into ``out``:
    ``nomercy.seeding.derive_seed`` once its string is hashed into a key. ``mt`` is
    scratch of 625 words."""
    for r in range(keys.shape[0]):
        key = keys[r]
        used = key.shape[0]
        while used > 1 and key[used - 1] == 0:
            used -= 1
        for i in range(624):
            mt[i] = _START[i]
        i = 1
        j = 0
        for _ in range(max(624, used)):  # init_by_array
            prev = mt[i - 1]
            mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + (np.int64(key[j]) & _M32) + j) & _M32
            i += 1
            j += 1
            if i >= 624:
                mt[0] = mt[623]
                i = 1
            if j >= used:
                j = 0
        for _ in range(623):
            prev = mt[i - 1]
            mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & _M32
            i += 1
            if i >= 624:
                mt[0] = mt[623]
                i = 1
        mt[0] = 0x80000000
        mt[624] = 624
        low = mt_next(mt, 0)  # getrandbits(63): the low word, then the high 31 bits
        out[r] = low | ((mt_next(mt, 0) >> 1) << 32)


@_kernel
def mt_random(mt: I32Array):
    """``random.random()``: 53 random bits as a float in [0, 1) (genrand_res53)."""
    a = mt_next(mt, 0) >> 5
    b = mt_next(mt, 0) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@_inline
def _play_key(action: int, seat: int, n: int):
    """Where ``legal_actions()`` lists a play: by card, then a Seven's target seat (with
    Uno after without), else without Uno before with, colors in order."""
    off = A_OFF[action]
    uno = 1 if A_UNO[action] else 0
    if off > 0:
        sub = 2 * ((seat + off) % n) + uno
    elif A_COLOR[action] >= 0:
        sub = 4 * uno + A_COLOR[action]
    else:
        sub = uno
    return A_CARD[action] * 32 + sub


@_kernel
def ordered_legal(s: I32Array, R: I64Array, seat: int, mask: U8Array, lst: I64Array, out: I64Array):
    """``GameState.legal_actions(seat)`` (``seat`` -1: the deciding seat) as action
    indices in the reference's order into ``out`` (``out[0]``: how many). ``mask`` must be
    all zeros and is left so; ``lst`` is scratch. Returns how many actions are legal.

    ``kernels.legal`` lists a hand's plays card by card in hand order, then the draw,
    take or pass, then the out-of-turn actions in ``uno_open`` order; the reference lists
    the plays in card order (``_play_key``) and the rest the same way.
    """
    count = legal(s, R, seat, mask, lst)
    actor = s[CURRENT] if seat < 0 else seat
    n = s[PLAYERS]
    out[0] = count
    for i in range(1, count + 1):
        a = lst[i]
        mask[a] = 0
        out[i] = a
    plays = 0
    while plays < count and A_KIND[out[plays + 1]] == K_PLAY:
        plays += 1
    for i in range(2, plays + 1):  # insertion sort: a handful of plays
        a = out[i]
        key = _play_key(a, actor, n)
        j = i - 1
        while j >= 1 and _play_key(out[j], actor, n) > key:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = a
    return count


@_kernel
def choose(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    seat: int,
    kind: int,
    mt: I32Array,
    actions: I64Array,
    mask: U8Array,
    lst: I64Array,
):
    """The action seat ``seat``'s policy ``kind`` takes on its turn: one of the deciding
    seat's legal actions, which a policy that picks by position lists in the reference's
    order into ``actions`` (:func:`ordered_legal`; the heuristic scores them itself).

    A policy plugs in here and in :func:`react`: it reads the table ``s`` only as its
    seat may see it, takes its randomness from ``mt`` alone (the seat's
    ``random.Random(bot_seed)``: ``mt_below(mt, 0, n)`` is ``randrange(n)`` and
    ``choice``, :func:`mt_random` is ``random()``), drawing as often as the Python bot
    does, and breaks ties in list order as the Python bot does; ``native_runner.NATIVE_BOTS``
    then names it, and tests/sim/test_native_engine.py checks its rows. ``deck`` is the
    deck's card indices, ``mask`` all zeros (left so) and ``lst`` scratch.
    """
    if kind == P_RANDOM:
        count = ordered_legal(s, R, -1, mask, lst, actions)
        return actions[1 + mt_below(mt, 0, count)]  # RandomBot: rng.choice(legal_actions)
    if kind == P_HEURISTIC:  # HeuristicBot.choose: deterministic, draws nothing
        return heuristic_choose(s, R, seat, deck, mask, lst)
    return -1  # no such policy: native_runner.check refuses it before any game


@_kernel
def react(
    s: I32Array,
    R: I64Array,
    seat: int,
    kind: int,
    mt: I32Array,
    actions: I64Array,
    count: int,
    catch_miss: float,
):
    """The out-of-turn action (catch, late Uno) policy ``kind`` takes for ``seat``, from
    ``actions[1..count]`` (that seat's legal actions, reference order), or -1 for none.
    Asked only for a policy that :func:`reacts`: the heuristic calls a late Uno, else
    catches the first seat open to one unless ``random() < catch_miss``
    (``HeuristicBot.react``, drawing only when a catch is offered)."""
    if kind == P_HEURISTIC:
        return heuristic_react(s, R, seat, mt, 0, catch_miss)
    return -1


@_kernel
def reacts(kind: int):
    """Whether a policy may act out of turn (the reaction round is skipped otherwise)."""
    return kind != P_RANDOM


@_kernel
def _act(s: I32Array, R: I64Array, seat: int, action: int, stats: I64Array):
    """Apply ``action`` by ``seat`` and count it. The cards drawn are what left the draw
    pile, plus what a reshuffle put into it (the table's ``PILE_IN`` counter)."""
    pile = s[PILE_LEN] - s[PILE_IN]
    shuffles = s[SHUFFLES]
    apply_action(s, R, seat, action)
    stats[S_DECISIONS] += 1
    if A_KIND[action] == K_CATCH:
        stats[S_CATCHES] += 1
    if s[CURRENT] >= 0 and s[DECISION] == D_STACK and s[PENDING] > stats[S_LARGEST]:
        stats[S_LARGEST] = s[PENDING]  # a stack grew: the reference's StackGrew total
    stats[S_DRAWN] += pile - (s[PILE_LEN] - s[PILE_IN])
    stats[S_RESHUFFLES] += s[SHUFFLES] - shuffles


@_kernel
def _reaction(
    s: I32Array,
    R: I64Array,
    kinds: I64Array,
    mt: I32Array2,
    after: int,
    mask: U8Array,
    lst: I64Array,
    actions: I64Array,
    catch_miss: float,
):
    """``bots.runner.reactions``, one round: the first seat after ``after`` whose policy
    acts out of turn, and its action; (-1, -1) if none does."""
    n = s[PLAYERS]
    for i in range(1, n + 1):
        seat = (after + i) % n
        if not reacts(kinds[seat]) or not s[ACTIVE + seat]:
            continue
        count = ordered_legal(s, R, seat, mask, lst, actions)
        if count == 0:
            continue
        if seat == s[CURRENT]:
            out_of_turn = False
            for k in range(1, count + 1):
                kind = A_KIND[actions[k]]
                if kind == K_CATCH or kind == K_UNO:  # noqa: SIM109 - no tuple in the hot loop
                    out_of_turn = True
                    break
            if not out_of_turn:
                continue
        action = react(s, R, seat, kinds[seat], mt[seat], actions, count, catch_miss)
        if action >= 0:
            return seat, action
    return -1, -1


@_kernel
def _record(s: I32Array, stats: I64Array):
    """The round's outcome into ``stats`` (the knock-outs the outcome lists)."""
    n = s[PLAYERS]
    stats[S_WINNER] = s[WINNER]
    stats[S_REASON] = s[REASON]
    k = s[OUT_KO_LEN]
    stats[S_KNOCKOUTS] = k
    for i in range(k):
        stats[S_KO_SEAT + i] = s[KO_SEAT + i]
        stats[S_KO_BY + i] = s[KO_BY + i]
    for seat in range(n):
        stats[S_POINTS + seat] = s[POINTS + seat]


@_kernel
def play_games(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    players: int,
    seeds: I64Array,
    bot_seeds: I64Array2,
    kinds: I64Array,
    mt: I32Array2,
    stats: I64Array2,
    cursor: I64Array,
    mask: U8Array,
    lst: I64Array,
    actions: I64Array,
    sitting: I64Array,
    max_steps: int,
    catch_miss: float,
):
    """Play game ``cursor[C_GAME]`` onwards of ``seeds`` on the table ``s``: game ``g``
    is dealt as ``new_game(players, rules, seeds[g])``, seat ``x``'s policy
    ``kinds[x]`` draws from ``random.Random(bot_seeds[g, x])``, and every action is
    counted into ``stats[g]``. After each turn the seats whose policy reacts are asked in
    order (``bots.runner``), until none acts.

    Returns ``DONE``, or ``ENDLESS`` when a round passes ``max_steps`` actions
    (``cursor[C_GAME]`` says which game). ``mask`` all zeros, ``lst`` and ``actions``
    room for every action, ``sitting`` all zeros, ``mt`` one 625-word row per seat,
    ``catch_miss`` the heuristic's chance to miss a catch.
    """
    games = seeds.shape[0]
    while cursor[C_GAME] < games:
        g = cursor[C_GAME]
        row = stats[g]
        if cursor[C_PHASE] == PH_DEAL:
            seed = seeds[g]
            deal(s, R, deck, players, seed & 0xFFFFFFFF, (seed >> np.int64(32)) & 0xFFFFFFFF, -1, sitting)
            for seat in range(players):
                seed_rng(mt[seat], bot_seeds[g, seat])
            for i in range(NUM_STATS):
                row[i] = 0
            row[S_DEALER] = s[DEALER]
            row[S_FIRST] = s[CURRENT]
            cursor[C_PHASE] = PH_TURN
        while s[CURRENT] >= 0:
            if row[S_DECISIONS] >= max_steps:
                return ENDLESS
            if cursor[C_PHASE] == PH_TURN:
                seat = s[CURRENT]
                action = choose(s, R, deck, seat, kinds[seat], mt[seat], actions, mask, lst)
                cursor[C_PHASE] = PH_REACT
                cursor[C_AFTER] = seat
                _act(s, R, seat, action, row)
            else:
                seat = -1
                action = -1
                if s[UO_LEN] > 0:
                    seat, action = _reaction(s, R, kinds, mt, cursor[C_AFTER], mask, lst, actions, catch_miss)
                if seat < 0:
                    cursor[C_PHASE] = PH_TURN
                else:
                    _act(s, R, seat, action, row)
        _record(s, row)
        cursor[C_GAME] = g + 1
        cursor[C_PHASE] = PH_DEAL
    return DONE
