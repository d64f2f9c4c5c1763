"""Bot strength and speed: the bots' bars and the expert's decision time, in one command.

    nice -n 10 .venv/bin/python benchmarks/bots.py --workers 2 [--json out.json]

1. ``heuristic`` against three ``random`` bots, 4 players: win rate, 95% Wilson interval
   (must lie above 40%; a fair share is 25%).
2. ``expert`` against ``heuristic`` head to head, 2 players (interval above 55%).
3. ``expert`` against three ``heuristic`` bots, 4 players (interval above 30%).
4. ``expert``'s time per decision at its default budget on one core (median under 0.5 s):
   positions from heuristic self-play, every decision with more than one sensible
   action timed (wall clock and this process's CPU time; CPU time is what one core
   costs, wall clock also counts other processes sharing the machine).

Tournaments use seat rotation and duplicate deals (``nomercy.sim.tournament``), so the
figures depend on ``--seed`` only, not on ``--workers``. Game counts are chosen so that
each interval is narrow enough to decide its bar (about +-4.5 points at 400 games) while
the whole run stays bounded: about 10 minutes with two workers (about 15 core-minutes of
CPU), longer when other jobs share the cores. Raise ``--games-*`` for tighter intervals.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Any

import nomercy
from nomercy.bots import make
from nomercy.bots.expert import DEFAULT_BUDGET
from nomercy.bots.runner import play_round
from nomercy.sim.tournament import run_tournament

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata


def tournament_case(
    title: str, bots: str, players: int, games: int, seed: int, workers: int, bar: float
) -> dict[str, Any]:
    start = time.perf_counter()
    result = run_tournament(bots, games, players, seed, workers=workers)
    seconds = time.perf_counter() - start
    first = result.entries[0]
    low = first.interval[0]
    ok = low > bar
    print(f"\n{title}")
    print(f"  nomercy tournament --bots {bots} --players {players} --games {games} --seed {seed}")
    for e in result.entries:
        lo, hi = e.interval
        print(
            f"  {e.label:<14} {e.wins:>5}/{e.games:<5} {e.win_rate:6.1%}  95% CI {lo:6.1%} - {hi:6.1%}"
            f"  pts/round {e.points / e.rounds:6.1f}  KOs {e.caused}/{e.suffered}"
            f"  decisions/game {e.decisions / e.games:5.1f}"
        )
    print(f"  bar: lower bound > {bar:.0%}: {'PASS' if ok else 'FAIL'}   ({seconds:.0f} s)")
    return {
        "title": title,
        "bots": bots,
        "players": players,
        "games": games,
        "seed": seed,
        "seconds": round(seconds, 1),
        "bar": bar,
        "pass": ok,
        "result": result.to_dict(),
    }


def decision_times(decisions: int, seed: int) -> dict[str, Any]:
    """Time the default expert on positions from heuristic self-play (2 and 4 players)."""
    walls: list[float] = []
    cpus: list[float] = []
    trivial = 0
    expert = make("expert", seed=seed)
    game = 0
    while len(walls) < decisions:
        players = 2 if game % 2 == 0 else 4
        state = nomercy.new_game(players, seed=seed * 1000 + game)
        bots = [make("heuristic", seed=game * 10 + i) for i in range(players)]
        views: list[nomercy.PlayerView] = []

        # Record the views of seat 0 as the game goes, then time the expert on them.
        original = bots[0].choose

        def spy(
            view: nomercy.PlayerView, original: Any = original, views: list[nomercy.PlayerView] = views
        ) -> nomercy.Action:
            views.append(view)
            return original(view)

        bots[0].choose = spy  # type: ignore[method-assign]
        play_round(state, bots)
        for view in views:
            w0, c0 = time.perf_counter(), time.process_time()
            expert.choose(view)
            w1, c1 = time.perf_counter(), time.process_time()
            if expert.last_playouts == 0:
                trivial += 1
                continue
            walls.append(w1 - w0)
            cpus.append(c1 - c0)
        game += 1
    walls.sort()
    cpus.sort()

    def q(xs: list[float], p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    out = {
        "budget": DEFAULT_BUDGET,
        "decisions_timed": len(walls),
        "trivial_decisions_skipped": trivial,
        "wall_median_s": statistics.median(walls),
        "wall_p90_s": q(walls, 0.9),
        "wall_max_s": walls[-1],
        "cpu_median_s": statistics.median(cpus),
        "cpu_p90_s": q(cpus, 0.9),
        "pass": statistics.median(cpus) < 0.5,
    }
    print(f"\nexpert decision time at the default budget ({DEFAULT_BUDGET} playouts), one core")
    print(f"  {len(walls)} decisions with a choice ({trivial} trivial ones returned at once, not counted)")
    print(
        f"  CPU  median {out['cpu_median_s'] * 1000:.0f} ms  p90 {out['cpu_p90_s'] * 1000:.0f} ms\n"
        f"  wall median {out['wall_median_s'] * 1000:.0f} ms  p90 {out['wall_p90_s'] * 1000:.0f} ms"
        f"  max {out['wall_max_s'] * 1000:.0f} ms"
    )
    print(f"  bar: median < 500 ms: {'PASS' if out['pass'] else 'FAIL'}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes for the tournaments")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games-random", type=int, default=2000, help="heuristic vs 3 random (4p)")
    parser.add_argument("--games-2p", type=int, default=400, help="expert vs heuristic (2p)")
    parser.add_argument("--games-4p", type=int, default=400, help="expert vs 3 heuristic (4p)")
    parser.add_argument("--decisions", type=int, default=200, help="expert decisions to time")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"command: {' '.join([sys.executable.split('/')[-1], *sys.argv])}")
    start = time.perf_counter()
    cases = [
        tournament_case(
            "1. heuristic vs 3 random, 4 players",
            "heuristic,random,random,random",
            4,
            args.games_random,
            args.seed,
            args.workers,
            0.40,
        ),
        tournament_case(
            "2. expert vs heuristic, 2 players",
            "expert,heuristic",
            2,
            args.games_2p,
            args.seed,
            args.workers,
            0.55,
        ),
        tournament_case(
            "3. expert vs 3 heuristic, 4 players",
            "expert,heuristic,heuristic,heuristic",
            4,
            args.games_4p,
            args.seed,
            args.workers,
            0.30,
        ),
    ]
    timing = decision_times(args.decisions, args.seed)
    total = time.perf_counter() - start
    print(f"\ntotal {total / 60:.1f} min")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            out = {
                "tournaments": cases,
                "decision_time": timing,
                "seconds": round(total),
                "machine": metadata(),
            }
            json.dump(out, f, indent=2)
    return 0 if all(c["pass"] for c in cases) and timing["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
