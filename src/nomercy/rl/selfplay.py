"""Every seat of many native tables in one batch: the multi-agent vector environment for
self-play and leagues (``pip install 'nomercy[rl,fast]'``).

>>> from nomercy.rl.selfplay import SelfPlayEnv               # doctest: +SKIP
>>> env = SelfPlayEnv(256, players=2, seed=0)
>>> obs, masks, seats = env.reset()
>>> obs, masks, seats, rewards, dones = env.step(env.sample_actions())

Each row is one table. At every step the row's *deciding* seat (``seats[row]``) comes
back to the learner with its observation and legal mask (those of
:class:`~nomercy.rl.fast_encoding.StateEncoder`, seat-relative, bit for bit); the learner
answers one RL action index per row. When a row's round ends, ``dones[row]`` is True and
``rewards[row]`` holds every seat's reward (``win``: +1 for the winner, -1 for every other
seat, a knocked-out seat included), and the row is dealt again at once from its own seed
stream (``final_seats`` keeps no trace: a learner keeps its own per-seat trajectories).

**Opponents.** :meth:`SelfPlayEnv.set_opponents` hands some seats to *opponents* that the
environment plays itself, in batch, between two learner steps: ``"heuristic"`` (the native
heuristic's turn decision, row by row), ``"random"``, or any callable ``policy(obs, masks)
-> actions`` over a batch of rows, such as a frozen snapshot of the learner
(:class:`nomercy.bots.learned.Policy`). ``assignment[row]`` picks each row's opponent and
``learner[row]`` the row's learner seat, so one batch can play a league: some rows against
the heuristic, others against older snapshots. A step then returns only when every row's
deciding seat is the learner's; ``rewards`` are still given for every seat.

**Out of turn.** Only the deciding seat acts: a catch (U2) is taken on one's own turn from
the legal actions, and no seat reacts out of turn (the rule loop of
``nomercy.bots.runner`` asks bots between turns; here nobody is asked).

The loop over rows is Python over the native engine's per-table entry points
(:class:`nomercy.native.Batch` and ``nomercy.native.encode``); a policy's forward pass over
the batch is the cost that matters at any useful network size.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy.encoding import NUM_ACTIONS, OBS_SIZE, check_table
from nomercy.engine import GameState
from nomercy.native import Batch
from nomercy.native import encode as E
from nomercy.native import layout as L
from nomercy.native.convert import to_state
from nomercy.native.heuristic import heuristic_choose
from nomercy.rl.common import check_num_envs, resolve_rules
from nomercy.rl.native_vector import NATIVE_OF_RL, OBS_OFFSETS, RL_OF_NATIVE
from nomercy.rules import Rules

__all__ = ["BatchPolicy", "Opponent", "SelfPlayEnv", "sample_masked"]

#: A batched policy: observations ``(rows, OBS_SIZE)`` and masks ``(rows, NUM_ACTIONS)``
#: in, one legal RL action index per row out.
BatchPolicy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], npt.NDArray[np.int64]]
#: An opponent: a native bot's name (``"heuristic"``, ``"random"``) or a batched policy.
Opponent = str | BatchPolicy
#: Rounds longer than this many decisions are refused (no round of the game comes close).
MAX_DECISIONS = 100_000


def sample_masked(masks: npt.NDArray[np.int8], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """A uniformly random legal action per row (every row has one)."""
    noise = rng.random(masks.shape) * (masks > 0)
    return np.asarray(noise.argmax(axis=1), np.int64)


class SelfPlayEnv:
    """``num_envs`` native tables of ``players`` seats, every seat's decision batched.

    ``seed`` seeds row ``i``'s deals with ``seed + i`` (so a row plays the same rounds
    whatever the batch around it) and the random opponents' draws.
    """

    def __init__(
        self,
        num_envs: int,
        players: int = 2,
        rules: Rules | str | Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> None:
        check_num_envs(num_envs)
        self.rules = resolve_rules(rules)
        check_table(players, self.rules)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a seed is a whole number >= 0, got {seed!r}")
        self.num_envs = num_envs
        self.players = players
        self.seed = seed
        self.batch = Batch(self.rules, num_envs, players)
        self._rules_row = E.rules_row(self.rules)  # the observations' rules section
        self.observations = np.zeros((num_envs, OBS_SIZE), np.float32)
        self.masks = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        self.seats = np.zeros(num_envs, np.int64)
        self.rewards = np.zeros((num_envs, players), np.float32)
        self.dones = np.zeros(num_envs, np.bool_)
        #: Rounds finished per row since :meth:`reset`.
        self.rounds = np.zeros(num_envs, np.int64)
        self._deals: list[np.random.Generator] = []
        self._rng = np.random.default_rng(seed)
        self._opponents: list[Opponent] = []
        self._assignment = np.zeros(num_envs, np.int64)
        self._learner = np.full(num_envs, -1, np.int64)  # -1: every seat is the learner's
        self._scratch = np.zeros(L.NUM_ACTIONS, np.uint8)
        self._lst = np.zeros(L.NUM_ACTIONS + 1, np.int64)
        self._started = False

    # -- opponents ----------------------------------------------------------------------

    def set_opponents(
        self,
        opponents: Sequence[Opponent],
        assignment: npt.ArrayLike | None = None,
        learner: npt.ArrayLike | int | None = None,
    ) -> None:
        """Play every seat but ``learner[row]`` with ``opponents[assignment[row]]``.

        ``learner`` defaults to ``row % players`` (the learner's seat rotates over the
        rows), ``assignment`` to ``row % len(opponents)``. ``set_opponents([])`` makes
        every seat the learner's again (pure self-play). Takes effect at the next
        :meth:`reset` or :meth:`step` (rows now at an opponent's seat are played then).
        """
        for opponent in opponents:
            if isinstance(opponent, str):
                if opponent not in ("heuristic", "random"):
                    raise ValueError(f"opponent {opponent!r} has no native player: heuristic or random")
            elif not callable(opponent):
                raise ValueError(
                    f"an opponent is 'heuristic', 'random' or a batched policy, not {opponent!r}"
                )
        n = self.num_envs
        rows = np.arange(n)
        if not opponents:
            self._opponents = []
            self._learner = np.full(n, -1, np.int64)
            return
        seats = rows % self.players if learner is None else np.broadcast_to(np.asarray(learner), n)
        picks = rows % len(opponents) if assignment is None else np.asarray(assignment)
        if seats.shape != (n,) or np.any(seats < 0) or np.any(seats >= self.players):
            raise ValueError(f"learner: one seat 0-{self.players - 1} per row")
        if picks.shape != (n,) or np.any(picks < 0) or np.any(picks >= len(opponents)):
            raise ValueError(f"assignment: one opponent index 0-{len(opponents) - 1} per row")
        self._opponents = list(opponents)
        self._learner = seats.astype(np.int64)
        self._assignment = picks.astype(np.int64)

    # -- the API --------------------------------------------------------------------------

    def reset(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Deal every row and play the opponents to the learner's first decisions:
        (observations, masks, seats)."""
        self._deals = [np.random.default_rng(self.seed + row) for row in range(self.num_envs)]
        self._rng = np.random.default_rng(self.seed)
        self.rounds[:] = 0
        self.rewards[:] = 0.0
        self.dones[:] = False
        for row in range(self.num_envs):
            self._deal(row)
        self._started = True
        self._play_opponents()
        return self.observations, self.masks, self.seats

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.int8],
        npt.NDArray[np.int64],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
    ]:
        """Apply one RL action per row for its deciding seat; return (observations,
        masks, seats, rewards, dones). ``rewards[row]`` is every seat's reward of the round
        that ended in this step (zeros where ``dones[row]`` is False). Raises
        ``ValueError`` and changes nothing for an illegal action."""
        if not self._started:
            raise RuntimeError("call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions: {self.num_envs} integer action indices, got {acts.dtype} {acts.shape}"
            )
        acts = acts.astype(np.int64)
        bad = (acts < 0) | (acts >= NUM_ACTIONS)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"row {row}: action {int(acts[row])} is outside 0..{NUM_ACTIONS - 1}")
        illegal = self.masks[np.arange(self.num_envs), acts] == 0
        if illegal.any():
            row = int(np.flatnonzero(illegal)[0])
            raise ValueError(f"row {row}: action {int(acts[row])} is not legal now (see masks[{row}])")
        self.rewards[:] = 0.0
        self.dones[:] = False
        for row in range(self.num_envs):
            self._apply(row, int(acts[row]))
        self._play_opponents()
        return self.observations, self.masks, self.seats, self.rewards, self.dones

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per row."""
        return sample_masked(self.masks, self._rng)

    def heuristic_actions(self) -> npt.NDArray[np.int64]:
        """What the native heuristic would play in each row's deciding seat (a teacher's
        labels for behaviour cloning)."""
        out = np.empty(self.num_envs, np.int64)
        for row in range(self.num_envs):
            out[row] = self._heuristic(row)
        return out

    def state(self, row: int) -> GameState:
        """Row ``row``'s round as a :class:`~nomercy.GameState` (holds every hand)."""
        return to_state(self.batch.tables[row], self.rules)

    # -- internals ------------------------------------------------------------------------

    def _deal(self, row: int) -> None:
        seed = int(self._deals[row].integers(0, 2**63))
        self.batch.deal(row, seed)
        self._encode(row)

    def _encode(self, row: int) -> None:
        s = self.batch.tables[row]
        seat = int(s[L.CURRENT])
        self.seats[row] = seat
        E.observe(s, seat, OBS_OFFSETS, self._rules_row, self.observations[row])
        E.mask(s, self.batch.encoded, seat, RL_OF_NATIVE, self.masks[row], self._scratch, self._lst)

    def _heuristic(self, row: int) -> int:
        s = self.batch.tables[row]
        native = heuristic_choose(
            s, self.batch.encoded, int(s[L.CURRENT]), self.batch.deck, self._scratch, self._lst
        )
        return int(RL_OF_NATIVE[native])

    def _apply(self, row: int, action: int) -> None:
        """Apply ``action`` (legal, by the deciding seat); at the round's end score it and
        deal again."""
        s = self.batch.tables[row]
        self.batch.step(row, int(NATIVE_OF_RL[action]))
        if s[L.WINNER] >= 0:
            winner = int(s[L.WINNER])
            self.rewards[row] = -1.0
            self.rewards[row, winner] = 1.0
            self.dones[row] = True
            self.rounds[row] += 1
            self._deal(row)
        else:
            self._encode(row)

    def _play_opponents(self) -> None:
        """Play the opponents' seats, in batch per opponent, until every row waits for
        the learner's seat."""
        if not self._opponents:
            return
        for _ in range(MAX_DECISIONS):
            waiting = np.flatnonzero(self.seats != self._learner)
            if len(waiting) == 0:
                return
            for index, opponent in enumerate(self._opponents):
                rows = waiting[self._assignment[waiting] == index]
                if len(rows) == 0:
                    continue
                if opponent == "heuristic":
                    acts = np.array([self._heuristic(int(r)) for r in rows], np.int64)
                elif opponent == "random":
                    acts = sample_masked(self.masks[rows], self._rng)
                else:
                    assert callable(opponent)
                    acts = np.asarray(opponent(self.observations[rows], self.masks[rows]), np.int64)
                    if acts.shape != rows.shape or not self.masks[rows, acts].all():
                        raise ValueError("an opponent policy returned an illegal action")
                for row, action in zip(rows.tolist(), acts.tolist(), strict=True):
                    self._apply(row, action)
        raise RuntimeError(f"the opponents did not hand back within {MAX_DECISIONS} decisions")
