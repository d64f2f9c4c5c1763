"""Pieces every environment shares: reading the rules argument, and round-end rewards."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from nomercy.engine import KNOCKOUT_POINTS, GameState
from nomercy.rules import Rules

__all__ = [
    "RewardMode",
    "ToleratedId",
    "check_num_envs",
    "check_seat",
    "knockout_reward",
    "opponent_names",
    "resolve_rules",
    "round_rewards",
]

RewardMode = Literal["win", "points"]


class ToleratedId:
    """A former environment id: still makes the environment, with a DeprecationWarning
    that names the id to use. ``ToleratedId(old, new, make)(**kwargs)`` is the entry point
    registered under ``old``."""

    def __init__(self, old: str, new: str, make: Any) -> None:
        self.old, self.new, self.make = old, new, make

    def message(self) -> str:
        return f"{self.old} is deprecated: use {self.new}, the same environment under its current id"

    def __call__(self, **kwargs: Any) -> Any:
        warnings.warn(self.message(), DeprecationWarning, stacklevel=_caller_level())
        return self.make(**kwargs)


#: Packages between a user's ``make(...)`` and an entry point.
_MAKERS = ("nomercy", "gymnasium", "pettingzoo")


def _caller_level() -> int:
    """The stack level of the first frame outside nomercy, Gymnasium and PettingZoo: the
    warning is then the caller's, and Python shows it by default when that is ``__main__``."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").split(".")[0] in _MAKERS:
        frame, level = frame.f_back, level + 1
    return level


def resolve_rules(rules: Rules | str | Mapping[str, Any] | None) -> Rules:
    """``Rules``, a preset name (``"classic"``), a dict of house rules, or None (no_mercy)."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, Mapping):
        return Rules.from_dict(rules)
    raise TypeError(f"rules must be a Rules, a preset name or a dict, got {type(rules).__name__}")


def check_num_envs(num_envs: object) -> int:
    """A vector environment's row count: a whole number >= 1 (``True`` is not a count)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
    return num_envs


def check_seat(seat: object, players: int) -> int:
    """The learner's seat: a whole number in ``0..players-1``."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"learner seat {seat!r} is not at this {players}-player table")
    return seat


def opponent_names(opponents: str | Sequence[str] | None, players: int) -> list[str]:
    """One bot name per seat but the learner's: a single name repeats (None: random)."""
    if opponents is None or isinstance(opponents, str):
        names = [opponents or "random"] * (players - 1)
    else:
        names = list(opponents)
    if len(names) != players - 1:
        raise ValueError(f"{len(names)} opponents named for {players - 1} opponent seats")
    return names


def check_reward(reward: str) -> RewardMode:
    if reward not in ("win", "points"):
        raise ValueError(f"reward must be 'win' (+1/-1) or 'points' (round points), got {reward!r}")
    return reward  # type: ignore[return-value]


def knockout_reward(mode: RewardMode) -> float:
    """Reward of a seat at the moment it is knocked out (M1): it has lost the round and, in
    ``points`` mode, concedes the knock-out bonus that someone scores for it (E3)."""
    return -1.0 if mode == "win" else -float(KNOCKOUT_POINTS)


def round_rewards(state: GameState, mode: RewardMode) -> list[float]:
    """Rewards at the end of the round for the seats still in it (knocked-out seats got
    theirs when they went out).

    ``win``: +1 for the winner, -1 for everyone else.
    ``points``: a seat's round points (E3) less what it concedes: a loser the points (C4)
    of the cards left in its hand. With the knock-outs' -250 this sums to zero. (With
    ``knockout_bonus_to="knocker"``, a 250 earned by a seat that is itself knocked out
    later is in the round's points but not in its reward: its episode had ended.)
    """
    outcome = state.outcome
    assert outcome is not None, "the round is not over"
    out: list[float] = []
    for seat in range(state.players):
        if mode == "win":
            out.append(1.0 if seat == outcome.winner else -1.0)
        else:
            # The winner concedes nothing, even holding cards (M4: last one standing).
            loser = state.active[seat] and seat != outcome.winner
            conceded = sum(c.points for c in state.hands[seat]) if loser else 0
            out.append(float(outcome.points[seat] - conceded))
    return out
