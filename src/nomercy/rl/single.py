"""One learner seat against bots: the game loop behind the Gymnasium and batched envs.

The learner decides only on its own turns (its legal actions include catching the seat
open to a catch, and the ``uno`` variant of each play that leaves one card). The bots
play every other turn through :mod:`nomercy.bots.runner`, the loop every driver shares,
so they may also act out of turn (catch the learner, U2) as their class allows.

Random bots (exactly :class:`~nomercy.bots.RandomBot`, the usual training opponent) take
a shortcut: such a bot picks ``rng.choice`` of the seat's legal actions, never reacts out
of turn and ignores events, so it is asked with ``state.legal_actions(seat)`` directly.
The same RNG call on the same list gives the same action as asking it through a
:class:`~nomercy.PlayerView`, without building one per bot turn (a test checks that both
ways play the same rounds).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from nomercy import bots as _bots
from nomercy.bots import Bot, RandomBot
from nomercy.bots.runner import reactions
from nomercy.bots.runner import step as bot_step
from nomercy.encoding import check_table, index_to_action
from nomercy.engine import GameState, new_game
from nomercy.rl.common import (
    RewardMode,
    check_reward,
    check_seat,
    knockout_reward,
    opponent_names,
    round_rewards,
)
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
        self.players = players
        self.seat = check_seat(seat, players)
        self.reward_mode: RewardMode = check_reward(reward)
        names = opponent_names(opponents, players)
        available = _bots.available()
        for name in names:
            if name.strip().lower() not in available:
                raise ValueError(f"unknown bot {name!r}: choose from {', '.join(available)}")
        self.opponent_names = names
        self.state: GameState | None = None
        self.bots: list[Bot | None] = []
        #: Every bot is a plain RandomBot: the shortcut of the module docstring applies.
        self.plain_random = False
        #: Take the shortcut when it applies (off: always ask through views, for tests).
        self.shortcut = True

    def reset(self, seed: int) -> PlayerView:
        """Deal a round from ``seed`` and play the bots up to the learner's first turn.

        A round that ends before the learner's first decision (a bot going out with a
        Discard All) is dealt again from the next seed derived from ``seed``.
        """
        self.deal(seed)
        assert self.state is not None
        return player_view(self.state, self.seat)

    def deal(self, seed: int) -> None:
        """:meth:`reset` without the view (the environments encode from the state)."""
        rng = random.Random(seed)
        for _ in range(_MAX_REDEALS):
            self.state = new_game(self.players, self.rules, seed=rng.getrandbits(63))
            self.bots = [
                None
                if s == self.seat
                else _bots.make(self.opponent_names[s - (s > self.seat)], seed=rng.getrandbits(63))
                for s in range(self.players)
            ]
            self.plain_random = self.shortcut and all(
                bot is None or type(bot) is RandomBot for bot in self.bots
            )
            self._advance()
            if not self.state.is_over and self.state.active[self.seat]:
                return
        raise RuntimeError(f"no round of {_MAX_REDEALS} deals reached the learner's turn")

    def step(self, index: int) -> tuple[PlayerView, float, bool]:
        """Apply the learner's table action; return (view, reward, terminated)."""
        reward, done = self.play(index)
        state = self.state
        assert state is not None
        return player_view(state, self.seat), reward, done

    def play(self, index: int) -> tuple[float, bool]:
        """:meth:`step` without the view: (reward, terminated). The environments encode
        the learner's observation from the state themselves
        (:class:`~nomercy.rl.fast_encoding.StateEncoder`)."""
        state = self.state
        if state is None:
            raise RuntimeError("call reset() first")
        seat = self.seat
        if state.outcome is not None or not state.active[seat]:
            raise RuntimeError("the round is over: call reset()")
        action = index_to_action(state, index, seat)
        state.apply(action, seat)  # raises IllegalAction, state unchanged
        if not self.plain_random:
            reactions(state, self.bots, after=seat)
        self._advance()
        if state.outcome is None and state.active[seat]:
            return 0.0, False
        return self.reward(), True

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
        seat = self.seat
        bots = self.bots
        if self.plain_random:
            active = state.active
            while state.outcome is None and state.current != seat and active[seat]:
                current = state.current
                bot = bots[current]  # type: ignore[index]
                assert bot is not None
                state.apply(bot.rng.choice(state.legal_actions(current)), current)
            return
        while state.outcome is None and state.current != seat and state.active[seat]:
            bot_step(state, bots)
