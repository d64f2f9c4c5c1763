"""What hidden information is worth to the expert: its search given the truth, on the same deals.

    nice -n 10 .venv/bin/python benchmarks/expert_ceiling.py [--games 600] [--seed 3] [--workers 2]

Not a timing. The native expert (``policy=tuned``, inference) plays 2-player rounds
against ``--opponent`` (by default the fixed-budget stand-in for today's expert at 5 ms a
decision on this machine: ``infer=false``, 40 playouts of the reference heuristic, the
median it reaches at 5 ms, ``benchmarks/README.md``). Every deal is played twice, once
with each bot in each seat. Four ways to sample the worlds the search plays out:

* ``view``: as the expert does, from its view and what it inferred (the control);
* ``draws``: the opponent's Draw cards as they are, its other cards and the draw pile
  dealt at random from the rest (what it can stack known, nothing else);
* ``hands``: the true hands of every seat, the draw pile shuffled and the seed replaced
  in every world (the opponent's hand known, the future draws not);
* ``all``: the true state itself (every hand and every future draw: a clairvoyant).

The gap between ``view`` and ``hands`` bounds what any inference about the opponent's
hand could add to this search (its candidates, playouts and decision rule unchanged);
the gap up to ``all`` is the luck of the draw pile, which no player can know. Win rates
come with 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import nomercy
from nomercy.bots.expert import ExpertBot
from nomercy.bots.runner import play_round
from nomercy.intervals import wilson
from nomercy.sim.tournament import parse_bots

MODES = ("view", "draws", "hands", "all")
OPPONENT = "expert:native=true:policy=heuristic:infer=false:budget=40"


class _Truth:
    """Worlds from the true state: itself (``all``), its hands with the draw pile shuffled
    and a new seed (``hands``), or only the other seats' Draw cards kept, their other
    cards dealt again from those and the draw pile (``draws``)."""

    def __init__(self, state: nomercy.GameState, mode: str, seat: int) -> None:
        self.state = state  # the round's live state: the runner applies every action to it
        self.mode = mode
        self.seat = seat

    def deal(self, rng: random.Random) -> nomercy.GameState:
        world = self.state.clone()
        if self.mode == "all":
            return world
        if self.mode == "draws":
            pool = [c for c in world.draw_pile if not c.is_draw]
            kept = [c for c in world.draw_pile if c.is_draw]
            for other, hand in enumerate(world.hands):
                if other != self.seat:
                    pool += [c for c in hand if not c.is_draw]
            rng.shuffle(pool)
            for other, hand in enumerate(world.hands):
                if other != self.seat:
                    draws = [c for c in hand if c.is_draw]
                    rest = len(hand) - len(draws)
                    world.hands[other] = draws + pool[:rest]
                    del pool[:rest]
            world.draw_pile = pool + kept
        rng.shuffle(world.draw_pile)
        world.seed = rng.getrandbits(62)
        return world

    def world(self, deal: Any) -> nomercy.GameState:
        raise TypeError("the true state is dealt whole")


class _Seeing(ExpertBot):
    """The expert whose worlds come from the true ``state`` (``mode``)."""

    def __init__(self, state: nomercy.GameState, mode: str, **options: Any) -> None:
        super().__init__(**options)
        self._state = state
        self._mode = mode

    def _sampler(self, view: nomercy.PlayerView) -> Any:
        assert view.seat is not None
        return _Truth(self._state, self._mode, view.seat)


def _games(job: tuple[str, int, int, int, str, int]) -> int:
    """Wins of the expert (``mode``) in games ``first`` to ``first + count - 1``."""
    mode, first, count, seed, opponent, budget = job
    wins = 0
    for g in range(first, first + count):
        state = nomercy.new_game(2, seed=seed * 1_000_000 + g // 2)
        options: dict[str, Any] = {"seed": g, "budget": budget, "native": True}
        me: ExpertBot = ExpertBot(**options) if mode == "view" else _Seeing(state, mode, **options)
        other = parse_bots(opponent)[0].build(g + 1_000_003)
        seat = g % 2
        play_round(state, [me, other] if seat == 0 else [other, me])
        assert state.outcome is not None
        wins += state.outcome.winner == seat
    return wins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per mode (even: each deal twice)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--budget", type=int, default=500, help="the expert's playouts a decision")
    parser.add_argument("--opponent", default=OPPONENT, help="the other seat's bot (tournament syntax)")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2 or args.budget < 1 or args.workers < 1:
        parser.error("--games must be even and at least 2; --budget and --workers at least 1")
    parse_bots(args.opponent)  # a bad spec fails here, not in a worker
    print("expert_ceiling: the expert with its own worlds and with the truth, 2 players, same deals")
    print(f"  opponent: {args.opponent}; expert: native, budget {args.budget}")
    chunk = -(-args.games // (4 * args.workers)) // 2 * 2 or 2
    with ProcessPoolExecutor(args.workers) as pool:
        for mode in args.modes:
            start = time.perf_counter()
            jobs = [
                (mode, first, min(chunk, args.games - first), args.seed, args.opponent, args.budget)
                for first in range(0, args.games, chunk)
            ]
            wins = sum(pool.map(_games, jobs))
            lo, hi = wilson(wins, args.games)
            seconds = time.perf_counter() - start
            print(
                f"  {mode:<6} {wins:>5}/{args.games:<5} {wins / args.games:6.1%}"
                f"  95% CI {lo:6.1%} - {hi:6.1%}  ({seconds:.0f} s)"
            )
    line = " ".join(sys.argv[1:]) if argv is None else " ".join(argv)
    print(f"reproduce: nice -n 10 .venv/bin/python benchmarks/expert_ceiling.py {line}".rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
