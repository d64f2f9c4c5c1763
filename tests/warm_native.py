"""Compile the native engine's kernels into numba's disk cache, once, before the tests need them.

Every kernel is ``njit(cache=True)``: the first process to call one compiles it (minutes
for the whole engine on a 2-core machine) and writes the result beside the sources
(``src/nomercy/native/__pycache__``, or ``NUMBA_CACHE_DIR``); every later process loads it
in about a second. ``tests/conftest.py`` runs this script in the background when a test
session starts, and holds the ``native`` tests until it is done, so that the workers of a
parallel run (and the scripts the tests start) load the cache instead of each compiling
the same kernels. Each entry point below is called once on a tiny table through the same
Python wrappers the tests use, so that the signatures compiled are the ones they need.

Run by hand: ``python tests/warm_native.py`` (it prints the seconds it took).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def warm() -> None:
    """Call every native entry point once on a small table."""
    import numpy as np

    from nomercy import Rules, new_game
    from nomercy.bots import make
    from nomercy.native import Batch
    from nomercy.native.check import check_games
    from nomercy.native.heuristic import generator, heuristic_action, heuristic_games, heuristic_reaction
    from nomercy.native.policy import BASE_WEIGHTS, duel_wins
    from nomercy.rl.native_vector import NativeVectorEnv
    from nomercy.sim.runner import RunSpec, run_chunk
    from nomercy.views import player_view

    rules = Rules()
    batch = Batch(rules, 2, 4)
    batch.reset([0, 1])
    batch.random_play(200)
    batch.legal_actions(0)
    batch.step(0, int(np.flatnonzero(batch.legal_mask(0))[0]))
    batch.load(1, batch.state(0))
    heuristic_action(batch, 0)
    current = batch.current(0)
    if current is not None:
        heuristic_reaction(batch, 0, current, generator(1))
    heuristic_games(rules, 3, [1, 2], [[1, 2, 3], [4, 5, 6]])
    duel_wins(rules, 2, BASE_WEIGHTS, BASE_WEIGHTS, [1])
    check_games(rules, 3, range(2))
    state = new_game(2, seed=3)
    seat = state.current
    assert seat is not None
    make("expert", seed=1, budget=8).choose(player_view(state, seat))
    run_chunk(RunSpec(games=2, players=3, seed=1, engine="native"), 0, 2)
    for opponents in ("random", "heuristic"):
        env = NativeVectorEnv(2, 3, rules, opponents=opponents, log_size=16)
        env.reset(seed=1)
        env.step(env.sample_actions())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compile the native kernels into numba's cache.")
    parser.add_argument("--done", type=Path, help="a file to write when finished, whether or not it worked")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    outcome = "failed"
    try:
        warm()
        outcome = "ok"
    finally:
        line = f"native kernels {outcome}: {time.perf_counter() - start:.1f} s to compile or load"
        print(line, flush=True)
        if args.done is not None:
            args.done.write_text(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
