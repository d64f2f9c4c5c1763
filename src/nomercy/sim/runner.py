"""The Python engine of the simulator: play a run's games on the reference engine.

Games go through :func:`nomercy.bots.runner.play_round`, the loop every driver shares. When
every seat is the built-in random bot, a shortcut loop makes the same choices with the same
RNGs without building a view per decision (about three times the throughput); a test
checks that both loops give identical rows. What a run is, its seeds and its rows live in
:mod:`nomercy.sim.spec` (re-exported here); ``RunSpec(engine="native")`` plays the same
games on the native engine instead (:mod:`nomercy.sim.native_runner`), to the same rows.
"""

from __future__ import annotations

import random
from typing import assert_never

from nomercy.actions import Action
from nomercy.bots import make
from nomercy.bots.runner import play_round
from nomercy.engine import new_game
from nomercy.events import (
    Caught,
    Challenged,
    ColorNamed,
    DiscardedAll,
    Drew,
    Event,
    HandsPassed,
    HandsShuffled,
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
from nomercy.sim.spec import Row, RunSpec, bot_seed, game_seed, make_row, random_is_plain

__all__ = ["Row", "RunSpec", "bot_seed", "check", "game_seed", "make_row", "play_game", "run_chunk"]


def check(spec: RunSpec) -> None:
    """The reference plays every run that :class:`RunSpec` accepts."""


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
                (Reversed, Skipped, ColorNamed, DiscardedAll, HandsSwapped, KnockedOut, HandsPassed,
                 HandsShuffled, Passed, RoundOver, UnoCalled, Challenged, Started),
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
        shortcut = all(name == "random" for name in spec.bots) and random_is_plain()
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


def run_chunk(spec: RunSpec, start: int, stop: int) -> list[Row]:
    """Rows of games ``start`` (inclusive) to ``stop`` (exclusive): the unit of parallel work."""
    shortcut = all(name == "random" for name in spec.bots) and random_is_plain()
    return [play_game(spec, index, shortcut=shortcut) for index in range(start, stop)]
