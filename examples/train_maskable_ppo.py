"""Train a No Mercy agent with sb3-contrib's MaskablePPO on CPU, then measure it against bots.

    pip install -e '.[train]'      # CPU torch: see the note on the train extra in pyproject
    python examples/train_maskable_ppo.py --players 2 --timesteps 400000 --eval-games 1000

The agent plays seat 0 of the Gymnasium environment ``nomercy/NoMercy-v1`` against
``--opponent`` bots (``random`` by default) and only ever picks legal actions (the mask of
``env.action_masks()``). The evaluation plays fresh seeded rounds with the greedy policy and
prints its win rate beside the rate a random player gets against the same bots.

**Time to a win rate.** With ``--eval-every N`` training stops every N steps for an
evaluation (``--eval-games`` rounds, not counted in the training time) and prints a line
per checkpoint; ``--target 0.70`` stops at the first checkpoint whose win rate reaches it.
The last line is one JSON object (``"result": ...``) with the training's wall and CPU
seconds, the steps, the win rate and whether the target was reached: the figure to
compare when the environment changes (``docs/rl.md``, "Training example and benchmark").
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import nomercy
from nomercy.rl import NoMercyEnv


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
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-every", type=int, default=0, help="evaluate every N steps (0: at the end)")
    parser.add_argument("--target", type=float, help="stop at the first evaluation with this win rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", help="write the trained model to this path")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
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
        "env": "NoMercyEnv (Gymnasium), make_vec_env",
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
