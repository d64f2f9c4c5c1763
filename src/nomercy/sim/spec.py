"""What a run is and what each of its games gives, shared by every engine that plays it.

A run is a :class:`RunSpec` (players, rules, a bot name per seat, the run seed, how many
games). Game ``i`` is dealt from :func:`game_seed` ``(seed, i)`` and each bot is seeded from
that game seed and its seat, so any chunk of games can be played anywhere (another process,
another machine) and give exactly the rows it would give here; :func:`make_row` gives the
row one shape whichever engine played it.

The engines sit above this module and register themselves in :data:`ENGINES` (engine name
-> a loader of its runner; :mod:`nomercy.sim` fills it), so that this module imports none
of them and the native one, with numpy, loads only when a run asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from nomercy.bots import Bot, RandomBot, make
from nomercy.errors import InvalidRules
from nomercy.rules import Rules
from nomercy.seeding import derive_seed

__all__ = [
    "ENGINES",
    "Engine",
    "Row",
    "RunSpec",
    "bot_seed",
    "engine",
    "game_seed",
    "make_row",
    "random_is_plain",
]

Row = dict[str, Any]


class Engine(Protocol):
    """What plays a run's games: a module or object with these two functions."""

    def check(self, spec: RunSpec) -> None:
        """Raise (:class:`ValueError`, in game terms) if this engine cannot play ``spec``."""
        ...

    def run_chunk(self, spec: RunSpec, start: int, stop: int) -> list[Row]:
        """Rows of games ``start`` (inclusive) to ``stop`` (exclusive) of ``spec``."""
        ...


#: Engine name -> a loader of its runner (``RunSpec.engine``, ``--engine``), filled by
#: :mod:`nomercy.sim`. A loader, not the runner, so that naming an engine costs nothing
#: until a run uses it.
ENGINES: dict[str, Callable[[], Engine]] = {}


def engine(name: str) -> Engine:
    """The runner of engine ``name``; :class:`ValueError` naming the choices if unknown."""
    loader = ENGINES.get(name)
    if loader is None:
        raise ValueError(f"unknown engine {name!r}: choose from {', '.join(ENGINES)}")
    return loader()


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run: independent of how games are split up."""
    return derive_seed("sim", seed, index)


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot in ``seat`` for the game dealt from ``seed``."""
    return derive_seed("bot", seed, seat)


def random_is_plain() -> bool:
    """True while ``random`` is the uniform bot that never reacts: the premise of the
    Python engine's shortcut loop and of the native engine's random policy."""
    bot = make("random")
    return type(bot) is RandomBot and type(bot).react is Bot.react and type(bot).observe is Bot.observe


@dataclass(frozen=True, slots=True)
class RunSpec:
    """What to play: ``games`` games of ``players`` seats under ``rules``.

    ``bots`` names one bot per seat (a single name seats it everywhere); ``label`` names
    the rule set in every row so that runs under different rules can share a file.
    ``engine`` is what plays the games (:data:`ENGINES`): ``"python"`` (the reference,
    :mod:`nomercy.sim.runner`) or ``"native"`` (:mod:`nomercy.sim.native_runner`, the
    ``fast`` extra, bots with a native version only); the rows are the same either way.
    """

    games: int
    players: int = 4
    rules: Rules = field(default_factory=Rules)
    bots: tuple[str, ...] = ("random",)
    seed: int = 0
    label: str = "default"
    engine: str = "python"

    def __post_init__(self) -> None:
        if not isinstance(self.games, int) or self.games < 0:
            raise ValueError(f"games must be a whole number >= 0, got {self.games!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"the run seed must be a whole number >= 0, got {self.seed!r}")
        if not 2 <= self.players <= self.rules.max_players:
            raise InvalidRules(
                "players", f"{self.players} players: this table seats 2 to {self.rules.max_players} (S1)"
            )
        names = tuple(name.strip().lower() for name in self.bots)
        if len(names) == 1:
            names = names * self.players
        if len(names) != self.players:
            raise ValueError(f"{len(self.bots)} bots for {self.players} seats: name one bot or one per seat")
        for name in set(names):
            make(name)  # unknown names fail here, in game terms, before any game starts
        object.__setattr__(self, "bots", names)
        engine(self.engine).check(self)  # refuse here, before any game, what the engine cannot play

    def play_chunk(self, start: int, stop: int) -> list[Row]:
        """Rows of games ``start`` to ``stop``: a :class:`~nomercy.sim.backends.Job`."""
        return engine(self.engine).run_chunk(self, start, stop)


def make_row(
    spec: RunSpec,
    index: int,
    seed: int,
    dealer: int,
    first: int,
    winner: int,
    reason: str,
    counts: tuple[int, int, int, int, int],
    knocked_out: list[tuple[int, int | None]],
    points: list[int],
) -> Row:
    """The row of game ``index`` (dealt from ``seed``): one shape whichever engine played it.

    ``counts`` are the decisions, cards drawn, largest stack, catches and reshuffles;
    ``knocked_out`` the outcome's ``(seat, by)`` pairs in order.
    """
    n = spec.players
    decisions, cards_drawn, largest_stack, catches, reshuffles = counts
    return {
        "game": index,
        "seed": seed,
        "rules": spec.label,
        "players": n,
        "bots": list(spec.bots),
        "dealer": dealer,
        "first_player": first,
        "winner": winner,
        "winner_position": (winner - first) % n,
        "reason": reason,
        "decisions": decisions,
        "cards_drawn": cards_drawn,
        "largest_stack": largest_stack,
        "knockouts": len(knocked_out),
        "knocked_out": [seat for seat, _ in knocked_out],
        "knocked_out_by": [-1 if by is None or by == seat else by for seat, by in knocked_out],
        "catches": catches,
        "reshuffles": reshuffles,
        "points": points,
    }
