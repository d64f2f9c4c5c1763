"""Train a No Mercy agent with sb3-contrib's MaskablePPO on CPU, then measure it against bots.

    pip install -e '.[train]'      # CPU torch: see the note on the train extra in pyproject
    python examples/train_maskable_ppo.py --players 2 --timesteps 300000 --eval-games 1000

The agent plays seat 0 of the Gymnasium environment ``nomercy/NoMercy-v1`` against
``--opponent`` bots (``random`` by default) and only ever picks legal actions (the mask of
``env.action_masks()``). The evaluation plays fresh seeded rounds with the greedy policy and
prints its win rate beside the rate a random player gets against the same bots.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

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


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="bot name for every other seat")
    parser.add_argument("--timesteps", type=int, default=300_000)
    parser.add_argument("--envs", type=int, default=8, help="parallel environments (one process)")
    parser.add_argument("--eval-games", type=int, default=1000)
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
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_s = time.perf_counter() - start
    if args.save:
        model.save(args.save)

    eval_seed = 10_000_000 + args.seed
    trained = evaluate(model, args.players, args.opponent, args.eval_games, eval_seed)
    baseline = evaluate(None, args.players, args.opponent, args.eval_games, eval_seed)
    print(f"trained {args.timesteps} steps in {train_s:.0f} s ({args.timesteps / train_s:.0f} steps/s)")
    print(
        f"win rate over {args.eval_games} rounds, {args.players} players vs {args.opponent} bots: "
        f"trained {trained:.1%}, random player {baseline:.1%} (fair share {1 / args.players:.1%})"
    )
    return {"win_rate": trained, "random_win_rate": baseline, "train_seconds": train_s}


if __name__ == "__main__":
    main()
