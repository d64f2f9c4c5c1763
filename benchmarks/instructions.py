"""Instructions per decision of random play, counted by valgrind's callgrind.

A count of instructions does not move with the load of a shared machine the way a time
does, so two builds or two commits can be compared on a busy machine. The script plays
``--games`` and then twice as many seeded random games (the loop of ``engine.py``) under
callgrind and divides the difference of the two counts by the difference of the
decisions, which takes the interpreter's start-up and the imports out.

    .venv/bin/python benchmarks/instructions.py [--preset no_mercy] [--players 4] [--games 100]
    .venv-compiled/bin/python benchmarks/instructions.py      # the compiled build

Needs ``valgrind`` (Debian's package). Games differ between commits whose shuffles
differ; per decision, over a hundred games or more, the figure still compares.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def play(preset: str, players: int, games: int) -> int:
    """The fixed workload: ``games`` seeded random games; returns the decisions made."""
    import nomercy

    rules = nomercy.Rules.preset(preset)
    choice = random.Random(0).choice
    decisions = 0
    for seed in range(games):
        state = nomercy.new_game(players, rules, seed)
        while not state.is_over:
            state.apply(choice(state.legal_actions()))
        decisions += state.step
    return decisions


def counted(preset: str, players: int, games: int) -> tuple[int, int]:
    """(decisions, instructions) of one run of the workload under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={Path(tmp) / 'out'}",
             sys.executable, __file__, "--inner", "--preset", preset,
             "--players", str(players), "--games", str(games)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    total = re.search(r"Collected : (\d+)", run.stderr)
    if total is None:
        raise SystemExit(f"callgrind printed no total:\n{run.stderr[-2000:]}")
    return int(run.stdout.split()[-1]), int(total[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="no_mercy")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=100, help="the smaller of the two runs")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(play(args.preset, args.players, args.games))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    from nomercy.cards import COMPILED

    d1, i1 = counted(args.preset, args.players, args.games)
    d2, i2 = counted(args.preset, args.players, 2 * args.games)
    build = "compiled (mypyc)" if COMPILED else "pure Python"
    print(f"{args.preset} {args.players}p, {build}: {(i2 - i1) / (d2 - d1):,.0f} instructions/decision")
    print(f"  ({d1:,} and {d2:,} decisions in {args.games} and {2 * args.games} games)")
    print(f"reproduce: {sys.executable} benchmarks/instructions.py --preset {args.preset} "
          f"--players {args.players} --games {args.games}")  # fmt: skip


if __name__ == "__main__":
    main()
