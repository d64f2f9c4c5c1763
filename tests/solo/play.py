"""Playing a solo table in tests: the person's moves from a seeded generator."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from nomercy.solo.table import SoloTable

NO_WAIT = {"bot_delay": 0.0, "reaction_delay": 0.0, "between_rounds": 0.0}


def table(seed: int, bots: list[str], mode: str = "round", **config: Any) -> SoloTable:
    return SoloTable({"name": "Ada", "bots": bots, "mode": mode, "seed": seed, "delays": NO_WAIT, **config})


def choose(t: SoloTable, rng: random.Random) -> dict[str, Any] | None:
    """The person's next message: one of the seat's choices, or None when it has none."""
    decisions = t.state_message([])["decisions"]
    choices = decisions["choices"]
    if not choices:
        return None
    if not decisions["deciding"] and rng.random() < 0.5:
        return None  # an out-of-turn call or catch it lets pass
    pick = rng.choice(choices)
    return {"type": "action", "action": pick["action"], "version": t.version}


def play(
    t: SoloTable,
    rng: random.Random,
    seen: Callable[[list[dict[str, Any]]], None] = lambda messages: None,
    stop: Callable[[SoloTable], bool] = lambda t: False,
) -> None:
    """Play until the game is over (or ``stop``): the bots when due, else the person."""
    while not t.finished and not stop(t):
        if t.due() >= 0:
            seen(t.advance())
            continue
        message = choose(t, rng)
        if message is None:
            message = choose(t, rng) or _any_deciding(t)
        answer = t.receive(message)
        assert answer and answer[0]["type"] != "error", answer
        seen(answer)


def _any_deciding(t: SoloTable) -> dict[str, Any]:
    decisions = t.state_message([])["decisions"]
    return {"type": "action", "action": decisions["choices"][0]["action"], "version": t.version}
