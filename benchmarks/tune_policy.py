"""Tune the heuristic's score weights by self-play, natively; measure them against the reference.

    .venv/bin/python benchmarks/tune_policy.py                 # measure TUNED_WEIGHTS
    .venv/bin/python benchmarks/tune_policy.py --tune          # tune again (about 4 minutes)
    .venv/bin/python benchmarks/tune_policy.py --tune --from-tuned  # go on from TUNED_WEIGHTS

``--tune`` runs :func:`nomercy.native.policy.tune` with the arguments that made
``TUNED_WEIGHTS`` (``--iterations 300 --games 20000 --seed 1 --gain 40``) and prints the
weights to paste into ``src/nomercy/native/policy.py``. Every run then measures
``TUNED_WEIGHTS`` (or the freshly tuned weights) against the reference heuristic's in
duplicate duels on deals the tuning never saw (seeds from ``2**40``): 2 players, each
deal played with each side in each seat, and 4 players, one tuned seat against three
reference seats (fair share 25%), with 95% Wilson intervals and the games per second.
``--from-tuned`` tunes on from ``TUNED_WEIGHTS`` and also measures the result against
them on the same deals: whether more tuning of the same constants still gains.
The native kernels must be in numba's cache, or the first run compiles them.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np
import numpy.typing as npt

import nomercy
from nomercy.intervals import wilson
from nomercy.native.policy import BASE_WEIGHTS, TUNED_WEIGHTS, duel_wins, tune, weights_table
from nomercy.rules import Rules


def measure(
    weights: npt.NDArray[np.float64],
    deals_2p: int,
    deals_4p: int,
    against: npt.NDArray[np.float64] = BASE_WEIGHTS,
) -> None:
    for players, deals in ((2, deals_2p), (4, deals_4p)):
        seeds = np.arange(2**40, 2**40 + deals, dtype=np.int64)
        start = time.process_time()
        wins, games = duel_wins(Rules(), players, weights, against, seeds)
        cpu = time.process_time() - start
        lo, hi = wilson(wins, games)
        print(
            f"  {players} players: tuned seat won {wins}/{games} = {wins / games:.1%}"
            f"  95% CI {lo:.1%} - {hi:.1%}  (fair {1 / players:.0%}; {games / cpu:,.0f} games/s)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tune", action="store_true", help="tune the weights again first")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--games", type=int, default=20000, help="games per tuning step")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gain", type=float, default=40.0)
    parser.add_argument(
        "--from-tuned",
        action="store_true",
        help="with --tune: start from TUNED_WEIGHTS rather than the reference's, and measure "
        "the result against TUNED_WEIGHTS too (does more tuning still gain?)",
    )
    parser.add_argument(
        "--deals-2p", type=int, default=50000, help="2-player deals measured (two games each)"
    )
    parser.add_argument(
        "--deals-4p", type=int, default=25000, help="4-player deals measured (four games each)"
    )
    args = parser.parse_args(argv)
    if args.from_tuned and not args.tune:
        parser.error("--from-tuned says where --tune starts: give --tune too")
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    weights = np.array(TUNED_WEIGHTS)
    if args.tune:
        start = time.perf_counter()

        def progress(k: int, rate: float, current: npt.NDArray[np.float64]) -> None:
            if k % 50 == 0 or k == args.iterations - 1:
                seconds = time.perf_counter() - start
                print(f"  step {k:4d}: the nudged weights' duel {rate:.3f} ({seconds:.0f} s)")

        begin = TUNED_WEIGHTS if args.from_tuned else BASE_WEIGHTS
        weights = tune(
            Rules(), 2, args.iterations, args.games, args.seed, start=begin, gain=args.gain, progress=progress
        )
        print("tuned weights (WEIGHT_NAMES' order, three significant figures):")
        print("  (" + ", ".join(f"{float(f'{v:.3g}')!r}" for v in weights) + ")")
    print("weights: name, reference, tuned")
    for name, base, value in weights_table(weights):
        print(f"  {name:<20} {base:8.2f} {value:9.3f}")
    print("tuned against the reference (duplicate deals the tuning never saw):")
    measure(weights, args.deals_2p, args.deals_4p)
    if args.tune and args.from_tuned:
        print("tuned again against TUNED_WEIGHTS (the same deals):")
        measure(weights, args.deals_2p, args.deals_4p, against=TUNED_WEIGHTS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
