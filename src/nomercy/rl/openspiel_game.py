"""OpenSpiel game ``python_nomercy``, registered with ``pyspiel.register_game`` on import.

>>> import pyspiel, nomercy.rl.openspiel_game
>>> game = pyspiel.load_game("python_nomercy", {"players": 4, "preset": "classic"})

**Chance: one explicit chance node, then sampled chance.** The engine draws every card
from a pile shuffled by the round's seed (reshuffles included), so the whole round is a
function of ``(rules, seed, actions)``. The first node of the game is a chance node that
picks the seed uniformly among ``seed_outcomes`` outcomes (default 65536); after it, the
game has no further chance nodes: each draw is already decided by the seed, which no
player observes. Algorithms that sample chance (MCCFR, MCTS, RL) see the right
distribution of deals; algorithms that enumerate chance see ``seed_outcomes`` deals
instead of every possible shuffle.

**Parameters**: ``players`` (2-6), ``preset`` (``no_mercy``/``classic``), ``rules`` (house
rules as ``name=value`` pairs separated by ``;``, e.g. ``"stack_color=match;uno_penalty=4"``),
``seed_outcomes``, ``max_game_length`` (moves after which the round is stopped and
scored as a draw: all returns 0).

**Utilities**: zero-sum, +1 for the round's winner and -1/(players-1) for every other
seat (with 2 players: +1/-1).

**Observer**: the observation tensor is :func:`nomercy.rl.encoding.observe` of the
player's view (``docs/rl.md``). The information-state tensor appends the last
:data:`HISTORY` moves (actor as a relative seat, one-hot, and the action index + 1); the
information-state string is the whole public move history, the player's own hand after
every move and its current view: the moves, not the tensor, are the perfect recall.
Only the acting seat acts: its legal actions include catching the seat just before it
(U2) and the ``uno`` variant of plays (U1), as in the PettingZoo environment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from nomercy.cards import Card
from nomercy.encoding import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    action_meaning,
    action_to_index,
    check_table,
    index_to_action,
    observe,
)
from nomercy.engine import GameState, new_game
from nomercy.rl.common import resolve_rules
from nomercy.rl.render import render_view
from nomercy.rules import Rules
from nomercy.views import player_view

__all__ = ["GAME_NAME", "HISTORY", "NoMercyGame", "NoMercyObserver", "NoMercyState"]

GAME_NAME = "python_nomercy"
#: Moves kept in the information-state tensor.
HISTORY = 32
_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "preset": "no_mercy",
    "rules": "",
    "seed_outcomes": 65536,
    "max_game_length": 3000,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python nomercy (UNO Show 'em No Mercy rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The ``Rules`` of a parameter dict: ``preset`` then ``rules`` overrides."""
    rules = resolve_rules(str(params["preset"]))
    overrides = [item for item in str(params["rules"]).split(";") if item.strip()]
    return rules.with_overrides(overrides) if overrides else rules


class NoMercyGame(pyspiel.Game):  # type: ignore[misc]
    """Game parameters and the game's static facts."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        full = {**_DEFAULTS, **(params or {})}
        players = int(full["players"])
        rules = rules_from_params(full)
        check_table(players, rules)
        seed_outcomes = int(full["seed_outcomes"])
        max_length = int(full["max_game_length"])
        if seed_outcomes < 1 or max_length < 2:
            raise ValueError("seed_outcomes must be >= 1 and max_game_length >= 2")
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=seed_outcomes,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_length,
        )
        super().__init__(_GAME_TYPE, info, full)

    def new_initial_state(self) -> NoMercyState:
        return NoMercyState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> NoMercyObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return NoMercyObserver(perfect_recall)


class NoMercyState(pyspiel.State):  # type: ignore[misc]
    """A round: before the chance node no cards are dealt (``game_state`` is None)."""

    def __init__(self, game: NoMercyGame) -> None:
        super().__init__(game)
        # Copied here: pyspiel may hand states a copy of the game without its Python attributes.
        params = {**_DEFAULTS, **game.get_parameters()}
        self.players = int(params["players"])
        self.rules = rules_from_params(params)
        self.seed_outcomes = int(params["seed_outcomes"])
        self.max_length = int(params["max_game_length"])
        self.game_state: GameState | None = None
        #: (actor seat, table index) of every move, and each seat's hand after it.
        self.moves: list[tuple[int, int]] = []
        self.hands_after: list[tuple[str, ...]] = []

    def current_player(self) -> int:
        s = self.game_state
        if s is None:
            return int(pyspiel.PlayerId.CHANCE)
        if s.outcome is not None or self._truncated():
            return int(pyspiel.PlayerId.TERMINAL)
        assert s.current is not None
        return s.current

    def _truncated(self) -> bool:
        return len(self.moves) + 1 >= self.max_length

    def _legal_actions(self, player: int) -> list[int]:
        s = self.game_state
        assert s is not None and player == s.current
        return sorted(action_to_index(a, player, s.players) for a in s.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self.seed_outcomes
        p = 1.0 / n
        return [(i, p) for i in range(n)]

    def _apply_action(self, action: int) -> None:
        if self.game_state is None:
            self.game_state = new_game(self.players, self.rules, seed=int(action))
            return
        s = self.game_state
        seat = s.current
        assert seat is not None
        s.apply(index_to_action(s, int(action), seat), seat)
        self.moves.append((seat, int(action)))
        self.hands_after.append(
            tuple(" ".join(c.code for c in sorted(h, key=Card.sort_key)) for h in s.hands)
        )

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        return action_meaning(int(action))

    def is_terminal(self) -> bool:
        s = self.game_state
        return s is not None and (s.outcome is not None or self._truncated())

    def returns(self) -> list[float]:
        s = self.game_state
        n = self.players
        if s is None or s.outcome is None:
            return [0.0] * n
        lose = -1.0 / (n - 1)
        return [1.0 if seat == s.outcome.winner else lose for seat in range(n)]

    def __str__(self) -> str:
        """The full state (for debugging; it shows every hand)."""
        return "<not dealt>" if self.game_state is None else self.game_state.to_json()


class NoMercyObserver:
    """PyObserver: what one player sees (the view) and, for perfect recall, the moves."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("observation", OBS_SIZE, (OBS_SIZE,))]
        if perfect_recall:
            pieces.append(("history", HISTORY * (MAX_PLAYERS + 1), (HISTORY, MAX_PLAYERS + 1)))
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        start = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size

    def set_from(self, state: NoMercyState, player: int) -> None:
        self.tensor.fill(0.0)
        s = state.game_state
        if s is None:
            return
        observe(player_view(s, player), self.dict["observation"])
        if self.perfect_recall:
            n = s.players
            history = self.dict["history"]
            for row, (actor, index) in enumerate(state.moves[-HISTORY:]):
                history[row, (actor - player) % n] = 1.0
                history[row, MAX_PLAYERS] = index + 1

    def string_from(self, state: NoMercyState, player: int) -> str:
        s = state.game_state
        if s is None:
            return "not dealt"
        now = render_view(player_view(s, player))
        if not self.perfect_recall:
            return now
        lines = [f"P{player}"]
        for (actor, index), hands in zip(state.moves, state.hands_after, strict=True):
            lines.append(f"P{actor} {action_meaning(index)} | mine: {hands[player]}")
        lines.append(now)
        return "\n".join(lines)


pyspiel.register_game(_GAME_TYPE, NoMercyGame)
