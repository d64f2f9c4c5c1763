"""Steps/s of the RL environments with uniformly random legal actions, beside RLCard's UNO.

Each case runs whole rounds on one core, with the loop its users write:

- PettingZoo AEC (``nomercy.rl.pettingzoo.env``): ``env.last()``, a masked sample,
  ``env.step`` for every agent turn (dead-agent steps included, as in any AEC loop);
- Gymnasium (``NoMercyEnv``, the learner against random bots): one ``env.step`` per
  learner decision; the bots' turns run inside it, so a step covers more of the game than
  an AEC or RLCard step (one decision);
- ``VectorEnv`` (64 rows, learner against random bots): rows x ``step`` calls per second,
  actions from ``venv.sample_actions()``;
- ``NativeVectorEnv`` (256 rows, the native engine, learner against random opponents):
  rows x ``step`` calls per second, actions from its native ``sample_actions()``, the
  observations and masks written every step as the others do; one core, and with the
  rows (512) split over 1 and 2 worker processes (``workers=``): those cases are timed
  in **wall** time whatever ``--clock`` says, since the work is in the workers;
- RLCard's UNO (``rlcard.make("uno")``, 2 players, when the ``bench`` extra is installed),
  stepped the way PettingZoo's former ``uno_v4`` wrapper stepped it and RLCard's own
  ``env.run`` does: ``env.step(action)`` per decision, each returning the next player's
  encoded observation and legal actions; the loop reads ``state["legal_actions"]`` and
  picks one with the same numpy generator call as ours. Rounds are dealt by
  ``env.reset()`` inside the timed loop, as ours are by ``env.reset()``.

**Fair comparison.** Every case (RLCard included) runs in this one process, interleaved,
``--repeat`` turns of ``--seconds`` each after ``--warmup``, and reports its best turn;
time is the process's CPU time by default (``--clock wall`` for wall time), so other
processes on a shared machine disturb it less. The ratio column is steps/s over RLCard's
steps/s in the same run. Our ``rlcard`` preset plays RLCard's rules (like for like);
``no_mercy`` is a heavier game per step (a 168-card deck, bigger hands, stacks), and ours
pays for the action mask RLCard does not have (``np.flatnonzero`` in the user's loop).

    .venv/bin/python benchmarks/rl.py [--seconds 2] [--repeat 3] [--warmup 0.5] [--clock cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from nomercy.rl import NoMercyEnv, VectorEnv  # noqa: E402
from nomercy.rl import pettingzoo as nm  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata  # noqa: E402  (benchmarks/machine.py)

try:
    from nomercy.rl.native_vector import NativeVectorEnv
except ImportError:  # no fast extra (numba): no native cases
    NativeVectorEnv = None  # type: ignore[assignment,misc]

#: steps(seconds) -> (steps, rounds, elapsed)
Runner = Callable[[float], tuple[int, int, float]]
Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"cpu": time.process_time, "wall": time.perf_counter}
clock: Clock = time.process_time
RLCARD = "RLCard uno env.step loop, 2 players"


def pettingzoo_runner(players: int, preset: str) -> Runner:
    env = nm.env(players=players, rules=preset)
    rng = np.random.default_rng(0)
    seed = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        steps = rounds = 0
        start = clock()
        deadline = start + seconds
        while clock() < deadline:
            env.reset(seed=seed[0])
            seed[0] += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
            rounds += 1
        return steps, rounds, clock() - start

    return run


def gymnasium_runner(players: int, preset: str) -> Runner:
    env = NoMercyEnv(players=players, rules=preset, opponents="random")
    rng = np.random.default_rng(0)
    seed = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        steps = rounds = 0
        start = clock()
        deadline = start + seconds
        while clock() < deadline:
            _, info = env.reset(seed=seed[0])
            seed[0] += 1
            done = False
            while not done:
                legal = np.flatnonzero(info["action_mask"])
                _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
            rounds += 1
        return steps, rounds, clock() - start

    return run


def vector_runner(players: int, preset: str, num_envs: int = 64) -> Runner:
    venv = VectorEnv(num_envs, players=players, rules=preset, opponents="random")
    venv.reset(seed=0)

    def run(seconds: float) -> tuple[int, int, float]:
        steps = 0
        before = len(venv.episode_returns)
        start = clock()
        deadline = start + seconds
        while clock() < deadline:
            venv.step(venv.sample_actions())
            steps += num_envs
        return steps, len(venv.episode_returns) - before, clock() - start

    return run


def native_runner(players: int, preset: str, num_envs: int = 256, workers: int = 0) -> Runner:
    assert NativeVectorEnv is not None
    venv = NativeVectorEnv(num_envs, players=players, rules=preset, opponents="random", workers=workers)
    venv.reset(seed=0)
    timer = time.perf_counter if workers else None  # the workers' CPU is not this process's

    def run(seconds: float) -> tuple[int, int, float]:
        now = timer or clock
        steps = 0
        before = len(venv.episode_returns)
        start = now()
        deadline = start + seconds
        while now() < deadline:
            venv.step(venv.sample_actions())
            steps += num_envs
        return steps, len(venv.episode_returns) - before, now() - start

    return run


def rlcard_runner() -> Runner | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0})
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, int, float]:
        steps = rounds = 0
        start = clock()
        deadline = start + seconds
        while clock() < deadline:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[int(rng.integers(len(legal)))])
                steps += 1
            rounds += 1
        return steps, rounds, clock() - start

    return run


def main(argv: list[str] | None = None) -> None:
    global clock
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per case and repeat")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=0.5, help="untimed seconds per case first")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="process CPU or wall time")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]

    cases: list[tuple[str, Runner]] = [
        ("PettingZoo AEC, no_mercy, 2 players", pettingzoo_runner(2, "no_mercy")),
        ("PettingZoo AEC, no_mercy, 4 players", pettingzoo_runner(4, "no_mercy")),
        ("PettingZoo AEC, classic, 2 players", pettingzoo_runner(2, "classic")),
        ("PettingZoo AEC, rlcard preset, 2 players", pettingzoo_runner(2, "rlcard")),
        ("Gymnasium, no_mercy, 2 players vs random", gymnasium_runner(2, "no_mercy")),
        ("Gymnasium, classic, 2 players vs random", gymnasium_runner(2, "classic")),
        ("Gymnasium, rlcard preset, 2 players vs random", gymnasium_runner(2, "rlcard")),
        ("VectorEnv x64, no_mercy, 2 players vs random", vector_runner(2, "no_mercy")),
        ("VectorEnv x64, classic, 2 players vs random", vector_runner(2, "classic")),
        ("VectorEnv x64, rlcard preset, 2 players vs random", vector_runner(2, "rlcard")),
    ]
    if NativeVectorEnv is not None:
        cases += [
            ("NativeVectorEnv x256, no_mercy, 2 players vs random", native_runner(2, "no_mercy")),
            ("NativeVectorEnv x256, no_mercy, 4 players vs random", native_runner(4, "no_mercy")),
            ("NativeVectorEnv x256, classic, 2 players vs random", native_runner(2, "classic")),
            ("NativeVectorEnv x256, rlcard preset, 2 players vs random", native_runner(2, "rlcard")),
            ("NativeVectorEnv x512, no_mercy, 2p, 1 worker (wall)", native_runner(2, "no_mercy", 512, 1)),
            ("NativeVectorEnv x512, no_mercy, 2p, 2 workers (wall)", native_runner(2, "no_mercy", 512, 2)),
        ]
    rlcard = rlcard_runner()
    if rlcard is not None:
        cases.append((RLCARD, rlcard))
    for _, run in cases:
        run(args.warmup)
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for name, run in cases:
            steps, rounds, elapsed = run(args.seconds)
            rate = (steps / elapsed, rounds / elapsed)
            if name not in best or rate[0] > best[name][0]:
                best[name] = rate
    print(
        f"python {platform.python_version()} on {platform.machine()}, one core, "
        f"{args.clock} time, best of {args.repeat}"
    )
    reference = best[RLCARD][0] if RLCARD in best else None
    print(f"{'case':58} {'steps/s':>10} {'rounds/s':>10} {'x RLCard':>9}")
    for name, _ in cases:
        steps_s, rounds_s = best[name]
        ratio = f"{steps_s / reference:8.2f}x" if reference else f"{'-':>9}"
        print(f"{name:58} {steps_s:10,.0f} {rounds_s:10,.1f} {ratio}")
    if rlcard is None:
        print("RLCard not installed (pip install -e '.[bench]'): no comparison")
    print("command: " + " ".join([".venv/bin/python", "benchmarks/rl.py", *(argv or sys.argv[1:])]))
    if args.json:
        results = [
            {
                "case": name,
                "steps_per_s": best[name][0],
                "rounds_per_s": best[name][1],
                "vs_rlcard": best[name][0] / reference if reference else None,
            }
            for name, _ in cases
        ]
        out = {"results": results, "clock": args.clock, "repeat": args.repeat, "machine": metadata()}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
