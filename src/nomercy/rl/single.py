"""One learner seat against bots: the game loop behind the Gymnasium and batched envs.

The learner decides only on its own turns (its legal actions include catching the seat
open to a catch, and the ``uno`` variant of each play that leaves one card). The bots
play every other turn through :mod:`nomercy.bots.runner`, the loop every driver shares,
so they may also act out of turn (catch the learner, U2) as their class allows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from nomercy import bots as _bots
from nomercy.bots import Bot
from nomercy.bots.runner import reactions
from nomercy.bots.runner import step as bot_step
from nomercy.engine import GameState, new_game
from nomercy.rl.common import RewardMode, check_reward, knockout_reward, round_rewards
from nomercy.rl.encoding import check_table, index_to_action
from nomercy.rules import Rules
from nomercy.views import PlayerView, player_view

__all__ = ["SingleAgentGame"]

Opponents = str | Sequence[str] | None
_MAX_REDEALS = 100


class SingleAgentGame:
    """A round where seat ``seat`` is the learner and the other seats are bots."""

    def __init__(
        self,
        players: int = 2,
        rules: Rules | None = None,
        opponents: Opponents = "random",
        seat: int = 0,
        reward: str = "win",
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        check_table(players, self.rules)
        if not 0 <= seat < players:
            raise ValueError(f"learner seat {seat} is not at this {players}-player table")
        self.players = players
        self.seat = seat
        self.reward_mode: RewardMode = check_reward(reward)
        names = (
            [opponents or "random"] * (players - 1) if isinstance(opponents, str | None) else list(opponents)
        )
        if len(names) != players - 1:
            raise ValueError(f"{len(names)} opponents named for {players - 1} bot seats")
        available = _bots.available()
        for name in names:
            if name.strip().lower() not in available:
                raise ValueError(f"unknown bot {name!r}: choose from {', '.join(available)}")
        self.opponent_names = names
        self.state: GameState | None = None
        self.bots: list[Bot | None] = []

    def reset(self, seed: int) -> PlayerView:
        """Deal a round from ``seed`` and play the bots up to the learner's first turn.

        A round that ends before the learner's first decision (a bot going out with a
        Discard All) is dealt again from the next seed derived from ``seed``.
        """
        rng = random.Random(seed)
        for _ in range(_MAX_REDEALS):
            self.state = new_game(self.players, self.rules, seed=rng.getrandbits(63))
            self.bots = [
                None
                if s == self.seat
                else _bots.make(self.opponent_names[s - (s > self.seat)], seed=rng.getrandbits(63))
                for s in range(self.players)
            ]
            self._advance()
            if not self.state.is_over and self.state.active[self.seat]:
                return player_view(self.state, self.seat)
        raise RuntimeError(f"no round of {_MAX_REDEALS} deals reached the learner's turn")

    def step(self, index: int) -> tuple[PlayerView, float, bool]:
        """Apply the learner's table action; return (view, reward, terminated)."""
        state = self.state
        if state is None:
            raise RuntimeError("call reset() first")
        if self.done:
            raise RuntimeError("the round is over: call reset()")
        action = index_to_action(state, index, self.seat)
        state.apply(action, self.seat)  # raises IllegalAction, state unchanged
        reactions(state, self.bots, after=self.seat)
        self._advance()
        return player_view(state, self.seat), self.reward(), self.done

    @property
    def done(self) -> bool:
        state = self.state
        return state is not None and (state.is_over or not state.active[self.seat])

    def reward(self) -> float:
        """The learner's reward now: 0 until the round ends for it."""
        state = self.state
        assert state is not None
        if not state.active[self.seat]:
            return knockout_reward(self.reward_mode)
        if state.is_over:
            return round_rewards(state, self.reward_mode)[self.seat]
        return 0.0

    def _advance(self) -> None:
        """Let the bots play until the learner decides, is knocked out, or the round ends."""
        state = self.state
        assert state is not None
        while state.outcome is None and state.current != self.seat and state.active[self.seat]:
            bot_step(state, self.bots)
