"""The expert (native playouts, inference) against the expert without them: speed, then strength.

    nice -n 10 .venv/bin/python benchmarks/expert_native.py --workers 2 [--ms 5 20 ...] [--json out.json]

1. Playouts per second, one decision at a time, this process's CPU time: the same expert
   (same seed, ``--budget`` playouts, the reference heuristic in the playouts) with Python
   and with native playouts, on the decisions with a choice of heuristic self-play (2 and
   4 players). Both make the same decisions (``tests/native/test_playout.py``); only the
   time differs. The figure counts
   the whole decision (sampling worlds, loading them, the search), not the playouts alone.
2. Worlds sampled per second, this process's CPU time, on the same decisions: the
   uniform sample with the known cards moved in (``infer=false``) and the sample that
   respects what other seats' draws revealed (``infer=true``, :mod:`nomercy.bots.inference`).
3. For each ``--ms``: the wall time that each side of the tournaments really spends on a
   searched decision (a search reads the clock between batches of worlds, so it runs
   over its limit by up to a batch: Python's batches are far longer) and its playouts.
4. For each ``--ms``, tournaments at that time per decision (budget unbounded): the
   expert with native playouts, their tuned policy (:mod:`nomercy.native.policy`) and
   inference against the expert without any of them (``native=false:infer=false``, the
   expert as it was before all three), 2 players (bar: the
   new expert's 95% Wilson interval above 60%) and 4 players (two of each, seats rotated,
   deals duplicated); then the expert with inference but Python playouts against the
   same, 2 players, which separates what inference gives from what native speed gives.

``ms`` is wall clock, so the tournaments depend on the machine's load (both bots share
each worker process, so the load falls on both alike); the playout figures are CPU time.
The native kernels must be in numba's cache (a first run compiles them: a minute or two).
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import random
import sys
import time
from typing import Any

import nomercy
from nomercy.bots import make
from nomercy.bots.expert import ExpertBot
from nomercy.bots.inference import ALL_CARDS, HandInference
from nomercy.bots.runner import play_round, step
from nomercy.events import redact
from nomercy.intervals import wilson
from nomercy.sim.tournament import parse_bots, run_tournament
from nomercy.views import determinize


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
            bot = ExpertBot(seed=i, budget=budget, native=native, policy="heuristic")
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


def decision_time(ms_values: list[float], decisions: int, seed: int) -> list[dict[str, Any]]:
    """Wall time that each side of the tournaments really spends on a searched decision at
    each ``ms``: a search looks at the clock only between batches of worlds, so it may run
    over its limit, and by how much is what makes two limits equal or not."""
    views = [v for v in decision_views(decisions * 6, seed) if v.players == 2]
    make("expert", seed=0, budget=8, native=True).choose(views[0])  # load the kernels first
    out = []
    print(f"\n3. wall time a searched decision really takes at each ms, 2 players, {decisions} decisions")
    for ms in ms_values:
        row: dict[str, Any] = {"ms": ms}
        for key, spec in (("new", _new(ms)), ("today", _today(ms))):
            walls: list[float] = []
            playouts: list[int] = []
            bot = parse_bots(spec)[0].build(seed)  # one bot, as a game keeps its own
            assert isinstance(bot, ExpertBot)
            for view in views:
                t0 = time.perf_counter()
                bot.choose(view)
                wall = time.perf_counter() - t0
                if bot.last_playouts:
                    walls.append(1000 * wall)
                    playouts.append(bot.last_playouts)
                if len(walls) == decisions:
                    break
            walls.sort()
            playouts.sort()
            row[key] = {
                "decisions": len(walls),
                "mean_ms": sum(walls) / len(walls),
                "p90_ms": walls[int(0.9 * (len(walls) - 1))],
                "median_playouts": playouts[len(playouts) // 2],
            }
            r = row[key]
            print(
                f"  ms={ms:<4g} {key:<5} mean {r['mean_ms']:5.1f} ms, p90 {r['p90_ms']:5.1f} ms,"
                f" median {r['median_playouts']:5d} playouts  ({spec})"
            )
        out.append(row)
    return out


def _new(ms: float) -> str:
    """The expert as it is now (native, tuned playouts, inference) at ``ms`` a decision."""
    return f"expert:native=true:ms={ms:g}:budget=1000000"


def _today(ms: float) -> str:
    """The expert before native playouts, tuning and inference, at ``ms`` a decision."""
    return f"expert:native=false:infer=false:ms={ms:g}:budget=1000000"


def inferred_decisions(count: int, seed: int) -> list[tuple[nomercy.PlayerView, HandInference]]:
    """Seat 0's views in heuristic self-play, each with an inference fed every redacted event."""
    out: list[tuple[nomercy.PlayerView, HandInference]] = []
    game = 0
    while len(out) < count:
        players = 2 if game % 2 == 0 else 4
        bots = [make("heuristic", seed=game * 10 + i) for i in range(players)]
        state = nomercy.new_game(players, seed=seed * 1000 + game)
        inference = HandInference()
        while state.current is not None and len(out) < count:
            if state.current == 0:
                view = nomercy.player_view(state, 0)
                inference.sync(view)
                out.append((view, copy.deepcopy(inference)))
            for result in step(state, bots):
                inference.observe(redact(result.events, 0))
        game += 1
    return out


def sampling_speed(decisions: int, worlds: int, seed: int) -> dict[str, Any]:
    """Worlds per CPU-second, uniform (infer=false) and inferred (infer=true)."""
    cases = inferred_decisions(decisions, seed)
    out: dict[str, Any] = {"decisions": len(cases), "worlds_each": worlds}
    for infer in (False, True):
        rng = random.Random(seed)
        fallbacks = 0
        c0 = time.process_time()
        for view, inference in cases:
            if infer:
                sampler = inference.sampler(view)
                for _ in range(worlds):
                    sampler.sample(rng)
                fallbacks += sampler.fallbacks
            else:
                for _ in range(worlds):
                    inference.constrain(determinize(view, rng), rng)
        cpu = time.process_time() - c0
        key = "inferred" if infer else "uniform"
        out[key] = {"cpu_s": round(cpu, 3), "per_s": len(cases) * worlds / cpu, "fallbacks": fallbacks}
    narrowed = sum(any(m != ALL_CARDS for g in inf.groups if g for _, m in g) for _, inf in cases)
    out["narrowed_decisions"] = narrowed
    print(f"\n2. worlds sampled per second, {worlds} a decision, {len(cases)} decisions (process CPU time)")
    for key in ("uniform", "inferred"):
        r = out[key]
        print(f"  {key:<8} {r['per_s']:9.0f} worlds/s  ({1e6 / r['per_s']:.0f} us a world)")
    print(
        f"  decisions where some hand was narrowed by a draw: {narrowed}/{len(cases)};"
        f" inferred deals that fell back to uniform: {out['inferred']['fallbacks']}"
    )
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
    new = result.entries[0].label.split(" #")[0]  # the first seat's bot, in the order given
    native = sum(e.wins for e in result.entries if e.label.split(" #")[0] == new)
    lo, hi = wilson(native, games)
    print(f"  new side: {native}/{games} {native / games:6.1%}  95% CI {lo:6.1%} - {hi:6.1%} (fair: 50%)")
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
        "new_wins": native,
        "new_interval": [lo, hi],
        "result": result.to_dict(),
    }


def time_control(ms: float, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The tournaments at ``ms`` a decision for both sides."""
    fast, slow = _new(ms), _today(ms)
    inferred = f"expert:native=false:ms={ms:g}:budget=1000000"
    cases = []
    if args.games_2p:
        cases.append(
            tournament(
                f"4. new expert (native, tuned, inference) vs the expert without them, {ms:g} ms, 2 players",
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
                f"5. the same at {ms:g} ms a decision, 4 players (2 each)",
                f"{fast},{slow},{fast},{slow}",
                4,
                args.games_4p,
                args.seed,
                args.workers,
                None,
            )
        )
    if args.games_python:
        cases.append(
            tournament(
                f"6. inference alone (Python playouts) vs the expert without it at {ms:g} ms, 2 players",
                f"{inferred},{slow}",
                2,
                args.games_python,
                args.seed,
                args.workers,
                None,
            )
        )
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ms",
        type=float,
        nargs="+",
        default=[20.0],
        help="milliseconds per decision for both experts (one or more)",
    )
    parser.add_argument("--budget", type=int, default=400, help="playouts per decision for the speed figure")
    parser.add_argument("--decisions", type=int, default=30, help="decisions timed for the speed figure")
    parser.add_argument("--games-2p", type=int, default=200)
    parser.add_argument("--games-4p", type=int, default=120)
    parser.add_argument("--games-python", type=int, default=200, help="2-player games, inference alone")
    parser.add_argument(
        "--worlds", type=int, default=50, help="worlds sampled a decision for the speed figure"
    )
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"command: {' '.join([sys.executable.split('/')[-1], *sys.argv])}")
    speed = playout_speed(args.decisions, args.budget, args.seed)
    sampling = sampling_speed(args.decisions, args.worlds, args.seed)
    timing = decision_time(args.ms, args.decisions, args.seed)
    cases = []
    for ms in args.ms:
        cases += time_control(ms, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {"speed": speed, "sampling": sampling, "timing": timing, "tournaments": cases}, f, indent=2
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
