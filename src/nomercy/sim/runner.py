"""Play the games of a run and turn each into one result row.

A run is a :class:`RunSpec` (players, rules, a bot name per seat, the run seed, how many
games). Game ``i`` is dealt from :func:`game_seed` ``(seed, i)`` and each bot is seeded from
that game seed and its seat, so any chunk of games can be played anywhere (another process,
another machine) and give exactly the rows it would give here.

Games go through :func:`nomercy.bots.runner.play_round`, the loop every driver shares. When
every seat is the built-in random bot, a shortcut loop makes the same choices with the same
RNGs without building a view per decision (about three times the throughput); a test
checks that both loops give identical rows. ``RunSpec(engine="native")`` plays the same
games on the native engine instead (:mod:`nomercy.sim.native_runner`), to the same rows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, assert_never

from nomercy.actions import Action
from nomercy.bots import Bot, RandomBot, make
from nomercy.bots.runner import play_round
from nomercy.engine import new_game
from nomercy.errors import InvalidRules
from nomercy.events import (
    Caught,
    Challenged,
    ColorNamed,
    DiscardedAll,
    Drew,
    Event,
    HandsPassed,
    HandsSwapped,
    KnockedOut,
    Passed,
    Played,
    Reshuffled,
    Reversed,
    RoundOver,
    Skipped,
    StackGrew,
    Started,
    UnoCalled,
)
from nomercy.rules import Rules
from nomercy.seeding import derive_seed

__all__ = ["ENGINES", "Row", "RunSpec", "bot_seed", "game_seed", "make_row", "play_game", "run_chunk"]

Row = dict[str, Any]

#: What can play a run's games (``RunSpec.engine``).
ENGINES: tuple[str, ...] = ("python", "native")


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run: independent of how games are split up."""
    return derive_seed("sim", seed, index)


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot in ``seat`` for the game dealt from ``seed``."""
    return derive_seed("bot", seed, seat)


@dataclass(frozen=True, slots=True)
class RunSpec:
    """What to play: ``games`` games of ``players`` seats under ``rules``.

    ``bots`` names one bot per seat (a single name seats it everywhere); ``label`` names
    the rule set in every row so that runs under different rules can share a file.
    ``engine`` is what plays the games: ``"python"`` (the reference, :func:`play_game`) or
    ``"native"`` (:mod:`nomercy.sim.native_runner`, the ``fast`` extra, bots with a native
    version only); the rows are the same either way.
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
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine {self.engine!r}: choose from {', '.join(ENGINES)}")
        if self.engine == "native":  # refuse here, before any game, what the native engine cannot play
            from nomercy.sim import native_runner

            native_runner.check(self)

    def play_chunk(self, start: int, stop: int) -> list[Row]:
        """Rows of games ``start`` to ``stop``: a :class:`~nomercy.sim.backends.Job`."""
        if self.engine == "native":
            from nomercy.sim import native_runner

            return native_runner.run_chunk(self, start, stop)
        return run_chunk(self, start, stop)


def _random_is_plain() -> bool:
    """True while ``random`` is the uniform bot that never reacts (the shortcut's premise)."""
    bot = make("random")
    return type(bot) is RandomBot and type(bot).react is Bot.react and type(bot).observe is Bot.observe


class _Tally:
    """Counts what the row needs from the events of one game."""

    __slots__ = ("cards_drawn", "catches", "decisions", "largest_stack", "reshuffles")

    def __init__(self) -> None:
        self.decisions = 0
        self.cards_drawn = 0
        self.largest_stack = 0
        self.catches = 0
        self.reshuffles = 0

    def add(self, events: list[Event]) -> None:
        self.decisions += 1
        for event in events:
            # Exhaustive (mypy checks the assert_never), in order of frequency: an isinstance
            # chain, since a match statement's class patterns cost twice as much here, the
            # simulator's loop over every event.
            if isinstance(event, Played):
                pass
            elif isinstance(event, Drew):
                self.cards_drawn += event.count
            elif isinstance(event, StackGrew):
                if event.total > self.largest_stack:
                    self.largest_stack = event.total
            elif isinstance(event, Caught):
                self.catches += 1
            elif isinstance(event, Reshuffled):
                self.reshuffles += 1
            elif isinstance(
                event,
                (Reversed, Skipped, ColorNamed, DiscardedAll, HandsSwapped, KnockedOut, HandsPassed, Passed,
                 RoundOver, UnoCalled, Challenged, Started),
            ):  # fmt: skip
                pass
            else:
                assert_never(event)


def play_game(spec: RunSpec, index: int, *, shortcut: bool | None = None) -> Row:
    """Play game ``index`` of ``spec`` and return its row (see :mod:`nomercy.sim.results`).

    ``shortcut=None`` uses the all-random shortcut loop when it applies; ``False`` forces
    the shared bot loop (tests compare the two).
    """
    seed = game_seed(spec.seed, index)
    state = new_game(spec.players, spec.rules, seed)
    first = state.current
    assert first is not None
    seeds = [bot_seed(seed, seat) for seat in range(spec.players)]
    tally = _Tally()
    if shortcut is None:
        shortcut = all(name == "random" for name in spec.bots) and _random_is_plain()
    if shortcut:
        rngs = [random.Random(s) for s in seeds]
        add = tally.add
        while (seat := state.current) is not None:
            add(state.apply(rngs[seat].choice(state.legal_actions())))
    else:
        bots = [make(name, seed=s) for name, s in zip(spec.bots, seeds, strict=True)]

        def listen(seat: int, action: Action, events: list[Event]) -> None:
            tally.add(events)

        play_round(state, bots, listen)
    outcome = state.outcome
    assert outcome is not None
    return make_row(
        spec,
        index,
        seed,
        state.dealer,
        first,
        outcome.winner,
        outcome.reason,
        (tally.decisions, tally.cards_drawn, tally.largest_stack, tally.catches, tally.reshuffles),
        [(k.seat, k.by) for k in outcome.knocked_out],
        list(outcome.points),
    )


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


def run_chunk(spec: RunSpec, start: int, stop: int) -> list[Row]:
    """Rows of games ``start`` (inclusive) to ``stop`` (exclusive): the unit of parallel work."""
    shortcut = all(name == "random" for name in spec.bots) and _random_is_plain()
    return [play_game(spec, index, shortcut=shortcut) for index in range(start, stop)]
