"""The agent ladder: a round-robin of bots and outside agents, rated with OpenSkill.

Protocol (what ``nomercy ladder`` plays, and what ``docs/ladder.md`` states for citing):

* **Pairings**: every set of ``players`` distinct agents (every pair, for two players).
* **Deals and seats**: each pairing is a tournament (:mod:`nomercy.sim.tournament`) of
  ``deals`` deals, each played ``players`` times with the agents rotated one seat per game,
  so each agent plays every deal from every seat. Every pairing plays the *same* deals
  (their seeds come from the ladder's seed and the deal's number only), and each bot's
  seed from ``(seed, game, entry)``: the same seed gives the same table on any backend.
* **Ratings**: OpenSkill's Plackett-Luce model (Weng and Lin 2011), updated game by game in
  a fixed order (deal by deal; within a deal, pairing by pairing, rotation by rotation).
  A game's ranks are win/lose: the winner first, every other seat tied second (a round
  scores its winner only, E3). ``tau`` (the drift added before each game) is 0: a bot is a
  fixed program whose skill does not change. The table gives ``mu``, ``sigma`` and the
  conservative ordinal ``mu - 3 sigma``, with each agent's win rate and its Wilson 95%
  interval over all its games.

Outside agents are given as ``module:callable`` (``callable(seed=..., **options)`` returns
a :class:`~nomercy.bots.Bot`, or any object with ``choose(view)``) or by the name of an
entry point in the ``nomercy.bots`` group that names such a callable. OpenSkill (the
``sim`` extra) is imported only to rate.
"""

from __future__ import annotations

import datetime
import importlib
import itertools
import math
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, entry_points, version
from typing import Any

from nomercy.actions import Action
from nomercy.bots import Bot, available
from nomercy.events import Event
from nomercy.intervals import wilson
from nomercy.rules import PRESETS, Rules
from nomercy.sim.backends import Backend, execute, make_backend
from nomercy.sim.tournament import (
    BotSpec,
    GameResult,
    TournamentSpec,
    deal_seed,
    parse_bots,
    play_game,
    seat_of,
)
from nomercy.views import PlayerView

__all__ = [
    "ENTRY_POINT_GROUP",
    "MODEL",
    "AgentSpec",
    "LadderGame",
    "LadderJob",
    "LadderResult",
    "markdown",
    "parse_agents",
    "run_ladder",
]

#: Where installed packages declare agents by name (``[project.entry-points."nomercy.bots"]``).
ENTRY_POINT_GROUP = "nomercy.bots"
#: The rating model and its parameters (OpenSkill's defaults, but no drift: ``tau`` = 0).
MODEL: dict[str, Any] = {
    "name": "PlackettLuce",
    "mu": 25.0,
    "sigma": 25.0 / 3.0,
    "beta": 25.0 / 6.0,
    "kappa": 0.0001,
    "tau": 0.0,
    "ranks": "win/lose: the winner 1, every other seat 2",
}


class _Outside(Bot):
    """An outside agent that is not a :class:`Bot`: its ``choose`` (and ``react`` and
    ``observe``, when it has them) are used as they are."""

    name = "outside"

    def __init__(self, agent: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.agent = agent

    def choose(self, view: PlayerView) -> Action:
        action: Action = self.agent.choose(view)
        return action

    def react(self, view: PlayerView) -> Action | None:
        react = getattr(self.agent, "react", None)
        return react(view) if callable(react) else None

    def observe(self, events: list[Event]) -> None:
        observe = getattr(self.agent, "observe", None)
        if callable(observe):
            observe(events)


def _load(target: str, label: str) -> Callable[..., Any]:
    """The callable named by ``module:attr`` (``attr`` may be dotted), or a clear error."""
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"agent {label!r}: an outside agent is module:callable, e.g. mypkg.agents:make")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(
            f"agent {label!r}: cannot import {module_name!r} ({exc}); is it on PYTHONPATH?"
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent {label!r}: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"agent {label!r}: {target} is not callable (give a class or a function)")
    return obj  # type: ignore[no-any-return]


@dataclass(frozen=True)
class AgentSpec(BotSpec):
    """An outside agent: ``name`` as given (``module:callable`` or an entry point's name),
    ``target`` the ``module:callable`` it resolves to, ``options`` passed to the callable."""

    target: str = ""

    def build(self, seed: int) -> Bot:
        made = _load(self.target, self.label)(seed=seed, **dict(self.options))
        if isinstance(made, Bot):
            return made
        if callable(getattr(made, "choose", None)):
            return _Outside(made, seed)
        raise ValueError(
            f"agent {self.label!r}: {self.target} returned {type(made).__name__}, not a bot "
            "(subclass nomercy.bots.Bot, or return an object with a choose(view) method)"
        )


def _entry_point(name: str) -> str | None:
    """The ``module:attr`` of the entry point ``name`` in :data:`ENTRY_POINT_GROUP`, if installed."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name.lower() == name.lower():
            return str(ep.value).strip()
    return None


def _options(opts: list[str]) -> tuple[tuple[str, Any], ...]:
    """``["depth=3", "greedy=true"]`` read as a bot's options are (numbers, true/false/none;
    no ``seed``, which the ladder gives), by the tournament's own parser."""
    if not opts:
        return ()
    (spec,) = parse_bots(["random:" + ":".join(opts)])
    return spec.options


def parse_agents(text: str | Sequence[str]) -> list[BotSpec]:
    """``"random,heuristic,expert:budget=16,mypkg.agents:make:depth=3"`` -> one spec each.

    A built-in bot takes ``name:key=value`` options as in a tournament; an outside agent is
    ``module:callable`` (then its own ``:key=value`` options) or an entry point's name.
    """
    items = [i.strip() for i in (text.split(",") if isinstance(text, str) else text)]
    known = available()
    specs: list[BotSpec] = []
    for item in filter(None, items):
        if "*" in item:
            raise ValueError(f"{item}: a ladder names each agent once (no name*K)")
        head, *rest = item.split(":")
        if head.strip().lower() in known:
            specs.extend(parse_bots([item]))
            continue
        if rest and "=" not in rest[0]:
            name, target, opts = f"{head}:{rest[0]}", f"{head}:{rest[0]}", rest[1:]
        else:
            found = _entry_point(head.strip())
            if found is None:
                raise ValueError(
                    f"unknown agent {item!r}: name a bot ({', '.join(known)}), an outside agent as "
                    f"module:callable, or an entry point of the {ENTRY_POINT_GROUP!r} group"
                )
            name, target, opts = head.strip(), found, rest
        _load(target, name)  # fail here, with the agent's name, not in a worker
        specs.append(AgentSpec(name.strip(), _options(opts), target.strip()))
    labels = [s.label for s in specs]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ValueError(f"agent {twice[0]!r} is named twice: a ladder names each agent once")
    if len(specs) < 2:
        raise ValueError("a ladder needs at least two agents, e.g. --agents random,heuristic")
    return specs


@dataclass(frozen=True, slots=True)
class LadderGame:
    """One game of the ladder: its pairing, its deal's seed, each entry's seat, the result."""

    pairing: int
    deal: int
    seats: tuple[int, ...]
    result: GameResult


@dataclass(frozen=True)
class LadderJob:
    """Every pairing's games as one :class:`~nomercy.sim.backends.Job`: game ``g`` is game
    ``g % per_table`` of pairing ``g // per_table`` (a tournament of its own)."""

    tables: tuple[TournamentSpec, ...]
    per_table: int

    @property
    def games(self) -> int:
        return len(self.tables) * self.per_table

    def play_chunk(self, start: int, stop: int) -> list[LadderGame]:
        out = []
        for g in range(start, stop):
            pairing, index = divmod(g, self.per_table)
            table = self.tables[pairing]
            n = table.players
            seats = tuple(seat_of(e, index, n) for e in range(n))
            deal = deal_seed(table.seed, index, n)
            out.append(LadderGame(pairing, deal, seats, play_game(table, index)))
        return out


@dataclass
class LadderResult:
    """The ladder's figures, agents in order of their conservative rating."""

    agents: list[dict[str, Any]]
    pairings: list[dict[str, Any]]
    players: int
    deals: int
    seed: int
    rules: dict[str, Any]
    games: int
    machine: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "protocol": {
                "players": self.players,
                "deals_per_pairing": self.deals,
                "games_per_pairing": self.deals * self.players,
                "seed": self.seed,
                "pairings": "every set of distinct agents, one per seat",
                "seats": "each deal played once per rotation of the seats",
                "rules": self.rules,
                "model": {**MODEL, "openskill": _openskill_version()},
            },
            "games": self.games,
            "agents": self.agents,
            "pairings": self.pairings,
        }
        if self.machine is not None:
            out["machine"] = self.machine
        return out


def run_ladder(
    agents: str | Sequence[str] | Sequence[BotSpec],
    deals: int,
    players: int = 2,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    *,
    backend: Backend | None = None,
    keep_games: list[LadderGame] | None = None,
) -> LadderResult:
    """Play the round-robin and rate it; ``keep_games`` (a list) receives every game."""
    specs = list(agents) if not isinstance(agents, str) else parse_agents(agents)
    if specs and not all(isinstance(s, BotSpec) for s in specs):
        specs = parse_agents([str(s) for s in specs])
    bot_specs: list[BotSpec] = [s for s in specs if isinstance(s, BotSpec)]
    rules = rules if rules is not None else Rules()
    if not 2 <= players <= rules.max_players:
        raise ValueError(f"{players} players: this table seats 2 to {rules.max_players} (S1)")
    if len(bot_specs) < players:
        raise ValueError(f"{len(bot_specs)} agents for {players} seats: a ladder needs at least one per seat")
    if deals < 1:
        raise ValueError("play at least one deal")
    for spec in bot_specs:  # fail here, not in a worker
        spec.build(0)
    groups = list(itertools.combinations(range(len(bot_specs)), players))
    per_table = deals * players
    tables = tuple(
        TournamentSpec(tuple(bot_specs[i] for i in group), players, seed, rules, False, per_table)
        for group in groups
    )
    job = LadderJob(tables, per_table)
    if backend is None:
        backend = make_backend(max(1, min(workers, job.games)))
    chunk = max(1, min(25, job.games // (backend.workers * 8)))
    run = execute(job, backend, on_progress=progress, chunk_size=chunk)
    if run.interrupted:
        raise KeyboardInterrupt
    games = run.rows
    if keep_games is not None:
        keep_games.extend(games)
    labels = [s.label for s in bot_specs]
    ratings = _rate(games, groups, players, len(labels))
    wins = [0] * len(labels)
    played = [0] * len(labels)
    seat_counts = [[0] * players for _ in labels]
    pair_games = [0] * len(groups)
    pair_wins = [[0] * players for _ in groups]
    for game in games:
        group = groups[game.pairing]
        pair_games[game.pairing] += 1
        pair_wins[game.pairing][game.result.winner] += 1
        for e, agent in enumerate(group):
            played[agent] += 1
            wins[agent] += game.result.winner == e
            seat_counts[agent][game.seats[e]] += 1
    pair_rows = [
        {"agents": [labels[i] for i in g], "games": n, "wins": w}
        for g, n, w in zip(groups, pair_games, pair_wins, strict=True)
    ]
    table: list[dict[str, Any]] = []
    for i, label in enumerate(labels):
        mu, sigma = ratings[i]
        low, high = wilson(wins[i], played[i])
        table.append(
            {
                "agent": label,
                "mu": mu,
                "sigma": sigma,
                "ordinal": mu - 3 * sigma,
                "games": played[i],
                "wins": wins[i],
                "win_rate": wins[i] / played[i] if played[i] else 0.0,
                "ci95": [low, high],
                "seat_counts": seat_counts[i],
            }
        )
    table.sort(key=lambda r: (-r["ordinal"], r["agent"]))
    preset = next((name for name, r in PRESETS.items() if r == rules), "custom")
    described = {"preset": preset, "changes_from_no_mercy": rules.to_dict(only_changes=True)}
    return LadderResult(table, pair_rows, players, deals, seed, described, len(games))


def _rate(
    games: list[LadderGame], groups: list[tuple[int, ...]], players: int, agents: int
) -> list[tuple[float, float]]:
    """Each agent's (mu, sigma) after every game, in the ladder's fixed order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(
        mu=MODEL["mu"], sigma=MODEL["sigma"], beta=MODEL["beta"], kappa=MODEL["kappa"], tau=MODEL["tau"]
    )
    ratings = [model.rating() for _ in range(agents)]

    def order(game: LadderGame) -> tuple[int, int, int]:
        index = game.result.index
        return index // players, game.pairing, index % players

    for game in sorted(games, key=order):
        group = groups[game.pairing]
        teams = [[ratings[agent]] for agent in group]
        ranks = [1.0 if game.result.winner == e else 2.0 for e in range(len(group))]
        for agent, (new,) in zip(group, model.rate(teams, ranks=ranks), strict=True):
            ratings[agent] = new
    return [(float(r.mu), float(r.sigma)) for r in ratings]


def _openskill_version() -> str | None:
    try:
        return version("openskill")
    except PackageNotFoundError:
        return None


def machine(command: str) -> dict[str, Any]:
    """Where and when the ladder ran, for the table beside its figures (call it at the end,
    so that the load average covers the run)."""
    import nomercy

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "command": command,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nomercy": nomercy.__version__,
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average": load,
    }


def _f(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.2f}"


def markdown(data: dict[str, Any]) -> list[str]:
    """The ladder's tables in Markdown, from :meth:`LadderResult.to_dict`'s figures."""
    proto = data["protocol"]
    header = [
        "rank",
        "agent",
        "mu",
        "sigma",
        "ordinal (mu - 3 sigma)",
        "games",
        "win rate",
        "95% CI (Wilson)",
    ]
    rows = [
        [
            str(rank),
            f"`{a['agent']}`",
            _f(a["mu"]),
            _f(a["sigma"]),
            _f(a["ordinal"]),
            f"{a['games']:,}",
            f"{a['win_rate']:.1%}",
            f"{a['ci95'][0]:.1%} - {a['ci95'][1]:.1%}",
        ]
        for rank, a in enumerate(data["agents"], 1)
    ]
    lines = _md(header, "rlrrrrrr", rows)
    lines += ["", "Head to head (wins of each agent in its pairing's games):", ""]
    pair_rows = [
        [
            " vs ".join(f"`{a}`" for a in p["agents"]),
            f"{p['games']:,}",
            ", ".join(f"{w:,} ({w / p['games']:.1%})" if p["games"] else "0" for w in p["wins"]),
        ]
        for p in data["pairings"]
    ]
    lines += _md(["pairing", "games", "wins"], "lrl", pair_rows)
    model = proto["model"]
    lines += [
        "",
        f"{data['games']:,} games: {proto['players']} players, every pairing {proto['deals_per_pairing']:,} "
        f"deals x {proto['players']} seat rotations, seed {proto['seed']}, rules preset "
        f"`{proto['rules'].get('preset', 'custom')}`. Ratings: OpenSkill {model['name']} "
        f"(mu {model['mu']:g}, sigma {model['sigma']:.4g}, beta {model['beta']:.4g}, "
        f"kappa {model['kappa']:g}, tau {model['tau']:g}), ranks {model['ranks']}.",
    ]
    seconds = data.get("machine", {}).get("wall_seconds")
    if seconds is not None:
        lines[-1] += f" Played in {seconds:,.0f} s of wall time."
    return lines


def _md(header: list[str], align: str, rows: list[list[str]]) -> list[str]:
    rule = ["---:" if a == "r" else "---" for a in align]
    return ["| " + " | ".join(r) + " |" for r in [header, rule, *rows]]
