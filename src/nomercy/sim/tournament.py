"""Tournaments: many games between bots, with seat rotation, in parallel, reproducibly.

Game ``g`` of a run is the deal ``g // players`` (its seed derived from the run's seed
and that number) with the bots rotated ``g % players`` seats, so in every block of
``players`` games each bot plays the same deal from every seat (duplicate play: luck of
the deal cancels out, and every bot plays every seat equally when ``games`` is a
multiple of ``players``). Every bot's seed is derived from ``(seed, game, entry)``
(:func:`nomercy.seeding.derive_seed`).
Games are played by the loop every driver shares (:mod:`nomercy.bots.runner`) on the
simulator's backends (:mod:`nomercy.sim.backends`: this process, worker processes or
Ray) and their results are combined in game order, so the figures depend on the seed
only, never on the backend or the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.actions import Action
from nomercy.bots import Bot, available, make
from nomercy.bots.runner import play_round
from nomercy.engine import new_game
from nomercy.events import Event
from nomercy.intervals import wilson
from nomercy.match import Match
from nomercy.rules import Rules
from nomercy.seeding import derive_seed
from nomercy.sim.backends import Backend, default_workers, execute, make_backend
from nomercy.state import Outcome

__all__ = [
    "BotSpec",
    "EntryStats",
    "GameResult",
    "TournamentResult",
    "TournamentSpec",
    "default_workers",
    "parse_bots",
    "play_game",
    "run_tournament",
    "seat_of",
    "wilson",
]


@dataclass(frozen=True)
class BotSpec:
    """A bot by name with its options: ``expert:budget=200:ms=50`` on the command line."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ":".join(f"{k}={v}" for k, v in self.options)

    def build(self, seed: int) -> Bot:
        return make(self.name, seed=seed, **dict(self.options))


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def parse_bots(text: str | Sequence[str]) -> list[BotSpec]:
    """``"expert,heuristic*3"`` -> four specs; ``name:key=value`` sets an option."""
    items = text.split(",") if isinstance(text, str) else list(text)
    known = available()
    specs: list[BotSpec] = []
    for item in items:
        item = item.strip()
        if not item:
            continue
        count = 1
        if "*" in item:
            item, _, times = item.rpartition("*")
            if not times.isdigit() or int(times) < 1:
                raise ValueError(f"{item}*{times}: a repeat count is a whole number >= 1")
            count = int(times)
        name, *opts = item.split(":")
        name = name.strip().lower()
        if name not in known:
            raise ValueError(f"unknown bot {name!r}: choose from {', '.join(known)}")
        options: list[tuple[str, Any]] = []
        for opt in opts:
            key, eq, val = opt.partition("=")
            if not eq or not key:
                raise ValueError(f"bot option {opt!r} must be key=value (e.g. expert:budget=200)")
            if key == "seed":
                raise ValueError("bot seeds come from the tournament's --seed")
            options.append((key.strip(), _value(val.strip())))
        specs.extend([BotSpec(name, tuple(options))] * count)
    if not specs:
        raise ValueError("name at least one bot, e.g. --bots heuristic,random")
    return specs


def seat_of(entry: int, game: int, players: int) -> int:
    """The seat of entry ``entry`` in game ``game``: rotated one seat per game."""
    return (entry + game) % players


def deal_seed(seed: int, game: int, players: int) -> int:
    """The deal of game ``game``: shared by the ``players`` rotations of one block."""
    return derive_seed("tournament", seed, game // players)


def bot_seed(seed: int, game: int, entry: int) -> int:
    """The seed of entry ``entry``'s bot in game ``game``."""
    return derive_seed("tournament-bot", seed, game, entry)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game (or match), per entry (not per seat)."""

    index: int
    winner: int
    points: tuple[int, ...]
    caused: tuple[int, ...]
    suffered: tuple[int, ...]
    decisions: tuple[int, ...]
    rounds: int


@dataclass(frozen=True)
class TournamentSpec:
    """What to play: a :class:`~nomercy.sim.backends.Job` of ``games`` games (or matches)."""

    specs: tuple[BotSpec, ...]
    players: int
    seed: int
    rules: Rules
    match: bool
    games: int

    def play_chunk(self, start: int, stop: int) -> list[GameResult]:
        """Games ``start`` to ``stop``, in order."""
        return [play_game(self, index) for index in range(start, stop)]


def play_game(config: TournamentSpec, index: int) -> GameResult:
    """Play game (or match) ``index`` of the run described by ``config``."""
    n = config.players
    entries = len(config.specs)
    seats = [seat_of(e, index, n) for e in range(entries)]
    entry_at = {seat: e for e, seat in enumerate(seats)}
    bots = [
        config.specs[entry_at[seat]].build(bot_seed(config.seed, index, entry_at[seat])) for seat in range(n)
    ]
    points = [0] * n
    caused = [0] * n
    suffered = [0] * n
    decisions = [0] * n

    def listen(seat: int, action: Action, events: list[Event]) -> None:
        if not action.out_of_turn:
            decisions[seat] += 1

    seed = deal_seed(config.seed, index, n)
    rounds = 0
    if config.match:
        match = Match(n, config.rules, seed=seed, dealer=(index // n) % n)
        while True:
            # Every action goes through match.apply, which scores the round as it ends.
            state = play_round(match.state, bots, listen, apply=match.apply)
            outcome = state.outcome
            assert outcome is not None
            rounds += 1
            _tally(outcome, points, caused, suffered)
            if match.is_over:
                break
            match.next_round()
        winner = match.winner
        assert winner is not None
    else:
        state = play_round(new_game(n, config.rules, seed, dealer=(index // n) % n), bots, listen)
        outcome = state.outcome
        assert outcome is not None
        rounds = 1
        _tally(outcome, points, caused, suffered)
        winner = outcome.winner
    per = [seats[e] for e in range(entries)]
    return GameResult(
        index,
        entry_at[winner],
        tuple(points[s] for s in per),
        tuple(caused[s] for s in per),
        tuple(suffered[s] for s in per),
        tuple(decisions[s] for s in per),
        rounds,
    )


def _tally(outcome: Outcome, points: list[int], caused: list[int], suffered: list[int]) -> None:
    for seat, p in enumerate(outcome.points):
        points[seat] += p
    for ko in outcome.knocked_out:
        suffered[ko.seat] += 1
        if ko.by is not None and ko.by != ko.seat:
            caused[ko.by] += 1


@dataclass
class EntryStats:
    """What one entry (a bot in one place of ``--bots``) did over the run."""

    label: str
    games: int = 0
    wins: int = 0
    points: int = 0
    caused: int = 0
    suffered: int = 0
    decisions: int = 0
    rounds: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    def to_dict(self, match: bool) -> dict[str, Any]:
        low, high = self.interval
        return {
            "bot": self.label,
            "games": self.games,
            "match_wins" if match else "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": [low, high],
            "rounds": self.rounds,
            "avg_round_points": self.points / self.rounds if self.rounds else 0.0,
            "knockouts_caused": self.caused,
            "knockouts_suffered": self.suffered,
            "knockouts_caused_per_round": self.caused / self.rounds if self.rounds else 0.0,
            "knockouts_suffered_per_round": self.suffered / self.rounds if self.rounds else 0.0,
            "avg_decisions_per_game": self.decisions / self.games if self.games else 0.0,
        }


@dataclass
class TournamentResult:
    players: int
    seed: int
    match: bool
    entries: list[EntryStats]
    games: int = 0
    rounds: int = 0
    seat_counts: list[list[int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "seed": self.seed,
            "mode": "match" if self.match else "round",
            "games": self.games,
            "rounds": self.rounds,
            "seat_counts": self.seat_counts,
            "bots": [e.to_dict(self.match) for e in self.entries],
        }


def combine(config: TournamentSpec, results: Sequence[GameResult]) -> TournamentResult:
    """Add up per-game results (in game order) into per-entry statistics."""
    labels = [s.label for s in config.specs]
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    seen: dict[str, int] = {}
    stats: list[EntryStats] = []
    for label in labels:
        if counts[label] > 1:
            seen[label] = seen.get(label, 0) + 1
            label = f"{label} #{seen[label]}"
        stats.append(EntryStats(label))
    n = config.players
    seat_counts = [[0] * n for _ in labels]
    out = TournamentResult(n, config.seed, config.match, stats, seat_counts=seat_counts)
    for r in sorted(results, key=lambda r: r.index):
        out.games += 1
        out.rounds += r.rounds
        for e, st in enumerate(stats):
            st.games += 1
            st.rounds += r.rounds
            st.wins += r.winner == e
            st.points += r.points[e]
            st.caused += r.caused[e]
            st.suffered += r.suffered[e]
            st.decisions += r.decisions[e]
            seat_counts[e][seat_of(e, r.index, n)] += 1
    return out


def run_tournament(
    bots: str | Sequence[str] | Sequence[BotSpec],
    games: int,
    players: int | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int = 1,
    match: bool = False,
    progress: Callable[[int], None] | None = None,
    *,
    ray: str | None = None,
    backend: Backend | None = None,
) -> TournamentResult:
    """Play ``games`` games (or matches) and return the per-bot statistics.

    They run on ``backend``, by default the simulator's for ``workers`` processes (1: this
    process) or, with ``ray`` (``"local"`` or a cluster address), on Ray. ``progress(k)``
    is called as each batch of ``k`` games finishes (in any order). Ctrl-C stops the
    run: the games in flight are abandoned and ``KeyboardInterrupt`` propagates. Worker
    processes start clean (:mod:`nomercy.sim.backends`), so a script that runs more than
    one worker must guard its entry point with ``if __name__ == "__main__":``.
    """
    specs = _specs(bots)
    players = players if players is not None else len(specs)
    rules = rules if rules is not None else Rules()
    if len(specs) != players:
        raise ValueError(f"{len(specs)} bots for {players} seats: name one bot per seat")
    if not 2 <= players <= rules.max_players:
        raise ValueError(f"{players} players: this table seats 2 to {rules.max_players} (S1)")
    if games < 1:
        raise ValueError("play at least one game")
    for spec in specs:  # fail here, not in a worker
        spec.build(0)
    config = TournamentSpec(specs, players, seed, rules, match, games)
    workers = max(1, min(workers, games))
    if backend is None:
        backend = make_backend(workers, ray)
    # Small chunks: a bot game costs far more than a random one, and the bar should move.
    chunk_size = max(1, min(25, games // (backend.workers * 8)))
    result = execute(config, backend, on_progress=progress, chunk_size=chunk_size)
    if result.interrupted:
        raise KeyboardInterrupt
    return combine(config, result.rows)


def _specs(bots: str | Sequence[str] | Sequence[BotSpec]) -> tuple[BotSpec, ...]:
    """Bot specs as given, or parsed from ``"expert,heuristic*3"`` or a list of names."""
    if isinstance(bots, str):
        return tuple(parse_bots(bots))
    items = list(bots)
    specs = [b for b in items if isinstance(b, BotSpec)]
    if items and len(specs) == len(items):
        return tuple(specs)
    if specs:
        raise TypeError("bots: give bot names or BotSpec values, not both")
    return tuple(parse_bots([str(b) for b in items]))
