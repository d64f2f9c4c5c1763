"""Steps/s of the RL environments with uniformly random legal actions, beside RLCard's UNO.

Each case runs whole rounds on one core, with the loop its users write:

- PettingZoo AEC (``nomercy.rl.pettingzoo.env``): ``env.last()``, a masked sample,
  ``env.step`` for every agent turn (dead-agent steps included, as in any AEC loop);
- Gymnasium (``NoMercyEnv``, the learner against random bots): one ``env.step`` per
  learner decision (the bots' turns run inside it, so a step covers more of the game);
- ``VectorEnv`` (64 rows, learner against random bots): rows x ``step`` calls per second;
- RLCard's UNO (``rlcard.make("uno")``, 2 players, when the ``bench`` extra is installed),
  stepped the way PettingZoo's former ``uno_v4`` wrapper stepped it: read
  ``state["legal_actions"]``, pick one, ``env.step``. It encodes an observation per step too.
  The ``rlcard`` preset plays RLCard's rules, for a like-for-like comparison.

Cases are interleaved and repeated; each reports its best repeat (the least disturbed).

    .venv/bin/python benchmarks/rl.py [--seconds 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
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

#: steps(seconds) -> (steps, rounds, elapsed)
Runner = Callable[[float], tuple[int, int, float]]


def pettingzoo_runner(players: int, preset: str) -> Runner:
    env = nm.env(players=players, rules=preset)
    rng = np.random.default_rng(0)
    seed = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        steps = rounds = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
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
        return steps, rounds, time.perf_counter() - start

    return run


def gymnasium_runner(players: int, preset: str) -> Runner:
    env = NoMercyEnv(players=players, rules=preset, opponents="random")
    rng = np.random.default_rng(0)
    seed = [0]

    def run(seconds: float) -> tuple[int, int, float]:
        steps = rounds = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            _, info = env.reset(seed=seed[0])
            seed[0] += 1
            done = False
            while not done:
                legal = np.flatnonzero(info["action_mask"])
                _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
            rounds += 1
        return steps, rounds, time.perf_counter() - start

    return run


def vector_runner(players: int, preset: str, num_envs: int = 64) -> Runner:
    venv = VectorEnv(num_envs, players=players, rules=preset, opponents="random")
    venv.reset(seed=0)

    def run(seconds: float) -> tuple[int, int, float]:
        steps = 0
        before = len(venv.episode_returns)
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            venv.step(venv.sample_actions())
            steps += num_envs
        return steps, len(venv.episode_returns) - before, time.perf_counter() - start

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
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[int(rng.integers(len(legal)))])
                steps += 1
            rounds += 1
        return steps, rounds, time.perf_counter() - start

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per case and repeat")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    cases: list[tuple[str, Runner]] = [
        ("PettingZoo AEC, no_mercy, 2 players", pettingzoo_runner(2, "no_mercy")),
        ("PettingZoo AEC, no_mercy, 4 players", pettingzoo_runner(4, "no_mercy")),
        ("PettingZoo AEC, classic, 2 players", pettingzoo_runner(2, "classic")),
        ("PettingZoo AEC, rlcard preset, 2 players", pettingzoo_runner(2, "rlcard")),
        ("Gymnasium, no_mercy, 2 players vs random", gymnasium_runner(2, "no_mercy")),
        ("Gymnasium, classic, 2 players vs random", gymnasium_runner(2, "classic")),
        ("VectorEnv x64, no_mercy, 2 players vs random", vector_runner(2, "no_mercy")),
        ("VectorEnv x64, classic, 2 players vs random", vector_runner(2, "classic")),
    ]
    rlcard = rlcard_runner()
    if rlcard is not None:
        cases.append(("RLCard uno env.step loop, 2 players", rlcard))
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for name, run in cases:
            steps, rounds, elapsed = run(args.seconds)
            rate = (steps / elapsed, rounds / elapsed)
            if name not in best or rate[0] > best[name][0]:
                best[name] = rate
    print(f"python {platform.python_version()} on {platform.machine()}, one core, best of {args.repeat}")
    print(f"{'case':48} {'steps/s':>10} {'rounds/s':>10}")
    for name, _ in cases:
        steps_s, rounds_s = best[name]
        print(f"{name:48} {steps_s:10,.0f} {rounds_s:10,.1f}")
    if rlcard is None:
        print("RLCard not installed (pip install -e '.[bench]'): no comparison")
    print("command: " + " ".join([".venv/bin/python", "benchmarks/rl.py", *(argv or sys.argv[1:])]))


if __name__ == "__main__":
    main()
