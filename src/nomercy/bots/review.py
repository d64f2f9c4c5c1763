"""The expert's review of a finished round, and the coach's hint: win chances per decision.

A round is its record (:class:`~nomercy.record.GameRecord`). The review replays it; every
seat keeps an expert's card memory fed with the events *its* seat saw (redacted as at the
table), so an estimate for a seat's decision uses that seat's view alone: the other hands
and the pile are sampled as the expert samples them (:mod:`nomercy.bots.inference`).

At each turn decision with more than one sensible action, the expert's candidates (the
heuristic's best ``width``) and the action chosen are played out on the same ``worlds``
sampled worlds to the end of the round (:meth:`ExpertBot.estimate`, native playouts when
the compiled extension is built: every wheel, no numpy needed). A candidate's estimate is
the share of its playouts the seat won; its standard error is the playouts' (binomial)
one. The expert's choice is the candidate with the best estimate; the loss is the best
estimate minus the chosen one's, with the standard error of their paired difference (both
met the same worlds, so most of the deal's noise cancels). Out-of-turn actions (catches,
late Uno calls) and forced decisions are replayed but not estimated.

Everything random comes from the review's seed (each decision's worlds from
``derive_seed("review", seed, index)``): the same record, seed and settings give the same
review, whichever seats are reviewed. The JSON form is ``nomercy.review``, version 1
(``docs/review.md``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.actions import Action
from nomercy.bots.expert import ExpertBot
from nomercy.bots.heuristic import score_actions, table_from_view
from nomercy.engine import GameState, new_game
from nomercy.errors import NoMercyError
from nomercy.events import redact
from nomercy.record import GameRecord
from nomercy.seeding import derive_seed
from nomercy.views import player_view

__all__ = [
    "DEFAULT_DEPTH",
    "DEFAULT_WORLDS",
    "REVIEW_FORMAT_VERSION",
    "Estimate",
    "ReviewError",
    "Reviewer",
    "RoundReview",
    "Suggestion",
    "Verdict",
    "review",
    "suggest",
]

REVIEW_FORMAT_VERSION = 1
#: Sampled worlds per decision: every candidate meets each of them.
DEFAULT_WORLDS = 200
#: Playout length in decisions: long enough that almost every playout ends the round, so
#: a value is a win (1) or not (0); a playout cut short scores the expert's hand-size share.
DEFAULT_DEPTH = 400
#: The expert's candidates per decision (its ``width``).
DEFAULT_WIDTH = 5


class ReviewError(ValueError):
    """A record that cannot be reviewed (an illegal action); the message names the action."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """One candidate's estimated chance to win the round, and its standard error."""

    action: Action
    win: float
    stderr: float

    def to_dict(self) -> dict[str, Any]:
        return {"action": str(self.action), "win": _r(self.win), "stderr": _r(self.stderr)}


@dataclass(frozen=True, slots=True)
class Verdict:
    """One reviewed decision. ``estimates`` is empty for a forced decision."""

    index: int  # the action's position in the record
    step: int  # GameState.step before it
    seat: int
    decision: str
    chosen: Action
    best: Action
    estimates: tuple[Estimate, ...] = ()
    loss: float = 0.0
    loss_stderr: float = 0.0

    @property
    def forced(self) -> bool:
        return not self.estimates

    @property
    def win(self) -> float | None:
        """The estimated chance to win after the action chosen (None when forced)."""
        return next((e.win for e in self.estimates if e.action == self.chosen), None)

    @property
    def win_stderr(self) -> float | None:
        return next((e.stderr for e in self.estimates if e.action == self.chosen), None)

    @property
    def best_win(self) -> float | None:
        return next((e.win for e in self.estimates if e.action == self.best), None)

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """An approximate 95% interval of the loss (normal, paired playouts)."""
        return self.loss - z * self.loss_stderr, self.loss + z * self.loss_stderr

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.interval()
        return {
            "index": self.index,
            "step": self.step,
            "seat": self.seat,
            "decision": self.decision,
            "chosen": str(self.chosen),
            "best": str(self.best),
            "forced": self.forced,
            "win": _r(self.win),
            "win_stderr": _r(self.win_stderr),
            "best_win": _r(self.best_win),
            "loss": _r(self.loss),
            "loss_stderr": _r(self.loss_stderr),
            "loss_interval": [_r(lo), _r(hi)],
            "candidates": [e.to_dict() for e in self.estimates],
        }


@dataclass(slots=True)
class RoundReview:
    """A whole round's review: the settings, the outcome and every reviewed decision."""

    players: int
    seed: int
    worlds: int
    depth: int
    native: bool
    winner: int | None
    actions: int
    verdicts: list[Verdict] = field(default_factory=list)

    def seats(self) -> dict[int, dict[str, float | int]]:
        """Per seat: decisions reviewed, estimated ones, their summed loss, and the biggest."""
        out: dict[int, dict[str, float | int]] = {}
        for v in self.verdicts:
            row = out.setdefault(v.seat, {"decisions": 0, "estimated": 0, "total_loss": 0.0, "worst": 0.0})
            row["decisions"] += 1
            if not v.forced:
                row["estimated"] += 1
                row["total_loss"] += v.loss
                row["worst"] = max(row["worst"], v.loss)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "nomercy.review",
            "format_version": REVIEW_FORMAT_VERSION,
            "players": self.players,
            "winner": self.winner,
            "actions": self.actions,
            "settings": {
                "seed": self.seed,
                "worlds": self.worlds,
                "depth": self.depth,
                "native": self.native,
            },
            "seats": [
                {"seat": seat, **{k: _r(v) if isinstance(v, float) else v for k, v in row.items()}}
                for seat, row in sorted(self.seats().items())
            ],
            "decisions": [v.to_dict() for v in self.verdicts],
        }


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The coach's hint: the expert's pick and its estimated chance to win the round."""

    action: Action
    win: float
    stderr: float
    worlds: int


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _stderr(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


class Reviewer:
    """Follows a round action by action, each seat's memory seeing what its seat saw, and
    estimates the decision in front of the deciding seat on request."""

    def __init__(
        self,
        start: GameState,
        seed: int = 0,
        worlds: int = DEFAULT_WORLDS,
        depth: int = DEFAULT_DEPTH,
        width: int = DEFAULT_WIDTH,
        native: bool | None = None,
    ) -> None:
        if worlds < 2:
            raise ValueError(f"worlds is the number of sampled worlds per decision (>= 2), got {worlds!r}")
        self.state = start.clone()
        self.seed = int(seed)
        self.worlds = int(worlds)
        self.experts = [
            ExpertBot(
                seed=derive_seed("review-seat", self.seed, seat), depth=depth, width=width, native=native
            )
            for seat in range(start.players)
        ]
        for seat, expert in enumerate(self.experts):
            expert.memory.sync(player_view(self.state, seat))  # follow the round from its deal
        self.applied = 0

    @property
    def native(self) -> bool:
        return self.experts[0].native

    def apply(self, action: Action, seat: int) -> None:
        """Apply the next action of the round; every seat's memory observes its events."""
        try:
            events = self.state.apply(action, seat)
        except NoMercyError as exc:
            raise ReviewError(f"action {self.applied} ({action} by P{seat}) is illegal: {exc}") from None
        for other, expert in enumerate(self.experts):
            expert.observe(redact(events, other))
        self.applied += 1

    def candidates(self, seat: int) -> list[Action]:
        """The expert's candidates for ``seat`` now: the heuristic's best ``width``."""
        view = player_view(self.state, seat)
        ranked = score_actions(table_from_view(view), view.legal_actions)
        return [a for _, a in ranked[: self.experts[seat].width]]

    def judge(self, chosen: Action | None = None) -> Verdict | None:
        """The deciding seat's decision now, with ``chosen`` (default: the expert's pick)
        among the estimated candidates; None when the round is over."""
        seat = self.state.current
        if seat is None:
            return None
        view = player_view(self.state, seat)
        candidates = self.candidates(seat)
        if chosen is not None and chosen not in candidates:
            candidates.append(chosen)
        decision = self.state.decision.label
        if len(candidates) == 1:
            only = candidates[0]
            return Verdict(self.applied, self.state.step, seat, decision, chosen or only, only)
        rng = random.Random(derive_seed("review", self.seed, self.applied))
        values = self.experts[seat].estimate(view, candidates, self.worlds, rng)
        estimates = tuple(
            Estimate(a, sum(v) / len(v), _stderr(v)) for a, v in zip(candidates, values, strict=True)
        )
        b = max(range(len(candidates)), key=lambda i: (estimates[i].win, -i))
        c = candidates.index(chosen) if chosen is not None else b
        diffs = [x - y for x, y in zip(values[b], values[c], strict=True)]
        return Verdict(
            self.applied,
            self.state.step,
            seat,
            decision,
            candidates[c],
            candidates[b],
            estimates,
            sum(diffs) / len(diffs),
            _stderr(diffs),
        )


def review(
    record: GameRecord,
    seed: int = 0,
    seats: Sequence[int] | None = None,
    worlds: int = DEFAULT_WORLDS,
    depth: int = DEFAULT_DEPTH,
    native: bool | None = None,
    start: GameState | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RoundReview:
    """Review every turn decision of ``record`` (of ``seats`` only, when given).

    ``start`` replaces the record's deal (a round from a hand-built state); illegal
    actions raise :class:`ReviewError` naming the first one. ``progress(done, total)`` is
    called after each action (a server reports how far a review has come)."""
    state = (
        start.clone()
        if start is not None
        else new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)
    )
    reviewer = Reviewer(state, seed, worlds, depth, native=native)
    wanted = set(range(state.players) if seats is None else seats)
    verdicts: list[Verdict] = []
    for seat, action in record.actions:
        s = reviewer.state
        if s.current == seat and not action.out_of_turn and seat in wanted:
            if action not in s.legal_actions(seat):
                raise ReviewError(f"action {reviewer.applied} ({action} by P{seat}) is not legal now")
            verdict = reviewer.judge(action)
            assert verdict is not None
            verdicts.append(verdict)
        reviewer.apply(action, seat)
        if progress is not None:
            progress(reviewer.applied, len(record.actions))
    outcome = reviewer.state.outcome
    return RoundReview(
        state.players,
        int(seed),
        int(worlds),
        int(depth),
        reviewer.native,
        outcome.winner if outcome is not None else None,
        len(record.actions),
        verdicts,
    )


def suggest(
    start: GameState,
    actions: Sequence[tuple[int, Action]],
    seed: int = 0,
    worlds: int = DEFAULT_WORLDS,
    depth: int = DEFAULT_DEPTH,
    native: bool | None = None,
) -> Suggestion | None:
    """The coach: replay ``actions`` from ``start`` and estimate the decision now for the
    deciding seat (from its view only); None when the round is over."""
    reviewer = Reviewer(start, seed, worlds, depth, native=native)
    for seat, action in actions:
        reviewer.apply(action, seat)
    verdict = reviewer.judge()
    if verdict is None:
        return None
    win = verdict.best_win
    if win is None:  # one sensible action: estimate it alone
        seat = verdict.seat
        rng = random.Random(derive_seed("review", seed, reviewer.applied))
        view = player_view(reviewer.state, seat)
        values = reviewer.experts[seat].estimate(view, [verdict.best], worlds, rng)[0]
        return Suggestion(verdict.best, sum(values) / len(values), _stderr(values), worlds)
    best = next(e for e in verdict.estimates if e.action == verdict.best)
    return Suggestion(verdict.best, best.win, best.stderr, worlds)
