"""Train a No Mercy agent with sb3-contrib's MaskablePPO on CPU, then measure it against bots.

    pip install -e '.[train]'      # CPU torch: see the note on the train extra in pyproject
    python examples/train_maskable_ppo.py --players 2 --timesteps 400000 --eval-games 1000

The agent plays seat 0 of the Gymnasium environment ``nomercy/NoMercy-v3`` against
``--opponent`` bots (``random`` by default) and only ever picks legal actions (the mask of
``env.action_masks()``). The evaluation plays fresh seeded rounds with the greedy policy and
prints its win rate beside the rate a random player gets against the same bots.

**Time to a win rate.** With ``--eval-every N`` training stops every N steps for an
evaluation (``--eval-games`` rounds, not counted in the training time) and prints a line
per checkpoint; ``--target 0.70`` stops at the first checkpoint whose win rate reaches it.
The last line is one JSON object (``"result": ...``) with the training's wall and CPU
seconds, the steps, the win rate and whether the target was reached: the figure to
compare when the environment changes (``docs/rl.md``, "Training example and benchmark").

**The native environment.** ``--env native`` trains on
:class:`~nomercy.rl.native_vector.NativeVectorEnv` (the ``fast`` extra: the rounds and
their encoding in compiled code, random opponents only) through :class:`NativeSB3VecEnv`,
an adapter to stable-baselines3's ``VecEnv`` interface, which ``MaskablePPO`` wants. The
evaluation is the same either way: the Gymnasium env and its Python bots.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecEnv

import nomercy
from nomercy.rl import NUM_ACTIONS, OBS_SIZE, NoMercyEnv
from nomercy.rl.encoding import OBS_HIGH


class NativeSB3VecEnv(VecEnv):  # type: ignore[misc]
    """``NativeVectorEnv`` as stable-baselines3's ``VecEnv``: auto-reset in the same step
    with ``infos[i]["terminal_observation"]``, masks by ``env_method("action_masks")``.
    Arrays are copied out, since the native env reuses its buffers and SB3 keeps them."""

    def __init__(self, num_envs: int, players: int, opponent: str, seed: int) -> None:
        from nomercy.rl.native_vector import NativeVectorEnv

        self.venv = NativeVectorEnv(num_envs, players=players, opponents=opponent)
        self._next_seed = seed
        self._actions = np.zeros(num_envs, np.int64)
        super().__init__(
            num_envs, spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32), spaces.Discrete(NUM_ACTIONS)
        )

    def reset(self) -> npt.NDArray[np.float32]:
        seed = self._seeds[0] if self._seeds[0] is not None else self._next_seed
        self._reset_seeds()
        obs, _ = self.venv.reset(seed=seed)  # row i from seed + i
        self._next_seed = seed + self.num_envs
        return obs.copy()

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(
        self,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_], list[dict[str, Any]]]:
        obs, _, rewards, dones = self.venv.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = self.venv.final_observations[i].copy()
        return obs.copy(), rewards.copy(), dones.copy(), infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        return self.venv.masks.astype(bool)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        rows = list(self._get_indices(indices))
        if attr_name == "render_mode":
            return [None] * len(rows)
        if attr_name == "action_masks":
            return [self.action_masks] * len(rows)
        raise AttributeError(f"the native rows have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the native rows have no attribute {attr_name!r} to set")

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"the native rows have no method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def close(self) -> None:
        self.venv.close()


def evaluate(model: MaskablePPO | None, players: int, opponent: str, games: int, seed: int) -> float:
    """Win rate of ``model`` (None: a uniformly random legal player) over ``games`` rounds."""
    env = NoMercyEnv(players=players, opponents=opponent)
    rng = np.random.default_rng(seed)
    wins = 0
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done = False
        reward = 0.0
        while not done:
            mask = env.action_masks()
            if model is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(model.predict(obs, action_masks=mask, deterministic=True)[0])
            obs, reward, done, _, _ = env.step(action)
        wins += reward > 0
    return wins / games


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="bot name for every other seat")
    parser.add_argument("--timesteps", type=int, default=300_000, help="most training steps")
    parser.add_argument("--envs", type=int, default=8, help="parallel environments (one process)")
    parser.add_argument(
        "--env", choices=["gym", "native"], default="gym", help="Gymnasium env, or the native vector env"
    )
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-every", type=int, default=0, help="evaluate every N steps (0: at the end)")
    parser.add_argument("--target", type=float, help="stop at the first evaluation with this win rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", help="write the trained model to this path")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    env: VecEnv
    if args.env == "native":
        env = NativeSB3VecEnv(args.envs, args.players, args.opponent, args.seed)
    else:
        env = make_vec_env(
            NoMercyEnv,
            n_envs=args.envs,
            seed=args.seed,
            env_kwargs={"players": args.players, "opponents": args.opponent},
        )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=512,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.995,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        verbose=0,
    )
    eval_seed = 10_000_000 + args.seed
    chunk = args.eval_every if args.eval_every > 0 else args.timesteps
    train_s = train_cpu_s = 0.0
    trained = 0.0
    reached = False
    while model.num_timesteps < args.timesteps:
        wall, cpu = time.perf_counter(), time.process_time()
        steps = min(chunk, args.timesteps - model.num_timesteps)
        model.learn(total_timesteps=steps, reset_num_timesteps=False)
        train_s += time.perf_counter() - wall
        train_cpu_s += time.process_time() - cpu
        trained = evaluate(model, args.players, args.opponent, args.eval_games, eval_seed)
        print(
            f"{model.num_timesteps:>9,} steps  training {train_s:7.1f} s wall, {train_cpu_s:7.1f} s CPU  "
            f"win rate {trained:.1%}",
            flush=True,
        )
        if args.target is not None and trained >= args.target:
            reached = True
            break
    if args.save:
        model.save(args.save)
    env.close()

    baseline = evaluate(None, args.players, args.opponent, args.eval_games, eval_seed)
    print(
        f"trained {model.num_timesteps} steps in {train_s:.0f} s wall, {train_cpu_s:.0f} s CPU "
        f"({model.num_timesteps / train_s:.0f} steps/s)"
    )
    print(
        f"win rate over {args.eval_games} rounds, {args.players} players vs {args.opponent} bots: "
        f"trained {trained:.1%}, random player {baseline:.1%} (fair share {1 / args.players:.1%})"
    )
    result: dict[str, Any] = {
        "env": "NativeVectorEnv, NativeSB3VecEnv"
        if args.env == "native"
        else "NoMercyEnv (Gymnasium), make_vec_env",
        "envs": args.envs,
        "players": args.players,
        "opponent": args.opponent,
        "seed": args.seed,
        "timesteps": model.num_timesteps,
        "train_seconds": round(train_s, 1),
        "train_cpu_seconds": round(train_cpu_s, 1),
        "win_rate": trained,
        "random_win_rate": baseline,
        "eval_games": args.eval_games,
        "target": args.target,
        "target_reached": reached,
        "nomercy": nomercy.__version__,
    }
    print(json.dumps({"result": result}))
    return result


if __name__ == "__main__":
    main()
