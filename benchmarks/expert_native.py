"""The expert's native playouts against its Python ones: speed, then strength at equal time.

    nice -n 10 .venv/bin/python benchmarks/expert_native.py --workers 2 [--ms 20] [--json out.json]

1. Playouts per second, one decision at a time, this process's CPU time: the same expert
   (same seed, ``--budget`` playouts) with Python and with native playouts, on the
   decisions with a choice of heuristic self-play (2 and 4 players). Both make the same
   decisions (``tests/native/test_playout.py``); only the time differs. The figure counts
   the whole decision (sampling worlds, loading them, the search), not the playouts alone.
2. Tournaments at the same milliseconds per decision (``ms``, budget unbounded): the
   native expert against the Python one, 2 players (bar: the native expert's 95% Wilson
   interval above 60%) and 4 players (two of each, seats rotated, deals duplicated).

``ms`` is wall clock, so the tournaments depend on the machine's load (both bots share
each worker process, so the load falls on both alike); the playout figures are CPU time.
The native kernels must be in numba's cache (a first run compiles them: a minute or two).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from typing import Any

import nomercy
from nomercy.bots import make
from nomercy.bots.expert import ExpertBot
from nomercy.bots.runner import play_round
from nomercy.intervals import wilson
from nomercy.sim.tournament import run_tournament


def decision_views(count: int, seed: int) -> list[nomercy.PlayerView]:
    """Views of seat 0 in heuristic self-play (2 and 4 players), every decision."""
    views: list[nomercy.PlayerView] = []
    game = 0
    while len(views) < count:
        players = 2 if game % 2 == 0 else 4
        bots = [make("heuristic", seed=game * 10 + i) for i in range(players)]
        original = bots[0].choose

        def spy(view: nomercy.PlayerView, original: Any = original) -> nomercy.Action:
            views.append(view)
            return original(view)

        bots[0].choose = spy  # type: ignore[method-assign]
        play_round(nomercy.new_game(players, seed=seed * 1000 + game), bots)
        game += 1
    return views[:count]


def playout_speed(decisions: int, budget: int, seed: int) -> dict[str, Any]:
    views = decision_views(decisions * 3, seed)
    ExpertBot(seed=0, budget=8, native=True).choose(views[0])  # load the kernels first
    out: dict[str, Any] = {"budget": budget}
    for native in (False, True):
        playouts = 0
        cpu = 0.0
        timed = 0
        for i, view in enumerate(views):
            bot = ExpertBot(seed=i, budget=budget, native=native)
            c0 = time.process_time()
            bot.choose(view)
            c1 = time.process_time()
            if bot.last_playouts == 0:
                continue
            playouts += bot.last_playouts
            cpu += c1 - c0
            timed += 1
            if timed == decisions:
                break
        key = "native" if native else "python"
        out[key] = {"decisions": timed, "playouts": playouts, "cpu_s": round(cpu, 3), "per_s": playouts / cpu}
    out["ratio"] = out["native"]["per_s"] / out["python"]["per_s"]
    print(f"\n1. expert playouts per second, budget {budget}, one decision at a time (process CPU time)")
    for key in ("python", "native"):
        r = out[key]
        print(
            f"  {key:<7} {r['per_s']:9.0f} playouts/s  ({r['playouts']} playouts in {r['cpu_s']:.2f} s,"
            f" {r['decisions']} decisions, {1000 * r['cpu_s'] / r['decisions']:.1f} ms each)"
        )
    print(f"  native / python: {out['ratio']:.1f}x")
    return out


def tournament(
    title: str, bots: str, players: int, games: int, seed: int, workers: int, bar: float | None
) -> dict[str, Any]:
    start = time.perf_counter()
    result = run_tournament(bots, games, players, seed, workers=workers)
    seconds = time.perf_counter() - start
    print(f"\n{title}")
    print(f"  nomercy tournament --bots {bots} --players {players} --games {games} --seed {seed}")
    for e in result.entries:
        lo, hi = e.interval
        print(f"  {e.label:<34} {e.wins:>5}/{e.games:<5} {e.win_rate:6.1%}  95% CI {lo:6.1%} - {hi:6.1%}")
    native = sum(e.wins for e in result.entries if "native=true" in e.label.lower())
    lo, hi = wilson(native, games)
    print(f"  native side: {native}/{games} {native / games:6.1%}  95% CI {lo:6.1%} - {hi:6.1%} (fair: 50%)")
    verdict = ""
    if bar is not None:
        verdict = "PASS" if lo > bar else "FAIL"
        print(f"  bar: lower bound > {bar:.0%}: {verdict}")
    print(f"  ({seconds:.0f} s)")
    return {
        "title": title,
        "bots": bots,
        "players": players,
        "games": games,
        "seconds": round(seconds),
        "bar": bar,
        "pass": verdict == "PASS" if bar is not None else None,
        "native_wins": native,
        "native_interval": [lo, hi],
        "result": result.to_dict(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ms", type=float, default=20.0, help="milliseconds per decision for both experts")
    parser.add_argument("--budget", type=int, default=400, help="playouts per decision for the speed figure")
    parser.add_argument("--decisions", type=int, default=30, help="decisions timed for the speed figure")
    parser.add_argument("--games-2p", type=int, default=200)
    parser.add_argument("--games-4p", type=int, default=120)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"command: {' '.join([sys.executable.split('/')[-1], *sys.argv])}")
    speed = playout_speed(args.decisions, args.budget, args.seed)
    ms = f"{args.ms:g}"
    fast = f"expert:native=true:ms={ms}:budget=1000000"
    slow = f"expert:native=false:ms={ms}:budget=1000000"
    cases = []
    if args.games_2p:
        cases.append(
            tournament(
                f"2. native vs Python expert at {ms} ms a decision, 2 players",
                f"{fast},{slow}",
                2,
                args.games_2p,
                args.seed,
                args.workers,
                0.60,
            )
        )
    if args.games_4p:
        cases.append(
            tournament(
                f"3. native vs Python expert at {ms} ms a decision, 4 players (2 each)",
                f"{fast},{slow},{fast},{slow}",
                4,
                args.games_4p,
                args.seed,
                args.workers,
                None,
            )
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"speed": speed, "tournaments": cases}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
