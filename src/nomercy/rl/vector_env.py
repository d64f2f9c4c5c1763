"""A batch of single-agent games stepped together, with numpy arrays in and out.

>>> from nomercy.rl import VectorEnv
>>> venv = VectorEnv(8, players=2, opponents="random")
>>> obs, masks = venv.reset(seed=0)
>>> actions = venv.sample_actions()          # or a policy's argmax over masked logits
>>> obs, masks, rewards, dones = venv.step(actions)

Every row is one learner seat against bots (as in the Gymnasium env). A row whose round
ended in a step is reset at once (auto-reset): its returned observation and mask are the
new round's, its reward and ``done`` belong to the round that ended, and the last
observation of that round is kept in :attr:`VectorEnv.final_observations`. The arrays
returned are reused buffers: copy them to keep them past the next call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy.encoding import NUM_ACTIONS, OBS_SIZE
from nomercy.encoding.fast import StateEncoder
from nomercy.rl.common import check_num_envs, resolve_rules
from nomercy.rl.single import SingleAgentGame
from nomercy.rules import Rules

__all__ = ["VectorEnv"]


class VectorEnv:
    """``num_envs`` rounds of ``players`` seats: the learner at ``seat``, bots elsewhere."""

    def __init__(
        self,
        num_envs: int,
        players: int = 2,
        rules: Rules | str | Mapping[str, Any] | None = None,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        reward: str = "win",
    ) -> None:
        check_num_envs(num_envs)
        resolved = resolve_rules(rules)
        self.num_envs = num_envs
        self.games = [SingleAgentGame(players, resolved, opponents, seat, reward) for _ in range(num_envs)]
        self._encoders = [StateEncoder() for _ in range(num_envs)]
        self.observations = np.zeros((num_envs, OBS_SIZE), np.float32)
        self.masks = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        self.rewards = np.zeros(num_envs, np.float32)
        self.dones = np.zeros(num_envs, np.bool_)
        self.final_observations = np.zeros((num_envs, OBS_SIZE), np.float32)
        self.episode_returns: list[float] = []
        self._rngs = [np.random.default_rng() for _ in range(num_envs)]
        self._started = False

    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Deal every row; the same ``seed`` gives the same rounds, row by row."""
        children = np.random.SeedSequence(seed).spawn(self.num_envs)
        self._rngs = [np.random.default_rng(child) for child in children]
        for i in range(self.num_envs):
            self._reset_row(i)
        self.rewards.fill(0.0)
        self.dones.fill(False)
        self._started = True
        return self.observations, self.masks

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Apply one table action per row; return (observations, masks, rewards, dones)."""
        if not self._started:
            raise RuntimeError("call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {acts.shape}")
        actions_list = acts.tolist()
        rewards = self.rewards
        dones = self.dones
        for i, game in enumerate(self.games):
            reward, done = game.play(int(actions_list[i]))
            rewards[i] = reward
            dones[i] = done
            state = game.state
            assert state is not None
            encoder = self._encoders[i]
            if done:
                encoder.observe(state, game.seat, self.final_observations[i])
                self.episode_returns.append(reward)
                self._reset_row(i)
            else:
                encoder.observe(state, game.seat, self.observations[i])
                encoder.mask(state, game.seat, self.masks[i])
        return self.observations, self.masks, rewards, dones

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per row (for baselines and tests)."""
        out = np.empty(self.num_envs, np.int64)
        for i in range(self.num_envs):
            legal = np.flatnonzero(self.masks[i])
            out[i] = legal[self._rngs[i].integers(len(legal))]
        return out

    def _reset_row(self, i: int) -> None:
        game = self.games[i]
        game.deal(int(self._rngs[i].integers(2**63 - 1)))
        state = game.state
        assert state is not None
        self._encoders[i].observe(state, game.seat, self.observations[i])
        self._encoders[i].mask(state, game.seat, self.masks[i])
