"""One learner seat against native opponents over a batch of tables, compiled: the loop of
:class:`nomercy.rl.single.SingleAgentGame` (learner acts, opponents play until the
learner decides again or its round ends, a finished round dealt again at once) run over
every row of a ``(tables, width)`` batch in one call.

**Opponents.** Each seat has an opponent kind (``kinds[seat]``) and :func:`choose` is the
one place that maps a kind to its kernel, :func:`react` the one place for what a kind does
out of turn. A kernel has the signature ``choose(s, R, deck, seat, mask, lst, rng) ->
action index`` (``deck`` the deck's card indices, ``mask`` all zeros on entry and on
return, ``lst`` scratch for ``kernels.legal``, ``rng`` the row's generator words, slot 0
the opponents' own); :func:`random_choose` is kind :data:`RANDOM`, a uniformly random
legal action as ``RandomBot`` picks one (it never reacts); kind :data:`HEURISTIC` is
``nomercy.native.heuristic``'s ``HeuristicBot`` (deterministic on its turn; out of turn a
late Uno always, a catch unless a draw from slot 0 falls below ``catch_miss``).

**Reactions.** When a kind at the table reacts, every action applied (the learner's and
the opponents') is followed by the reaction round of ``nomercy.bots.runner.reactions``, as
``SingleAgentGame`` runs it: the opponent seats after the actor, in order, asked while a
seat is open to a catch; the first that acts is applied and they are asked again. The
learner is never asked (it catches on its own turn, from its legal actions).

**Generators.** ``rng[row]`` holds three uint64 words: 0 the opponents' xorshift64*
(``kernels._rand``), 1 the splitmix64 stream of the row's deal seeds, 2 the user's
:func:`sample` draws (so sampling never changes the opponents' or the deals' streams).

**Log.** ``log[row]`` (when it has columns) records what the last call did to the row, in
order: ``seat * NUM_ACTIONS + action`` for every action applied, and ``-(seed + 1)`` for
every deal, so a test can replay the call on the Python engine; ``logn[row]`` counts the
entries (past the columns, the count goes on and entries are dropped).
"""

# Unannotated kernels, as in kernels.py (pyproject.toml's mypy override says so).

from __future__ import annotations

import numpy as np

from nomercy.native._compiled import inline, kernel
from nomercy.native.cdecl import (
    F32Array,
    F32Array2,
    I8Array2,
    I32Array,
    I32Array2,
    I64Array,
    I64Array2,
    U8Array,
    U32Array2,
    U64Array,
    U64Array2,
)
from nomercy.native.encode import mask, observe
from nomercy.native.heuristic import heuristic_choose, heuristic_offer
from nomercy.native.kernels import (
    SEED_LANES,
    _rand,
    apply_action,
    apply_inline,
    deal,
    deal_seeded,
    lane_key,
    lane_seed,
    legal,
    legal_list,
    mt_seed_lanes,
    seeded_reshuffle,
)
from nomercy.native.layout import (
    A_KIND,
    A_UNO_CALL,
    ACTIVE,
    C_POINTS,
    CURRENT,
    DECK,
    HANDS,
    HLEN,
    K_CATCH,
    K_UNO,
    NUM_ACTIONS,
    PLAYERS,
    POINTS,
    UO_LEN,
    WINNER,
)

__all__ = [
    "HEURISTIC",
    "MAX_REDEALS",
    "RANDOM",
    "choose",
    "random_choose",
    "react",
    "reset",
    "sample",
    "step",
    "take_actions",
]

#: Opponent kinds (``kinds[seat]``); the learner's own entry is not read.
RANDOM = 0
HEURISTIC = 1
#: Deals tried for a round that reaches the learner's first decision (as SingleAgentGame).
MAX_REDEALS = 100
M32 = 0xFFFFFFFF

_kernel = kernel
_inline = inline


@_kernel
def _splitmix(rng: U64Array, k: int):
    """splitmix64 over word ``k`` of ``rng``: the next 64-bit value of that stream."""
    z = rng[k] + np.uint64(0x9E3779B97F4A7C15)
    rng[k] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_inline
def random_choose(s: I32Array, R: I64Array, seat: int, mask: U8Array, lst: I64Array, rng: U64Array):
    """A uniformly random legal action of ``seat``, the deciding seat (the opponent kind
    :data:`RANDOM`): the ``_rand(rng) % count``-th of :func:`~nomercy.native.kernels.legal`'s
    list, as ``legal_list`` makes it in one pass (``mask`` untouched)."""
    count = legal_list(s, R, lst)
    return lst[1 + np.int64(_rand(rng) % np.uint64(count))]


@_inline
def choose(
    kind: int,
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    seat: int,
    mask: U8Array,
    lst: I64Array,
    rng: U64Array,
):
    """The action of an opponent of kind ``kind`` at ``seat``: the one dispatch point
    (inlined into the opponents' loop with the random kind: two calls between kernels
    cost as much as a random decision)."""
    if kind == HEURISTIC:
        return heuristic_choose(s, R, seat, deck, mask, lst)
    return random_choose(s, R, seat, mask, lst, rng)


@_kernel
def react(kind: int, s: I32Array, R: I64Array, seat: int, rng: U64Array, catch_miss: float):
    """The out-of-turn action of an opponent of kind ``kind`` at ``seat``, or -1: the
    heuristic's (a catch kept unless ``_rand(rng) / 2**32 < catch_miss``); the random
    bot never reacts."""
    if kind != HEURISTIC:
        return -1
    a = heuristic_offer(s, R, seat)
    if a < 0 or a == A_UNO_CALL:
        return a
    if _rand(rng) * (1.0 / 4294967296.0) >= catch_miss:
        return a
    return -1


@_kernel
def reacts(kind: int):
    """Whether an opponent kind may act out of turn."""
    return kind == HEURISTIC


@_kernel
def _note(log: I64Array2, logn: I64Array, row: int, value: int):
    n = logn[row]
    if n < log.shape[1]:
        log[row, n] = value
    logn[row] = n + 1


@_kernel
def _reactions(
    s: I32Array,
    R: I64Array,
    learner: int,
    kinds: I64Array,
    reacting: int,
    catch_miss: float,
    after: int,
    mask: U8Array,
    lst: I64Array,
    rng: U64Array,
    log: I64Array2,
    logn: I64Array,
    row: int,
):
    """``bots.runner.reactions`` after ``after``'s action: while a seat is open to a catch,
    the first opponent (seat order after ``after``) whose kind acts out of turn acts."""
    if not reacting:
        return
    n = s[PLAYERS]
    while s[UO_LEN] > 0 and s[WINNER] < 0:
        acted = False
        for i in range(1, n + 1):
            seat = (after + i) % n
            if seat == learner or not reacts(kinds[seat]) or not s[ACTIVE + seat]:
                continue
            count = legal(s, R, seat, mask, lst)
            out_of_turn = False
            for k in range(1, count + 1):
                mask[lst[k]] = 0
                kind = A_KIND[lst[k]]
                if kind == K_CATCH or kind == K_UNO:  # noqa: SIM109 - no tuple in the hot loop
                    out_of_turn = True
            if count == 0 or (seat == s[CURRENT] and not out_of_turn):
                continue  # the Python loop does not ask a seat with nothing to do out of turn
            a = react(kinds[seat], s, R, seat, rng, catch_miss)
            if a < 0:
                continue
            apply_action(s, R, seat, a)
            _note(log, logn, row, seat * NUM_ACTIONS + a)
            acted = True
            break
        if not acted:
            break


@_kernel
def _opponents(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    learner: int,
    kinds: I64Array,
    reacting: int,
    catch_miss: float,
    mask: U8Array,
    lst: I64Array,
    rng: U64Array,
    log: I64Array2,
    logn: I64Array,
    row: int,
):
    """Let the opponents play until the learner decides, is knocked out, or the round ends
    (each turn followed by its reaction round)."""
    while s[WINNER] < 0 and s[CURRENT] != learner and s[ACTIVE + learner]:
        seat = s[CURRENT]
        a = choose(kinds[seat], s, R, deck, seat, mask, lst, rng)
        apply_inline(s, R, seat, a)
        _note(log, logn, row, seat * NUM_ACTIONS + a)
        _reactions(s, R, learner, kinds, reacting, catch_miss, seat, mask, lst, rng, log, logn, row)


@_inline
def _seed_from(words: U64Array):
    """The next deal seed of a row's stream (word 1 of its generator words)."""
    return np.int64(_splitmix(words, 1) >> np.uint64(1))


@_inline
def _next_seed(rng, row):
    return _seed_from(rng[row])


@_kernel
def _deal(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    players: int,
    learner: int,
    kinds: I64Array,
    reacting: int,
    catch_miss: float,
    rng: U64Array,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
    log: I64Array2,
    logn: I64Array,
    row: int,
    tries: int,
):
    """Deal rounds from the row's seed stream until one reaches the learner's decision:
    0, or -1 after ``tries`` deals that did not."""
    for _ in range(tries):
        seed = _seed_from(rng)
        deal(s, R, deck, players, seed & M32, (seed >> 32) & M32, -1, sitting)
        _note(log, logn, row, -(seed + 1))
        _opponents(s, R, deck, learner, kinds, reacting, catch_miss, mask, lst, rng, log, logn, row)
        if s[WINNER] < 0 and s[ACTIVE + learner]:
            return 0
    return -1


@_kernel
def _deal_rows(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    learner: int,
    kinds: I64Array,
    reacting: int,
    catch_miss: float,
    rng: U64Array2,
    waiting: I64Array,
    count: int,
    pool: U32Array2,
    generators: I32Array2,
    offsets: I64Array,
    rules: F32Array,
    rl_of_native: I64Array,
    obs: F32Array2,
    masks: I8Array2,
    legal_out: I8Array2,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
    log: I64Array2,
    logn: I64Array,
):
    """:func:`_deal` for the rows ``waiting[:count]`` and encode each one's first decision,
    their first deals' generators seeded side by side, half of
    :data:`~nomercy.native.kernels.SEED_LANES` rows at a time (``kernels.mt_seed_lanes``;
    ``pool`` and ``generators`` are its scratch): the same seeds from each row's own
    stream, the same deals. Each deal's first reshuffle is seeded in the same pass and
    waits in the table (``MT_READY``), as in random play.
    A row whose first deal does not reach the learner deals again as :func:`_deal` does.
    Returns 0, or -1 - row for a row where no deal reached the learner."""
    half = SEED_LANES // 2
    for g in range(0, count, half):
        lanes = min(half, count - g)
        for q in range(lanes):
            seed = _next_seed(rng, waiting[g + q])
            lane_key(pool, q, seed, 0)
            lane_key(pool, lanes + q, seed, 1)
        mt_seed_lanes(pool, 2 * lanes, generators)
        for q in range(lanes):
            row = waiting[g + q]
            s = S[row]
            r = rng[row]
            seed = lane_seed(pool, q)
            deal_seeded(s, R, deck, players, seed & M32, (seed >> 32) & M32, -1, sitting, generators[q])
            seeded_reshuffle(s, generators[lanes + q])
            _note(log, logn, row, -(seed + 1))
            _opponents(s, R, deck, learner, kinds, reacting, catch_miss, mask, lst, r, log, logn, row)
            if s[WINNER] >= 0 or not s[ACTIVE + learner]:
                tries = MAX_REDEALS - 1
                if _deal(s, R, deck, players, learner, kinds, reacting, catch_miss, r, mask, lst, sitting,
                         log, logn, row, tries) < 0:  # fmt: skip
                    return -1 - row
            _encode(s, R, learner, offsets, rules, rl_of_native, obs, masks, legal_out, mask, lst, row)
    return 0


@_kernel
def _reward(s: I32Array, learner: int, points: int, knockout: float):
    """The learner's reward at the end of its round (``nomercy.rl.common``): ``knockout``
    when it was knocked out, else +1/-1, or with ``points`` its round points less the
    points of the cards a loser still holds."""
    if not s[ACTIVE + learner]:
        return knockout
    winner = s[WINNER]
    if not points:
        return 1.0 if winner == learner else -1.0
    conceded = 0
    if winner != learner:
        h0 = HANDS + learner * s[DECK]
        for i in range(s[HLEN + learner]):
            conceded += C_POINTS[s[h0 + i]]
    return float(s[POINTS + learner] - conceded)


@_kernel
def _encode(
    s: I32Array,
    R: I64Array,
    learner: int,
    offsets: I64Array,
    rules: F32Array,
    rl_of_native: I64Array,
    obs: F32Array2,
    masks: I8Array2,
    legal_out: I8Array2,
    scratch: I64Array,
    lst: I64Array,
    row: int,
):
    observe(s, learner, offsets, rules, obs[row])
    mask(s, R, learner, rl_of_native, masks[row], scratch, lst)
    for i in range(masks.shape[1]):
        legal_out[row, i] = masks[row, i]


@_kernel
def reset(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    learner: int,
    kinds: I64Array,
    reacting: int,
    catch_miss: float,
    rng: U64Array2,
    offsets: I64Array,
    rules: F32Array,
    rl_of_native: I64Array,
    obs: F32Array2,
    masks: I8Array2,
    legal_out: I8Array2,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
    log: I64Array2,
    logn: I64Array,
    waiting: I64Array,
    pool: U32Array2,
    generators: I32Array2,
):
    """Deal every row (from its seed stream) and encode its learner's first decision.
    ``reacting``: whether any opponent kind reacts (the reaction rounds are skipped
    otherwise), ``catch_miss`` the heuristic's chance to miss a catch; ``waiting`` (a row
    index per row), ``pool`` and ``generators`` (``kernels.mt_seed_lanes``) are scratch. Returns 0, or
    -1 - row for a row where no deal reached the learner."""
    for row in range(S.shape[0]):
        logn[row] = 0
        waiting[row] = row
    return _deal_rows(
        S, R, deck, players, learner, kinds, reacting, catch_miss, rng, waiting, S.shape[0], pool, generators,
        offsets, rules, rl_of_native, obs, masks, legal_out, mask, lst, sitting, log, logn,
    )  # fmt: skip


@_kernel
def step(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    learner: int,
    kinds: I64Array,
    reacting: int,
    catch_miss: float,
    rng: U64Array2,
    actions: I64Array,
    points: int,
    knockout: float,
    offsets: I64Array,
    rules: F32Array,
    rl_of_native: I64Array,
    obs: F32Array2,
    masks: I8Array2,
    legal_out: I8Array2,
    rewards: F32Array,
    dones: U8Array,
    final_obs: F32Array2,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
    log: I64Array2,
    logn: I64Array,
    waiting: I64Array,
    pool: U32Array2,
    generators: I32Array2,
):
    """Apply ``actions[row]`` (a native index, checked legal by the caller) for the
    learner of every row, play the opponents, reset a row whose round ended for the
    learner (its last observation into ``final_obs``), and encode every row's next
    decision. The rows to deal again are dealt together after the others
    (:func:`_deal_rows`): each row's cards and generators are its own, so the order in
    which rows are dealt changes nothing. Returns how many rows finished a round, or
    -1 - row where no new deal reached the learner."""
    count = 0
    for row in range(S.shape[0]):
        logn[row] = 0
        s = S[row]
        r = rng[row]
        a = actions[row]
        apply_action(s, R, learner, a)
        _note(log, logn, row, learner * NUM_ACTIONS + a)
        _reactions(s, R, learner, kinds, reacting, catch_miss, learner, mask, lst, r, log, logn, row)
        _opponents(s, R, deck, learner, kinds, reacting, catch_miss, mask, lst, r, log, logn, row)
        if s[WINNER] >= 0 or not s[ACTIVE + learner]:
            dones[row] = True
            rewards[row] = _reward(s, learner, points, knockout)
            observe(s, learner, offsets, rules, final_obs[row])
            waiting[count] = row
            count += 1
        else:
            dones[row] = False
            rewards[row] = 0.0
            _encode(s, R, learner, offsets, rules, rl_of_native, obs, masks, legal_out, mask, lst, row)
    code = _deal_rows(
        S, R, deck, players, learner, kinds, reacting, catch_miss, rng, waiting, count, pool, generators,
        offsets, rules, rl_of_native, obs, masks, legal_out, mask, lst, sitting, log, logn,
    )  # fmt: skip
    return code if code < 0 else count


@_kernel
def take_actions(actions: I64Array, legal: I8Array2, native_of_rl: I64Array, out: I64Array):
    """Check one RL action index per row and write its native index into ``out``: -1
    when every action is in range (``0..len(native_of_rl) - 1``) and flagged in its row
    of ``legal``, else the first row out of range, or failing that the first illegal
    one (``out`` then partly written: the caller reports the row and applies nothing).
    Compiled: the numpy checks it replaces cost about a twentieth of a 256-row step."""
    count = native_of_rl.shape[0]
    for row in range(actions.shape[0]):
        a = actions[row]
        if a < 0 or a >= count:
            return row
    for row in range(actions.shape[0]):
        a = actions[row]
        if not legal[row, a]:
            return row
        out[row] = native_of_rl[a]
    return -1


#: Adds up the eight one-byte flags of a word into its top byte.
_BYTES = np.uint64(0x0101010101010101)


@_inline
def _flags(word: int):
    """How many of the eight one-byte 0/1 flags of ``word`` are set."""
    return np.int64((word * _BYTES) >> np.uint64(56))


@_kernel
def sample(words: U64Array2, rng: U64Array2, out: I64Array):
    """A uniformly random legal action per row, from word 2 of the row's generator; -1
    for a row with none. ``words`` is the int8 mask array (one 0/1 byte per action)
    viewed as uint64 words, eight flags a word in memory order (little-endian): a row
    is counted and searched a word at a time instead of a byte at a time."""
    width = words.shape[1]
    for row in range(words.shape[0]):
        count = 0
        for w in range(width):
            count += _flags(words[row, w])
        if count == 0:
            out[row] = -1
            continue
        state = rng[row, 2:]
        k = np.int64(_rand(state) % np.uint64(count))
        for w in range(width):
            word = words[row, w]
            here = _flags(word)
            if k < here:
                for b in range(8):
                    if (word >> np.uint64(8 * b)) & np.uint64(1):
                        if k == 0:
                            out[row] = 8 * w + b
                            break
                        k -= 1
                break
            k -= here
