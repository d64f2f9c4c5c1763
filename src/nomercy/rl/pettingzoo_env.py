"""PettingZoo AEC environment: every seat is an agent (``player_0`` ... ``player_{n-1}``).

>>> from nomercy.rl import pettingzoo as nm
>>> env = nm.env(players=4)
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Observations are ``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ACTIONS]}``
from the agent's own view (``docs/rl.md``). Rewards come when the round ends for an agent:
a knocked-out seat (M1) is terminated at once with -1 (``reward="points"``: -250); at the
end of the round the others get +1 (winner) / -1, or their round points less the points
left in their hand.

**Out-of-turn actions.** Only the agent whose turn it is acts (AEC). Its mask includes
``catch +k`` while the seat just before it is open to a catch (U2: the window closes when
this next player begins its turn) and the ``uno`` variant of every play that leaves one
card (U1). Other seats do not catch or call late in this environment: an AEC turn order
has no place for simultaneous reactions, and the catch of the next player is the one
that matters before the window closes.

Version history (``-vN`` and ``metadata["name"]``'s ``_vN`` are
:data:`~nomercy.rl.encoding.ENV_VERSION`, the version of the action table and the
observation encoding):

* v3 (``nomercy/NoMercy-v3``, ``nomercy_v3``): encoding 3, the house rules are an input
  (the observation's ``rules`` section, after the others). ``nomercy/NoMercy-v1`` and
  ``-v2`` (encoding 2) are no longer made: their observations were narrower.
* v2 (``nomercy_v2``): the environment of ``nomercy/NoMercy-v1`` under the number of its
  encoding, in the id and the name alike (the name said ``nomercy_v0``).
* v1: encoding 2, the Wild Draw 4 challenge (W6): a ``challenge`` decision and action.
* v0: encoding 1, the first release; no longer made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from nomercy.encoding import NUM_ACTIONS, OBS_HIGH, OBS_SIZE, check_table, index_to_action
from nomercy.encoding.fast import StateEncoder
from nomercy.engine import GameState, new_game
from nomercy.rl.common import check_reward, knockout_reward, resolve_rules, round_rewards
from nomercy.rl.render import render_view
from nomercy.rules import Rules
from nomercy.views import player_view

__all__ = ["DEPRECATED_PZ_IDS", "PZ_ENV_ID", "NoMercyAECEnv", "env", "raw_env"]

#: The PettingZoo id; its ``-vN`` and ``metadata["name"]``'s ``_vN`` are ENV_VERSION (tested).
PZ_ENV_ID = "nomercy/NoMercy-v3"


# AECEnv is Any to mypy: pettingzoo has no type information (see pyproject.toml).
class NoMercyAECEnv(AECEnv[str, dict[str, npt.NDArray[Any]], int | None]):  # type: ignore[misc]
    """The AEC environment (use :func:`env` for the wrapped, checked version)."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "nomercy_v3",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        players: int = 4,
        rules: Rules | str | Mapping[str, Any] | None = None,
        reward: str = "win",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = resolve_rules(rules)
        check_table(players, self.rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.players = players
        self.reward_mode = check_reward(reward)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._np_random = np.random.default_rng()
        self.state_: GameState | None = None
        self._encoder = StateEncoder()
        #: Seats still in the round when last looked (a change means a knock-out, M1).
        self._active_count = players
        #: Some entry of ``rewards`` is not 0 (cleared at the next step).
        self._rewarded = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
        self.state_ = new_game(self.players, self.rules, seed=int(self._np_random.integers(2**63 - 1)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._active_count = self.state_.active_count
        self._rewarded = False
        self.agent_selection = self.possible_agents[self._current()]
        if self.render_mode == "human":
            self.render()

    def _current(self) -> int:
        state = self.state_
        assert state is not None and state.current is not None
        return state.current

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        state = self.state_
        assert state is not None, "call reset() first"
        seat = self._seat[agent]
        encoder = self._encoder
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask = encoder.mask(state, seat)  # only the agent to move acts (see the module docstring)
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": encoder.observe(state, seat), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        assert state is not None
        if action is None:
            raise ValueError(f"{agent} is still in the round and must act (action None)")
        seat = self._seat[agent]
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # PettingZoo's _clear_rewards, skipped while every reward is 0
            self._clear_rewards()
            self._rewarded = False
        state.apply(index_to_action(state, int(action), seat), seat)  # IllegalAction: unchanged
        ended = False
        if state.active_count != self._active_count:
            self._active_count = state.active_count
            for other in self.agents:
                if not state.active[self._seat[other]] and not self.terminations[other]:
                    self.terminations[other] = True  # M1: knocked out
                    self.rewards[other] = knockout_reward(self.reward_mode)
                    ended = True
        if state.outcome is not None:
            final = round_rewards(state, self.reward_mode)
            for other in self.agents:
                if not self.terminations[other]:
                    self.terminations[other] = True
                    self.rewards[other] = final[self._seat[other]]
                self.infos[other] = {"winner": state.outcome.winner}
            self.agent_selection = agent
            ended = True
        else:
            self.agent_selection = self.possible_agents[self._current()]
        if ended:  # rewards and dead agents come only with knock-outs and the round's end
            self._rewarded = True
            self._accumulate_rewards()
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.state_ is None:
            return None
        text = render_view(player_view(self.state_, None))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> NoMercyAECEnv:
    """The environment without PettingZoo's checking wrappers."""
    return NoMercyAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv[str, dict[str, npt.NDArray[Any]], int | None]:
    """The environment wrapped in PettingZoo's ``OrderEnforcingWrapper``.

    Unlike PettingZoo's classic games there is no ``TerminateIllegalWrapper`` (an illegal
    action raises :class:`~nomercy.IllegalAction` and leaves the round as it was) and no
    ``AssertOutOfBoundsWrapper`` (an index outside the table raises ``ValueError`` already).
    """
    return _order_enforcing()(NoMercyAECEnv(**kwargs))


_WRAPPER: type[Any] | None = None


#: Former ids still registered -> their entry point (``module:attribute``): none since v3,
#: whose observations are wider than those of v1 and v2 (``common.ToleratedId`` makes one).
DEPRECATED_PZ_IDS: dict[str, str] = {}


def _order_enforcing() -> type[Any]:
    """``OrderEnforcingWrapper`` with direct paths for what every step reads.

    PettingZoo's wrapper forwards ``agents``, ``agent_selection``, ``terminations``... by
    ``__getattr__``, which runs only after a failed normal lookup and checks a set and a
    prefix each time: about a tenth of an AEC step here. Properties forward them at the
    cost of a normal attribute, with the same checks (nothing before ``reset()``), and
    ``last()`` asks the environment directly. It is still an ``OrderEnforcingWrapper``
    (``agent_iter`` checks that), so every order check of PettingZoo's stays.
    """
    global _WRAPPER
    if _WRAPPER is not None:
        return _WRAPPER
    from pettingzoo.utils.env_logger import EnvLogger
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    def forward(name: str) -> property:
        def get(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self.env, name)

        return property(get)

    class _OrderEnforcing(OrderEnforcingWrapper):  # type: ignore[misc]
        agents = forward("agents")
        agent_selection = forward("agent_selection")
        terminations = forward("terminations")
        truncations = forward("truncations")
        rewards = forward("rewards")
        infos = forward("infos")

        def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
            if not self._has_reset:
                EnvLogger.error_observe_before_reset()
            return self.env.last(observe)  # type: ignore[no-any-return]

    _OrderEnforcing.__name__ = _OrderEnforcing.__qualname__ = "OrderEnforcingWrapper"
    _WRAPPER = _OrderEnforcing
    return _OrderEnforcing
