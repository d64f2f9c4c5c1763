"""Engine throughput: random-play decisions/s and games/s, and RLCard's UNO for comparison.

Every case plays whole games on one core with the loop a user would write::

    state = nomercy.new_game(players, rules, seed)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))

Dealing is inside the timed loop, so games/s is end to end; a decision is one applied
action (``state.step``: plays, draws, takes, colors named). Time is this process's CPU
time (``time.process_time``, ``--clock wall`` for wall time), so other processes on a
shared machine disturb the figures less. RLCard's UNO (when the
``bench`` extra is installed) is timed in the same run the way its documentation runs
it: ``rlcard.make("uno")``, one ``RandomAgent`` per seat, ``env.run()`` per game.
Cases are interleaved and repeated; each reports its best repeat, which is the least
disturbed by other processes. The header says which build of the core ran: the plain
sources (``.venv``) or the mypyc-compiled wheel (``.venv-compiled``, ``make compiled``).
See ``benchmarks/README.md``.

    make bench                     # both builds, one after the other
    .venv/bin/python benchmarks/engine.py [--seconds 2] [--repeat 3] [--clock cpu] [--json out.json]
    .venv-compiled/bin/python benchmarks/engine.py
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

# One core means one thread: keep numpy (used by RLCard) from starting BLAS threads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from machine import cpu_model, metadata  # noqa: E402  (benchmarks/machine.py)

import nomercy  # noqa: E402

#: Our cases: (preset, players).
CASES: list[tuple[str, int]] = [
    ("no_mercy", 2),
    ("no_mercy", 4),
    ("no_mercy", 6),
    ("classic", 2),
    ("rlcard", 2),
]
RLCARD = ("RLCard uno", 2)
TARGET_RATIO = 10.0  # 2p games/s over RLCard's env.run games/s ...
#: ... of classic played with RLCard's rule values (the like-for-like game).
TARGET_PRESET = "rlcard"
TARGET_DECISIONS = 150_000  # no_mercy 4p decisions/s
#: Which build of the core this process runs (make bench runs both).
BUILD = "compiled (mypyc)" if nomercy.cards.COMPILED else "pure Python"


@dataclass
class Result:
    case: str
    players: int
    games: int
    decisions: int
    seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds


# A runner plays whole games until ``seconds`` have passed: (games, decisions, elapsed).
Runner = Callable[[float], tuple[int, int, float]]
Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"cpu": time.process_time, "wall": time.perf_counter}


def nomercy_runner(preset: str, players: int, clock: Clock, seed: int = 0) -> Runner:
    """Random play of our engine; seeds continue across calls so no game repeats."""
    rules = nomercy.Rules.preset(preset)
    rng = random.Random(seed)
    new_game = nomercy.new_game
    next_seed = [seed]

    def run(seconds: float) -> tuple[int, int, float]:
        choice = rng.choice
        game_seed = next_seed[0]
        games = decisions = 0
        start = clock()
        deadline = start + seconds
        while True:
            state = new_game(players, rules, game_seed)
            while not state.is_over:
                state.apply(choice(state.legal_actions()))
            decisions += state.step
            games += 1
            game_seed += 1
            now = clock()
            if now >= deadline:
                break
        next_seed[0] = game_seed
        return games, decisions, now - start

    return run


def rlcard_runner(clock: Clock, seed: int = 0) -> Runner | None:
    """RLCard's UNO with random agents, run as its docs do; None if not installed."""
    try:
        import numpy as np
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    np.random.seed(seed)  # RandomAgent draws from numpy's global RNG
    env = rlcard.make("uno", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def run(seconds: float) -> tuple[int, int, float]:
        games = 0
        steps_before = env.timestep
        start = clock()
        deadline = start + seconds
        while True:
            env.run(is_training=False)
            games += 1
            now = clock()
            if now >= deadline:
                break
        return games, env.timestep - steps_before, now - start

    return run


def measure(seconds: float, repeat: int, warmup: float, clock: Clock) -> list[Result]:
    """Interleave the cases ``repeat`` times; keep each case's best repeat."""
    runners: list[tuple[str, int, Runner]] = [
        (preset, players, nomercy_runner(preset, players, clock)) for preset, players in CASES
    ]
    rl = rlcard_runner(clock)
    if rl is not None:
        runners.append((*RLCARD, rl))
    for _, _, run in runners:
        run(warmup)
    best: dict[tuple[str, int], Result] = {}
    for _ in range(repeat):
        for case, players, run in runners:
            games, decisions, elapsed = run(seconds)
            result = Result(case, players, games, decisions, elapsed)
            key = (case, players)
            if key not in best or result.games_per_s > best[key].games_per_s:
                best[key] = result
    return list(best.values())


def report(results: list[Result], command: str, clock_name: str) -> dict[str, object]:
    by = {(r.case, r.players): r for r in results}
    print(
        f"nomercy {nomercy.__version__} engine benchmark: random play, one core, "
        f"{clock_name} time, best of repeats"
    )
    print(f"Python {platform.python_version()} ({platform.python_implementation()}), {cpu_model()}")
    print(f"engine: {BUILD}")
    print()
    header = (
        f"{'case':<12} {'players':>7} {'games':>7} {'decisions':>10} {'dec/game':>8} "
        f"{'games/s':>9} {'decisions/s':>12}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.case:<12} {r.players:>7} {r.games:>7} {r.decisions:>10} {r.decisions / r.games:>8.1f} "
            f"{r.games_per_s:>9.0f} {r.decisions_per_s:>12,.0f}"
        )
    print()
    summary: dict[str, object] = {"build": BUILD}
    nm4 = by[("no_mercy", 4)].decisions_per_s
    summary["no_mercy_4p_decisions_per_s"] = round(nm4)
    mark = "ok" if nm4 >= TARGET_DECISIONS else "BELOW TARGET"
    print(f"no_mercy 4p decisions/s: {nm4:,.0f} (target >= {TARGET_DECISIONS:,}): {mark}")
    rl = by.get(RLCARD)
    if rl is None:
        print("RLCard not installed: no ratio (pip install -e '.[bench]')")
    else:
        for preset in ("classic", "rlcard"):
            ratio = by[(preset, 2)].games_per_s / rl.games_per_s
            summary[f"{preset}_2p_vs_rlcard"] = round(ratio, 2)
            if preset == TARGET_PRESET:
                mark = "ok" if ratio >= TARGET_RATIO else "BELOW TARGET"
                verdict = f"(target >= {TARGET_RATIO:.0f}x): {mark}"
            else:
                verdict = "(for reference: plain classic plays a longer game than RLCard's)"
            print(f"{preset} 2p games/s vs RLCard env.run games/s: {ratio:.1f}x {verdict}")
    print()
    print(f"reproduce: {command}")
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description="Engine throughput, and RLCard's UNO for comparison.")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per case and repeat")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved repeats; the best counts")
    parser.add_argument("--warmup", type=float, default=0.5, help="untimed seconds per case first")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="process CPU or wall time")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeat < 1 or args.warmup < 0:
        parser.error("--seconds must be > 0, --repeat >= 1 and --warmup >= 0")
    python = os.path.relpath(sys.executable)
    if python.startswith(".."):
        python = sys.executable
    command = (
        f"{python} benchmarks/engine.py --seconds {args.seconds:g} "
        f"--repeat {args.repeat} --warmup {args.warmup:g} --clock {args.clock}"
    )
    results = measure(args.seconds, args.repeat, args.warmup, CLOCKS[args.clock])
    summary = report(results, command, args.clock)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "results": [
                        {**asdict(r), "games_per_s": r.games_per_s, "decisions_per_s": r.decisions_per_s}
                        for r in results
                    ],
                    "summary": summary,
                    "command": command,
                    "clock": args.clock,
                    "machine": metadata(),
                },
                f,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
