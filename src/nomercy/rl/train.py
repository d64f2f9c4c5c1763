"""Train the learned bot: ``python -m nomercy.rl.train`` (the ``train`` and ``fast`` extras).

Two phases, both on the native engine, on CPU:

1. **Behaviour cloning.** :class:`~nomercy.rl.selfplay.SelfPlayEnv` plays the native
   heuristic at every seat (two- and four-seat tables); each decision's observation, mask
   and the heuristic's action are the data, and the network learns to predict the action
   (cross-entropy over the legal actions).
2. **PPO** (Schulman et al. 2017) with a masked policy and a value head, against a league:
   most rows play :class:`~nomercy.rl.native_vector.NativeVectorEnv` against the native
   heuristic (which also catches out of turn), the rest
   :class:`~nomercy.rl.selfplay.SelfPlayEnv` against frozen snapshots of the policy
   itself, taken every few updates (numpy copies, :class:`nomercy.bots.learned.Policy`).

Every few updates the greedy policy plays a fixed set of rounds against the heuristic
(two players) and the best one is written, as the float32 arrays that
:class:`~nomercy.bots.learned.Policy` reads (the value head is left out: play needs none).
The PPO phase runs ``--updates`` updates (a count, so that a loaded machine reaches the same
weights later instead of stopping elsewhere); ``--minutes`` is only a safety cap on its wall
time. The defaults make the shipped weights (about 36 minutes on one idle core)::

    python -m nomercy.rl.train --out src/nomercy/bots/learned.npz

and ``--tiny`` runs every step at a size of seconds (the CI's smoke test).
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nomercy.bots.learned import LAYERS, Policy
from nomercy.encoding import NUM_ACTIONS, OBS_SIZE
from nomercy.rl.native_vector import NativeVectorEnv
from nomercy.rl.selfplay import SelfPlayEnv

__all__ = ["Config", "main", "train"]


def _torch() -> Any:
    """torch, imported when a run starts: by name, so that the type check and every other
    command work in an install without the train extra (torch is read as ``Any`` here)."""
    try:
        return importlib.import_module("torch")
    except ImportError:  # pragma: no cover - the train extra is installed where this runs
        raise SystemExit(
            "training needs torch: pip install 'nomercy[train]' (a CPU build is enough)"
        ) from None


@dataclass
class Config:
    """Sizes of a run (the defaults: the shipped weights, about 36 minutes on one core)."""

    hidden: int = 256
    bc_samples: int = 300_000
    bc_epochs: int = 4
    envs: int = 256
    league_envs: int = 64
    horizon: int = 32
    minutes: float = 110.0
    updates: int = 990
    lr: float = 1e-4
    snapshot_every: int = 20
    eval_every: int = 10
    eval_rounds: int = 2000
    seed: int = 0
    threads: int = 1

    @classmethod
    def tiny(cls) -> Config:
        return cls(
            hidden=32, bc_samples=2000, bc_epochs=1, envs=16, league_envs=8, horizon=8, minutes=1.0,
            updates=3, snapshot_every=2, eval_every=2, eval_rounds=20,
        )  # fmt: skip


def _net(torch: Any, hidden: int) -> Any:
    nn = torch.nn

    class Net(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.l0 = nn.Linear(OBS_SIZE, hidden)
            self.l1 = nn.Linear(hidden, hidden)
            self.pi = nn.Linear(hidden, NUM_ACTIONS)
            self.v = nn.Linear(hidden, 1)
            with torch.no_grad():
                self.pi.weight.mul_(0.1)

        def forward(self, obs: Any, masks: Any) -> tuple[Any, Any]:
            x = torch.log1p(torch.clamp(obs, min=0.0))
            h = torch.relu(self.l1(torch.relu(self.l0(x))))
            logits = self.pi(h).masked_fill(masks == 0, -1e9)
            return logits, self.v(h).squeeze(-1)

    return Net()


def export(net: Any) -> dict[str, npt.NDArray[np.float32]]:
    """The play-time arrays of ``net`` (input-major matrices, as ``Policy`` multiplies)."""
    layers = (net.l0, net.l1, net.pi)
    arrays: dict[str, npt.NDArray[np.float32]] = {}
    for i, (w, b) in enumerate(zip(LAYERS[0::2], LAYERS[1::2], strict=True)):
        arrays[w] = layers[i].weight.detach().numpy().T.astype(np.float32).copy()
        arrays[b] = layers[i].bias.detach().numpy().astype(np.float32).copy()
    return arrays


def save(out: Path, arrays: dict[str, npt.NDArray[np.float32]]) -> None:
    """Write the play-time arrays (numpy's ``.npz``, uncompressed)."""
    np.savez(out, **arrays)  # type: ignore[arg-type]


def evaluate(policy: Policy, rounds: int, seed: int = 10**6) -> float:
    """The greedy policy's win rate over ``rounds`` two-player rounds against the native
    heuristic (the learner's seat 0; the dealer is the deal's)."""
    envs = min(256, rounds)
    wins = played = 0
    with NativeVectorEnv(envs, players=2, opponents="heuristic") as env:
        obs, masks = env.reset(seed)
        while played < rounds:
            obs, masks, rewards, dones = env.step(policy(obs, masks))
            played += int(dones.sum())
            wins += int((rewards[dones] > 0).sum())
    return wins / played


def behaviour_clone(torch: Any, net: Any, cfg: Config, log: Any) -> None:
    """Phase 1: fit the heuristic's decisions at every seat of 2- and 4-seat tables."""
    obs_parts, mask_parts, act_parts = [], [], []
    for players, share in ((2, 0.75), (4, 0.25)):
        env = SelfPlayEnv(max(8, cfg.envs), players=players, seed=cfg.seed + players * 1000)
        env.reset()
        need = int(cfg.bc_samples * share)
        got = 0
        while got < need:
            acts = env.heuristic_actions()
            obs_parts.append(env.observations.copy())
            mask_parts.append(env.masks.copy())
            act_parts.append(acts)
            got += len(acts)
            env.step(acts)
    obs = torch.from_numpy(np.concatenate(obs_parts))
    masks = torch.from_numpy(np.concatenate(mask_parts))
    acts = torch.from_numpy(np.concatenate(act_parts))
    log(f"behaviour cloning: {len(acts):,} decisions of the heuristic")
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(cfg.seed)
    for epoch in range(cfg.bc_epochs):
        order = torch.randperm(len(acts), generator=gen)
        total = correct = 0.0
        for lo in range(0, len(acts), 1024):
            idx = order[lo : lo + 1024]
            logits, _ = net(obs[idx], masks[idx])
            loss = torch.nn.functional.cross_entropy(logits, acts[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            correct += float((logits.argmax(1) == acts[idx]).sum())
        log(f"  epoch {epoch + 1}: loss {total / len(acts):.4f}, agreement {correct / len(acts):.1%}")


class _Heuristic:
    """Rows against the native heuristic (learner at seat 0, two players)."""

    def __init__(self, envs: int, seed: int) -> None:
        self.env = NativeVectorEnv(envs, players=2, opponents="heuristic")
        self.obs, self.masks = self.env.reset(seed)

    def step(self, acts: npt.NDArray[np.int64]) -> tuple[Any, Any]:
        self.obs, self.masks, rewards, dones = self.env.step(acts)
        return rewards.copy(), dones.copy()


class _League:
    """Rows of self-play against frozen snapshots of the policy (the learner's seat rotates)."""

    def __init__(self, envs: int, seed: int) -> None:
        self.env = SelfPlayEnv(envs, players=2, seed=seed)
        self.snapshots: list[Policy] = []
        self.rng = np.random.default_rng(seed)
        self.obs: npt.NDArray[Any] = np.zeros(0)
        self.masks: npt.NDArray[Any] = np.zeros(0)

    def add(self, policy: Policy) -> None:
        self.snapshots = [*self.snapshots[-4:], policy]
        n = self.env.num_envs
        self.env.set_opponents(
            ["heuristic", *self.snapshots], self.rng.integers(0, len(self.snapshots) + 1, n)
        )
        if not len(self.obs):
            self.obs, self.masks, _ = self.env.reset()

    def step(self, acts: npt.NDArray[np.int64]) -> tuple[Any, Any]:
        learner = self.env._learner
        self.obs, self.masks, _, rewards, dones = self.env.step(acts)
        return rewards[np.arange(len(acts)), learner].copy(), dones.copy()


def ppo(torch: Any, net: Any, cfg: Config, out: Path, log: Any) -> float:
    """Phase 2; returns the best evaluated win rate (its weights written to ``out``)."""
    F = torch.nn.functional
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    sources: list[Any] = [_Heuristic(cfg.envs, cfg.seed)]
    league = _League(cfg.league_envs, cfg.seed + 77) if cfg.league_envs else None
    best = evaluate(Policy(export(net)), cfg.eval_rounds)
    save(out, export(net))
    log(f"after cloning: {best:.1%} against the heuristic ({cfg.eval_rounds} rounds)")
    start = time.monotonic()
    for update in range(1, cfg.updates + 1):
        if league is not None and (update - 1) % cfg.snapshot_every == 0:
            league.add(Policy(export(net)))
            if len(sources) == 1:
                sources.append(league)
        batches = []
        for src in sources:
            n = len(src.obs)
            OB = np.zeros((cfg.horizon, n, OBS_SIZE), np.float32)
            M = np.zeros((cfg.horizon, n, NUM_ACTIONS), np.int8)
            A = np.zeros((cfg.horizon, n), np.int64)
            LP = np.zeros((cfg.horizon, n), np.float32)
            V = np.zeros((cfg.horizon + 1, n), np.float32)
            R = np.zeros((cfg.horizon, n), np.float32)
            D = np.zeros((cfg.horizon, n), np.float32)
            with torch.no_grad():
                for t in range(cfg.horizon):
                    OB[t], M[t] = src.obs, src.masks
                    logits, value = net(torch.from_numpy(OB[t]), torch.from_numpy(M[t]))
                    dist = torch.distributions.Categorical(logits=logits)
                    a = dist.sample()
                    A[t], LP[t], V[t] = a.numpy(), dist.log_prob(a).numpy(), value.numpy()
                    R[t], D[t] = src.step(A[t])
                _, value = net(torch.from_numpy(src.obs), torch.from_numpy(src.masks))
                V[cfg.horizon] = value.numpy()
            adv = np.zeros_like(R)
            last = np.zeros(n, np.float32)
            for t in reversed(range(cfg.horizon)):
                alive = 1.0 - D[t]
                delta = R[t] + V[t + 1] * alive - V[t]
                last = delta + 0.95 * alive * last
                adv[t] = last
            batches.append((OB, M, A, LP, adv, adv + V[:-1]))
        OB, M, A, LP, ADV, RET = (
            torch.from_numpy(np.concatenate([b[i].reshape(-1, *b[i].shape[2:]) for b in batches]))
            for i in range(6)
        )
        size = len(A)
        policy_on = update > 3  # a few updates of the value head alone: it starts untrained
        for _ in range(4):
            order = torch.randperm(size)
            for lo in range(0, size, 2048):
                idx = order[lo : lo + 2048]
                logits, value = net(OB[idx], M[idx])
                logp_all = F.log_softmax(logits, -1)
                logp = logp_all.gather(1, A[idx, None]).squeeze(1)
                ratio = torch.exp(logp - LP[idx])
                adv = ADV[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg = -torch.min(ratio * adv, torch.clamp(ratio, 0.8, 1.2) * adv).mean()
                entropy = -(logp_all.exp() * logp_all.clamp(min=-1e4)).sum(-1).mean()
                vloss = F.mse_loss(value, RET[idx])
                loss = (pg - 0.003 * entropy if policy_on else 0.0) + 0.5 * vloss
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        elapsed = time.monotonic() - start
        if update % cfg.eval_every == 0 or elapsed > cfg.minutes * 60 or update == cfg.updates:
            rate = evaluate(Policy(export(net)), cfg.eval_rounds)
            mark = ""
            if rate > best:
                best, mark = rate, " (best: written)"
                save(out, export(net))
            log(f"update {update} ({elapsed / 60:.1f} min): {rate:.1%} against the heuristic{mark}")
        if elapsed > cfg.minutes * 60:
            break
    return best


def train(cfg: Config, out: Path, log: Any = print) -> float:
    """Both phases; returns the best evaluated win rate, whose weights are in ``out``."""
    torch = _torch()
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    net = _net(torch, cfg.hidden)
    started = time.monotonic()
    behaviour_clone(torch, net, cfg, log)
    best = ppo(torch, net, cfg, out, log)
    log(f"done in {(time.monotonic() - started) / 60:.1f} min: best {best:.1%}; weights in {out}")
    return best


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nomercy.rl.train", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("learned.npz"), help="the weights file to write")
    parser.add_argument("--tiny", action="store_true", help="a run of seconds (smoke test)")
    parser.add_argument("--updates", type=int, help="PPO updates to run (the shipped weights: 990)")
    parser.add_argument("--minutes", type=float, help="a safety cap on the PPO phase's wall time")
    parser.add_argument("--bc-samples", type=int, help="decisions of the heuristic to clone")
    parser.add_argument("--seed", type=int, help="seed of the run")
    args = parser.parse_args(argv)
    cfg = Config.tiny() if args.tiny else Config()
    for key in ("updates", "minutes", "bc_samples", "seed"):
        if getattr(args, key) is not None:
            setattr(cfg, key, getattr(args, key))
    train(cfg, args.out)


if __name__ == "__main__":
    main()
