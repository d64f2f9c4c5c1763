"""The native engine against the reference, at any size: not a timing, a proof run.

    .venv/bin/python benchmarks/differential.py --decisions 1000000 [--jobs 2]

Plays random games side by side in ``nomercy.engine`` and ``nomercy.native`` (the same
check as ``tests/native/test_differential.py``: after every action the converted native
table equals the reference state, and every seat's legal actions are the same set;
positions are reloaded into the table and determinized along the way), cycling through
every house-rule mix of ``nomercy.testing.BASE_MIXES`` (those the native engine plays)
plus the ``rlcard`` preset and 2 to 6 players, until ``--decisions`` decisions were
compared. Exits 1 at the first mismatch, printing where; prints the counts and the command
otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from nomercy import Rules
from nomercy.testing import BASE_MIXES

MIXES = {**BASE_MIXES, "rlcard": Rules.preset("rlcard")}
CASES = [
    (name, players)
    for name, rules in MIXES.items()
    for players in range(2, 7)
    if players * rules.hand_size + 1 <= sum(n for _, n in rules.deck)
]
#: Games per case in one work unit.
CHUNK = 8


def _unit(job: int, jobs: int, decisions: int, first_seed: int) -> tuple[int, int, int, int]:
    from nomercy.native.check import Tally, check_games

    tally = Tally()
    round_ = 0
    while tally.decisions < decisions:
        for name, players in CASES:
            start = first_seed + (round_ * jobs + job) * CHUNK
            check_games(MIXES[name], players, range(start, start + CHUNK), tally=tally)
        round_ += 1
    return tally.games, tally.decisions, tally.reloads, tally.determinized


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    args = parser.parse_args()
    start = time.perf_counter()
    share = -(-args.decisions // args.jobs)
    try:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(
                pool.map(
                    _unit,
                    range(args.jobs),
                    [args.jobs] * args.jobs,
                    [share] * args.jobs,
                    [args.seed] * args.jobs,
                )
            )
    except AssertionError as exc:
        print(f"MISMATCH: {exc}")
        return 1
    games, decisions, reloads, determinized = (sum(r[i] for r in results) for i in range(4))
    elapsed = time.perf_counter() - start
    print(
        f"native == reference: {decisions:,} decisions in {games:,} games "
        f"({len(CASES)} rule mixes x player counts; {reloads:,} positions reloaded, "
        f"{determinized:,} determinized), no difference, {elapsed:.0f} s"
    )
    print("command: .venv/bin/python benchmarks/differential.py " + " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
