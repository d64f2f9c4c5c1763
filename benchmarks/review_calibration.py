"""Are the review's win chances honest? A reliability table over self-play positions.

    nice -n 10 .venv/bin/python benchmarks/review_calibration.py [--rounds 400] [--json out.json]

Rounds of ``--bots`` self-play (heuristic by default; 2, 3 and 4 players in turn, the
``no_mercy`` rules) are recorded; in each, up to ``--per-round`` decisions with a choice
are drawn at random. At each, the review's estimate is computed exactly as
``nomercy review`` computes its "win" column: the deciding seat's chance to win the round
after the action it chose, from that seat's view alone (:mod:`nomercy.bots.review`,
``--worlds`` sampled worlds, playouts to the end of the round). The round's result says
whether the seat won.

The positions are put in bins of predicted chance (tenths); for each bin the table gives
the positions, the mean prediction, the share that won and its 95% Wilson interval. A
calibrated estimate has the observed share close to the mean prediction in every bin (the
interval should hold it). Also printed: the Brier score of the predictions, that of the
base rate (always predicting the seat count's fair share), and the expected calibration
error (the positions' weighted mean gap between prediction and observation).

Positions drawn from one round share its result, so the intervals (which assume
independent positions) are somewhat narrower than they should be; ``--per-round`` keeps
that small. Bounded: a few minutes on one core with the native engine (its kernels must be
in numba's cache: a first run compiles them), much longer with ``--python``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from typing import Any

import nomercy
from nomercy.bots import make
from nomercy.bots.expert import native_available
from nomercy.bots.review import DEFAULT_DEPTH, DEFAULT_WORLDS, Reviewer
from nomercy.bots.runner import play_round
from nomercy.intervals import wilson
from nomercy.record import GameRecord
from nomercy.seeding import derive_seed
from nomercy.views import player_view

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata

BINS = 10


def positions(
    rounds: int, per_round: int, worlds: int, seed: int, bots: str, native: bool | None
) -> list[tuple[float, bool, int]]:
    """``(predicted, won, players)`` for every drawn position."""
    out: list[tuple[float, bool, int]] = []
    for game in range(rounds):
        players = (2, 3, 4)[game % 3]
        record, state = GameRecord.start(players, seed=derive_seed("calibration", seed, game))
        table = [make(bots, seed=derive_seed("calibration-bot", seed, game, s)) for s in range(players)]

        def apply(
            action: nomercy.Action,
            seat: int,
            record: GameRecord = record,
            state: nomercy.GameState = state,
        ) -> Any:
            record.add(seat, action)
            return state.apply(action, seat)

        play_round(state, table, apply=apply)
        assert state.outcome is not None
        winner = state.outcome.winner
        reviewer = Reviewer(
            nomercy.new_game(players, record.rules, record.seed, record.dealer),
            seed=derive_seed("calibration-review", seed, game),
            worlds=worlds,
            native=native,
        )
        # Which decisions with a choice to estimate: drawn before the round is replayed.
        choices = []
        probe = nomercy.new_game(players, record.rules, record.seed, record.dealer)
        for i, (seat, action) in enumerate(record.actions):
            if probe.current == seat and not action.out_of_turn and len(_candidates(probe, seat)) > 1:
                choices.append(i)
            probe.apply(action, seat)
        picked = set(random.Random(derive_seed("calibration-pick", seed, game)).sample(
            choices, min(per_round, len(choices))
        ))  # fmt: skip
        for i, (seat, action) in enumerate(record.actions):
            if i in picked:
                view = player_view(reviewer.state, seat)
                rng = random.Random(derive_seed("review", reviewer.seed, i))
                values = reviewer.experts[seat].estimate(view, [action], worlds, rng)[0]
                out.append((sum(values) / len(values), seat == winner, players))
            reviewer.apply(action, seat)
    return out


def _candidates(state: nomercy.GameState, seat: int) -> list[nomercy.Action]:
    from nomercy.bots.heuristic import score_actions, table_from_view

    view = player_view(state, seat)
    return [a for _, a in score_actions(table_from_view(view), view.legal_actions)]


def table(found: list[tuple[float, bool, int]]) -> dict[str, Any]:
    """The reliability table, the Brier scores and the calibration error."""
    rows = []
    for b in range(BINS):
        lo, hi = b / BINS, (b + 1) / BINS
        inside = [(p, w) for p, w, _ in found if lo <= p < hi or (b == BINS - 1 and p == 1.0)]
        if not inside:
            continue
        won = sum(w for _, w in inside)
        low, high = wilson(won, len(inside))
        rows.append(
            {
                "bin": [lo, hi],
                "positions": len(inside),
                "predicted": sum(p for p, _ in inside) / len(inside),
                "observed": won / len(inside),
                "ci95": [low, high],
                "inside": low <= sum(p for p, _ in inside) / len(inside) <= high,
            }
        )
    n = len(found)
    brier = sum((p - w) ** 2 for p, w, _ in found) / n
    base = sum((1 / players - w) ** 2 for _, w, players in found) / n
    ece = sum(r["positions"] * abs(r["predicted"] - r["observed"]) for r in rows) / n
    return {"rows": rows, "positions": n, "brier": brier, "brier_base_rate": base, "ece": ece}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=1500, help="self-play rounds (2, 3, 4 players in turn)")
    parser.add_argument("--per-round", type=int, default=5, help="positions drawn per round")
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS, help="sampled worlds per estimate")
    parser.add_argument("--bots", default="heuristic", help="the self-play bots")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--python", action="store_true", help="Python playouts even with the fast extra")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.per_round < 1 or args.worlds < 2:
        parser.error("--rounds and --per-round must be >= 1, --worlds >= 2")
    print(f"nomercy {nomercy.__version__}, Python {platform.python_version()}, {platform.machine()}")
    start = time.perf_counter()
    native = False if args.python else None
    found = positions(args.rounds, args.per_round, args.worlds, args.seed, args.bots, native)
    seconds = time.perf_counter() - start
    result = table(found)
    print(
        f"{result['positions']} positions of {args.rounds} {args.bots} self-play rounds, "
        f"{args.worlds} worlds each"
    )
    print(f"{'predicted':>11} {'positions':>9} {'mean pred':>9} {'observed':>8}  95% Wilson")
    for r in result["rows"]:
        lo, hi = r["bin"]
        low, high = r["ci95"]
        mark = "" if r["inside"] else "  (outside)"
        print(
            f"{lo:>4.0%} - {hi:<4.0%} {r['positions']:>9} {r['predicted']:>9.1%} {r['observed']:>8.1%}"
            f"  {low:.1%} - {high:.1%}{mark}"
        )
    print(
        f"Brier score {result['brier']:.4f} (base rate {result['brier_base_rate']:.4f}), "
        f"ECE {result['ece']:.3f}"
    )
    print(f"{seconds:.0f} s; reproduce: {' '.join(['python', *sys.argv])}")
    if args.json:
        out = {
            **result,
            "rounds": args.rounds,
            "per_round": args.per_round,
            "worlds": args.worlds,
            "depth": DEFAULT_DEPTH,
            "bots": args.bots,
            "native": not args.python and native_available(),
            "seconds": round(seconds),
            "machine": metadata(),
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
