"""The questions of ``docs/findings.md`` answered with four heuristic players, plus two more.

1. First-player advantage, 2. knock-outs and how rounds end, 3-5. three house rules
(``stack_color=match``, ``draw10_stackable=false``, ``knockout_bonus_to=knocker``) against
the ``no_mercy`` preset, paired by game; 6. facing a stack, is stacking better than taking
(playouts of sampled positions, both ways); 7. which cards of an opening hand raise the
chance to win.

Games are dealt and the bots seeded as ``nomercy simulate`` deals and seeds them (game
``i`` from ``game_seed(seed, i)``, the bot in seat ``k`` from ``bot_seed(game seed, k)``),
and played by the native heuristic (``nomercy.native.heuristic``, the ``fast`` extra),
which plays exactly the games ``HeuristicBot`` plays: the figures of questions 1-5 are
those of ``nomercy compare ... --bots heuristic`` on the same seed. Rates carry Wilson 95%
intervals, rule-set differences the paired normal interval, differences between two
groups of seats Newcombe's. It prints markdown tables and the command that made them.

    .venv/bin/python benchmarks/findings.py [--games 100000] [--seed 2026]
        [--positions 10000] [--playouts 16]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy import GameState, Rules, new_game
from nomercy.actions import Play, Take
from nomercy.bots.heuristic import HeuristicBot, score_actions, table_from_state
from nomercy.bots.runner import step
from nomercy.cards import Face
from nomercy.native import Batch
from nomercy.native.heuristic import GAME_COLUMNS, heuristic_games, heuristic_playouts
from nomercy.seeding import derive_seed
from nomercy.sim.runner import bot_seed, game_seed
from nomercy.sim.stats import mean_ci, newcombe_diff, paired_diff, rate
from nomercy.state import Decision

PLAYERS = 4
VARIANTS = ("stack_color=match", "draw10_stackable=false", "knockout_bonus_to=knocker")
Column = npt.NDArray[np.int64]


@dataclass
class Games:
    """The per-game columns of one rule set's run."""

    label: str
    cols: dict[str, Column]

    def __getitem__(self, name: str) -> Column:
        return self.cols[name]

    @property
    def n(self) -> int:
        return len(self.cols["winner"])


def play(label: str, rules: Rules, seeds: Sequence[int], bots: Sequence[Sequence[int]]) -> Games:
    """Every game natively, in chunks (the rows of ``nomercy simulate --bots heuristic``)."""
    parts = []
    for start in range(0, len(seeds), 20_000):
        stop = start + 20_000
        parts.append(heuristic_games(rules, PLAYERS, seeds[start:stop], bots[start:stop]).table)
    table = np.concatenate(parts)
    cols = {name: table[:, i] for i, name in enumerate(GAME_COLUMNS)}
    cols["position"] = (cols["winner"] - cols["first_player"]) % PLAYERS
    cols["winner_points"] = table[np.arange(len(table)), GAME_COLUMNS.index("points_0") + cols["winner"]]
    cols["other_points"] = sum(cols[f"points_{k}"] for k in range(PLAYERS)) - cols["winner_points"]
    return Games(label, cols)


def pp(x: float) -> str:
    return f"{100 * x:+.2f}"


def share(values: npt.NDArray[np.float64]) -> str:
    """A mean of per-position rates with its normal interval, in percent."""
    m = mean_ci(values.tolist())
    return f"{m.mean:.1%} [{m.low:.1%}, {m.high:.1%}]"


def q1(g: Games) -> None:
    print("## 1. First-player advantage (4 heuristic players)\n")
    print("| turn position | win rate [95% CI] | seat | win rate [95% CI] |\n|---|---|---|---|")
    names = ("1st to play", "2nd", "3rd", "4th")
    for k in range(PLAYERS):
        by_pos = rate(int((g["position"] == k).sum()), g.n)
        by_seat = rate(int((g["winner"] == k).sum()), g.n)
        print(f"| {names[k]} | {by_pos} | P{k} | {by_seat} |")
    means = []
    for k in range(PLAYERS):
        seat = (g["first_player"] + k) % PLAYERS
        pts = g.cols["points_0"].copy()
        for s in range(PLAYERS):
            pts[seat == s] = g[f"points_{s}"][seat == s]
        means.append(mean_ci(pts.tolist()))
    print(
        "\nmean round points by turn position: "
        + ", ".join(f"{m.mean:.1f} (±{m.high - m.mean:.1f})" for m in means)
    )
    print()


def q2(g: Games) -> None:
    print("## 2. Knock-outs and how rounds end (no_mercy, 4 heuristic players)\n")
    kos = g["knockouts"]
    caused = self_caused = 0
    for k in range(PLAYERS):
        used = kos > k
        seat, by = g[f"knocked_out_{k}"][used], g[f"knocked_out_by_{k}"][used]
        mine = (by < 0) | (by == seat)
        self_caused += int(mine.sum())
        caused += int((~mine).sum())
    total = caused + self_caused
    stack = g["largest_stack"]
    rows = [
        ("rounds with at least one knock-out (M1)", str(rate(int((kos > 0).sum()), g.n))),
        ("knock-outs per round", str(mean_ci(kos.tolist()))),
        ("rounds ended last standing (M4)", str(rate(int((g["reason"] == 1).sum()), g.n))),
        ("rounds ended by a played-out hand (E1)", str(rate(int((g["reason"] == 0).sum()), g.n))),
        ("knock-outs caused by another player", f"{caused / total:.1%} ({caused:,} of {total:,})"),
        ("knock-outs self-caused", f"{self_caused / total:.1%} ({self_caused:,})"),
        (
            "largest stack per round, mean",
            f"{mean_ci(stack.tolist())} (median {int(np.median(stack))}, max {int(stack.max())})",
        ),
        ("rounds in which a stack reached 25+", str(rate(int((stack >= 25).sum()), g.n))),
        (
            "decisions per round",
            f"{mean_ci(g['decisions'].tolist())} (median {int(np.median(g['decisions']))}, "
            f"10th-90th percentile {int(np.percentile(g['decisions'], 10))}-"
            f"{int(np.percentile(g['decisions'], 90))})",
        ),
        ("cards drawn per round", str(mean_ci(g["cards_drawn"].tolist()))),
        ("catches per round", str(mean_ci(g["catches"].tolist()))),
    ]
    print("| measure | value [95% CI] |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    shares = ", ".join(f"{k} in {(kos == k).mean():.1%}" for k in range(PLAYERS))
    print(f"\nknock-outs per round: {shares} of rounds\n")


METRICS: tuple[tuple[str, Callable[[Games], npt.NDArray[Any]], bool], ...] = (
    ("first player wins", lambda g: g["position"] == 0, True),
    ("knock-outs per round", lambda g: g["knockouts"], False),
    ("rounds with a knock-out", lambda g: g["knockouts"] > 0, True),
    ("rounds ended last standing", lambda g: g["reason"] == 1, True),
    ("decisions per round", lambda g: g["decisions"], False),
    ("cards drawn per round", lambda g: g["cards_drawn"], False),
    ("largest stack", lambda g: g["largest_stack"], False),
    ("a stack reached 25+", lambda g: g["largest_stack"] >= 25, True),
    ("the round's winner's points", lambda g: g["winner_points"], False),
    ("points to all non-winners", lambda g: g["other_points"], False),
)


def compare(base: Games, other: Games) -> None:
    print(f"## {other.label} against no_mercy (4 heuristic players, paired by game)\n")
    print(f"| metric | no_mercy | {other.label} | difference [95% CI] |\n|---|---|---|---|")
    for name, value, proportion in METRICS:
        a = value(base).astype(float).tolist()
        b = value(other).astype(float).tolist()
        d = paired_diff(a, b)
        mark = " *" if d.significant else ""
        if proportion:
            shown = f"{pp(d.diff)} pp [{pp(d.low)}, {pp(d.high)}]"
            print(f"| {name} | {d.a:.1%} | {d.b:.1%} | {shown}{mark} |")
        else:
            print(f"| {name} | {d.a:.2f} | {d.b:.2f} | {d.diff:+.2f} [{d.low:+.2f}, {d.high:+.2f}]{mark} |")
    same = int((base["decisions"] == other["decisions"]).sum())
    print(f"\ngames with the same number of decisions under both: {same:,} of {base.n:,}\n")


def opening_hands(rules: Rules, seeds: Sequence[int], g: Games) -> None:
    """Q7: win rate of seats dealt at least one card of a face against seats dealt none."""
    faces = sorted({card.face for card in new_game(PLAYERS, rules, seeds[0]).draw_pile} | {Face.ZERO})
    held = np.zeros((len(seeds), PLAYERS, max(faces) + 1), np.int8)
    for i, seed in enumerate(seeds):
        for seat, hand in enumerate(new_game(PLAYERS, rules, seed).hands):
            for card in hand:
                held[i, seat, card.face] += 1
    won = g["winner"][:, None] == np.arange(PLAYERS)[None, :]
    print("## 7. Cards in the opening hand (no_mercy, 4 heuristic players, seats of every game)\n")
    print(
        "| face | seats dealt 1+ | win rate, 1+ [95% CI] | win rate, none [95% CI] "
        "| 1+ - none [95% CI] |\n|---|---|---|---|---|"
    )
    rows = []
    for face in faces:
        has = held[:, :, face] > 0
        k1, n1 = int(won[has].sum()), int(has.sum())
        k0, n0 = int(won[~has].sum()), int((~has).sum())
        if n1 == 0 or n0 == 0:
            continue
        d = newcombe_diff(k0, n0, k1, n1)
        rows.append((d.diff, face, n1, rate(k1, n1), rate(k0, n0), d))
    for _, face, n1, r1, r0, d in sorted(rows, key=lambda r: -r[0]):
        mark = " *" if d.significant else ""
        name = face.name.replace("_", " ").title()
        dealt = n1 / (len(seeds) * PLAYERS)
        print(f"| {name} | {dealt:.1%} | {r1} | {r0} | {pp(d.diff)} pp [{pp(d.low)}, {pp(d.high)}]{mark} |")
    print()


@dataclass
class Position:
    """A sampled position: ``seat`` faces ``pending`` with ``hand`` cards, may stack or take."""

    game: int
    state: GameState
    seat: int
    pending: int
    hand: int
    stack: Play
    heuristic_stacks: bool


def sample_positions(rules: Rules, seed: int, count: int) -> tuple[list[Position], int]:
    """One position per game (the first ``count`` games that have one, uniformly among its
    candidates): a seat to decide, facing a stack it can both stack on and take, no seat
    open to a catch. Played by Python ``HeuristicBot`` s, the same games as the run's."""
    out: list[Position] = []
    games = 0
    while len(out) < count:
        index = games
        games += 1
        gs = game_seed(seed, index)
        state = new_game(PLAYERS, rules, gs)
        bots = [HeuristicBot(seed=bot_seed(gs, k)) for k in range(PLAYERS)]
        pick = random.Random(derive_seed("findings-pick", seed, index))
        chosen: Position | None = None
        seen = 0
        while state.outcome is None:
            seat = state.current
            if seat is not None and state.decision is Decision.STACK and not state.uno_open:
                legal = state.legal_actions()
                plays = [a for a in legal if type(a) is Play]
                if plays and any(type(a) is Take for a in legal):
                    seen += 1
                    if pick.random() * seen < 1:  # reservoir sampling: uniform over candidates
                        scored = score_actions(table_from_state(state), legal)
                        stack = next(a for _, a in scored if type(a) is Play)
                        assert isinstance(stack, Play)
                        chosen = Position(
                            index,
                            state.clone(),
                            seat,
                            state.pending_total,
                            len(state.hands[seat]),
                            stack,
                            type(scored[0][1]) is Play,
                        )
            step(state, bots)
        if chosen is not None:
            out.append(chosen)
    return out, games


def playouts(rules: Rules, seed: int, positions: list[Position], k: int) -> tuple[np.ndarray, np.ndarray]:
    """``wins[p, c, j]`` and ``kos[p, c, j]`` of the seat at position ``p`` after choice
    ``c`` (0 stack, 1 take) in continuation ``j``: each continuation reshuffles the draw
    pile and reseeds the bots, the same for both choices (paired)."""
    wins = np.zeros((len(positions), 2, k), np.int8)
    kos = np.zeros((len(positions), 2, k), np.int8)
    batch = Batch(rules, 1, PLAYERS)
    for first in range(0, len(positions), 100):  # a hundred positions at a time: bounded memory
        jobs: list[tuple[int, int, int, GameState, list[int]]] = []
        for p in range(first, min(first + 100, len(positions))):
            pos = positions[p]
            for j in range(k):
                shuffle = random.Random(derive_seed("findings-shuffle", seed, pos.game, j))
                base = pos.state.clone()
                shuffle.shuffle(base.draw_pile)
                bots = [derive_seed("findings-bot", seed, pos.game, j, s) for s in range(PLAYERS)]
                for c, action in enumerate((pos.stack, Take())):
                    state = base.clone()
                    state.apply(action)
                    if state.outcome is not None:
                        wins[p, c, j] = state.outcome.winner == pos.seat
                        kos[p, c, j] = any(x.seat == pos.seat for x in state.outcome.knocked_out)
                    else:
                        assert not state.uno_open, "a forced action left a seat open to a catch"
                        jobs.append((p, c, j, state, bots))
        if not jobs:
            continue
        if len(batch) != len(jobs):
            batch = Batch(rules, len(jobs), PLAYERS)
        for t, (*_, state, _) in enumerate(jobs):
            batch.load(t, state)
        result = heuristic_playouts(batch, [bots for *_, bots in jobs])
        winner = result.column("winner")
        out = np.stack([result.column(f"knocked_out_{i}") for i in range(PLAYERS)], axis=1)
        for t, (p, c, j, _, _) in enumerate(jobs):
            wins[p, c, j] = winner[t] == positions[p].seat
            kos[p, c, j] = positions[p].seat in out[t]
    return wins, kos


def stack_or_take(rules: Rules, seed: int, count: int, k: int) -> None:
    positions, games = sample_positions(rules, seed, count)
    wins, kos = playouts(rules, seed, positions, k)
    limit = rules.mercy_limit or 10**6
    print("## 6. Facing a stack: stack or take? (no_mercy, 4 heuristic players)\n")
    print(
        f"{len(positions):,} positions (one per game, from the first {games:,} games of the run), "
        f"{k} playouts of each choice per position ({len(positions) * k * 2:,} in all)\n"
    )
    print(
        "| positions | n | heuristic stacks | seat wins, stack | seat wins, take | stack - take [95% CI] "
        "| knocked out, stack | knocked out, take | knocked out, stack - take [95% CI] |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    win_s, win_t = wins[:, 0].mean(axis=1), wins[:, 1].mean(axis=1)
    ko_s, ko_t = kos[:, 0].mean(axis=1), kos[:, 1].mean(axis=1)
    pend = np.array([p.pending for p in positions])
    hand = np.array([p.hand for p in positions])
    chose = np.array([p.heuristic_stacks for p in positions])
    fatal = hand + pend >= limit

    def row(name: str, sel: npt.NDArray[np.bool_]) -> None:
        n = int(sel.sum())
        if n < 2:
            return
        d = paired_diff(win_t[sel].tolist(), win_s[sel].tolist())
        mark = " *" if d.significant else ""
        ko = paired_diff(ko_t[sel].tolist(), ko_s[sel].tolist())
        print(
            f"| {name} | {n} | {chose[sel].mean():.0%} | {share(win_s[sel])} | {share(win_t[sel])} "
            f"| {pp(d.diff)} pp [{pp(d.low)}, {pp(d.high)}]{mark} | {ko_s[sel].mean():.1%} "
            f"| {ko_t[sel].mean():.1%} | {pp(ko.diff)} pp [{pp(ko.low)}, {pp(ko.high)}] |"
        )

    row("all", np.ones(len(positions), bool))
    row(f"taking knocks the seat out (hand + pending >= {limit})", fatal)
    safe = ~fatal
    row("taking is survivable", safe)
    row("survivable, the heuristic takes", safe & ~chose)
    row("survivable, the heuristic stacks", safe & chose)
    for lo, hi in ((2, 4), (5, 8), (9, 14), (15, 10**6)):
        label = f"{lo}+" if hi > 1000 else f"{lo}-{hi}"
        row(f"survivable, pending {label}", safe & (pend >= lo) & (pend <= hi))
    for lo, hi in ((1, 4), (5, 9), (10, 14), (15, 10**6)):
        label = f"{lo}+" if hi > 1000 else f"{lo}-{hi}"
        row(f"survivable, hand {label}", safe & (hand >= lo) & (hand <= hi))
    print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per rule set")
    parser.add_argument("--seed", type=int, default=2026, help="the run seed")
    parser.add_argument("--positions", type=int, default=10_000, help="stack-or-take positions to play out")
    parser.add_argument("--playouts", type=int, default=16, help="playouts per position and choice")
    args = parser.parse_args(argv)
    for name in ("games", "positions", "playouts"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1")
    if args.seed < 0:
        parser.error("--seed must be >= 0")
    cpu = time.process_time()
    base_rules = Rules()
    seeds = [game_seed(args.seed, i) for i in range(args.games)]
    bots = [[bot_seed(s, k) for k in range(PLAYERS)] for s in seeds]
    base = play("no_mercy", base_rules, seeds, bots)
    print(f"# Findings with 4 heuristic players: {args.games:,} games per rule set, run seed {args.seed}\n")
    q1(base)
    q2(base)
    for variant in VARIANTS:
        compare(base, play(variant, base_rules.with_overrides([variant]), seeds, bots))
    played = time.process_time() - cpu
    stack_or_take(base_rules, args.seed, args.positions, args.playouts)
    opening_hands(base_rules, seeds, base)
    total = time.process_time() - cpu
    print(f"CPU time: {total:.1f} s ({played:.1f} s for the {4 * args.games:,} games of questions 1-5)")
    command = [sys.argv[0] if argv is None else "benchmarks/findings.py"]
    command += ["--games", str(args.games), "--seed", str(args.seed)]
    command += ["--positions", str(args.positions), "--playouts", str(args.playouts)]
    print("reproduce: python " + " ".join(command))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
