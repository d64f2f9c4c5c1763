"""Simulator throughput: games/s with 1 and 2 local workers, on a local Ray and on the native
engine (``--engine native``), and the speed-up.

Each case plays the same seeded run (random bots, ``no_mercy``, 4 players by default;
``--bots heuristic`` or a comma-separated seating for others)
through :func:`nomercy.sim.backends.execute`, the path ``nomercy simulate`` takes; the
native cases play it with ``RunSpec(engine="native")`` (the ``fast`` extra), whose import
and first game (loading the compiled kernels) are timed apart. Starting
the worker processes is inside the timed run (it is part of what a user waits for); Ray's
own start-up is timed apart, since a cluster is started once and used for many runs. Cases
are interleaved and repeated, each reports its best repeat (the least disturbed by other
processes on a shared machine), and the load average is printed beside every figure.
Every case must produce the same rows; the benchmark checks that too.

    .venv/bin/python benchmarks/simulate.py [--games 6000] [--players 4] [--preset no_mercy]
        [--repeat 2] [--no-ray] [--no-native] [--bots random]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import resource
import sys
import time

from nomercy import Rules
from nomercy.sim.backends import InProcess, LocalProcesses, RayBackend, default_workers, execute
from nomercy.sim.runner import Row, RunSpec


def load() -> str:
    try:
        return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load ?"


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(spec: RunSpec, backend: object) -> tuple[float, float, list[Row]]:
    """(games per wall-clock second, games per CPU second of this process tree, rows)."""
    cpu = cpu_seconds()
    started = time.perf_counter()
    result = execute(spec, backend)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds() - cpu
    assert result.complete
    return spec.games / elapsed, spec.games / cpu, result.rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6000, help="games per timed run")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2, help="runs per case; the best counts")
    parser.add_argument("--preset", default="no_mercy", help="rules preset")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray case")
    parser.add_argument("--no-native", action="store_true", help="skip the native engine's cases")
    parser.add_argument("--bots", default="random", help="bot per seat, comma-separated (one: every seat)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()

    bots = tuple(name.strip() for name in args.bots.split(",") if name.strip())
    spec = RunSpec(games=args.games, players=args.players, rules=Rules.preset(args.preset), seed=1, bots=bots)
    cases: dict[str, tuple[RunSpec, object]] = {
        "1 worker": (spec, InProcess()),
        "2 workers": (spec, LocalProcesses(workers=2)),
    }
    if not args.no_native:
        try:
            started = time.process_time()
            native = dataclasses.replace(spec, engine="native")
            native.play_chunk(0, 1)
            print(f"native engine import and first game: {time.process_time() - started:.1f} s of CPU")
            cases["native, 1 worker"] = (native, InProcess())
            cases["native, 2 workers"] = (native, LocalProcesses(workers=2))
            # The fork server starts once per process, preloading for its first run: a native
            # one, so that native workers start with the kernels loaded, as in a native
            # `nomercy simulate` (Python workers do not mind them).
            cases["2 workers"] = cases.pop("2 workers")
        except ImportError as exc:
            print(f"{exc}: skipping the native cases")
    ray = None
    if not args.no_ray:
        try:
            import ray
        except ImportError:
            print("Ray is not installed (pip install -e '.[ray]'): skipping the Ray case")
    if ray is not None:
        started = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        print(f"Ray start-up (local, 2 CPUs): {time.perf_counter() - started:.1f} s")
        cases["Ray, 2 CPUs"] = (spec, RayBackend(address="local", workers=2))

    print(
        f"{platform.python_implementation()} {platform.python_version()}, {default_workers()} cores; "
        f"{args.games} {args.preset} games of {args.players} players ({args.bots}) per run, "
        f"best of {args.repeat}"
    )
    best: dict[str, float] = {}
    per_cpu: dict[str, float] = {}
    reference: list[Row] | None = None
    for attempt in range(args.repeat):
        for name, (job, backend) in cases.items():
            before = load()
            speed, cpu_speed, rows = timed(job, backend)
            if reference is None:
                reference = rows
            assert rows == reference, f"{name} produced different rows"
            best[name] = max(best.get(name, 0.0), speed)
            note = ""
            if isinstance(
                backend, InProcess
            ):  # other cases' workers are not our children: their CPU is not counted
                per_cpu[name] = max(per_cpu.get(name, 0.0), cpu_speed)
                note = f", {cpu_speed:,.0f} games per CPU-second"
            print(f"  run {attempt + 1}: {name:<17} {speed:8,.0f} games/s{note}  ({before} before)")
    if ray is not None:
        ray.shutdown()
    print("best:")
    base = best["1 worker"]
    for name, speed in best.items():
        cpu_note = f", {per_cpu[name]:,.0f} games per CPU-second" if name in per_cpu else ""
        print(f"  {name:<17} {speed:8,.0f} games/s  speed-up x{speed / base:.2f}{cpu_note}")
    if "native, 1 worker" in per_cpu:
        ratio = per_cpu["native, 1 worker"] / per_cpu["1 worker"]
        print(f"native / Python engine, 1 worker, games per CPU-second: x{ratio:.2f}")
    print("games per CPU-second is the throughput of one busy core, whatever else the machine runs;")
    print("a wall-clock speed-up needs free cores (see the load averages: other sessions' work")
    print("shares the cores, and Linux's autogroup scheduling splits them between sessions).")
    print("command: " + " ".join([os.path.relpath(sys.executable), *sys.argv]))
    if args.json:
        from machine import metadata  # benchmarks/machine.py, beside this script

        results = [
            {
                "case": name,
                "games_per_s": speed,
                "speed_up": speed / base,
                "games_per_cpu_s": per_cpu.get(name),
            }
            for name, speed in best.items()
        ]
        out = {
            "results": results,
            "games": args.games,
            "players": args.players,
            "preset": args.preset,
            "bots": args.bots,
            "repeat": args.repeat,
            "machine": metadata(),
        }
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
