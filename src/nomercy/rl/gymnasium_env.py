"""Gymnasium single-agent environment: the learner plays one seat against bots.

>>> import gymnasium, nomercy.rl
>>> env = gymnasium.make("nomercy/NoMercy-v3", players=2, opponents="random")
>>> obs, info = env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))

Masked algorithms read :meth:`NoMercyEnv.action_masks` (the sb3-contrib ``MaskablePPO``
convention) or ``info["action_mask"]``. Gymnasium expects every action of the space to
be accepted, so by default (``illegal_action="lose"``) an illegal action ends the episode
as a loss (reward -1, or -250 with ``reward="points"``) and ``info["illegal_action"]``
says why in game terms; ``illegal_action="raise"`` raises
:class:`~nomercy.IllegalAction` instead, with the round unchanged.

Version history (the id's ``-vN`` is :data:`~nomercy.rl.encoding.ENV_VERSION`, the version of
the action table and the observation encoding):

* v3 (``nomercy/NoMercy-v3``): encoding 3, the house rules are an input (the observation's
  ``rules`` section, after the others). ``nomercy/NoMercy-v1`` and ``-v2`` (encoding 2)
  are no longer made: their observations were narrower.
* v2: the environment of ``nomercy/NoMercy-v1`` under the number of its encoding.
* v1: encoding 2, the Wild Draw 4 challenge (W6): a ``challenge`` decision and action.
* v0: encoding 1, the first release; no longer made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from nomercy.encoding import NUM_ACTIONS, OBS_HIGH, OBS_SIZE
from nomercy.encoding.fast import StateEncoder
from nomercy.engine import GameState
from nomercy.errors import IllegalAction
from nomercy.rl.common import knockout_reward, resolve_rules
from nomercy.rl.render import render_view
from nomercy.rl.single import SingleAgentGame
from nomercy.rules import Rules
from nomercy.views import player_view

__all__ = ["DEPRECATED_GYM_IDS", "GYM_ENV_ID", "NoMercyEnv"]

#: The Gymnasium id: its ``-vN`` is ENV_VERSION (a test checks they agree).
GYM_ENV_ID = "nomercy/NoMercy-v3"


class NoMercyEnv(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One seat of a No Mercy round against bots from :mod:`nomercy.bots`.

    ``opponents`` is a bot name for every other seat (``"random"``, ...) or one name per
    seat. ``seat`` is the learner's seat (``None``: a random seat each episode, drawn
    from the reset seed). ``reward`` is ``"win"`` (+1/-1 at the end) or ``"points"``.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 4}

    def __init__(
        self,
        players: int = 2,
        rules: Rules | str | Mapping[str, Any] | None = None,
        opponents: str | Sequence[str] = "random",
        seat: int | None = 0,
        reward: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ) -> None:
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.fixed_seat = seat
        self.game = SingleAgentGame(players, resolve_rules(rules), opponents, seat or 0, reward)
        self.observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._encoder = StateEncoder()
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self._forfeit: str | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        if self.fixed_seat is None:
            self.game.seat = int(self.np_random.integers(self.game.players))
        self._forfeit = None
        self.game.deal(int(self.np_random.integers(2**63 - 1)))
        return self._obs(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        if self._forfeit is not None:
            raise RuntimeError("the episode is over: call reset()")
        try:
            reward, terminated = self.game.play(int(action))
        except (IllegalAction, ValueError) as exc:
            if self.illegal_action == "raise" or self.game.done:
                raise
            self._forfeit = str(exc)
            self._mask.fill(0)
            info = self._info()
            info["illegal_action"] = self._forfeit
            # The refused action changed nothing: the observation is the one before it.
            obs = self._encoder.observe(self._state(), self.game.seat)
            return obs, knockout_reward(self.game.reward_mode), True, False, info
        obs = self._obs()
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Legal actions now, as booleans (sb3-contrib ``MaskablePPO``)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        if self.game.state is None or self.render_mode is None:
            return None
        text = render_view(player_view(self.game.state, self.game.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _state(self) -> GameState:
        state = self.game.state
        assert state is not None, "call reset() first"
        return state

    def _obs(self) -> npt.NDArray[np.float32]:
        state = self._state()
        seat = self.game.seat
        if self.game.done:
            self._mask.fill(0)
        else:
            self._encoder.mask(state, seat, self._mask)
        return self._encoder.observe(state, seat)

    def _info(self) -> dict[str, Any]:
        state = self._state()
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "seat": self.game.seat}
        if state.outcome is not None:
            info["winner"] = state.outcome.winner
        return info


#: Former ids still registered -> their entry point (``module:attribute``): none since v3,
#: whose observations are wider than those of v1 and v2 (``common.ToleratedId`` makes one).
DEPRECATED_GYM_IDS: dict[str, str] = {}
