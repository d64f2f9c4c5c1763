"""The rules of ``nomercy.engine``, compiled ahead of time over one table's int32 vector.

Each function here is the native twin of the engine function of the same name (the
reference, which stays the readable truth): the same steps in the same order, so that the
same cards move the same way. ``layout.py`` describes the vector. The kernels are
translated to C (``scripts/native_c.py``) and compiled with the package, into
``nomercy.native._engine``: importing this module loads them, with nothing to compile.
"""

# Each kernel's parameters carry their C types (nomercy.native.cdecl), which the translator reads;
# the results are what it infers (pyproject.toml's [[tool.mypy.overrides]] for this module).

from __future__ import annotations

import numpy as np

from nomercy.native._compiled import inline, kernel, source
from nomercy.native.cdecl import I32Array, I32Array2, I64Array, U8Array, U32Array2, U64Array
from nomercy.native.layout import (
    A_CARD,
    A_CATCH0,
    A_CHALLENGE,
    A_COLOR,
    A_COLOR0,
    A_DRAW,
    A_KIND,
    A_OFF,
    A_PASS,
    A_TAKE,
    A_UNO,
    A_UNO_CALL,
    ACTIVE,
    ACTIVE_COUNT,
    ASIDE_LEN,
    BONUS,
    BURIED,
    C_COLOR,
    C_DRAW,
    C_FACE,
    C_NUMBER,
    C_POINTS,
    C_WILD,
    COLOR,
    CURRENT,
    DEALER,
    DECISION,
    DECK,
    DIRECTION,
    DISC_LEN,
    DRAWN,
    F_DISCARD_ALL,
    F_REVERSE,
    F_ROULETTE,
    F_SEVEN,
    F_SKIP,
    F_SKIP_EVERYONE,
    F_WD4,
    F_WRD4,
    F_ZERO,
    HANDS,
    HLEN,
    HSET,
    K_CATCH,
    K_CHALLENGE,
    K_COLOR,
    K_DRAW,
    K_PASS,
    K_PLAY,
    K_TAKE,
    K_UNO,
    KO_BY,
    KO_LEN,
    KO_SEAT,
    LAST_BY,
    LAST_VALUE,
    MAX_PLAYERS,
    MT_READY,
    MT_WORDS,
    NUM_ACTIONS,
    NUM_CARDS,
    OUT_KO_LEN,
    PENDING,
    PILE_IN,
    PILE_LEN,
    PLAY_INDEX,
    PLAYERS,
    POINTS,
    R_AT_ONCE,
    R_D10_STACKABLE,
    R_DRAW_ONE,
    R_DRAW_WHEN_PLAYABLE,
    R_FIRST,
    R_HAND_SIZE,
    R_HOLDING_ONE,
    R_KNOCKER,
    R_KO_BOTTOM,
    R_LAST_APPLY,
    R_MERCY,
    R_MUST_PLAY_DRAWN,
    R_REVEALED,
    R_SEVEN_ZERO,
    R_STACK_MATCH,
    R_STACKING,
    R_TPR_SELF,
    R_TPRD_SELF,
    R_UNO_CALLS,
    R_UNO_PENALTY,
    R_WD4_CHALLENGE,
    R_WD4_RESTRICTED,
    REASON,
    ROULETTE_BY,
    SEED_HI,
    SEED_LO,
    SHUFFLES,
    SITTING,
    STEP,
    UO,
    UO_LEN,
    WD4_CARDS,
    WD4_COLOR,
    WD4_GUILTY,
    WINNER,
)

#: A kernel: translated to C with the others (``scripts/native_c.py``) and compiled ahead of
#: time into ``nomercy.native._engine``; the name is then the compiled function.
_kernel = kernel
#: A helper inlined into its callers in C: the small ones, and those on every decision's
#: path (``legal_list``, ``_plays_into``, ``_variant_count``, ``_play``, ``effect``, ``_draw``,
#: ``_take``). The rest stay calls: rare paths (a knock-out, a reshuffle, the end of a
#: round), and ``_draw_cards`` and ``_give``, reached from many places.
_inline = inline

D_PLAY = 0
D_PLAY_DRAWN = 1
D_STACK = 2
D_CHOOSE_COLOR = 3
D_ROULETTE = 4
D_OVER = 5
D_CHALLENGE = 6
KNOCKOUT_POINTS = 250
M32 = 0xFFFFFFFF
_UNTIL_COUNT = 0
_UNTIL_PLAYABLE = 1
_UNTIL_COLOR = 2

# -- MT19937, as CPython's random.Random(int) ---------------------------------------------------


def _init_genrand(seed: int) -> np.ndarray:
    mt = np.zeros(624, np.int64)
    mt[0] = seed
    for i in range(1, 624):
        mt[i] = (1812433253 * (int(mt[i - 1]) ^ (int(mt[i - 1]) >> 30)) + i) & M32
    return mt


#: init_genrand(19650218), where every init_by_array starts: the same for every key.
_MT_START = _init_genrand(19650218)


@_inline
def _key_add(r: int, n: int, k0: int, seed_lo: int, seed_hi: int):
    """What ``init_by_array``'s first pass adds at its step ``t`` (``r = t mod 6``): the
    key's word ``j = t mod n`` plus ``j``, mod 2**32. A key has ``n`` = 1 to 3 words, so
    the additions repeat every six steps whatever its length."""
    j = r % n
    word = k0 if j == 0 else (seed_lo if j == 1 else seed_hi)
    return (word + j) & M32


@_inline
def _first_pass(start: int, prev: int, add: int):
    """One step of ``init_by_array``'s first pass: the new word from init_genrand's word
    ``start`` at its place and the word before it."""
    return ((start ^ ((prev ^ (prev >> 30)) * 1664525)) + add) & M32


@_kernel
def mt_seed(s: I32Array, m0: int, seed_lo: int, seed_hi: int, number: int):
    """``random.Random(key)`` for key = seed * 2**32 + number into ``s[m0:m0+625]``:
    init_by_array over the key's 32-bit words, least significant first, as many as the key
    needs (one for 0). Words are stored in int32 slots and read back masked.

    Seeding is one chain of 1,247 dependent steps, so each step is kept short: the first
    pass runs six steps a loop with the six additions its key makes (:func:`_key_add`) in
    registers, and the second pass's wrap-around from word 623 to word 1 is taken out of
    the loop, which then has no branch (callgrind: about half the instructions of a loop
    that tracked the key's word and the wrap at every step)."""
    k0 = number & M32
    n = _key_length(seed_lo, seed_hi)
    a0 = _key_add(0, n, k0, seed_lo, seed_hi)
    a1 = _key_add(1, n, k0, seed_lo, seed_hi)
    a2 = _key_add(2, n, k0, seed_lo, seed_hi)
    a3 = _key_add(3, n, k0, seed_lo, seed_hi)
    a4 = _key_add(4, n, k0, seed_lo, seed_hi)
    a5 = _key_add(5, n, k0, seed_lo, seed_hi)
    # The first pass over words 1-623 (step t at word t + 1) reads init_genrand's words
    # straight from the table: 103 rounds of six steps, then five.
    prev = _MT_START[0]
    i = 1
    for _ in range(103):
        prev = _first_pass(_MT_START[i], prev, a0)
        s[m0 + i] = prev
        prev = _first_pass(_MT_START[i + 1], prev, a1)
        s[m0 + i + 1] = prev
        prev = _first_pass(_MT_START[i + 2], prev, a2)
        s[m0 + i + 2] = prev
        prev = _first_pass(_MT_START[i + 3], prev, a3)
        s[m0 + i + 3] = prev
        prev = _first_pass(_MT_START[i + 4], prev, a4)
        s[m0 + i + 4] = prev
        prev = _first_pass(_MT_START[i + 5], prev, a5)
        s[m0 + i + 5] = prev
        i += 6
    prev = _first_pass(_MT_START[619], prev, a0)
    s[m0 + 619] = prev
    prev = _first_pass(_MT_START[620], prev, a1)
    s[m0 + 620] = prev
    prev = _first_pass(_MT_START[621], prev, a2)
    s[m0 + 621] = prev
    prev = _first_pass(_MT_START[622], prev, a3)
    s[m0 + 622] = prev
    prev = _first_pass(_MT_START[623], prev, a4)
    s[m0 + 623] = prev
    # Word 0 takes word 623, and the 624th step (t = 623, so the sixth addition) is at word 1,
    # which the pass has written already.
    prev = _first_pass(np.int64(s[m0 + 1]) & M32, prev, a5)
    s[m0 + 1] = prev
    # The second pass, 623 steps from word 2: words 2-623, then word 1 again (word 0, which
    # would take word 623 in between, is set below and read by no step). A word is read as
    # stored (sign-extended): only its low 32 bits reach the masked result.
    for i in range(2, 624):
        prev = ((np.int64(s[m0 + i]) ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & M32
        s[m0 + i] = prev
    s[m0 + 1] = ((np.int64(s[m0 + 1]) ^ ((prev ^ (prev >> 30)) * 1566083941)) - 1) & M32
    s[m0] = 0x80000000
    s[m0 + 624] = 624


#: Generators one seeding pass seeds side by side at most (:func:`mt_seed_lanes`).
SEED_LANES = 64
#: A seeding pool's rows (:func:`mt_seed_lanes`): a generator's 625 words, six rows of
#: key words, and the seed's low and high 32 bits.
POOL_ROWS = MT_WORDS + 8


@_inline
def _key_length(seed_lo: int, seed_hi: int):
    """How many 32-bit words ``init_by_array`` takes from the key seed * 2**32 + number."""
    if seed_hi != 0:
        return 3
    return 2 if seed_lo != 0 else 1


@_kernel
def lane_key(pool: U32Array2, lane: int, seed: int, number: int):
    """Set column ``lane`` of ``pool`` to seed the key ``seed * 2**32 + number`` (seed
    below 2**64): rows 625 to 630 take what ``init_by_array``'s first pass adds at its
    step t, the key's word j = t mod (key length) plus j (mod 2**32, as every step's sum
    is). A key has one to three words, so the additions repeat every six steps, whatever
    the key's length. Rows 631 and 632 keep the seed (:func:`lane_seed`)."""
    lo = seed & M32
    hi = (seed >> 32) & M32
    pool[MT_WORDS + 6, lane] = lo
    pool[MT_WORDS + 7, lane] = hi
    n = _key_length(lo, hi)
    for r in range(6):
        j = r % n
        word = (number & M32) if j == 0 else (lo if j == 1 else hi)
        pool[MT_WORDS + r, lane] = (word + j) & M32


@_inline
def lane_seed(pool: U32Array2, lane: int):
    """The seed :func:`lane_key` gave column ``lane`` (int64: a seed from 2**63 wraps)."""
    return np.int64(pool[MT_WORDS + 6, lane]) | (np.int64(pool[MT_WORDS + 7, lane]) << 32)


@_inline
def _lanes_first_pass(pool: U32Array2, lanes: int):
    """``init_by_array``'s first pass for the keys of columns ``0 .. lanes-1`` of ``pool``
    (:func:`lane_key`), a step of every lane one loop over a pool row."""
    for q in range(lanes):
        pool[0, q] = _MT_START[0]
    r = 0
    for i in range(1, 624):
        start = _MT_START[i]
        for q in range(lanes):
            p = np.int64(pool[i - 1, q])
            pool[i, q] = ((start ^ ((p ^ (p >> 30)) * 1664525)) + np.int64(pool[MT_WORDS + r, q])) & M32
        r = r + 1 if r < 5 else 0
    for q in range(lanes):  # i reached 624: word 0 takes word 623; the 624th step, at i = 1
        p = np.int64(pool[623, q])
        pool[0, q] = p
        added = np.int64(pool[MT_WORDS + r, q])
        pool[1, q] = ((np.int64(pool[1, q]) ^ ((p ^ (p >> 30)) * 1664525)) + added) & M32


@_kernel
def mt_seed_lanes(pool: U32Array2, lanes: int, generators: I32Array2):
    """:func:`mt_seed` for the keys of columns ``0 .. lanes-1`` of ``pool`` (a uint32
    ``(POOL_ROWS, columns)`` scratch array, keys set by :func:`lane_key`), into the rows
    ``0 .. lanes-1`` of ``generators`` (int32, ``(rows, MT_WORDS)``): the same words as
    one call per key.

    Seeding is one chain of 1,247 dependent multiply steps, which leaves a processor idle
    between them. Here a step of every lane is one loop over a pool row, which the
    compiler turns into vector code: 64 generators take about 0.4 us each, against 2.6-2.9
    us for one alone (few lanes gain less: each chain's value goes through memory at
    every step). The pool is uint32 (its words are 32-bit, and each step's sum is taken mod
    2**32), so the compiler works on eight lanes per 256-bit vector instead of four, with
    no 64-bit multiply to build (callgrind, x86-64-v3: 2,700 instructions a generator
    against 9,500 with an int64 pool). The last pass hands its words over in blocks of 16 steps while they are
    in the first-level cache, so that a generator is then one contiguous row
    (measured: ``CHANGELOG.md``)."""
    _lanes_first_pass(pool, lanes)
    for b in range(0, 624, 16):  # the second pass, from i = 2; words 0 and 1 are set last
        for i in range(max(b, 2), b + 16):
            for q in range(lanes):
                p = np.int64(pool[i - 1, q])
                pool[i, q] = ((np.int64(pool[i, q]) ^ ((p ^ (p >> 30)) * 1566083941)) - i) & M32
        for q in range(lanes):
            for k in range(16):
                generators[q, b + k] = pool[b + k, q]
    for q in range(lanes):  # the second pass's last step, at i = 1 again
        p = np.int64(pool[623, q])
        generators[q, 1] = ((np.int64(pool[1, q]) ^ ((p ^ (p >> 30)) * 1566083941)) - 1) & M32
        generators[q, 0] = 0x80000000
        generators[q, 624] = 624


#: Rows of a pool that :func:`mt_seed_lanes_twisted` tempers ahead: a shuffle of 108 to
#: 168 cards draws about 150 to 230 words, so almost every draw is one load, and a word
#: past these is tempered when drawn.
LANE_TEMPERED = 256


@_kernel
def mt_seed_lanes_twisted(pool: U32Array2, lanes: int):
    """:func:`mt_seed_lanes` for columns ``0 .. lanes-1`` of ``pool``, left in the pool:
    each column's generator twisted a whole block at once and its first
    :data:`LANE_TEMPERED` words tempered, each step of every lane one loop over a pool row
    (vector code), so that a deal draws its words straight from its column
    (:func:`deal_pooled`) with no copy of the generator out of the pool."""
    _lanes_first_pass(pool, lanes)
    for i in range(2, 624):  # the second pass, from i = 2
        for q in range(lanes):
            p = np.int64(pool[i - 1, q])
            pool[i, q] = ((np.int64(pool[i, q]) ^ ((p ^ (p >> 30)) * 1566083941)) - i) & M32
    for q in range(lanes):  # the second pass's last step, at i = 1 again
        p = np.int64(pool[623, q])
        pool[1, q] = ((np.int64(pool[1, q]) ^ ((p ^ (p >> 30)) * 1566083941)) - 1) & M32
        pool[0, q] = 0x80000000
    # The block twist, as _twist_block, a row of lanes at a time.
    for i in range(227):
        for q in range(lanes):
            pool[i, q] = _twisted(pool[i, q], pool[i + 1, q], pool[i + 397, q])
    for i in range(227, 623):
        for q in range(lanes):
            pool[i, q] = _twisted(pool[i, q], pool[i + 1, q], pool[i - 227, q])
    for q in range(lanes):
        pool[623, q] = _twisted(pool[623, q], pool[0, q], pool[396, q])
    for i in range(LANE_TEMPERED):
        for q in range(lanes):
            pool[i, q] = _temper(np.int64(pool[i, q]))


@_kernel
def _lane_later(pool: U32Array2, lane: int, at: int, mt: I32Array):
    """The output word at position ``at`` (624 or more) of column ``lane``'s generator,
    drawn in order: at 624 the generator moves out of the pool into ``mt`` (its first
    rows untempered), is twisted and tempered there (the tempered block form), and each
    later block is :func:`_next_block`'s. No shuffle of a real deck gets here."""
    j = (at - 624) % 624
    if j == 0:
        if at == 624:
            for i in range(624):
                word = np.int64(pool[i, lane])
                mt[i] = _untemper(word) if i < LANE_TEMPERED else word
            _twist_block(mt)
            for i in range(624):
                mt[i] = _temper(np.int64(mt[i]) & M32)
        else:
            _next_block(mt)
    return np.int64(mt[j]) & M32


@_inline
def _lane_word(pool: U32Array2, lane: int, at: int, mt: I32Array):
    """The output word at position ``at`` of column ``lane``'s generator (words drawn in
    order; ``mt`` the scratch :func:`_lane_later` moves it to past the block)."""
    if at < LANE_TEMPERED:
        return np.int64(pool[at, lane])
    if at < 624:
        return _temper(np.int64(pool[at, lane]))
    return _lane_later(pool, lane, at, mt)


@_inline
def _load_generator(s: I32Array, mt: I32Array):
    """A seeded generator's 625 words (``mt``) into the table's MT19937 region."""
    m0 = _mt0(s)
    for i in range(MT_WORDS):
        s[m0 + i] = mt[i]


@_inline
def seeded_reshuffle(s: I32Array, mt: I32Array):
    """Right after a deal: ``mt``, the round's shuffle 1 seeded early (with the deal's
    own generator, by :func:`mt_seed_lanes`), into the table's generator region, which
    nothing reads until the round's first reshuffle; ``MT_READY`` tells
    :func:`shuffle_region` to use it. Not when the deal reshuffled already (S3)."""
    if s[SHUFFLES] == 0:
        _load_generator(s, mt)
        s[MT_READY] = 1


@_inline
def _mt_word(s: I32Array, at: int):
    return np.int64(s[at]) & M32


@_inline
def _temper(y: int):
    """MT19937's output function over a state word."""
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & M32


@_inline
def _twisted(word: int, after: int, far: int):
    """The twist of one state word from itself, the word after it and the word 397 on
    (all as stored: int32 slots, read back masked)."""
    y = (np.int64(word) & 0x80000000) | (np.int64(after) & 0x7FFFFFFF)
    return (np.int64(far) & M32) ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)


@_inline
def _mt_twisted(s: I32Array, m0: int, i: int):
    """Word ``i`` of the next block, regenerated in place, then tempered."""
    other = i + 397 if i < 227 else i - 227
    y = _twisted(s[m0 + i], s[m0 + (i + 1 if i < 623 else 0)], s[m0 + other])
    s[m0 + i] = y
    return _temper(y)


@_inline
def _twist_block(mt: I32Array):
    """genrand_uint32's block twist of the 624 words ``mt[:624]`` in place, the whole
    block at once: two straight loops over one view that the compiler turns into vector
    code (word i reads words i+1 and i+397 not yet regenerated, or i-227 already
    regenerated, 227 or more apart)."""
    for i in range(227):
        mt[i] = _twisted(mt[i], mt[i + 1], mt[i + 397])
    for i in range(227, 623):
        mt[i] = _twisted(mt[i], mt[i + 1], mt[i - 227])
    mt[623] = _twisted(mt[623], mt[0], mt[396])


@_inline
def _untemper(y: int):
    """The state word that :func:`_temper` turns into ``y`` (each of its four steps undone,
    last first: a shift of 18 or a masked shift of 15 undoes itself, the masked shift of 7
    takes four rounds, the shift of 11 two terms)."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    x = y
    for _ in range(4):
        x = y ^ ((x << 7) & 0x9D2C5680)
    return (x ^ (x >> 11) ^ (x >> 22)) & M32


#: A generator in the tempered block form stores its position plus this in word 624, where
#: a freshly seeded one has 624 (:func:`_block_start`).
TEMPERED = MT_WORDS


@_inline
def _next_block(mt: I32Array):
    """The next block of a generator in the tempered block form: its words untempered back
    into the state, twisted, and tempered again (a shuffle of a few hundred cards never
    gets here; the first block is :func:`_block_start`'s)."""
    for i in range(624):
        mt[i] = _untemper(np.int64(mt[i]) & M32)
    _twist_block(mt)
    for i in range(624):
        mt[i] = _temper(np.int64(mt[i]) & M32)


@_inline
def _block_start(mt: I32Array):
    """The position of a generator's next word in the tempered block form: a freshly seeded
    generator (position 624) is twisted a whole block at once and the block tempered in
    place, both loops in vector code, so that a draw is one load (the scalar tempering
    of each drawn word cost more than tempering all 624 side by side)."""
    stored = np.int64(mt[624])
    if stored == 624:
        _twist_block(mt)
        for i in range(624):
            mt[i] = _temper(np.int64(mt[i]) & M32)
        return 0
    return stored - TEMPERED


@_inline
def _block_word(mt: I32Array, at: int):
    """The output word at position ``at`` of a generator in the tempered block form, the
    next block made first when ``at`` has reached its end; and the next position."""
    if at >= 624:
        _next_block(mt)
        at = 0
    return np.int64(mt[at]) & M32, at + 1


@_inline
def mt_next(s: I32Array, m0: int):
    """genrand_uint32, twisting lazily: word ``i`` of the next block is regenerated when it
    is drawn, in the order the block twist would regenerate it in place (it reads words
    i+1 and i+397 not yet regenerated, or i-227 already regenerated), so the words are
    the same; a shuffle of a few hundred draws does not regenerate all 624."""
    i = s[m0 + 624]
    if i >= 624:
        i = 0
    s[m0 + 624] = i + 1
    return _mt_twisted(s, m0, i)


@_inline
def _bit_length(n: int):
    k = 0
    while n:
        n >>= 1
        k += 1
    return k


@_kernel
def mt_below(s: I32Array, m0: int, n: int):
    """``_randbelow(n)``: getrandbits(k) until below n, k = n.bit_length()."""
    k = _bit_length(n)
    r = mt_next(s, m0) >> (32 - k)
    while r >= n:
        r = mt_next(s, m0) >> (32 - k)
    return r


@_inline
def _mt0(s: I32Array):
    return HANDS + (MAX_PLAYERS + 4) * s[DECK]


@_inline
def _shuffle(mt: I32Array, deck: I32Array):
    """``random.shuffle`` of ``deck`` (a region of a table) by the freshly seeded generator
    ``mt`` (its 625 words): swap ``i`` with ``_randbelow(i + 1)``, drawn as
    :func:`mt_below` draws it, with the bit count and the generator's position kept in
    registers across the draws.

    Unlike :func:`mt_next`, it twists a whole block at once (:func:`_twist_block`, as
    CPython does) and tempers it (:func:`_block_start`): a deck's shuffle draws a few
    hundred words, and the vector code twists and tempers all 624 in less time than a word
    at a time does those. The words drawn are the same; the generator is left in the
    tempered block form, so only :func:`_below_block` may draw from it afterwards."""
    length = deck.shape[0]
    if length > 1:
        k = _bit_length(length)
        low = (np.int64(1) << (k - 1)) - 1  # i + 1 has k bits while i >= low
        i = np.int64(length - 1)
        at = _block_start(mt)
        while i > 0:
            # One draw a pass, without a branch on it: a draw below i + 1 swaps and moves
            # on, one above swaps card i with itself and draws again. A branch there went
            # the unforeseen way on many of the draws (about a quarter are drawn again);
            # without it, and with the block twist, a 168-card shuffle takes half the
            # time. The branch on the bit count is taken once per power of two, and
            # foreseen on every other pass.
            if i < low:
                k -= 1
                low >>= 1
            word, at = _block_word(mt, at)
            i = _shuffle_step(deck, i, word >> (32 - k))
        mt[624] = at + TEMPERED


@_inline
def _shuffle_step(deck: I32Array, i: int, r: int):
    """A pass of the shuffle with the draw ``r``: swap card ``i`` with card ``r`` and move
    on when ``r <= i``, else swap card ``i`` with itself and stay (the draw is redrawn)."""
    taken = r <= i
    j = r if taken else i
    a = deck[i]
    deck[i] = deck[j]
    deck[j] = a
    return i - np.int64(taken)


@_inline
def _below_block(mt: I32Array, n: int):
    """:func:`mt_below` from a generator in the block form :func:`_shuffle` leaves."""
    k = _bit_length(n)
    at = _block_start(mt)
    while True:
        word, at = _block_word(mt, at)
        r = word >> (32 - k)
        if r < n:
            mt[624] = at + TEMPERED
            return r


@_kernel
def shuffle_region(s: I32Array, start: int, length: int, number: int):
    """``dealing.shuffle`` of ``s[start:start+length]`` with shuffle ``number`` of the seed."""
    m0 = _mt0(s)
    ready = s[MT_READY]
    if ready == 0 or ready != number:  # random play may have seeded it at the deal
        mt_seed(s, m0, np.int64(s[SEED_LO]) & M32, np.int64(s[SEED_HI]) & M32, number)
    s[MT_READY] = 0
    _shuffle(s[m0 : m0 + MT_WORDS], s[start : start + length])


# -- small helpers --------------------------------------------------------------------------------


@_inline
def _pile0(s: I32Array):
    return HANDS + MAX_PLAYERS * s[DECK]


@_inline
def _disc0(s: I32Array):
    return HANDS + (MAX_PLAYERS + 1) * s[DECK]


@_inline
def _aside0(s: I32Array):
    return HANDS + (MAX_PLAYERS + 2) * s[DECK]


@_inline
def _hand0(s: I32Array, seat: int):
    return HANDS + seat * s[DECK]


@_inline
def top_card(s: I32Array):
    return s[_disc0(s) + s[DISC_LEN] - 1]


@_inline
def _wrap(x: int, n: int):
    """``x % n`` for ``-n <= x < 2 * n`` (a seat, or a seat offset, one step out of range):
    compares instead of an integer division, on the path of every decision, and no branch
    (which way a seat wraps is as random as the play)."""
    return x + n * np.int64(x < 0) - n * np.int64(x >= n)


@_inline
def seat_after(s: I32Array, direction: int, seat: int):
    n = s[PLAYERS]
    seat = _wrap(seat + direction, n)
    while not s[ACTIVE + seat]:
        seat = _wrap(seat + direction, n)
    return seat


@_inline
def next_seat(s: I32Array, seat: int):
    return seat_after(s, s[DIRECTION], seat)


@_inline
def previous_seat(s: I32Array, seat: int):
    return seat_after(s, -s[DIRECTION], seat)


@_inline
def _advance(s: I32Array, seat: int):
    s[CURRENT] = seat
    s[DECISION] = D_PLAY


@_inline
def _uo_remove(s: I32Array, seat: int):
    n = s[UO_LEN]
    k = 0
    for i in range(n):
        x = s[UO + i]
        if x != seat:
            s[UO + k] = x
            k += 1
    s[UO_LEN] = k


@_inline
def _uo_has(s: I32Array, seat: int):
    for i in range(s[UO_LEN]):  # noqa: SIM110 - a plain loop: the C translation takes loops
        if s[UO + i] == seat:
            return True
    return False


@_inline
def _matches(s: I32Array, card: int):
    """T1 ``MATCH_BY_TOP`` / ``match_set``: may ``card`` be played on the top card."""
    if C_WILD[card]:
        return True
    if C_FACE[card] == C_FACE[top_card(s)]:
        return True
    color = s[COLOR]
    return color >= 0 and C_COLOR[card] == color


@_inline
def playable(s: I32Array, R: I64Array, card: int, seat: int):
    """T1: may ``card`` from ``seat``'s hand be played now, outside a stack?"""
    if C_WILD[card]:
        if C_FACE[card] == F_WD4 and R[R_WD4_RESTRICTED]:
            h0 = _hand0(s, seat)
            for i in range(s[HLEN + seat]):
                c = s[h0 + i]
                if C_FACE[c] != F_WD4 and _matches(s, c):
                    return False
        return True
    return C_COLOR[card] == s[COLOR] or C_FACE[card] == C_FACE[top_card(s)]


@_inline
def _size_after(s: I32Array, R: I64Array, seat: int, card: int):
    """How many cards ``seat`` holds after playing ``card`` without a target (N2, A5)."""
    left = s[HLEN + seat] - 1
    if left == 0:
        return 0
    face = C_FACE[card]
    if face == F_DISCARD_ALL:
        h0 = _hand0(s, seat)
        same = np.int64(0)
        for i in range(s[HLEN + seat]):
            same += np.int64(C_COLOR[s[h0 + i]] == C_COLOR[card])  # no branch on the cards
        return left - same + 1
    if R[R_SEVEN_ZERO] and face == F_ZERO:
        return s[HLEN + previous_seat(s, seat)]
    return left


# -- legal actions ----------------------------------------------------------------------------------
# The deciding seat's legal actions come in one fixed order: the plays of each distinct card
# kind it may play, in card-index order (a second copy of a card adds nothing), then the
# other actions of the decision (draw, take, pass, challenge, a colour), then the out-of-turn
# ones. ``legal`` lists them all into a mask and a list; ``legal_list`` lists the deciding
# seat's in one pass with no mask, which is all a uniform random choice needs (one index
# into the list). Both walk the same helpers, so each rule is stated once.
#
# Which kinds may be played is found with sets of card kinds, two 64-bit words each (bit
# ``k % 64`` of word ``k // 64``): the hand's kinds are gathered in one branch-free pass,
# then intersected with the set the top card allows. Testing each card in turn branched
# unpredictably on every card, and was the largest part of a random decision's cost.

assert NUM_CARDS <= 128, "a set of card kinds is two 64-bit words"


def _kinds(flags: np.ndarray) -> np.ndarray:
    """The set of the card kinds where ``flags`` is true."""
    words = np.zeros(2, np.uint64)
    for card in np.flatnonzero(flags):
        words[card >> 6] |= np.uint64(1) << np.uint64(card & 63)
    return words


_NO_KINDS = np.zeros(2, np.uint64)
#: Wild cards, cards without a colour, Wild Draw 4s.
_WILD_SET = _kinds(C_WILD)
_UNCOLORED_SET = _kinds(C_COLOR < 0)
_WD4_SET = _kinds(np.equal(C_FACE, F_WD4))
#: [face] -> the kinds of that face; [color + 1] -> the kinds of that colour (row 0: none).
_FACE_SET = np.array([_kinds(np.equal(C_FACE, f)) for f in range(int(C_FACE.max()) + 1)])
_COLOR_SET = np.array([_kinds(np.equal(C_COLOR, c)) if c >= 0 else _NO_KINDS for c in range(-1, 4)])
#: [v] -> the Draw cards of value v or more (v 0: every Draw card).
_DRAW_SET = np.array([_kinds(np.greater_equal(C_DRAW, max(v, 1))) for v in range(int(C_DRAW.max()) + 1)])
#: A De Bruijn sequence and its table: the index of a word's only set bit.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_BIT_INDEX = np.zeros(64, np.int64)
for _bit in range(64):
    _BIT_INDEX[(((1 << _bit) * int(_DEBRUIJN)) & 0xFFFFFFFFFFFFFFFF) >> 58] = _bit


@_inline
def _lowest(word: int):
    """The index of the lowest set bit of a non-zero word."""
    return _BIT_INDEX[((word & (~word + np.uint64(1))) * _DEBRUIJN) >> np.uint64(58)]


@_inline
def _word64(s: I32Array, at: int):
    """The 64-bit word kept in the int32 slots ``at`` (low half) and ``at + 1``."""
    return np.uint64(np.int64(s[at]) & M32) | (np.uint64(np.int64(s[at + 1]) & M32) << np.uint64(32))


@_inline
def _int32(word: int):
    """The low 32 bits of ``word`` as the int32 a slot holds."""
    v = np.int64(word & np.uint64(M32))
    return v - ((v >> 31) << 32)  # no branch: the high bit is as random as the cards


@_inline
def _hand_set(s: I32Array, seat: int):
    """The kinds of the cards in ``seat``'s hand, as kept in ``HSET`` (two words)."""
    at = HSET + 4 * seat
    return _word64(s, at), _word64(s, at + 2)


@_inline
def _store_set(s: I32Array, seat: int, lo: int, hi: int):
    at = HSET + 4 * seat
    s[at] = _int32(lo)
    s[at + 1] = _int32(lo >> np.uint64(32))
    s[at + 2] = _int32(hi)
    s[at + 3] = _int32(hi >> np.uint64(32))


@_inline
def _set_kind(s: I32Array, seat: int, card: int):
    """``card`` joined ``seat``'s hand: its kind is in the hand's set."""
    at = HSET + 4 * seat + (card >> 5)  # 32-bit word card // 32 of the set
    s[at] = _int32((np.uint64(np.int64(s[at]) & M32)) | (np.uint64(1) << np.uint64(card & 31)))


@_inline
def _clear_kind(s: I32Array, seat: int, card: int):
    """The last copy of ``card`` left ``seat``'s hand."""
    at = HSET + 4 * seat + (card >> 5)
    s[at] = _int32((np.uint64(np.int64(s[at]) & M32)) & ~(np.uint64(1) << np.uint64(card & 31)))


@_kernel
def rebuild_set(s: I32Array, seat: int):
    """``seat``'s hand set (``HSET``) from its cards (one pass, no branch on the cards):
    after a deal, a Discard All, or a hand written from Python (``convert``)."""
    h0 = _hand0(s, seat)
    hand = s[h0 : h0 + s[HLEN + seat]]
    lo = np.uint64(0)
    hi = np.uint64(0)
    for i in range(hand.shape[0]):
        card = hand[i]
        bit = np.uint64(card & 63)
        lo |= np.uint64(card < 64) << bit
        hi |= np.uint64(card >= 64) << bit
    _store_set(s, seat, lo, hi)


@_inline
def _left_hand(s: I32Array, seat: int, card: int):
    """A copy of ``card`` has left ``seat``'s hand: the kind leaves the set unless
    another copy stays."""
    h0 = _hand0(s, seat)
    for i in range(s[HLEN + seat]):
        if s[h0 + i] == card:
            return
    _clear_kind(s, seat, card)


@_inline
def _play_set(s: I32Array, R: I64Array, seat: int, stack: int):
    """The kinds ``seat`` may play from its hand now: onto a stack (K1-K3: a Draw card of
    at least the last value, none on a Draw 10 unless it stacks, a coloured one matching
    the top card under ``stack_color`` match) or onto the top card (T1, as ``playable``:
    a restricted Wild Draw 4 only while no other card in the hand matches)."""
    lo, hi = _hand_set(s, seat)
    face = C_FACE[top_card(s)]
    color = s[COLOR] + 1
    match_lo = _FACE_SET[face, 0] | _COLOR_SET[color, 0]
    match_hi = _FACE_SET[face, 1] | _COLOR_SET[color, 1]
    if stack:
        last = s[LAST_VALUE]
        if last == 10 and not R[R_D10_STACKABLE]:
            return np.uint64(0), np.uint64(0)
        lo &= _DRAW_SET[last, 0]
        hi &= _DRAW_SET[last, 1]
        if R[R_STACK_MATCH]:  # a coloured Draw card must match the top card
            lo &= match_lo | _UNCOLORED_SET[0]
            hi &= match_hi | _UNCOLORED_SET[1]
        return lo, hi
    lo &= match_lo | _WILD_SET[0]
    hi &= match_hi | _WILD_SET[1]
    if R[R_WD4_RESTRICTED] and (lo & ~_WD4_SET[0]) | (hi & ~_WD4_SET[1]):
        lo &= ~_WD4_SET[0]
        hi &= ~_WD4_SET[1]
    return lo, hi


@_inline
def _set(mask: U8Array, lst: I64Array, i: int):
    """Mark action ``i`` legal: in the mask, and once in the list (``lst[0]`` counts)."""
    if not mask[i]:
        mask[i] = 1
        lst[0] += 1
        lst[lst[0]] = i


@_inline
def _targets_seven(s: I32Array, R: I64Array, seat: int, card: int):
    """N1: a Seven played by ``seat`` names the seat it swaps hands with."""
    return C_FACE[card] == F_SEVEN and R[R_SEVEN_ZERO] and s[HLEN + seat] > 1


@_inline
def _needs_call(s: I32Array, R: I64Array, seat: int, card: int):
    """U1: ``card``'s plays come with an Uno variant (the play leaves ``seat`` one card)."""
    if not R[R_UNO_CALLS]:
        return False
    face = C_FACE[card]
    if face == F_DISCARD_ALL or (face == F_ZERO and R[R_SEVEN_ZERO]):
        return _size_after(s, R, seat, card) == 1
    return s[HLEN + seat] == 2


#: Per card kind: the faces whose plays depend on more than the hand's size (a Seven's
#: targets, the sizes after a Zero or a Discard All), and the plays of the others
#: (4 colours for a wild but the Roulette, else 1) before any Uno variant.
_SPECIAL_PLAYS = np.isin(C_FACE, (F_SEVEN, F_ZERO, F_DISCARD_ALL)).astype(np.int64)
_BASE_PLAYS = np.where(C_WILD.astype(np.bool_) & np.not_equal(C_FACE, F_ROULETTE), 4, 1).astype(np.int64)


@_inline
def _variant_count(s: I32Array, R: I64Array, seat: int, card: int):
    """How many plays ``card`` has for ``seat``: colours, Seven targets, Uno variants."""
    if not _SPECIAL_PLAYS[card]:  # one table read for most cards, no branch on the face
        if R[R_UNO_CALLS] and s[HLEN + seat] == 2:
            return 2 * _BASE_PLAYS[card]
        return _BASE_PLAYS[card]
    if _targets_seven(s, R, seat, card):
        count = 0
        for t in range(s[PLAYERS]):
            if t != seat and s[ACTIVE + t]:
                count += 1
                if R[R_UNO_CALLS] and s[HLEN + t] == 1:
                    count += 1
        return count
    plays = 4 if C_WILD[card] and C_FACE[card] != F_ROULETTE else 1
    return plays * 2 if _needs_call(s, R, seat, card) else plays


@_inline
def _variant_at(s: I32Array, R: I64Array, seat: int, card: int, j: int):
    """The action index of play ``j`` (0 <= j < :func:`_variant_count`) of ``card``: the
    targets (or colours) in order, each followed by its Uno variant where there is one."""
    if _targets_seven(s, R, seat, card):
        n = s[PLAYERS]
        for t in range(n):
            if t != seat and s[ACTIVE + t]:
                if j == 0:
                    return PLAY_INDEX[card, 0, _wrap(t - seat, n)]
                j -= 1
                if R[R_UNO_CALLS] and s[HLEN + t] == 1:
                    if j == 0:
                        return PLAY_INDEX[card, 1, _wrap(t - seat, n)]
                    j -= 1
        return -1
    if C_WILD[card] and C_FACE[card] != F_ROULETTE:
        if _needs_call(s, R, seat, card):
            return PLAY_INDEX[card, j & 1, j >> 1]
        return PLAY_INDEX[card, 0, j]
    return PLAY_INDEX[card, j, 0]


@_inline
def _rest_count(s, R, decision, cards):
    """How many actions the deciding seat has besides its plays (``cards``: how many
    distinct cards it may play), out-of-turn ones included."""
    if decision == D_PLAY:
        count = 1 if cards == 0 or R[R_DRAW_WHEN_PLAYABLE] else 0
    elif decision == D_STACK:
        count = 1
    elif decision == D_PLAY_DRAWN:
        count = 0 if R[R_MUST_PLAY_DRAWN] else 1
    elif decision == D_CHALLENGE:
        count = 2
    else:
        count = 4
    return count + s[UO_LEN]


@_inline
def _rest_at(s, R, cur, decision, cards, j):
    """Action ``j`` (0 <= j < :func:`_rest_count`) of the deciding seat ``cur`` besides its plays."""
    if decision == D_PLAY:
        if cards == 0 or R[R_DRAW_WHEN_PLAYABLE]:
            if j == 0:
                return A_DRAW
            j -= 1
    elif decision == D_STACK:
        if j == 0:
            return A_TAKE
        j -= 1
    elif decision == D_PLAY_DRAWN:
        if not R[R_MUST_PLAY_DRAWN]:
            if j == 0:
                return A_PASS
            j -= 1
    elif decision == D_CHALLENGE:
        if j < 2:
            return A_CHALLENGE if j == 0 else A_TAKE
        j -= 2
    else:
        if j < 4:
            return A_COLOR0 + j
        j -= 4
    x = s[UO + j]  # U2, U3: in the order the seats were opened to a catch
    return A_UNO_CALL if x == cur else A_CATCH0 + _wrap(x - cur, s[PLAYERS])


@_inline
def _out_of_turn(s: I32Array, seat: int, mask: U8Array, lst: I64Array):
    n = s[PLAYERS]
    if seat < 0 or seat >= n or not s[ACTIVE + seat]:
        return
    for i in range(s[UO_LEN]):
        x = s[UO + i]
        if x == seat:
            _set(mask, lst, A_UNO_CALL)
        else:
            _set(mask, lst, A_CATCH0 + _wrap(x - seat, n))


@_kernel
def legal(s: I32Array, R: I64Array, seat: int, mask: U8Array, lst: I64Array):
    """``GameState.legal_actions(seat)`` (``seat`` -1: the deciding seat) into ``mask``,
    which must be all zeros, and the list ``lst`` (``lst[0]``: how many, then the action
    indices in the order above). Returns how many actions are legal."""
    lst[0] = 0
    cur = s[CURRENT]
    if cur < 0:
        return 0
    if seat >= 0 and seat != cur:
        _out_of_turn(s, seat, mask, lst)
        return lst[0]
    decision = s[DECISION]
    cards = 0
    if decision == D_PLAY or decision == D_STACK:  # noqa: SIM109 - no tuple in the hot loop
        lo, hi = _play_set(s, R, cur, decision == D_STACK)
        for w in range(2):
            word = lo if w == 0 else hi
            while word:
                card = 64 * w + _lowest(word)
                word &= word - np.uint64(1)
                cards += 1
                for j in range(_variant_count(s, R, cur, card)):
                    _set(mask, lst, _variant_at(s, R, cur, card, j))
    elif decision == D_PLAY_DRAWN:
        card = s[DRAWN]
        cards = 1
        for j in range(_variant_count(s, R, cur, card)):
            _set(mask, lst, _variant_at(s, R, cur, card, j))
    for j in range(_rest_count(s, R, decision, cards)):
        _set(mask, lst, _rest_at(s, R, cur, decision, cards, j))
    return lst[0]


@_kernel
def legal_mask(s: I32Array, R: I64Array, seat: int, mask: U8Array, lst: I64Array):
    """``GameState.legal_actions(seat)`` as a mask over the action table (``seat`` -1: the
    deciding seat), ``lst`` as for :func:`legal`. Returns how many actions are legal."""
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    return legal(s, R, seat, mask, lst)


@_inline
def _plain_calls(s: I32Array, R: I64Array, seat: int):
    """U1: a plain card's plays come with an Uno variant (the play leaves ``seat`` one card)."""
    return R[R_UNO_CALLS] and s[HLEN + seat] == 2


@_inline
def _plays_into(s: I32Array, R: I64Array, seat: int, card: int, lst: I64Array, n: int, plain_calls: int):
    """Write ``card``'s plays for ``seat`` after ``lst[n]``, in :func:`_variant_at`'s order
    (the targets or colours, each followed by its Uno variant where there is one); returns
    the new length. Most cards cost one table read to learn they are plain; whether a plain
    card's plays come with an Uno variant, ``plain_calls``, is the same for every card of a
    decision (:func:`_plain_calls`)."""
    if _SPECIAL_PLAYS[card]:
        if _targets_seven(s, R, seat, card):
            m = s[PLAYERS]
            for t in range(m):
                if t != seat and s[ACTIVE + t]:
                    n += 1
                    lst[n] = PLAY_INDEX[card, 0, _wrap(t - seat, m)]
                    if R[R_UNO_CALLS] and s[HLEN + t] == 1:
                        n += 1
                        lst[n] = PLAY_INDEX[card, 1, _wrap(t - seat, m)]
            return n
        calls = _needs_call(s, R, seat, card)
    else:
        calls = plain_calls
    for c in range(_BASE_PLAYS[card]):  # 4 colours for a wild but the Roulette, else 1
        n += 1
        lst[n] = PLAY_INDEX[card, 0, c]
        if calls:
            n += 1
            lst[n] = PLAY_INDEX[card, 1, c]
    return n


@_inline
def legal_list(s: I32Array, R: I64Array, lst: I64Array):
    """The deciding seat's legal actions listed in one pass over its playable kinds, in
    :func:`legal`'s order, into ``lst[1:count + 1]`` (``lst[0]``: the count, 0 when the
    round is over), with no mask to clear or test: a uniform pick is then
    ``lst[1 + below(count)]``. Returns the count."""
    lst[0] = 0
    cur = s[CURRENT]
    if cur < 0:
        return 0
    decision = s[DECISION]
    cards = 0
    n = 0
    if decision == D_PLAY or decision == D_STACK:  # noqa: SIM109 - no tuple in the hot loop
        lo, hi = _play_set(s, R, cur, decision == D_STACK)
        plain = _plain_calls(s, R, cur)
        for w in range(2):
            word = lo if w == 0 else hi
            while word:
                card = 64 * w + _lowest(word)
                word &= word - np.uint64(1)
                cards += 1
                n = _plays_into(s, R, cur, card, lst, n, plain)
    elif decision == D_PLAY_DRAWN:
        cards = 1
        n = _plays_into(s, R, cur, s[DRAWN], lst, n, _plain_calls(s, R, cur))
    for j in range(_rest_count(s, R, decision, cards)):
        n += 1
        lst[n] = _rest_at(s, R, cur, decision, cards, j)
    lst[0] = n
    return n


# -- applying -----------------------------------------------------------------------------------------


@_kernel
def _finish(s: I32Array, R: I64Array, winner: int, reason: int):
    """E3: count the round's points and end it."""
    n = s[PLAYERS]
    won = 0
    for seat in range(n):
        s[POINTS + seat] = s[BONUS + seat]
        if seat != winner and s[ACTIVE + seat]:
            h0 = _hand0(s, seat)
            for i in range(s[HLEN + seat]):
                won += C_POINTS[s[h0 + i]]
    if not R[R_KNOCKER]:
        won += KNOCKOUT_POINTS * s[KO_LEN]
    s[POINTS + winner] += won
    s[CURRENT] = -1
    s[DECISION] = D_OVER
    s[PENDING] = 0
    s[DRAWN] = -1
    s[UO_LEN] = 0
    s[WD4_COLOR] = -1  # W6: a Wild Draw 4 that ended the round is past challenging
    s[WD4_CARDS] = 0
    s[WD4_GUILTY] = 0
    s[WINNER] = winner
    s[REASON] = reason
    s[OUT_KO_LEN] = s[KO_LEN]


@_kernel
def _reshuffle(s: I32Array):
    """T4: the discard pile under its top card, then the set-aside hands, shuffled into
    the draw pile. False when there is nothing to shuffle."""
    d0 = _disc0(s)
    dlen = s[DISC_LEN]
    alen = s[ASIDE_LEN]
    if dlen <= 1 and alen == 0:
        return False
    p0 = _pile0(s)
    plen = s[PILE_LEN]
    for i in range(dlen - 1):
        s[p0 + plen] = s[d0 + i]
        plen += 1
    a0 = _aside0(s)
    for i in range(alen):
        s[p0 + plen] = s[a0 + i]
        plen += 1
    s[d0] = s[d0 + dlen - 1]
    s[DISC_LEN] = 1
    s[BURIED] = 0
    s[ASIDE_LEN] = 0
    s[PILE_IN] += plen - s[PILE_LEN]
    s[PILE_LEN] = plen
    s[SHUFFLES] += 1
    shuffle_region(s, p0, plen, s[SHUFFLES])
    return True


@_kernel
def _draw_cards(s: I32Array, R: I64Array, seat: int, count: int, until: int, color: int):
    """``seat`` draws one card at a time (``engine._draw_cards``): returns the card the
    search stopped at (-1: none) and whether the Mercy limit was reached."""
    limit = R[R_MERCY]
    if s[UO_LEN] and _uo_has(s, seat):
        _uo_remove(s, seat)
    top_color = s[COLOR]
    top_face = C_FACE[top_card(s)]
    p0 = _pile0(s)
    h0 = _hand0(s, seat)
    found = -1
    knocked = False
    while count != 0:
        if s[PILE_LEN] == 0 and not _reshuffle(s):
            break
        s[PILE_LEN] -= 1
        card = s[p0 + s[PILE_LEN]]
        s[h0 + s[HLEN + seat]] = card
        s[HLEN + seat] += 1
        _set_kind(s, seat, card)
        count -= 1
        if limit and s[HLEN + seat] >= limit:
            knocked = True
            break
        if until == _UNTIL_PLAYABLE:
            if C_WILD[card]:
                ok = playable(s, R, card, seat)
            else:
                ok = C_COLOR[card] == top_color or C_FACE[card] == top_face
            if ok:
                found = card
                break
        elif until == _UNTIL_COLOR and C_COLOR[card] == color:
            found = card
            break
    return found, knocked


@_kernel
def _knock_out(s: I32Array, R: I64Array, seat: int, by: int):
    """M1-M4: out of the round; the hand is set aside (or under the discard pile)."""
    h0 = _hand0(s, seat)
    size = s[HLEN + seat]
    if not R[R_KO_BOTTOM]:
        a0 = _aside0(s)
        alen = s[ASIDE_LEN]
        for i in range(size):
            s[a0 + alen + i] = s[h0 + i]
        s[ASIDE_LEN] = alen + size
    else:
        d0 = _disc0(s)
        dlen = s[DISC_LEN]
        for i in range(dlen - 1, -1, -1):
            s[d0 + i + size] = s[d0 + i]
        for i in range(size):
            s[d0 + i] = s[h0 + i]
        s[DISC_LEN] = dlen + size
        s[BURIED] += size
    s[HLEN + seat] = 0
    _store_set(s, seat, np.uint64(0), np.uint64(0))
    s[ACTIVE + seat] = 0
    s[ACTIVE_COUNT] -= 1
    k = s[KO_LEN]
    s[KO_SEAT + k] = seat
    s[KO_BY + k] = by
    s[KO_LEN] = k + 1
    if _uo_has(s, seat):
        _uo_remove(s, seat)
    if by >= 0 and by != seat and R[R_KNOCKER]:
        s[BONUS + by] += KNOCKOUT_POINTS
    if s[ACTIVE_COUNT] == 1 and s[DECISION] != D_OVER:
        winner = 0
        while not s[ACTIVE + winner]:
            winner += 1
        _finish(s, R, winner, 1)


@_kernel
def _give(s: I32Array, R: I64Array, seat: int, count: int, by: int):
    _found, knocked = _draw_cards(s, R, seat, count, _UNTIL_COUNT, -1)
    if knocked:
        _knock_out(s, R, seat, by)
    return knocked


@_kernel
def _went_out(s: I32Array, R: I64Array, seat: int, card: int):
    s[CURRENT] = -1
    s[DECISION] = D_OVER
    if C_DRAW[card] and R[R_LAST_APPLY]:  # E2
        total = s[PENDING] + C_DRAW[card]
        if C_FACE[card] == F_WRD4:
            s[DIRECTION] = -s[DIRECTION]
        victim = next_seat(s, seat)
        s[PENDING] = 0
        _give(s, R, victim, total, seat)
    _finish(s, R, seat, 0)


@_inline
def effect(s: I32Array, R: I64Array, seat: int, card: int):
    """Apply the effect of ``card`` played by ``seat`` and pass the turn on."""
    face = C_FACE[card]
    value = C_DRAW[card]
    if value:
        if face == F_WRD4:  # W1, K6
            s[DIRECTION] = -s[DIRECTION]
            if s[ACTIVE_COUNT] == 2 and R[R_TPRD_SELF]:
                victim = seat
            else:
                victim = next_seat(s, seat)
        else:
            victim = next_seat(s, seat)
        if R[R_STACKING]:  # K1
            s[PENDING] += value
            s[LAST_VALUE] = value
            s[LAST_BY] = seat
            s[CURRENT] = victim
            s[DECISION] = D_STACK
        elif s[WD4_COLOR] >= 0:  # W6
            s[PENDING] = value
            s[LAST_VALUE] = value
            s[LAST_BY] = seat
            s[CURRENT] = victim
            s[DECISION] = D_CHALLENGE
        else:
            _give(s, R, victim, value, seat)
            if s[WINNER] < 0:
                _advance(s, next_seat(s, victim))
        return
    if face == F_SKIP:
        victim = next_seat(s, seat)
        _advance(s, next_seat(s, victim))
    elif face == F_REVERSE:
        s[DIRECTION] = -s[DIRECTION]
        if s[ACTIVE_COUNT] == 2 and R[R_TPR_SELF]:
            _advance(s, seat)
        else:
            _advance(s, next_seat(s, seat))
    elif face == F_SKIP_EVERYONE:
        _advance(s, seat)
    elif face == F_ROULETTE:
        s[ROULETTE_BY] = seat
        s[CURRENT] = next_seat(s, seat)
        s[DECISION] = D_ROULETTE
    else:
        _advance(s, next_seat(s, seat))


@_kernel
def _swap_hands(s: I32Array, a: int, b: int):
    ha = _hand0(s, a)
    hb = _hand0(s, b)
    la = s[HLEN + a]
    lb = s[HLEN + b]
    for i in range(max(la, lb)):
        x = s[ha + i]
        s[ha + i] = s[hb + i]
        s[hb + i] = x
    s[HLEN + a] = lb
    s[HLEN + b] = la
    for w in range(4):
        x = s[HSET + 4 * a + w]
        s[HSET + 4 * a + w] = s[HSET + 4 * b + w]
        s[HSET + 4 * b + w] = x


@_kernel
def _copy_hand(s: I32Array, src: int, dst: int):
    hs = _hand0(s, src)
    hd = _hand0(s, dst)
    for i in range(s[HLEN + src]):
        s[hd + i] = s[hs + i]
    s[HLEN + dst] = s[HLEN + src]
    for w in range(4):
        s[HSET + 4 * dst + w] = s[HSET + 4 * src + w]


@_inline
def _play(s: I32Array, R: I64Array, seat: int, card: int, color: int, target: int, uno: int):
    """Apply a checked play whose card has left the hand already (``engine._play``)."""
    d0 = _disc0(s)
    s[d0 + s[DISC_LEN]] = card
    s[DISC_LEN] += 1
    s[DRAWN] = -1
    face = C_FACE[card]
    h0 = _hand0(s, seat)
    if face == F_WD4 and R[R_WD4_CHALLENGE]:  # W6
        s[WD4_COLOR] = s[COLOR]
        s[WD4_CARDS] = s[HLEN + seat]
        guilty = 0  # judged now, on the hand as played (the card has left it)
        for i in range(s[HLEN + seat]):
            if C_COLOR[s[h0 + i]] == s[COLOR]:
                guilty = 1
                break
        s[WD4_GUILTY] = guilty
    if C_WILD[card]:
        if color >= 0:
            s[COLOR] = color
    else:
        s[COLOR] = C_COLOR[card]
    if face == F_DISCARD_ALL:  # A5: the rest of its color goes under it
        own = C_COLOR[card]
        size = s[HLEN + seat]
        keep = 0
        gone = 0
        dlen = s[DISC_LEN] - 1  # the Discard All on top moves up past the cards gone
        for i in range(size):
            c = s[h0 + i]
            if C_COLOR[c] == own:
                s[d0 + dlen + gone] = c
                gone += 1
            else:
                s[h0 + keep] = c
                keep += 1
        s[d0 + dlen + gone] = card
        s[DISC_LEN] = dlen + gone + 1
        s[HLEN + seat] = keep
        rebuild_set(s, seat)
    if s[HLEN + seat] == 0:  # E1
        _went_out(s, R, seat, card)
        return
    swapped = -1  # N1: the seat handed this one's hand
    passed = False  # N2: every other active seat was handed a hand
    if R[R_SEVEN_ZERO]:
        if face == F_SEVEN:  # N1
            _swap_hands(s, seat, target)
            swapped = target
        elif face == F_ZERO:  # N2: each hand passes to the next seat in the direction of play
            tmp = HANDS + (MAX_PLAYERS + 3) * s[DECK]
            last = previous_seat(s, seat)
            l0 = _hand0(s, last)
            size = s[HLEN + last]
            for i in range(size):
                s[tmp + i] = s[l0 + i]
            set_lo, set_hi = _hand_set(s, last)
            x = last
            while x != seat:
                p = previous_seat(s, x)
                _copy_hand(s, p, x)
                x = p
            h0 = _hand0(s, seat)
            for i in range(size):
                s[h0 + i] = s[tmp + i]
            s[HLEN + seat] = size
            _store_set(s, seat, set_lo, set_hi)
            passed = True
    if R[R_UNO_CALLS]:  # U1
        if s[HLEN + seat] == 1 and not uno:
            s[UO] = seat
            s[UO_LEN] = 1
        if R[R_HOLDING_ONE]:  # a hand of one received, in the order handed
            if swapped >= 0 and s[HLEN + swapped] == 1:
                s[UO + s[UO_LEN]] = swapped
                s[UO_LEN] += 1
            elif passed:
                x = next_seat(s, seat)
                while x != seat:
                    if s[HLEN + x] == 1:
                        s[UO + s[UO_LEN]] = x
                        s[UO_LEN] += 1
                    x = next_seat(s, x)
    if C_NUMBER[card]:
        _advance(s, next_seat(s, seat))
    else:
        effect(s, R, seat, card)


@_inline
def _draw(s: I32Array, R: I64Array, seat: int):
    """T2/T4: draw until playable (or one card)."""
    count = 1 if R[R_DRAW_ONE] else -1
    found, knocked = _draw_cards(s, R, seat, count, _UNTIL_PLAYABLE, -1)
    if knocked:
        _knock_out(s, R, seat, -1)
        if s[WINNER] < 0:
            _advance(s, next_seat(s, seat))
        return
    if found < 0:
        _advance(s, next_seat(s, seat))
        return
    s[DRAWN] = found
    s[DECISION] = D_PLAY_DRAWN
    if R[R_AT_ONCE] and R[R_MUST_PLAY_DRAWN] and _variant_count(s, R, seat, found) == 1:  # a forced play
        target = -1
        if C_FACE[found] == F_SEVEN and R[R_SEVEN_ZERO] and s[HLEN + seat] > 1:
            target = next_seat(s, seat)  # the only other active seat
            for t in range(s[PLAYERS]):
                if t != seat and s[ACTIVE + t]:
                    target = t
                    break
        s[HLEN + seat] -= 1  # the card found is the last one drawn
        _left_hand(s, seat, found)
        _play(s, R, seat, found, -1, target, False)


@_inline
def _take(s: I32Array, R: I64Array, seat: int):
    total = s[PENDING]
    by = s[LAST_BY]
    s[PENDING] = 0
    s[LAST_VALUE] = 0
    s[LAST_BY] = -1
    s[WD4_COLOR] = -1
    s[WD4_CARDS] = 0
    s[WD4_GUILTY] = 0
    _give(s, R, seat, total, by)
    if s[WINNER] < 0:
        _advance(s, next_seat(s, seat))


@_kernel
def _challenge(s: I32Array, R: I64Array, seat: int):
    by = s[LAST_BY]
    guilty = s[WD4_GUILTY] != 0  # W6: fixed when the card was played
    total = s[PENDING]
    s[PENDING] = 0
    s[LAST_VALUE] = 0
    s[LAST_BY] = -1
    s[WD4_COLOR] = -1
    s[WD4_CARDS] = 0
    s[WD4_GUILTY] = 0
    if guilty:
        if s[ACTIVE + by]:  # a player knocked out since draws nothing: the 4 are void
            _give(s, R, by, total, seat)
        if s[WINNER] < 0:
            _advance(s, seat)
    else:
        _give(s, R, seat, total + 2, by)
        if s[WINNER] < 0:
            _advance(s, next_seat(s, seat))


@_kernel
def _roulette(s: I32Array, R: I64Array, seat: int, color: int):
    start = s[HLEN + seat]
    _found, knocked = _draw_cards(s, R, seat, -1, _UNTIL_COLOR, color)
    s[COLOR] = color
    if R[R_REVEALED]:
        h0 = _hand0(s, seat)
        for i in range(s[HLEN + seat] - 1, start - 1, -1):
            c = C_COLOR[s[h0 + i]]
            if c >= 0:
                s[COLOR] = c
                break
    by = s[ROULETTE_BY]
    s[ROULETTE_BY] = -1
    if knocked:
        _knock_out(s, R, seat, by)
    if s[WINNER] < 0:
        _advance(s, next_seat(s, seat))


@_kernel
def _catch(s: I32Array, R: I64Array, seat: int, target: int):
    _uo_remove(s, target)
    s[STEP] += 1
    knocked = _give(s, R, target, R[R_UNO_PENALTY], seat)
    if knocked and s[WINNER] < 0 and s[CURRENT] == target:
        s[PENDING] = 0
        s[LAST_VALUE] = 0
        s[DRAWN] = -1
        _advance(s, next_seat(s, target))


@_kernel
def apply_action(s: I32Array, R: I64Array, seat: int, action: int):
    """Apply a *legal* action (an index of the action table) by ``seat`` (-1: the
    deciding seat). The caller checks legality (``step`` does)."""
    cur = s[CURRENT]
    if seat < 0:
        seat = cur
    n = s[PLAYERS]
    kind = A_KIND[action]
    if kind == K_PLAY:
        card = A_CARD[action]
        off = A_OFF[action]
        target = _wrap(seat + off, n) if off > 0 else -1
        s[UO_LEN] = 0
        s[STEP] += 1
        h0 = _hand0(s, seat)
        size = s[HLEN + seat]
        hand = s[h0 : h0 + size]
        # The hand closes up over the card's first copy in one pass with no branch on the
        # cards: from that copy on, each place takes the card after it (a search, then a
        # shift, each ended where the card happened to lie, which no predictor foresees).
        found = 0
        more = 0  # another copy of the card stays in the hand (none comes before the first)
        for i in range(size - 1):
            found |= np.int64(hand[i] == card)  # type: ignore[assignment]
            c = hand[i + found]
            hand[i] = c
            more |= np.int64(c == card)  # type: ignore[assignment]  # c is no copy before the first
        s[HLEN + seat] = size - 1
        if not more:
            _clear_kind(s, seat, card)
        _play(s, R, seat, card, A_COLOR[action], target, A_UNO[action])
    elif kind == K_CATCH:
        _catch(s, R, seat, _wrap(seat + A_OFF[action], n))
    elif kind == K_UNO:
        _uo_remove(s, seat)
        s[STEP] += 1
    else:
        s[UO_LEN] = 0
        s[STEP] += 1
        if kind == K_DRAW:
            _draw(s, R, seat)
        elif kind == K_TAKE:
            _take(s, R, seat)
        elif kind == K_CHALLENGE:
            _challenge(s, R, seat)
        elif kind == K_PASS:
            s[DRAWN] = -1
            _advance(s, next_seat(s, seat))
        elif kind == K_COLOR:
            color = A_COLOR[action]
            if s[DECISION] == D_ROULETTE:
                _roulette(s, R, seat, color)
            else:
                s[COLOR] = color
                s[DECISION] = D_PLAY
                effect(s, R, s[DEALER], top_card(s))


#: :func:`apply_action` inlined, for the loops that apply every action of a game
#: (random play): one body, also compiled into the caller, without the call between
#: kernels that passes each array as seven arguments on every decision.
apply_inline = _inline(source(apply_action))


@_kernel
def step(s: I32Array, R: I64Array, seat: int, action: int, mask: U8Array, lst: I64Array):
    """Check ``action`` by ``seat`` (-1: the deciding seat) against the legal actions and
    apply it: 0 when applied, -1 when illegal (the table is left unchanged)."""
    if action < 0 or action >= NUM_ACTIONS or s[CURRENT] < 0:
        return -1
    legal_mask(s, R, seat, mask, lst)
    if not mask[action]:
        return -1
    apply_action(s, R, seat, action)
    return 0


# -- dealing ----------------------------------------------------------------------------------------


@_kernel
def deal(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    players: int,
    seed_lo: int,
    seed_hi: int,
    dealer: int,
    sitting: I64Array,
):
    """``engine.new_game``: shuffle 0 of the seed, the deal from the dealer's left, the
    first card (S1-S4). ``dealer`` -1 draws the dealer; ``sitting`` flags seats out."""
    _deal_start(s, deck, players, seed_lo, seed_hi)
    m0 = _mt0(s)
    mt_seed(s, m0, seed_lo, seed_hi, 0)
    _deal_rest(s, R, deck, players, dealer, sitting, s[m0 : m0 + MT_WORDS])


@_kernel
def deal_seeded(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    players: int,
    seed_lo: int,
    seed_hi: int,
    dealer: int,
    sitting: I64Array,
    mt: I32Array,
):
    """:func:`deal` with shuffle 0's generator seeded already: ``mt`` holds the 625 words
    :func:`mt_seed` leaves for this seed (:func:`mt_seed_lanes` seeds many at once). The
    shuffle draws from ``mt`` where it lies (and leaves it used): no later draw of the
    round reads shuffle 0's generator, so the table's generator region is not written."""
    _deal_start(s, deck, players, seed_lo, seed_hi)
    _deal_rest(s, R, deck, players, dealer, sitting, mt)


@_kernel
def deal_pooled(
    s: I32Array,
    R: I64Array,
    deck: I32Array,
    players: int,
    seed_lo: int,
    seed_hi: int,
    dealer: int,
    sitting: I64Array,
    pool: U32Array2,
    lane: int,
):
    """:func:`deal` with shuffle 0's generator twisted already in column ``lane`` of
    ``pool`` (:func:`mt_seed_lanes_twisted`): the shuffle and the dealer's draw read its
    words where they lie. The table's generator region is only scratch for a generator
    drawn past its first block (:func:`_lane_later`); ``MT_READY`` stays 0."""
    _deal_start(s, deck, players, seed_lo, seed_hi)
    m0 = _mt0(s)
    mt = s[m0 : m0 + MT_WORDS]
    p0 = _pile0(s)
    length = deck.shape[0]
    cards = s[p0 : p0 + length]
    at = np.int64(0)
    if length > 1:
        k = _bit_length(length)
        low = (np.int64(1) << (k - 1)) - 1  # i + 1 has k bits while i >= low
        i = np.int64(length - 1)
        while i > 0:  # as _shuffle's loop
            if i < low:
                k -= 1
                low >>= 1
            word = _lane_word(pool, lane, at, mt)
            at += 1
            i = _shuffle_step(cards, i, word >> (32 - k))
    if dealer < 0:
        k = _bit_length(players)
        while True:
            word = _lane_word(pool, lane, at, mt)
            at += 1
            dealer = word >> (32 - k)
            if dealer < players:
                break
    _deal_hands(s, R, deck, players, dealer, sitting)


@_inline
def _deal_start(s: I32Array, deck: I32Array, players: int, seed_lo: int, seed_hi: int):
    """A cleared table holding the seed and the unshuffled deck as its draw pile."""
    for i in range(HANDS):
        s[i] = 0
    size = deck.shape[0]
    s[DECK] = size
    s[PLAYERS] = players
    s[SEED_LO] = np.int32(np.int64(seed_lo) - (1 << 32) if seed_lo >= (1 << 31) else seed_lo)
    s[SEED_HI] = np.int32(np.int64(seed_hi) - (1 << 32) if seed_hi >= (1 << 31) else seed_hi)
    p0 = _pile0(s)
    for i in range(size):
        s[p0 + i] = deck[i]


@_inline
def _deal_rest(
    s: I32Array, R: I64Array, deck: I32Array, players: int, dealer: int, sitting: I64Array, mt: I32Array
):
    """The deal once shuffle 0's generator ``mt`` is seeded: shuffle, dealer, hands, first card."""
    p0 = _pile0(s)
    _shuffle(mt, s[p0 : p0 + deck.shape[0]])
    if dealer < 0:
        dealer = _below_block(mt, players)
    _deal_hands(s, R, deck, players, dealer, sitting)


@_inline
def _deal_hands(s: I32Array, R: I64Array, deck: I32Array, players: int, dealer: int, sitting: I64Array):
    """The deal once the draw pile is shuffled and the dealer drawn: hands, first card."""
    size = deck.shape[0]
    p0 = _pile0(s)
    while sitting[dealer]:
        dealer = (dealer + 1) % players
    out = 0
    for seat in range(players):
        s[SITTING + seat] = sitting[seat]
        s[ACTIVE + seat] = 0 if sitting[seat] else 1
        if sitting[seat]:
            out += 1
    plen = size
    hand = R[R_HAND_SIZE]
    for i in range(1, players + 1):
        seat = (dealer + i) % players
        if not sitting[seat]:
            h0 = _hand0(s, seat)
            for k in range(hand):
                s[h0 + k] = s[p0 + plen - hand + k]
            s[HLEN + seat] = hand
            rebuild_set(s, seat)
            plen -= hand
    d0 = _disc0(s)
    plen -= 1
    s[d0] = s[p0 + plen]
    s[DISC_LEN] = 1
    s[PILE_LEN] = plen
    s[DEALER] = dealer
    s[DIRECTION] = 1
    s[COLOR] = -1
    s[LAST_BY] = -1
    s[DRAWN] = -1
    s[ROULETTE_BY] = -1
    s[ACTIVE_COUNT] = players - out
    s[WINNER] = -1
    s[WD4_COLOR] = -1
    s[DECISION] = D_PLAY
    s[CURRENT] = next_seat(s, dealer)  # S4
    first = R[R_FIRST]
    if first == 0:  # S3: turn cards up until a number card
        while not C_NUMBER[top_card(s)] and s[PILE_LEN]:
            s[PILE_LEN] -= 1
            s[d0 + s[DISC_LEN]] = s[p0 + s[PILE_LEN]]
            s[DISC_LEN] += 1
    elif first == 2:  # S3 official: a Wild Draw 4 goes back into the deck
        while C_FACE[top_card(s)] == F_WD4 and s[PILE_LEN]:
            s[DISC_LEN] -= 1
            s[p0 + s[PILE_LEN]] = s[d0 + s[DISC_LEN]]
            s[PILE_LEN] += 1
            s[SHUFFLES] += 1
            shuffle_region(s, p0, s[PILE_LEN], s[SHUFFLES])
            s[PILE_LEN] -= 1
            s[d0 + s[DISC_LEN]] = s[p0 + s[PILE_LEN]]
            s[DISC_LEN] += 1
    top = top_card(s)
    s[COLOR] = C_COLOR[top]
    if first != 0 and not C_NUMBER[top]:
        if C_WILD[top] and C_FACE[top] != F_ROULETTE:
            s[DECISION] = D_CHOOSE_COLOR
        elif first == 2 and C_FACE[top] == F_REVERSE:
            s[DIRECTION] = -1
            s[CURRENT] = dealer
        else:
            effect(s, R, dealer, top)


# -- random play ------------------------------------------------------------------------------------


@_kernel
def _rand(state: U64Array):
    """xorshift64*: the random player's generator (not the game's: shuffles use MT19937).
    Returns 32 bits."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(32)


@_inline
def _below(state: U64Array, n: int):
    """A uniform integer in ``0..n-1`` (``0 < n < 2**32``), exactly: Lemire's multiply and
    shift, drawing again on the rare low products that would bias it (no division on the
    usual path)."""
    n = np.uint64(n)  # type: ignore[assignment]
    m = _rand(state) * n
    low = m & np.uint64(M32)
    if low < n:
        floor = (np.uint64(1 << 32) - n) % n
        while low < floor:
            m = _rand(state) * n
            low = m & np.uint64(M32)
    return np.int64(m >> np.uint64(32))


@_kernel
def random_play(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    seeds: I64Array,
    rng: U64Array,
    decisions: int,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
    pool: U32Array2,
):
    """Play ``decisions`` random legal actions of the deciding seats over the tables of
    ``S``: a table's round is played to its end, then dealt again with the next seed
    (``seeds[0]``, counted up), and play moves on to the next table. (Whole rounds keep a
    table's few kilobytes in the first-level cache; moving to another table after every
    decision made most decisions wait on memory.) Each action is uniform over the
    deciding seat's legal actions, as ``rng.choice(state.legal_actions())`` is:
    :func:`legal_list` lists them in one pass (the same actions in the same order as
    :func:`legal`, with no mask) and one exactly uniform draw (:func:`_below`) picks one.
    New rounds' shuffle 0 generators are seeded and twisted side by side
    (:func:`mt_seed_lanes_twisted`, ``pool`` its scratch, as many rounds as ``pool`` has
    columns) and dealt from where they lie (:func:`deal_pooled`); a
    reshuffle's generator is seeded only when a round reshuffles (:func:`shuffle_region`):
    most rounds never do (1.9% of the ``rlcard`` preset's). ``lst`` has room for every
    action, ``sitting`` is all zeros; ``mask`` is not used (left all zeros). Returns the rounds finished."""
    tables = S.shape[0]
    games = 0
    t = 0
    s = S[0]
    lanes = pool.shape[1]
    seeded = lanes  # the pool's rounds dealt so far: none seeded yet
    for _ in range(decisions):
        count = legal_list(s, R, lst)
        apply_inline(s, R, -1, lst[1 + _below(rng, count)])
        if s[CURRENT] < 0:
            games += 1
            if seeded == lanes:
                first = seeds[0]
                for q in range(lanes):
                    lane_key(pool, q, first + q, 0)
                mt_seed_lanes_twisted(pool, lanes)
                seeded = 0
            seed = seeds[0]
            seeds[0] += 1
            deal_pooled(s, R, deck, players, seed & M32, (seed >> 32) & M32, -1, sitting, pool, seeded)
            seeded += 1
            t += 1
            if t == tables:
                t = 0
            s = S[t]
    return games
