"""The learned bot's strength and speed, in one command.

    nice -n 10 .venv/bin/python benchmarks/learned.py --workers 2 [--weights FILE] [--json out.json]

1. ``learned`` against ``heuristic`` head to head, 2 players: the target, a 95% Wilson
   lower bound above 50% (the network alone, no search).
2. ``learned`` against heuristics at every other table size: 3, 4, 5 and 6 players (a fair
   share is one in the table's size: 33%, 25%, 20%, 17%).
3. ``learned`` against ``expert`` (its default budget), 2 players.
4. ``learned`` against ``random``, 2 players.
5. The expert with the network as its prior (``learned:search=true``: the network's pick
   is the candidate its search protects) against today's expert, 2 players, at the same
   time per decision (``ms``, with a playout budget that never binds first).
6. Its time per decision (median, p90), on positions of heuristic self-play, 2 and 4
   players: the whole ``choose`` (the view's encoding and the network's forward pass in
   numpy), and the network's forward pass alone.

Tournaments use seat rotation and duplicate deals (``nomercy.sim.tournament``): every
deal is played once from each seat, so the figures depend on ``--seed`` only, not on
``--workers``. ``--games-... 0`` leaves a case out. The default counts give 95% intervals
of about +-2 points at 2 players and +-3 at 3 to 6 (1,200 games) on two cores in minutes;
``--weights`` measures another weights file than the shipped one.
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
from nomercy.bots.learned import LearnedBot
from nomercy.bots.runner import play_round

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata

from bots import tournament_case


def decision_times(decisions: int, seed: int, weights: str | None = None) -> dict[str, Any]:
    """Time the learned bot's ``choose`` on views of heuristic self-play (2 and 4 players),
    and the network's forward pass alone on the same positions."""
    bot = LearnedBot(weights=weights)
    times: list[float] = []
    network: list[float] = []
    game = 0
    while len(times) < decisions:
        players = 2 if game % 2 == 0 else 4
        views: list[nomercy.PlayerView] = []
        state = nomercy.new_game(players, seed=seed * 1000 + game)
        bots = [make("heuristic", seed=game * 10 + i) for i in range(players)]
        original = bots[0].choose

        def spy(
            view: nomercy.PlayerView, original: Any = original, views: list[Any] = views
        ) -> nomercy.Action:
            views.append(view)
            return original(view)

        bots[0].choose = spy  # type: ignore[method-assign]
        play_round(state, bots)
        for view in views:
            t0 = time.perf_counter()
            bot.choose(view)
            times.append(time.perf_counter() - t0)
            obs, mask = bot._obs, bot._mask  # the position choose() just encoded
            t0 = time.perf_counter()
            bot.policy(obs, mask)
            network.append(time.perf_counter() - t0)
        game += 1
    times.sort()
    network.sort()
    out = {
        "decisions_timed": len(times),
        "median_us": statistics.median(times) * 1e6,
        "p90_us": times[int(0.9 * len(times))] * 1e6,
        "network_median_us": statistics.median(network) * 1e6,
        "network_p90_us": network[int(0.9 * len(network))] * 1e6,
        "parameters": bot.policy.size,
    }
    print(f"\nlearned decision time, {len(times)} decisions ({out['parameters']:,} parameters)")
    print(f"  choose: median {out['median_us']:.0f} us  p90 {out['p90_us']:.0f} us")
    print(f"  network alone: median {out['network_median_us']:.0f} us  p90 {out['network_p90_us']:.0f} us")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes for the tournaments")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games-2p", type=int, default=2000, help="learned vs heuristic (2p)")
    for n in (3, 4, 5, 6):
        parser.add_argument(
            f"--games-{n}p", type=int, default=1200, help=f"learned vs {n - 1} heuristic ({n}p)"
        )
    parser.add_argument("--games-expert", type=int, default=1000, help="learned vs expert (2p)")
    parser.add_argument("--games-random", type=int, default=1000, help="learned vs random (2p)")
    parser.add_argument("--games-prior", type=int, default=1000, help="expert with the prior vs expert (2p)")
    parser.add_argument(
        "--ms", type=float, default=5.0, help="time per decision of both experts in the prior case"
    )
    parser.add_argument("--decisions", type=int, default=500, help="decisions to time")
    parser.add_argument(
        "--weights", metavar="FILE", help="the weights to measure (default: the shipped ones)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"command: {' '.join([sys.executable.split('/')[-1], *sys.argv])}")
    start = time.perf_counter()
    w, s = args.workers, args.seed
    me = "learned" if args.weights is None else f"learned:weights={args.weights}"
    plan: list[tuple[str, str, int, int, float]] = [
        ("learned vs heuristic, 2 players", f"{me},heuristic", 2, args.games_2p, 0.50),
    ]
    plan.extend(
        (f"learned vs {n - 1} heuristic, {n} players", ",".join([me] + ["heuristic"] * (n - 1)),
         n, getattr(args, f"games_{n}p"), 1 / n)
        for n in (3, 4, 5, 6)
    )  # fmt: skip
    limit = f"ms={args.ms:g}:budget=100000"
    plan += [
        ("learned vs expert, 2 players", f"{me},expert", 2, args.games_expert, 0.50),
        ("learned vs random, 2 players", f"{me},random", 2, args.games_random, 0.50),
        (
            "expert with the learned prior vs expert, 2 players, same time per decision",
            f"{me}:search=true:{limit},expert:{limit}",
            2,
            args.games_prior,
            0.50,
        ),
    ]
    cases = [
        tournament_case(f"{i}. {title}", bots, players, games, s, w, bar)
        for i, (title, bots, players, games, bar) in enumerate((p for p in plan if p[3] > 0), 1)
    ]
    timing = decision_times(args.decisions, args.seed, args.weights)
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
    return 0 if not cases or cases[0]["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
