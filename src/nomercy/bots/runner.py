"""Drive a round or a match with one bot per seat.

After every action each other active seat's bot may act out of turn (U2 catches, late
Uno calls), asked in seat order starting after the actor; the first legal reaction is
applied, then they are asked again. This is the one loop that the simulator, the
tournament and the front ends' bot seats share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nomercy.actions import Action
from nomercy.bots import Bot
from nomercy.engine import GameState
from nomercy.events import Event, redact
from nomercy.views import player_view

__all__ = ["StepResult", "play_round", "step"]

Listener = Callable[[int, Action, list[Event]], None]
#: Applies ``(action, seat)`` and returns the events, like ``GameState.apply``.
Applier = Callable[[Action, int], list[Event]]


@dataclass(frozen=True, slots=True)
class StepResult:
    seat: int
    action: Action
    events: list[Event]


def step(state: GameState, bots: Sequence[Bot | None], *, apply: Applier | None = None) -> list[StepResult]:
    """One decision of the deciding seat's bot, then any out-of-turn reactions.

    ``bots[seat]`` may be ``None`` for a seat that is not a bot (a human): it is then
    not asked, and this function must not be called while that seat is deciding.
    ``apply(action, seat)`` applies every action (default ``state.apply``); a driver
    that keeps a record passes its own, e.g. ``Match.apply``.
    """
    seat = state.current
    assert seat is not None, "the round is over"
    bot = bots[seat]
    if bot is None:
        raise ValueError(f"P{seat} is not a bot")
    action = bot.choose(player_view(state, seat))
    results = [StepResult(seat, action, (apply or state.apply)(action, seat))]
    _tell(bots, results[-1].events, skip=None)
    results.extend(reactions(state, bots, after=seat, apply=apply))
    return results


def reactions(
    state: GameState, bots: Sequence[Bot | None], after: int, *, apply: Applier | None = None
) -> list[StepResult]:
    """Let bots act out of turn (catch / late Uno) while any of them wants to."""
    results: list[StepResult] = []
    n = state.players
    while state.uno_open and state.outcome is None:
        acted = False
        for i in range(1, n + 1):
            seat = (after + i) % n
            bot = bots[seat]
            if bot is None or not state.active[seat]:
                continue
            view = player_view(state, seat)
            legal = view.legal_actions
            if not legal or (view.is_my_turn and not any(a.out_of_turn for a in legal)):
                continue
            action = bot.react(view)
            if action is None:
                continue
            events = (apply or state.apply)(action, seat)
            results.append(StepResult(seat, action, events))
            _tell(bots, events, skip=None)
            acted = True
            break
        if not acted:
            break
    return results


def _tell(bots: Sequence[Bot | None], events: list[Event], skip: int | None) -> None:
    for seat, bot in enumerate(bots):
        if bot is not None and seat != skip:
            bot.observe(redact(events, seat))


def play_round(
    state: GameState,
    bots: Sequence[Bot],
    listener: Listener | None = None,
    max_steps: int = 100_000,
    *,
    apply: Applier | None = None,
) -> GameState:
    """Play the round to its end; ``listener(seat, action, events)`` sees every action.

    ``apply`` applies each action (default ``state.apply``): ``match.apply`` plays the
    round of a :class:`~nomercy.Match`, which then scores it.
    """
    if len(bots) != state.players:
        raise ValueError(f"{len(bots)} bots for {state.players} seats")
    for _ in range(max_steps):
        if state.outcome is not None:
            return state
        for result in step(state, bots, apply=apply):
            if listener is not None:
                listener(result.seat, result.action, result.events)
    raise RuntimeError(f"the round did not end within {max_steps} steps")
