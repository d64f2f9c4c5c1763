"""The batched environment on the native engine: :class:`VectorEnv`'s semantics, stepped
in compiled code (``pip install 'nomercy[rl,fast]'``).

>>> from nomercy.rl.native_vector import NativeVectorEnv      # doctest: +SKIP
>>> venv = NativeVectorEnv(1024, players=2, rules="no_mercy")
>>> obs, masks = venv.reset(seed=0)
>>> obs, masks, rewards, dones = venv.step(venv.sample_actions())

One call of :meth:`NativeVectorEnv.step` applies every row's learner action, plays the
opponents (``random`` or ``heuristic``, each row with its own generator; a heuristic
opponent also calls late Uno and catches out of turn, as in ``SingleAgentGame``) until
the learner decides again or
its round ends, deals a finished row again at once (auto-reset, as :class:`VectorEnv`:
``rewards``/``dones`` belong to the round that ended, its last observation is in
``final_observations``) and encodes every row's observation and mask, all in one
``nomercy.native.vector.step`` kernel. The observations and masks are those of
:class:`~nomercy.encoding.fast.StateEncoder` for the same state, bit for bit
(``tests/rl/test_native_vector.py``). ``workers=k`` splits the rows over ``k``
processes that step their share at the same time (shared memory, no copies).

:class:`NativeGymVectorEnv` is the same environment as a ``gymnasium.vector.VectorEnv``
(same-step autoreset, masks in ``info["action_mask"]``).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import sys
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from nomercy.encoding import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_HIGH,
    OBS_SIZE,
    check_table,
)
from nomercy.engine import GameState
from nomercy.native import Batch
from nomercy.native import encode as E
from nomercy.native import vector as V
from nomercy.native.convert import to_state
from nomercy.native.kernels import POOL_ROWS, SEED_LANES
from nomercy.native.layout import MT_WORDS
from nomercy.rl.common import (
    check_num_envs,
    check_reward,
    check_seat,
    knockout_reward,
    opponent_names,
    resolve_rules,
)
from nomercy.rules import Rules

__all__ = [
    "NATIVE_OF_RL",
    "NATIVE_OPPONENTS",
    "OBS_OFFSETS",
    "RL_OF_NATIVE",
    "NativeGymVectorEnv",
    "NativeVectorEnv",
]

#: Opponents the native loop can play, by bot name, and their kernel kind.
NATIVE_OPPONENTS: dict[str, int] = {"random": V.RANDOM, "heuristic": V.HEURISTIC}

Seed = int | Sequence[int] | None


#: Native action index -> table index, and back: the identity, as the native engine numbers
#: its actions by the one table (``nomercy.encoding.actions``); the kernels take the lookup.
RL_OF_NATIVE = np.array(E.ACTION_LOOKUP, np.int64)
NATIVE_OF_RL = RL_OF_NATIVE
#: The starts of the sections ``nomercy.native.encode`` writes, in its ``SECTIONS`` order.
OBS_OFFSETS = np.array(E.OFFSETS, np.int64)
#: The internal copy of the masks is padded to whole 8-byte words: the sampler reads it
#: a word at a time (``vector.sample``), eight little-endian flags a word.
_FLAG_WIDTH = -(-NUM_ACTIONS // 8) * 8
if sys.byteorder != "little":  # pragma: no cover - the kernels assume little-endian words
    raise ImportError("the native vector environment reads its masks as little-endian words")


def _seed_words(seed: Seed, n: int) -> npt.NDArray[np.uint64]:
    """Three generator words per row: row ``i`` of seed ``s`` is seeded with ``s + i`` (as
    Gymnasium's vector envs seed their sub-envs), or with ``seed[i]`` for a list."""
    if seed is None:
        words = np.random.SeedSequence().generate_state(3 * n, np.uint64).reshape(n, 3)
    else:
        if isinstance(seed, bool):
            raise ValueError(f"a seed is a whole number >= 0, got {seed!r}")
        if isinstance(seed, int | np.integer):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"{len(seeds)} seeds for {n} rows: give one int or one seed per row")
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0:
                raise ValueError(f"a seed is a whole number >= 0, got {s!r}")
        words = np.stack([np.random.SeedSequence(int(s)).generate_state(3, np.uint64) for s in seeds])
    words[words == 0] = 1  # xorshift64* never leaves zero
    return words.astype(np.uint64)


def _catch_miss() -> float:
    """The heuristic opponent's chance to miss a catch: ``HeuristicBot``'s default."""
    from nomercy.bots.heuristic import HeuristicBot

    return HeuristicBot(seed=0).catch_miss


class _Rows:
    """A block of rows and the kernels over them, writing into arrays it is handed (the
    environment's own, or shared memory when the rows belong to a worker process)."""

    def __init__(
        self,
        rules: Rules,
        players: int,
        seat: int,
        kinds: npt.NDArray[np.int64],
        reward: str,
        arrays: dict[str, npt.NDArray[Any]],
        log_size: int = 0,
    ) -> None:
        self.rows = int(arrays["obs"].shape[0])
        self.batch = Batch(rules, self.rows, players)
        self.players = players
        self.seat = seat
        self.kinds = kinds
        self.reacting = any(V.reacts(int(k)) for s, k in enumerate(kinds[:players]) if s != seat)
        self.catch_miss = _catch_miss()
        self.points = reward == "points"
        self.knockout = knockout_reward(check_reward(reward))
        self.a = arrays
        self.rng = np.ones((self.rows, 3), np.uint64)
        self.log = np.zeros((self.rows, log_size), np.int64)
        self.logn = np.zeros(self.rows, np.int64)
        self._scratch = np.zeros(NUM_ACTIONS, np.uint8)
        self._lst = np.zeros(NUM_ACTIONS + 1, np.int64)
        self._sitting = np.zeros(MAX_PLAYERS, np.int64)
        self._waiting = np.zeros(self.rows, np.int64)  # the rows to deal again
        self._pool = np.zeros((POOL_ROWS, SEED_LANES), np.uint32)  # their generators, seeded
        self._generators = np.zeros((SEED_LANES, MT_WORDS), np.int32)
        # vector.step's and vector.reset's arguments, bound once: looking each one up cost a
        # few percent of a step. Both kernels take the first ones, then the arrays that
        # encode a decision and the scratch; step also the rewards and the round's end.
        b, a = self.batch, arrays
        self._step_before = (
            b.tables, b.encoded, b.deck, players, seat, kinds, self.reacting, self.catch_miss, self.rng,
        )  # fmt: skip
        encoding = (OBS_OFFSETS, E.rules_row(rules), RL_OF_NATIVE, a["obs"], a["masks"], a["legal"])
        scratch = (
            self._scratch, self._lst, self._sitting, self.log, self.logn, self._waiting, self._pool,
            self._generators,
        )  # fmt: skip
        self._step_after = (
            self.points, self.knockout, *encoding, a["rewards"], a["dones"], a["final_obs"], *scratch,
        )  # fmt: skip
        self._reset_after = (*encoding, *scratch)

    def reset(self, words: npt.NDArray[np.uint64]) -> None:
        self.rng[:] = words
        a = self.a
        self._check(V.reset(*self._step_before, *self._reset_after))
        a["rewards"].fill(0.0)
        a["dones"].fill(False)

    def step(self, native_actions: npt.NDArray[np.int64]) -> int:
        """Step every row; returns how many rows finished a round."""
        code: int = V.step(*self._step_before, native_actions, *self._step_after)
        self._check(code)
        return code

    @staticmethod
    def _check(code: int) -> None:
        if code < 0:
            raise RuntimeError(
                f"row {-1 - code}: no round of {V.MAX_REDEALS} deals reached the learner's turn"
            )


_FIELDS: dict[str, tuple[tuple[int, ...], type[np.generic]]] = {
    "obs": ((OBS_SIZE,), np.float32),
    "masks": ((NUM_ACTIONS,), np.int8),
    "legal": ((_FLAG_WIDTH,), np.int8),
    "rewards": ((), np.float32),
    "dones": ((), np.bool_),
    "final_obs": ((OBS_SIZE,), np.float32),
    "actions": ((), np.int64),
}


def _worker(
    conn: Connection, names: dict[str, str], n: int, lo: int, hi: int, config: dict[str, Any]
) -> None:  # pragma: no cover - runs in the worker processes
    """A worker's loop: rows ``lo:hi`` of the shared arrays, stepped on command."""
    blocks = {key: SharedMemory(name=name) for key, name in names.items()}
    try:
        full = {
            key: np.ndarray((n, *shape), dtype, buffer=blocks[key].buf)
            for key, (shape, dtype) in _FIELDS.items()
        }
        rows = _Rows(arrays={key: view[lo:hi] for key, view in full.items()}, **config)
        actions = full["actions"][lo:hi]
        while True:
            command, payload = conn.recv()
            try:
                if command == "step":
                    rows.step(actions)
                elif command == "reset":
                    rows.reset(payload)
                else:
                    break
                conn.send(None)
            except Exception as exc:
                conn.send(exc)
    finally:
        for block in blocks.values():
            block.close()


class NativeVectorEnv:
    """``num_envs`` rounds of ``players`` seats: the learner at ``seat``, native opponents
    elsewhere, stepped together; the numpy API of :class:`~nomercy.rl.VectorEnv`.

    ``opponents``: a name of :data:`NATIVE_OPPONENTS` for every other seat, or one per
    seat after the learner's. ``workers``: 0 steps in this process, ``k >= 1`` in ``k``
    worker processes (call :meth:`close`, or use the env as a context manager).
    ``log_size`` keeps the last call's actions and deals per row (:mod:`nomercy.native.vector`,
    for tests; in-process only). The arrays returned are reused buffers.
    """

    def __init__(
        self,
        num_envs: int,
        players: int = 2,
        rules: Rules | str | Mapping[str, Any] | None = None,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        reward: str = "win",
        workers: int = 0,
        log_size: int = 0,
    ) -> None:
        check_num_envs(num_envs)
        if isinstance(workers, bool) or not isinstance(workers, int) or not 0 <= workers <= num_envs:
            raise ValueError(
                f"workers must be a whole number from 0 to num_envs ({num_envs}), got {workers!r}"
            )
        if workers and log_size:
            raise ValueError("log_size is for in-process stepping (workers=0)")
        self.rules = resolve_rules(rules)
        check_table(players, self.rules)
        check_seat(seat, players)
        check_reward(reward)
        names = opponent_names(opponents, players)
        kinds = np.zeros(MAX_PLAYERS, np.int64)
        others = [s for s in range(players) if s != seat]
        for other, name in zip(others, names, strict=True):
            key = name.strip().lower() if isinstance(name, str) else name
            if key not in NATIVE_OPPONENTS:
                choices = ", ".join(sorted(NATIVE_OPPONENTS))
                raise ValueError(f"opponent {name!r} has no native kernel: choose from {choices}")
            kinds[other] = NATIVE_OPPONENTS[key]
        self.num_envs = num_envs
        self.players = players
        self.seat = seat
        self.reward_mode = reward
        self.workers = workers
        self.opponent_names = names
        self.episode_returns: list[float] = []
        self._started = False
        self._closed = False
        self._sample_rng = np.ones((num_envs, 3), np.uint64)
        config: dict[str, Any] = {
            "rules": self.rules,
            "players": players,
            "seat": seat,
            "kinds": kinds,
            "reward": reward,
        }
        self._blocks: list[SharedMemory] = []
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        arrays = self._allocate(num_envs, shared=workers > 0)
        self._a = arrays
        self.observations: npt.NDArray[np.float32] = arrays["obs"]
        self.masks: npt.NDArray[np.int8] = arrays["masks"]
        self.rewards: npt.NDArray[np.float32] = arrays["rewards"]
        self.dones: npt.NDArray[np.bool_] = arrays["dones"]
        self.final_observations: npt.NDArray[np.float32] = arrays["final_obs"]
        self._legal: npt.NDArray[np.int8] = arrays["legal"]
        #: The same flags eight to a word, for the sampler (``vector.sample``).
        self._legal_words: npt.NDArray[np.uint64] = self._legal.view(np.uint64)
        self._actions: npt.NDArray[np.int64] = arrays["actions"]
        self._rows: _Rows | None = None
        self._bounds: list[tuple[int, int]] = []
        if workers == 0:
            self._rows = _Rows(arrays=arrays, log_size=log_size, **config)
        else:
            self._start_workers(config)

    # -- the numpy API --------------------------------------------------------------------

    def reset(self, seed: Seed = None) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Deal every row: row ``i`` from seed ``seed + i`` (or ``seed[i]``), so a row
        plays the same rounds whatever the batch around it."""
        self._check_open()
        words = _seed_words(seed, self.num_envs)
        if self._rows is not None:
            self._rows.reset(words)
        else:
            self._command([("reset", words[lo:hi]) for lo, hi in self._bounds])
        self._sample_rng = words.copy()
        self._started = True
        return self.observations, self.masks

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Apply one RL action index per row; return (observations, masks, rewards, dones).

        Raises ``ValueError`` (and changes nothing) for a wrong shape, a non-integer, an
        index out of range or an action that is illegal in its row."""
        self._check_open()
        if not self._started:
            raise RuntimeError("call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {acts.shape}")
        if acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be integer action indices, got dtype {acts.dtype}")
        if acts.dtype != np.int64:  # uint64 above 2**63 turns negative: out of range below
            acts = acts.astype(np.int64)
        row = V.take_actions(acts, self._legal, NATIVE_OF_RL, self._actions)
        if row >= 0:
            action = int(np.asarray(actions)[row])
            if not 0 <= action < NUM_ACTIONS:
                raise ValueError(f"row {row}: action {action} is outside 0..{NUM_ACTIONS - 1}")
            raise ValueError(f"row {row}: action {action} is not legal now (see masks[{row}])")
        if self._rows is not None:
            finished = self._rows.step(self._actions)
        else:
            self._command([("step", None)] * len(self._bounds))
            finished = int(self.dones.any())
        if finished:
            self.episode_returns.extend(self.rewards[self.dones].tolist())
        return self.observations, self.masks, self.rewards, self.dones

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per row (its own generator stream per row)."""
        out = np.empty(self.num_envs, np.int64)
        V.sample(self._legal_words, self._sample_rng, out)
        return out

    def state(self, row: int) -> GameState:
        """Row ``row``'s round as a :class:`~nomercy.GameState` (for tests and inspection;
        it holds every hand, which the learner's observation does not)."""
        if self._rows is None:
            raise RuntimeError("state() reads the tables of in-process stepping (workers=0)")
        return to_state(self._rows.batch.tables[row], self.rules)

    @property
    def log(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The last call's per-row log and entry counts (``log_size`` columns)."""
        if self._rows is None:
            raise RuntimeError("the log is kept by in-process stepping (workers=0)")
        return self._rows.log, self._rows.logn

    def close(self) -> None:
        """Stop the workers and free the shared memory (nothing to do in-process)."""
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(("close", None))
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():  # pragma: no cover - a stuck worker
                proc.terminate()
        for conn in self._conns:
            conn.close()
        for block in self._blocks:
            block.close()
            block.unlink()
        self._blocks.clear()

    def __enter__(self) -> NativeVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    # -- internals --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this environment is closed")

    def _allocate(self, n: int, shared: bool) -> dict[str, npt.NDArray[Any]]:
        arrays: dict[str, npt.NDArray[Any]] = {}
        for key, (shape, dtype) in _FIELDS.items():
            full = (n, *shape)
            if shared:
                size = max(1, int(np.prod(full)) * np.dtype(dtype).itemsize)
                block = SharedMemory(create=True, size=size)
                self._blocks.append(block)
                arrays[key] = np.ndarray(full, dtype, buffer=block.buf)
                arrays[key].fill(0)
            else:
                arrays[key] = np.zeros(full, dtype)
        return arrays

    def _start_workers(self, config: dict[str, Any]) -> None:
        names = {key: block.name for key, block in zip(_FIELDS, self._blocks, strict=True)}
        ctx = mp.get_context()
        splits = np.array_split(np.arange(self.num_envs), self.workers)
        for part in splits:
            lo, hi = int(part[0]), int(part[-1]) + 1
            parent, child = ctx.Pipe()
            proc = ctx.Process(
                target=_worker, args=(child, names, self.num_envs, lo, hi, config), daemon=True
            )
            proc.start()
            child.close()
            self._bounds.append((lo, hi))
            self._conns.append(parent)
            self._procs.append(proc)

    def _command(self, commands: list[tuple[str, Any]]) -> None:
        for conn, command in zip(self._conns, commands, strict=True):
            conn.send(command)
        errors = [conn.recv() for conn in self._conns]
        for error in errors:
            if error is not None:
                raise error


class NativeGymVectorEnv(gymnasium.vector.VectorEnv):
    """:class:`NativeVectorEnv` as a ``gymnasium.vector.VectorEnv``.

    Same-step autoreset (``metadata["autoreset_mode"]``): a row whose round ended returns
    the new round's observation, with the ended one's in ``info["final_obs"]`` where
    ``info["_final_obs"]`` is True (other rows of that array are stale). The masks are in
    ``info["action_mask"]`` (int8) and :meth:`action_masks` (bool). Rounds never
    truncate. An illegal action raises ``ValueError`` and changes nothing (a masked
    policy never sends one).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        players: int = 2,
        rules: Rules | str | Mapping[str, Any] | None = None,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        reward: str = "win",
        workers: int = 0,
    ) -> None:
        self.env = NativeVectorEnv(num_envs, players, rules, opponents, seat, reward, workers)
        self.num_envs = num_envs
        self.single_observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._truncations = np.zeros(num_envs, np.bool_)
        self._all = np.ones(num_envs, np.bool_)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal every row (row ``i`` from ``seed + i``, or ``seed[i]``); ``options`` are
        not used."""
        obs, masks = self.env.reset(seed)
        return obs, {"action_mask": masks, "_action_mask": self._all}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        obs, masks, rewards, dones = self.env.step(actions)
        info: dict[str, Any] = {"action_mask": masks, "_action_mask": self._all}
        if dones.any():
            info["final_obs"] = self.env.final_observations
            info["_final_obs"] = dones
        return obs, rewards, dones, self._truncations, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every row now, as booleans (sb3-contrib ``MaskablePPO``)."""
        return self.env.masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self.env.close()
