"""Rates and means with 95% intervals, summaries of a run, and differences between runs.

* Proportions (win rates, how often a round ends in a knock-out) get Wilson score
  intervals, which stay inside [0, 1] and behave for rare events and small samples.
* Differences of two proportions from separate samples get Newcombe's hybrid score interval
  (method 10 of Newcombe 1998), built from the two Wilson intervals.
* Means get the normal interval ``mean +- z * sd / sqrt(n)`` (fine for the thousands of
  games a run has); differences between rule sets played on the same seeds are paired,
  game by game, which cancels much of the deal's luck and gives tighter intervals.

Pure Python over columns; a million games summarise in seconds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from nomercy.intervals import Z95, wilson
from nomercy.sim.results import Results

__all__ = [
    "Diff",
    "Mean",
    "Rate",
    "Summary",
    "mean_ci",
    "newcombe_diff",
    "paired_diff",
    "rate",
    "summarize",
    "wilson",
]


@dataclass(frozen=True)
class Rate:
    """``k`` of ``n`` with its Wilson 95% interval."""

    k: int
    n: int
    low: float
    high: float

    @property
    def p(self) -> float:
        return self.k / self.n if self.n else math.nan

    def __str__(self) -> str:
        return f"{self.p:.1%} [{self.low:.1%}, {self.high:.1%}]"


def rate(k: int, n: int) -> Rate:
    return Rate(k, n, *wilson(k, n))


@dataclass(frozen=True)
class Mean:
    """A mean with its normal 95% interval."""

    mean: float
    low: float
    high: float
    sd: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.2f} [{self.low:.2f}, {self.high:.2f}]"


def mean_ci(values: Sequence[float], z: float = Z95) -> Mean:
    n = len(values)
    if n == 0:
        return Mean(math.nan, math.nan, math.nan, math.nan, 0)
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    sd = math.sqrt(var)
    half = z * sd / math.sqrt(n)
    return Mean(mean, mean - half, mean + half, sd, n)


@dataclass(frozen=True)
class Diff:
    """``b - a`` with its 95% interval; ``significant`` when the interval excludes 0."""

    a: float
    b: float
    diff: float
    low: float
    high: float

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        return f"{self.diff:+.3g} [{self.low:+.3g}, {self.high:+.3g}]"


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> Diff:
    """``p2 - p1`` for independent samples, Newcombe's hybrid score interval."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return Diff(p1, p2, d, low, high)


def paired_diff(a: Sequence[float], b: Sequence[float], z: float = Z95) -> Diff:
    """Mean of ``b[i] - a[i]`` over paired games (same seed), with its normal interval."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in size: {len(a)} and {len(b)}")
    m = mean_ci([y - x for x, y in zip(a, b, strict=True)], z)
    n = len(a)
    return Diff(math.fsum(a) / n, math.fsum(b) / n, m.mean, m.low, m.high)


@dataclass
class Summary:
    """What a report shows about one set of games."""

    games: int
    players: list[int]
    labels: list[str]
    bots: list[str]
    win_by_seat: list[Rate]
    win_by_position: list[Rate]
    win_by_bot: dict[str, Rate]
    decisions: Mean
    cards_drawn: Mean
    knockouts: Mean
    knockout_counts: Counter[int]
    any_knockout: Rate
    knockout_causes: Counter[str]
    endings: dict[str, Rate]
    largest_stack: Mean
    largest_stacks: Counter[int]
    catches: Mean
    winner_points: Mean
    points_by_seat: list[Mean]
    points_by_position: list[Mean]


def summarize(results: Results) -> Summary:
    """Every figure of the report, from the columns of ``results``."""
    n = len(results)
    if n == 0:
        raise ValueError("no games to summarise")
    players = results["players"]
    most = max(players)
    seat_games = [sum(1 for p in players if p > seat) for seat in range(most)]
    wins = Counter(results["winner"])
    positions = Counter(results["winner_position"])
    bots_col = results["bots"]
    seats_by_bot: Counter[str] = Counter()
    wins_by_bot: Counter[str] = Counter()
    for names, winner in zip(bots_col, results["winner"], strict=True):
        seats_by_bot.update(names)
        wins_by_bot[names[winner]] += 1
    first_bots = bots_col[0]
    uniform = all(b == first_bots for b in bots_col)
    kos = results["knockouts"]
    causes: Counter[str] = Counter()
    for seats, bys in zip(results["knocked_out"], results["knocked_out_by"], strict=True):
        for seat, by in zip(seats, bys, strict=True):
            causes["self-caused" if by < 0 or by == seat else "by another player"] += 1
    reasons = Counter(results["reason"])
    points = results["points"]
    winner_points = [pts[w] for pts, w in zip(points, results["winner"], strict=True)]
    firsts = results["first_player"]
    by_position: list[list[int]] = [[] for _ in range(most)]
    for pts, first, p in zip(points, firsts, players, strict=True):
        for pos in range(p):
            by_position[pos].append(pts[(first + pos) % p])
    return Summary(
        games=n,
        players=sorted(set(players)),
        labels=sorted(set(results["rules"])),
        bots=list(first_bots) if uniform else [],
        win_by_seat=[rate(wins[s], seat_games[s]) for s in range(most)],
        win_by_position=[rate(positions[s], seat_games[s]) for s in range(most)],
        win_by_bot={name: rate(wins_by_bot[name], seats_by_bot[name]) for name in sorted(seats_by_bot)},
        decisions=mean_ci(results["decisions"]),
        cards_drawn=mean_ci(results["cards_drawn"]),
        knockouts=mean_ci(kos),
        knockout_counts=Counter(kos),
        any_knockout=rate(sum(1 for k in kos if k), n),
        knockout_causes=causes,
        endings={reason: rate(count, n) for reason, count in sorted(reasons.items())},
        largest_stack=mean_ci(results["largest_stack"]),
        largest_stacks=Counter(results["largest_stack"]),
        catches=mean_ci(results["catches"]),
        winner_points=mean_ci(winner_points),
        points_by_seat=[mean_ci([pts[s] for pts in points if len(pts) > s]) for s in range(most)],
        points_by_position=[mean_ci(v) for v in by_position],
    )
