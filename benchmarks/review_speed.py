"""How long the review of a four-player No Mercy round takes, native and in Python.

    nice -n 10 .venv/bin/python benchmarks/review_speed.py [--decisions 100] [--json out.json]

The round: the first seed's four-player ``no_mercy`` round of heuristic self-play whose
turn decisions number ``--decisions`` to 10% more (100 to 110 by default; the table gives
the exact count). It is reviewed as ``nomercy review`` reviews it (every seat, the default
``--worlds``), once with native playouts and once in Python (``--python-worlds`` may lower
the Python side's worlds to keep the run short; the figure is then scaled to the same
worlds, and the table says so). Time is this process's CPU time, so one core; the review
runs in one thread. The native kernels are loaded (and compiled on a first run) by a
warm-up review of a short round first, not timed: the figure is the warm one.

Target: the native review in at most 10 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import nomercy
from nomercy.bots import make
from nomercy.bots.expert import native_available
from nomercy.bots.review import DEFAULT_DEPTH, DEFAULT_WORLDS, review
from nomercy.bots.runner import play_round
from nomercy.record import GameRecord

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata

TARGET_S = 10.0


def a_round(decisions: int) -> tuple[GameRecord, int]:
    """The first seed's 4-player heuristic round of ``decisions`` turn decisions (up to 10% more)."""
    for seed in range(1, 10_000):
        record, state = GameRecord.start(4, seed=seed)
        bots = [make("heuristic", seed=seat) for seat in range(4)]

        def apply(
            action: nomercy.Action,
            seat: int,
            record: GameRecord = record,
            state: nomercy.GameState = state,
        ) -> Any:
            record.add(seat, action)
            return state.apply(action, seat)

        play_round(state, bots, apply=apply)
        turns = sum(not a.out_of_turn for _, a in record.actions)
        if decisions <= turns <= decisions * 1.1:
            return record, seed
    raise SystemExit(f"no round of {decisions} decisions in 10,000 seeds")


def timed(record: GameRecord, worlds: int, native: bool) -> dict[str, Any]:
    start = time.process_time()
    wall = time.perf_counter()
    result = review(record, seed=1, worlds=worlds, native=native)
    cpu = time.process_time() - start
    estimated = [v for v in result.verdicts if not v.forced]
    playouts = sum(len(v.estimates) for v in estimated) * worlds
    return {
        "native": native,
        "worlds": worlds,
        "cpu_s": cpu,
        "wall_s": time.perf_counter() - wall,
        "decisions": len(result.verdicts),
        "estimated": len(estimated),
        "playouts": playouts,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--decisions", type=int, default=100, help="turn decisions of the round, at least")
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS, help="worlds per decision")
    parser.add_argument("--python-worlds", type=int, default=None, help="worlds of the Python review")
    parser.add_argument("--no-native", action="store_true", help="the Python review only")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.worlds < 2 or (args.python_worlds is not None and args.python_worlds < 2):
        parser.error("--decisions must be >= 1, --worlds and --python-worlds >= 2")
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    record, seed = a_round(args.decisions)
    turns = sum(not a.out_of_turn for _, a in record.actions)
    print(f"round: 4 players, seed {seed}, {len(record.actions)} actions, {turns} turn decisions")
    cases = []
    if native_available() and not args.no_native:
        warm, _ = a_round(10)
        review(GameRecord(warm.rules, 4, warm.seed, warm.dealer, warm.actions[:20]), worlds=4, native=True)
        cases.append(timed(record, args.worlds, True))
    python_worlds = args.python_worlds or args.worlds
    python = timed(record, python_worlds, False)
    python["cpu_s_scaled"] = python["cpu_s"] * args.worlds / python_worlds
    cases.append(python)
    for c in cases:
        name = "native" if c["native"] else "Python"
        scaled = f" ({c['cpu_s_scaled']:.1f} s at {args.worlds} worlds)" if "cpu_s_scaled" in c else ""
        print(
            f"{name:>6}: {c['cpu_s']:.2f} s CPU{scaled}, {c['worlds']} worlds, {c['estimated']} of "
            f"{c['decisions']} decisions estimated, {c['playouts']:,} playouts, "
            f"{c['playouts'] / c['cpu_s']:,.0f} playouts/s"
        )
    native = next((c for c in cases if c["native"]), None)
    ok = None if native is None else native["cpu_s"] <= TARGET_S
    verdict = "not measured (no native engine)" if ok is None else "pass" if ok else "FAIL"
    print(f"target: native review in at most {TARGET_S:.0f} s: {verdict}")
    print(f"reproduce: {' '.join(['python', *sys.argv])}")
    if args.json:
        out = {
            "round": {"players": 4, "seed": seed, "actions": len(record.actions), "decisions": turns},
            "depth": DEFAULT_DEPTH,
            "cases": cases,
            "target_s": TARGET_S,
            "pass": ok,
            "machine": metadata(),
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 1 if ok is False else 0


if __name__ == "__main__":
    sys.exit(main())
