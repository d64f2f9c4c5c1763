"""Tuned weights for the heuristic's scores: the ``expert``'s playout policy.

The heuristic (:mod:`nomercy.bots.heuristic`, natively :mod:`nomercy.native.heuristic`)
scores every legal action with hand-set constants: what stacking is worth against
taking, how much a wild is worth keeping, and so on (``WEIGHTS`` names all 34). The
rules of its scores are sound, but the constants were set by hand. This module tunes
them by self-play, natively, and keeps the result as ``TUNED_WEIGHTS``:

* :func:`duel_wins` plays the same deals with one set of weights in each seat in turn
  (a duplicate match: every deal is played once with each side in each seat, so the
  cards' luck cancels) and counts the first set's wins;
* :func:`tune` runs SPSA (simultaneous perturbation stochastic approximation, Spall
  1992) on the weights' logarithms: each step plays the weights nudged up in a random
  half of the entries and down in the rest against the opposite nudge, and moves them
  towards the side that won more. Two duels a step, however many weights there are.

The expert's playouts use the tuned weights (``policy="tuned"``, the default with native
playouts): a playout is only as good an estimate as the play in it, so a stronger
policy in the playouts gives a stronger search. The heuristic bot and the expert's
choice of candidates keep the reference's weights.
``benchmarks/tune_policy.py`` reproduces ``TUNED_WEIGHTS`` and measures them.
"""

# The kernels are unannotated, as in kernels.py: the translator infers their types from the arrays
# passed in (pyproject.toml's mypy override for this module says so). The Python API below
# them is typed.

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.native.batch import Batch
from nomercy.native.cdecl import F64Array, I32Array, I32Array2, I64Array, U8Array
from nomercy.native.heuristic import BASE_WEIGHTS, WEIGHT_NAMES, WEIGHTS, weighted_choose
from nomercy.native.kernels import M32, _kernel, apply_action, deal
from nomercy.native.layout import CURRENT, WINNER
from nomercy.native.weights import TUNED
from nomercy.rules import Rules

__all__ = ["BASE_WEIGHTS", "TUNED_WEIGHTS", "WEIGHT_NAMES", "duel_wins", "tune", "weights_table"]

#: The weights of the expert's playouts (read-only).
TUNED_WEIGHTS: Final = np.array(TUNED, np.float64)
TUNED_WEIGHTS.flags.writeable = False


@_kernel
def _duel(
    S: I32Array2,
    R: I64Array,
    deck: I32Array,
    players: int,
    seeds: I64Array,
    P0: F64Array,
    P1: F64Array,
    max_steps: int,
    mask: U8Array,
    lst: I64Array,
    sitting: I64Array,
    wins: I64Array,
):
    """Deal ``seeds[k]`` once for every seat ``c`` and play it to the end with the
    weights ``P0`` in seat ``c`` and ``P1`` in the others; ``wins[k]`` counts the deals
    that ``P0``'s seat won. Nobody reacts out of turn (the heuristic always calls Uno).
    Returns -1, or the first ``k`` whose game ran past ``max_steps`` turns."""
    s = S[0]
    for k in range(seeds.shape[0]):
        wins[k] = 0
        seed = seeds[k]
        for c in range(players):
            deal(s, R, deck, players, seed & M32, (seed >> 32) & M32, -1, sitting)
            steps = 0
            while s[CURRENT] >= 0:
                if steps >= max_steps:
                    return k
                actor = s[CURRENT]
                a = weighted_choose(s, R, actor, deck, mask, lst, P0 if actor == c else P1)
                apply_action(s, R, actor, a)
                steps += 1
            if s[WINNER] == c:
                wins[k] += 1
    return -1


def _weights(values: Sequence[float] | npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out = np.array(values, np.float64)
    if out.shape != (len(WEIGHTS),) or not np.all(np.isfinite(out)):
        raise ValueError(f"weights are {len(WEIGHTS)} finite numbers, in the order of WEIGHT_NAMES")
    return out


def duel_wins(
    rules: Rules,
    players: int,
    first: Sequence[float] | npt.NDArray[np.float64],
    second: Sequence[float] | npt.NDArray[np.float64],
    seeds: Sequence[int] | npt.NDArray[np.int64],
    max_steps: int = 100_000,
) -> tuple[int, int]:
    """``(wins, games)``: every seed dealt once per seat, the weights ``first`` in that
    seat and ``second`` in the others; the deals ``first`` won of ``players * len(seeds)``."""
    batch = Batch(rules, 1, players)
    seeds = np.asarray(seeds, np.int64)
    if seeds.size and seeds.min() < 0:
        raise ValueError("native game seeds are whole numbers 0 <= seed < 2**63")
    wins = np.zeros(len(seeds), np.int64)
    batch._mask[:] = 0
    stuck = _duel(
        batch.tables,
        batch.encoded,
        batch.deck,
        players,
        seeds,
        _weights(first),
        _weights(second),
        max_steps,
        batch._mask,
        batch._list,
        batch._no_one,
        wins,
    )
    if stuck >= 0:
        raise RuntimeError(f"the game of seed {seeds[stuck]} did not end within {max_steps} steps")
    return int(wins.sum()), players * len(seeds)


def tune(
    rules: Rules,
    players: int = 2,
    iterations: int = 400,
    games: int = 4000,
    seed: int = 1,
    start: Sequence[float] | npt.NDArray[np.float64] = BASE_WEIGHTS,
    gain: float = 40.0,
    progress: Callable[[int, float, npt.NDArray[np.float64]], None] | None = None,
) -> npt.NDArray[np.float64]:
    """SPSA on the logarithms of the weights, from ``start``; the tuned weights.

    Step ``k`` plays ``games`` games (``games // players`` deals, each once per seat) of
    the weights ``start * exp(theta + c_k * delta)`` against ``start * exp(theta - c_k *
    delta)``, ``delta`` random signs, and moves ``theta`` by ``a_k * (2 * win rate - 1) /
    (2 * c_k) * delta``, with Spall's gains ``a_k = gain / (k + 11) ** 0.602`` and ``c_k =
    0.2 / (k + 1) ** 0.101``. Reproducible: the deals and signs come from ``seed``.
    ``progress(k, win_rate, weights)`` is called after every step.
    """
    if iterations < 1 or games < players:
        raise ValueError("tune at least one step of at least one deal")
    base = _weights(start)
    rng = np.random.default_rng(seed)
    theta = np.zeros(len(base))
    deals = max(1, games // players)
    for k in range(iterations):
        a_k = gain / (k + 11) ** 0.602
        c_k = 0.2 / (k + 1) ** 0.101
        delta = rng.choice(np.array([-1.0, 1.0]), len(base))
        seeds = rng.integers(0, 2**62, deals, dtype=np.int64)
        wins, played = duel_wins(
            rules, players, base * np.exp(theta + c_k * delta), base * np.exp(theta - c_k * delta), seeds
        )
        rate = wins / played
        theta += a_k * (2.0 * rate - 1.0) / (2.0 * c_k) * delta
        if progress is not None:
            progress(k, rate, base * np.exp(theta))
    return np.asarray(base * np.exp(theta), np.float64)


def weights_table(weights: Sequence[float] | npt.NDArray[np.float64]) -> list[tuple[str, float, float]]:
    """``(name, reference value, value)`` for every weight, for printing."""
    values = _weights(weights)
    return [(name, float(BASE_WEIGHTS[i]), float(values[i])) for i, name in enumerate(WEIGHT_NAMES)]
