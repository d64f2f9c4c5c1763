"""Bots: players that decide from what their seat may see.

A bot gets a :class:`~nomercy.PlayerView` (its own hand, public facts, its legal
actions) and never the hidden state. Its randomness comes from its own seeded RNG, so
the same seed gives the same decisions. Bots are found by name::

    bot = nomercy.bots.make("random", seed=7)
    action = bot.choose(player_view(state, seat))

Out-of-turn decisions (catching a player who did not call Uno, U2; calling a late Uno,
U1) go through :meth:`Bot.react`, which every driver asks after each action.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from nomercy.actions import Action
from nomercy.events import Event
from nomercy.views import PlayerView

__all__ = ["Bot", "RandomBot", "available", "make", "register"]

_REGISTRY: dict[str, Callable[..., Bot]] = {}
B = TypeVar("B", bound="type[Bot]")


class Bot(ABC):
    """Base class of every bot. Subclasses set ``name`` and implement :meth:`choose`."""

    name: ClassVar[str] = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: PlayerView) -> Action:
        """The action to take now; ``view.legal_actions`` is never empty when asked."""

    def react(self, view: PlayerView) -> Action | None:
        """An out-of-turn action (``catch N`` or ``uno``) from ``view.legal_actions``, or None."""
        return None

    def observe(self, events: list[Event]) -> None:  # noqa: B027 (optional hook)
        """Events of the table, already redacted for this bot's seat."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


def register(name: str) -> Callable[[B], B]:
    """Class decorator: make a bot available to :func:`make` under ``name``."""

    def deco(cls: B) -> B:
        _REGISTRY[name] = cls
        return cls

    return deco


def make(name: str, **options: Any) -> Bot:
    """A bot by name (``random``, ...); options go to its constructor (``seed=...``).

    ``name`` may carry options as a spec, ``NAME:KEY=VALUE[:KEY=VALUE]`` (a character at a
    level: ``stacker:level=strong``), as the command line and saved games write them."""
    _load_builtin()
    key, options = parse_spec(name, options)
    if key not in _REGISTRY:
        raise ValueError(f"unknown bot {name!r}: choose from {', '.join(available())}")
    return _REGISTRY[key](**options)


def parse_spec(spec: str, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """``NAME:KEY=VALUE...`` as the bot's name and its options (those given win)."""
    key, _, rest = spec.strip().lower().partition(":")
    merged: dict[str, Any] = {}
    for item in filter(None, rest.split(":")):
        option, eq, value = item.partition("=")
        if not eq or not option.strip():
            raise ValueError(f"bot option {item!r}: write it as name=value, e.g. {key}:level=strong")
        merged[option.strip()] = value.strip()
    merged.update(options or {})
    return key, merged


def available() -> list[str]:
    """Names of every registered bot."""
    _load_builtin()
    return sorted(_REGISTRY)


_LOADED: list[bool] = []


def _load_builtin() -> None:
    """Import the built-in bot modules so that they register themselves (once: listing
    the package's directory cost more than making a bot, and the RL envs make bots for
    every round)."""
    if _LOADED:
        return
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")
    _LOADED.append(True)


@register("random")
class RandomBot(Bot):
    """Uniform over the legal actions of its turn; never acts out of turn."""

    name: ClassVar[str] = "random"

    def choose(self, view: PlayerView) -> Action:
        return self.rng.choice(view.legal_actions)
