"""One learner seat against native opponents over a batch of tables, compiled: the loop of
:class:`nomercy.rl.single.SingleAgentGame` (learner acts, opponents play until the
learner decides again or its round ends, a finished round dealt again at once) run over
every row of a ``(tables, width)`` batch in one call.

**Opponents.** Each seat has an opponent kind (``kinds[seat]``) and :func:`choose` is the
one place that maps a kind to its kernel. A kernel has the signature
``choose(s, R, seat, mask, lst, rng) -> action index`` (``mask`` all zeros on entry and on
return, ``lst`` scratch for ``kernels.legal``, ``rng`` the row's generator words, slot 0
the opponents' own); :func:`random_choose` is kind :data:`RANDOM`, a uniformly random
legal action as ``RandomBot`` picks one. Another kernel (a heuristic) is one more kind
and one more branch in :func:`choose`.

**Generators.** ``rng[row]`` holds three uint64 words: 0 the opponents' xorshift64*
(``kernels._rand``), 1 the splitmix64 stream of the row's deal seeds, 2 the user's
:func:`sample` draws (so sampling never changes the opponents' or the deals' streams).

**Log.** ``log[row]`` (when it has columns) records what the last call did to the row, in
order: ``seat * NUM_ACTIONS + action`` for every action applied, and ``-(seed + 1)`` for
every deal, so a test can replay the call on the Python engine; ``logn[row]`` counts the
entries (past the columns, the count goes on and entries are dropped).
"""

# Unannotated numba kernels, as in kernels.py (pyproject.toml's mypy override says so).

from __future__ import annotations

import numpy as np
from numba import njit

from nomercy.native.encode import mask, observe
from nomercy.native.kernels import _rand, apply_action, deal, legal
from nomercy.native.layout import ACTIVE, C_POINTS, CURRENT, DECK, HANDS, HLEN, NUM_ACTIONS, POINTS, WINNER

__all__ = ["MAX_REDEALS", "RANDOM", "choose", "random_choose", "reset", "sample", "step"]

#: Opponent kinds (``kinds[seat]``); the learner's own entry is not read.
RANDOM = 0
#: Deals tried for a round that reaches the learner's first decision (as SingleAgentGame).
MAX_REDEALS = 100
M32 = 0xFFFFFFFF

_kernel = njit(cache=True, _nrt=False)  # type: ignore[call-overload]


@_kernel
def _splitmix(rng, k):
    """splitmix64 over word ``k`` of ``rng``: the next 64-bit value of that stream."""
    z = rng[k] + np.uint64(0x9E3779B97F4A7C15)
    rng[k] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_kernel
def random_choose(s, R, seat, mask, lst, rng):
    """A uniformly random legal action of ``seat`` (the opponent kind :data:`RANDOM`)."""
    count = legal(s, R, seat, mask, lst)
    a = lst[1 + np.int64(_rand(rng) % np.uint64(count))]
    for i in range(1, count + 1):
        mask[lst[i]] = 0
    return a


@_kernel
def choose(kind, s, R, seat, mask, lst, rng):
    """The action of an opponent of kind ``kind`` at ``seat``: the one dispatch point.
    :data:`RANDOM` is the only kind so far (the Python side refuses others); a new kind is
    a branch here, ``if kind == HEURISTIC: return heuristic_choose(s, R, seat, mask, lst, rng)``."""
    return random_choose(s, R, seat, mask, lst, rng)


@_kernel
def _note(log, logn, row, value):
    n = logn[row]
    if n < log.shape[1]:
        log[row, n] = value
    logn[row] = n + 1


@_kernel
def _opponents(s, R, learner, kinds, mask, lst, rng, log, logn, row):
    """Let the opponents play until the learner decides, is knocked out, or the round ends."""
    while s[WINNER] < 0 and s[CURRENT] != learner and s[ACTIVE + learner]:
        seat = s[CURRENT]
        a = choose(kinds[seat], s, R, seat, mask, lst, rng)
        apply_action(s, R, seat, a)
        _note(log, logn, row, seat * NUM_ACTIONS + a)


@_kernel
def _deal(s, R, deck, players, learner, kinds, rng, mask, lst, sitting, log, logn, row):
    """Deal rounds from the row's seed stream until one reaches the learner's decision:
    0, or -1 after :data:`MAX_REDEALS` deals that did not."""
    for _ in range(MAX_REDEALS):
        seed = np.int64(_splitmix(rng, 1) >> np.uint64(1))
        deal(s, R, deck, players, seed & M32, (seed >> 32) & M32, -1, sitting)
        _note(log, logn, row, -(seed + 1))
        _opponents(s, R, learner, kinds, mask, lst, rng, log, logn, row)
        if s[WINNER] < 0 and s[ACTIVE + learner]:
            return 0
    return -1


@_kernel
def _reward(s, learner, points, knockout):
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
def _encode(s, R, learner, offsets, rl_of_native, obs, masks, legal_out, scratch, lst, row):
    observe(s, learner, offsets, obs[row])
    mask(s, R, learner, rl_of_native, masks[row], scratch, lst)
    for i in range(masks.shape[1]):
        legal_out[row, i] = masks[row, i]


@_kernel
def reset(
    S,
    R,
    deck,
    players,
    learner,
    kinds,
    rng,
    offsets,
    rl_of_native,
    obs,
    masks,
    legal_out,
    mask,
    lst,
    sitting,
    log,
    logn,
):
    """Deal every row (from its seed stream) and encode its learner's first decision.
    Returns 0, or -1 - row for a row where no deal reached the learner."""
    for row in range(S.shape[0]):
        logn[row] = 0
        s = S[row]
        r = rng[row]
        if _deal(s, R, deck, players, learner, kinds, r, mask, lst, sitting, log, logn, row) < 0:
            return -1 - row
        _encode(s, R, learner, offsets, rl_of_native, obs, masks, legal_out, mask, lst, row)
    return 0


@_kernel
def step(
    S,
    R,
    deck,
    players,
    learner,
    kinds,
    rng,
    actions,
    points,
    knockout,
    offsets,
    rl_of_native,
    obs,
    masks,
    legal_out,
    rewards,
    dones,
    final_obs,
    mask,
    lst,
    sitting,
    log,
    logn,
):
    """Apply ``actions[row]`` (a native index, checked legal by the caller) for the
    learner of every row, play the opponents, reset a row whose round ended for the
    learner (its last observation into ``final_obs``), and encode every row's next
    decision. Returns 0, or -1 - row where no new deal reached the learner."""
    for row in range(S.shape[0]):
        logn[row] = 0
        s = S[row]
        r = rng[row]
        a = actions[row]
        apply_action(s, R, learner, a)
        _note(log, logn, row, learner * NUM_ACTIONS + a)
        _opponents(s, R, learner, kinds, mask, lst, r, log, logn, row)
        if s[WINNER] >= 0 or not s[ACTIVE + learner]:
            dones[row] = True
            rewards[row] = _reward(s, learner, points, knockout)
            observe(s, learner, offsets, final_obs[row])
            if _deal(s, R, deck, players, learner, kinds, r, mask, lst, sitting, log, logn, row) < 0:
                return -1 - row
        else:
            dones[row] = False
            rewards[row] = 0.0
        _encode(s, R, learner, offsets, rl_of_native, obs, masks, legal_out, mask, lst, row)
    return 0


@_kernel
def sample(masks, rng, out):
    """A uniformly random legal action per row of ``masks`` (int8), from word 2 of the
    row's generator; -1 for a row with none."""
    for row in range(masks.shape[0]):
        count = 0
        for i in range(masks.shape[1]):
            count += masks[row, i] != 0
        if count == 0:
            out[row] = -1
            continue
        state = rng[row, 2:]
        k = np.int64(_rand(state) % np.uint64(count))
        for i in range(masks.shape[1]):
            if masks[row, i] != 0:
                if k == 0:
                    out[row] = i
                    break
                k -= 1
