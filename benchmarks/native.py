"""The native engine's throughput against the pure-Python engine and RLCard, in one run.

    .venv/bin/python benchmarks/native.py [--seconds 2] [--repeat 3] [--tables 16]

Random play on one core, the loop each engine is meant for: the Python engine as
``benchmarks/engine.py`` plays it (``state.apply(rng.choice(state.legal_actions()))``,
dealing inside the timed loop), RLCard's UNO as its documentation runs it (``env.run``),
and the native engine's own loop (``Batch.random_play``: ``--tables`` tables, each
decision a uniformly random legal action of the deciding seat, a table's round played to
its end and dealt again, then the next table's). A second pair of cases plays the
``heuristic`` bot in every seat: ``nomercy.sim.play_game`` (the simulator's Python loop) against
``nomercy.native.heuristic.heuristic_play`` on the same game and bot seeds. Time is this
process's CPU time; cases are interleaved and repeated and each reports its best repeat
(the least disturbed by other processes). One more case steps a single table from Python
through the public API (``Batch.legal_mask``, then ``Batch.step`` with a random legal
index), the loop of a program that decides itself, one decision per call. The first
decision on a fresh install, memory and install size: ``benchmarks/native_start.py``.

The limit: ``benchmarks/reference_uno.c``, a tight C random player of the same decks,
rules and decisions (no exact CPython shuffles, no API), compiled here with ``cc -O3``
and timed by its own CPU clock; the ratio native / C is reported for the rlcard preset's
2-player games/s and no_mercy's 4-player decisions/s. ``--instructions`` adds both
engines' instructions per decision counted by valgrind's callgrind, which a loaded
machine does not move (the times do).

Targets: no_mercy 4 players >= 30x the Python engine's decisions/s; the rlcard
preset 2 players >= 100x RLCard's env.run games/s; native >= 0.6x the C reference.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engine as reference  # noqa: E402  (benchmarks/engine.py: the Python and RLCard runners)
from machine import cpu_model, metadata  # noqa: E402  (benchmarks/machine.py)

import nomercy  # noqa: E402
from nomercy.native import Batch  # noqa: E402
from nomercy.native import heuristic as native_heuristic  # noqa: E402
from nomercy.sim.runner import RunSpec, bot_seed, game_seed, play_game  # noqa: E402

TARGET_DECISIONS = 30.0  # native no_mercy 4p decisions/s over the Python engine's
TARGET_RLCARD = 100.0  # native rlcard-preset 2p games/s over RLCard's env.run games/s
TARGET_C = 0.6  # native over the tight C reference (rlcard 2p games/s, no_mercy 4p decisions/s)
CHUNK = 20_000  # decisions per call into native code
REFERENCE_C = Path(__file__).resolve().with_name("reference_uno.c")


def build_reference() -> Path | None:
    """``reference_uno.c`` compiled with ``cc -O3`` (``CC`` names another compiler)."""
    cc = os.environ.get("CC") or "cc"
    if shutil.which(cc) is None:
        return None
    exe = Path(tempfile.mkdtemp(prefix="nomercy-ref-")) / "reference_uno"
    subprocess.run([cc, "-O3", "-o", str(exe), str(REFERENCE_C)], check=True)
    return exe


def c_reference_runner(exe: Path, preset: str, players: int) -> reference.Runner:
    """The C reference's own loop, timed by its CPU clock, a million decisions a run."""
    seed = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        elapsed = 0.0
        while elapsed < seconds:
            seed[0] += 1
            cmd = [str(exe), preset, str(players), "1000000", str(seed[0])]
            g, d, s = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
            games, decisions, elapsed = games + int(g), decisions + int(d), elapsed + float(s)
        return games, decisions, elapsed

    return run


def _callgrind(cmd: list[str], only: str | None = None) -> int:
    """Instructions that ``cmd`` runs under callgrind (inside the functions ``only`` names,
    a pattern, when given)."""
    toggle = [f"--toggle-collect={only}"] if only else []
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={Path(tmp) / 'out'}", *toggle, *cmd],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no total:\n{run.stderr[-2000:]}")
    return int(found[1])


#: The C function of the native random play's kernel (the translator names it after the
#: kernel, with a number).
NATIVE_RANDOM_PLAY = "w_f_kernels_random_play_*"


def instructions(exe: Path, preset: str, players: int, decisions: int) -> dict[str, float]:
    """Instructions per decision of the native engine's and the C reference's random play.
    The native side counts inside the random play kernel alone (one call: deals, seeding
    and play, none of Python's start-up, imports or call); the C reference runs twice
    (``decisions`` and twice as many) and the difference of the counts over the difference
    of the decisions is its figure (start-up cancels out). Both are exact: the same build
    and arguments give the same count."""
    native = [sys.executable, __file__, "--inner", preset, str(players), str(decisions)]
    c = [_callgrind([str(exe), preset, str(players), str(n)]) for n in (decisions, 2 * decisions)]
    inside = _callgrind(native, only=NATIVE_RANDOM_PLAY)
    if inside == 0:
        raise SystemExit(f"callgrind found no function {NATIVE_RANDOM_PLAY} in the native engine")
    return {"native": inside / decisions, "C": (c[1] - c[0]) / decisions}


def _inner(preset: str, players: int, decisions: int) -> None:
    """The native side of ``instructions``: random play on 16 tables."""
    batch = Batch(nomercy.Rules.preset(preset), 16, players)
    batch.reset(range(16))
    batch.random_play(decisions, seed=1, first_game_seed=16)


def native_runner(preset: str, players: int, tables: int) -> reference.Runner:
    batch = Batch(nomercy.Rules.preset(preset), tables, players)
    batch.reset(range(tables))
    next_seed = [tables]
    batch.random_play(1000)  # the first call's costs before the clock runs

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = time.process_time()
        deadline = start + seconds
        while True:
            games += batch.random_play(CHUNK, seed=next_seed[0], first_game_seed=next_seed[0])
            next_seed[0] += CHUNK
            decisions += CHUNK
            now = time.process_time()
            if now >= deadline:
                return games, decisions, now - start

    return run


def single_table_runner(preset: str, players: int) -> reference.Runner:
    """One table stepped from Python: the legal mask, a random legal index, ``step``."""
    batch = Batch(nomercy.Rules.preset(preset), 1, players)
    rng = random.Random(0)
    seed = [0]
    batch.reset([0])

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = time.process_time()
        while True:
            for _ in range(1000):
                if batch.current(0) is None:
                    games += 1
                    seed[0] += 1
                    batch.reset([seed[0]])
                legal = np.flatnonzero(batch.legal_mask(0))
                batch.step(0, int(legal[rng.randrange(len(legal))]))
            decisions += 1000
            now = time.process_time()
            if now - start >= seconds:
                return games, decisions, now - start

    return run


HEURISTIC_CHUNK = 200  # heuristic games per call into native code


def _heuristic_seeds(start: int, count: int, players: int) -> tuple[list[int], list[list[int]]]:
    """Game and bot seeds of the simulator's games ``start...`` (run seed 0)."""
    seeds = [game_seed(0, i) for i in range(start, start + count)]
    return seeds, [[bot_seed(s, k) for k in range(players)] for s in seeds]


def python_heuristic_runner(preset: str, players: int) -> reference.Runner:
    """The simulator's games with a heuristic bot in every seat (``nomercy.sim``)."""
    spec = RunSpec(games=10**9, players=players, rules=nomercy.Rules.preset(preset), bots=("heuristic",))
    index = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = time.process_time()
        while True:
            row = play_game(spec, index[0])
            index[0] += 1
            games += 1
            decisions += int(row["decisions"])
            now = time.process_time()
            if now - start >= seconds:
                return games, decisions, now - start

    return run


def native_heuristic_runner(preset: str, players: int) -> reference.Runner:
    """The same games in ``heuristic_play``; the seeds are derived before the clock runs."""
    rules = nomercy.Rules.preset(preset)
    native_heuristic.heuristic_games(rules, players, *_heuristic_seeds(0, 2, players))  # compile / load
    index = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        elapsed = 0.0
        while elapsed < seconds:
            seeds, bots = _heuristic_seeds(index[0], HEURISTIC_CHUNK, players)
            index[0] += HEURISTIC_CHUNK
            start = time.process_time()
            result = native_heuristic.heuristic_games(rules, players, seeds, bots)
            elapsed += time.process_time() - start
            games += len(result)
            decisions += int(result.column("decisions").sum())
        return games, decisions, elapsed

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description="Native engine throughput vs the Python engine and RLCard.")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument(
        "--instructions", type=int, metavar="N", default=0,
        help="also count instructions per decision under callgrind, N and 2N decisions (try 200000)",
    )  # fmt: skip
    parser.add_argument("--inner", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        _inner(args.inner[0], int(args.inner[1]), int(args.inner[2]))
        return 0
    clock = time.process_time
    runners: dict[str, reference.Runner] = {
        "python no_mercy 4p": reference.nomercy_runner("no_mercy", 4, clock),
        "native no_mercy 4p": native_runner("no_mercy", 4, args.tables),
        "single table 4p": single_table_runner("no_mercy", 4),
        "python rlcard 2p": reference.nomercy_runner("rlcard", 2, clock),
        "native rlcard 2p": native_runner("rlcard", 2, args.tables),
        "python heuristic 4p": python_heuristic_runner("no_mercy", 4),
        "native heuristic 4p": native_heuristic_runner("no_mercy", 4),
    }
    rl = reference.rlcard_runner(clock)
    if rl is not None:
        runners["RLCard uno 2p"] = rl
    exe = build_reference()
    if exe is not None:
        runners["C reference rlcard 2p"] = c_reference_runner(exe, "rlcard", 2)
        runners["C reference no_mercy 4p"] = c_reference_runner(exe, "no_mercy", 4)
    for run in runners.values():
        run(0.3)
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for name, run in runners.items():
            games, decisions, elapsed = run(args.seconds)
            rates = (games / elapsed, decisions / elapsed)
            if name not in best or rates[1] > best[name][1]:
                best[name] = rates
    title = "native engine benchmark: random play, one core, CPU time, best of repeats"
    print(f"nomercy {nomercy.__version__} {title}")
    print(f"Python {sys.version.split()[0]}, {cpu_model()}, native kernels compiled ahead of time (C)")
    print()
    print(f"{'case':<20} {'games/s':>10} {'decisions/s':>13}")
    for name, (games, decisions) in best.items():
        print(f"{name:<20} {games:>10,.0f} {decisions:>13,.0f}")
    print()
    ratios: dict[str, float] = {}
    ratio = best["native no_mercy 4p"][1] / best["python no_mercy 4p"][1]
    ratios["no_mercy_4p_decisions"] = ratio
    mark = "ok" if ratio >= TARGET_DECISIONS else "BELOW TARGET"
    target = f"(target >= {TARGET_DECISIONS:.0f}x): {mark}"
    print(f"native / Python engine, no_mercy 4p decisions/s: {ratio:.1f}x {target}")
    ratio = best["single table 4p"][1] / best["python no_mercy 4p"][1]
    ratios["single_table_4p_decisions"] = ratio
    print(f"one table stepped from Python / Python engine, no_mercy 4p decisions/s: {ratio:.1f}x")
    ratio = best["native rlcard 2p"][0] / best["python rlcard 2p"][0]
    ratios["rlcard_2p_games"] = ratio
    print(f"native / Python engine, rlcard 2p games/s: {ratio:.1f}x")
    ratio = best["native heuristic 4p"][0] / best["python heuristic 4p"][0]
    ratios["heuristic_4p_games"] = ratio
    print(f"native / Python heuristic games (nomercy.sim), no_mercy 4p games/s: {ratio:.1f}x")
    if "RLCard uno 2p" in best:
        ratio = best["native rlcard 2p"][0] / best["RLCard uno 2p"][0]
        ratios["rlcard_2p_games_vs_rlcard"] = ratio
        mark = "ok" if ratio >= TARGET_RLCARD else "BELOW TARGET"
        target = f"(target >= {TARGET_RLCARD:.0f}x): {mark}"
        print(f"native rlcard 2p games/s / RLCard env.run games/s: {ratio:.1f}x {target}")
    else:
        print("RLCard not installed: no ratio (pip install -e '.[bench]')")
    if exe is not None:
        for key, case, col, unit in (
            ("rlcard_2p_games_vs_c", "rlcard 2p", 0, "games/s"),
            ("no_mercy_4p_decisions_vs_c", "no_mercy 4p", 1, "decisions/s"),
        ):
            ratio = best[f"native {case}"][col] / best[f"C reference {case}"][col]
            ratios[key] = ratio
            mark = "ok" if ratio >= TARGET_C else "BELOW TARGET"
            print(f"native / C reference, {case} {unit}: {ratio:.2f}x (target >= {TARGET_C}x): {mark}")
    else:
        print("no C compiler: no ratio to the C reference")
    counted: dict[str, dict[str, float]] = {}
    if exe is not None and args.instructions and shutil.which("valgrind"):
        for preset, players in (("rlcard", 2), ("no_mercy", 4)):
            counts = instructions(exe, preset, players, args.instructions)
            counted[f"`{preset}` {players} players"] = counts
            ratio = counts["C"] / counts["native"]
            ratios[f"{preset}_{players}p_instructions_c_over_native"] = ratio
            print(
                f"instructions/decision (callgrind), {preset} {players}p: native {counts['native']:,.0f}, "
                f"C {counts['C']:,.0f}: C / native {ratio:.2f}x"
            )
    print()
    python = os.path.relpath(sys.executable)
    print(
        f"reproduce: {python} benchmarks/native.py --seconds {args.seconds:g} "
        f"--repeat {args.repeat} --tables {args.tables}"
        + (f" --instructions {args.instructions}" if args.instructions else "")
    )
    if args.json:
        results = [
            {"case": name, "games_per_s": games, "decisions_per_s": decisions}
            for name, (games, decisions) in best.items()
        ]
        out = {"results": results, "ratios": ratios, "instructions": counted, "machine": metadata()}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
