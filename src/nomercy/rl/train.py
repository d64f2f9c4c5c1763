"""Train the learned bot: ``python -m nomercy.rl.train`` (the ``train`` and ``fast`` extras).

Two phases, both on the native engine, on CPU, at every table size from 2 to 6 seats (the
observation's ``seat_present`` section tells the network how many seats its table has):

1. **Behaviour cloning.** :class:`~nomercy.rl.selfplay.SelfPlayEnv` plays the native
   heuristic at every seat of 2- to 6-seat tables (:data:`BC_SEATS` gives each size's
   share of the decisions); each decision's observation, mask and the heuristic's action
   are the data, and the network learns to predict the action (cross-entropy over the
   legal actions). ``--init FILE`` starts from a weights file instead and skips this phase
   (a file from before the observation's rules section is padded with zero weights for it).
2. **PPO** (Schulman et al. 2017) with a masked policy and a value head, against a league:
   most rows play :class:`~nomercy.rl.native_vector.NativeVectorEnv` against the native
   heuristic at every other seat (which also catches out of turn), with
   :data:`PPO_SEATS` giving the rows of each table size; the rest play two-seat
   :class:`~nomercy.rl.selfplay.SelfPlayEnv` against frozen snapshots of the policy
   itself, taken every few updates (numpy copies, :class:`nomercy.bots.learned.Policy`).

**House rules.** ``--rules`` names the rules of the rows against the heuristic and of the
cloned decisions: a preset (``no_mercy``, the default) or ``mix``
(:mod:`nomercy.rl.rules_mix`): half of each table size's rows at ``no_mercy``, the other
half in groups that each play a Rules drawn from the seed (another preset or a variation
of ``no_mercy``), drawn again at every checkpoint boundary. The observation's ``rules``
section shows the network which. The league and the evaluation play ``no_mercy``.

Every few updates the greedy policy plays a fixed set of rounds against heuristics at each
table size; its *score* is the mean over the sizes of its win rate over the fair share
(1.0 is a fair share everywhere). The best-scoring weights whose two-seat rate stays within
``two_seat_slack`` of the starting point's are written, as the float32 arrays that
:class:`~nomercy.bots.learned.Policy` reads (the value head is left out: play needs none).

**Checkpoints and seeds.** Every ``snapshot_every`` updates (and after the cloning) the
run writes ``--checkpoint`` (default: the weights' path with ``.ckpt.pt``): the network,
the optimizer, the league's snapshots, the best score. At each such boundary every
environment is dealt again and every generator seeded from ``(--seed, update)``, so
``--resume`` continues exactly as the uninterrupted run would have, and two runs with the
same seed and arguments write the same weights (torch on one thread). The PPO phase runs
``--updates`` updates (a count, so that a loaded machine reaches the same weights later
instead of stopping elsewhere); ``--minutes`` is a safety cap on its wall time, after which
``--resume`` goes on from the last checkpoint. The defaults train from scratch::

    python -m nomercy.rl.train --out learned.npz

and ``--tiny`` runs every step at a size of seconds (the CI's smoke test). docs/bots.md
gives the command and wall time of the shipped weights.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from nomercy.bots.learned import LAYERS, Policy, load_policy, seat_key
from nomercy.encoding import MAX_PLAYERS, NUM_ACTIONS, OBS_SIZE
from nomercy.rl.native_vector import NativeVectorEnv
from nomercy.rl.rules_mix import MIX, row_groups, run_rules
from nomercy.rl.selfplay import SelfPlayEnv
from nomercy.rules import PRESETS, Rules

__all__ = [
    "BC_SEATS",
    "PPO_SEATS",
    "Config",
    "combine",
    "evaluate",
    "heuristic_positions",
    "main",
    "score",
    "train",
]

#: Behaviour cloning's decisions by table size (shares of ``bc_samples``).
BC_SEATS: Final = {2: 0.3, 3: 0.175, 4: 0.175, 5: 0.175, 6: 0.175}
#: PPO's rows against the heuristic by table size (shares of ``envs``); the league's
#: ``league_envs`` rows are two-seat tables on top of these.
PPO_SEATS: Final = {2: 0.25, 3: 0.1875, 4: 0.1875, 5: 0.1875, 6: 0.1875}
#: Format of the checkpoint file.
CHECKPOINT_VERSION: Final = 1


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
    """Sizes of a run (the defaults: a run from scratch at every table size)."""

    hidden: int = 256
    bc_samples: int = 400_000
    bc_epochs: int = 4
    envs: int = 256
    league_envs: int = 64
    horizon: int = 32
    minutes: float = 240.0
    updates: int = 1200
    lr: float = 1e-4
    snapshot_every: int = 20
    eval_every: int = 20
    eval_rounds: int = 1500
    #: How far (win rate) the two-seat rate may fall below the starting point's and the
    #: weights still be written.
    two_seat_slack: float = 0.01
    seats: tuple[int, ...] = field(default=(2, 3, 4, 5, 6))
    seed: int = 0
    threads: int = 1
    #: The house rules of the rows against the heuristic and of the cloned decisions: a
    #: preset, or ``"mix"`` (:mod:`nomercy.rl.rules_mix`). The league and the evaluation
    #: play ``no_mercy`` whatever this says.
    rules: str = "no_mercy"

    @classmethod
    def tiny(cls) -> Config:
        return cls(
            hidden=32, bc_samples=3000, bc_epochs=1, envs=40, league_envs=8, horizon=8, minutes=1.0,
            updates=4, snapshot_every=2, eval_every=2, eval_rounds=30, two_seat_slack=1.0,
        )  # fmt: skip


def split(total: int, shares: dict[int, float], seats: Sequence[int]) -> dict[int, int]:
    """``total`` divided over the table sizes in ``seats`` by ``shares`` (renormalized over
    them; every size gets at least one)."""
    weight = sum(shares[n] for n in seats)
    out = {n: max(1, round(total * shares[n] / weight)) for n in seats}
    return out


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


def load_into(torch: Any, net: Any, policy: Policy) -> None:
    """Copy a weights file's layers into ``net`` (the value head keeps its start)."""
    layers = (net.l0, net.l1, net.pi)
    with torch.no_grad():
        for layer, (w, b) in zip(
            layers, zip(policy.layers[0::2], policy.layers[1::2], strict=True), strict=True
        ):
            if tuple(layer.weight.shape) != w.T.shape:
                raise SystemExit(
                    f"--init: a layer of {w.shape} where this network has {tuple(layer.weight.shape)[::-1]}"
                )
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            layer.bias.copy_(torch.from_numpy(b))


def save(out: Path, arrays: dict[str, npt.NDArray[np.float32]]) -> None:
    """Write the play-time arrays (numpy's ``.npz``, uncompressed)."""
    np.savez(out, **arrays)  # type: ignore[arg-type]


def evaluate(policy: Policy, rounds: int, players: int = 2, seed: int = 10**6) -> float:
    """The greedy policy's win rate over ``rounds`` rounds against the native heuristic at
    every other seat of ``players`` (the learner's seat 0; the dealer is the deal's)."""
    envs = min(256, rounds)
    wins = played = 0
    with NativeVectorEnv(envs, players=players, opponents="heuristic") as env:
        obs, masks = env.reset(seed)
        while played < rounds:
            obs, masks, rewards, dones = env.step(policy(obs, masks))
            played += int(dones.sum())
            wins += int((rewards[dones] > 0).sum())
    return wins / played


def score(rates: dict[int, float]) -> float:
    """Mean over the table sizes of the win rate over the fair share (``rate * players``)."""
    return sum(rate * n for n, rate in rates.items()) / len(rates)


def evaluate_all(policy: Policy, cfg: Config) -> dict[int, float]:
    """:func:`evaluate` at each of the run's table sizes."""
    return {n: evaluate(policy, cfg.eval_rounds, n) for n in cfg.seats}


def _rates(rates: dict[int, float]) -> str:
    return ", ".join(f"{n}p {rate:.1%}" for n, rate in rates.items()) + f"; score {score(rates):.3f}"


def heuristic_positions(
    players: int, rows: int, seed: int, envs: int, rules: Rules | None = None
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """At least ``rows`` decisions of the native heuristic at every seat of ``envs``
    tables of ``players`` seats under ``rules`` (``no_mercy``): observations, masks and
    the heuristic's actions."""
    env = SelfPlayEnv(envs, players=players, rules=rules, seed=seed)
    env.reset()
    obs, masks, acts = [], [], []
    got = 0
    while got < rows:
        chosen = env.heuristic_actions()
        obs.append(env.observations.copy())
        masks.append(env.masks.copy())
        acts.append(chosen)
        got += len(chosen)
        env.step(chosen)
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(acts)


def behaviour_clone(torch: Any, net: Any, cfg: Config, log: Any) -> None:
    """Phase 1: fit the heuristic's decisions at every seat of each table size."""
    obs_parts, mask_parts, act_parts = [], [], []
    for players, need in split(cfg.bc_samples, BC_SEATS, cfg.seats).items():
        for group, (rows, rules) in enumerate(row_groups(need, players, cfg.seed, cfg.rules)):
            seed = cfg.seed + players * 1000 + group * 100
            o, m, a = heuristic_positions(players, rows, seed, max(8, cfg.envs), rules)
            obs_parts.append(o)
            mask_parts.append(m)
            act_parts.append(a)
    obs = torch.from_numpy(np.concatenate(obs_parts))
    masks = torch.from_numpy(np.concatenate(mask_parts))
    acts = torch.from_numpy(np.concatenate(act_parts))
    log(
        f"behaviour cloning: {len(acts):,} decisions of the heuristic at {len(cfg.seats)} table sizes"
        + ("" if cfg.rules == "no_mercy" else f", rules {cfg.rules}")
    )
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
    """Rows against the native heuristic at every other seat (learner at seat 0)."""

    def __init__(self, envs: int, players: int, rules: Rules | None = None) -> None:
        self.env = NativeVectorEnv(envs, players=players, rules=rules, opponents="heuristic")
        self.players = players
        self.obs, self.masks = self.env.observations, self.env.masks

    def set_rules(self, rules: Rules) -> None:
        """Play ``rules`` from the next :meth:`reseed` on (the rows are dealt again there)."""
        if rules != self.env.rules:
            envs = self.env.num_envs
            self.env.close()
            self.env = NativeVectorEnv(envs, players=self.players, rules=rules, opponents="heuristic")

    def reseed(self, seed: int) -> None:
        self.obs, self.masks = self.env.reset(seed)

    def step(self, acts: npt.NDArray[np.int64]) -> tuple[Any, Any]:
        self.obs, self.masks, rewards, dones = self.env.step(acts)
        return rewards.copy(), dones.copy()


class _League:
    """Two-seat rows of self-play against frozen snapshots of the policy and the heuristic
    (the learner's seat rotates)."""

    def __init__(self, envs: int) -> None:
        self.env = SelfPlayEnv(envs, players=2)
        self.snapshots: list[Policy] = []
        self.rng = np.random.default_rng(0)
        self.obs: npt.NDArray[Any] = np.zeros(0)
        self.masks: npt.NDArray[Any] = np.zeros(0)

    def reseed(self, seed: int, policy: Policy) -> None:
        """Take ``policy`` as the newest snapshot (five kept), pick each row's opponent and
        deal every row again, all from ``seed``."""
        self.snapshots = [*self.snapshots[-4:], policy]
        self.rng = np.random.default_rng(seed)
        n = self.env.num_envs
        self.env.set_opponents(
            ["heuristic", *self.snapshots], self.rng.integers(0, len(self.snapshots) + 1, n)
        )
        self.env.seed = seed
        self.obs, self.masks, _ = self.env.reset()

    def step(self, acts: npt.NDArray[np.int64]) -> tuple[Any, Any]:
        learner = self.env._learner
        self.obs, self.masks, _, rewards, dones = self.env.step(acts)
        return rewards[np.arange(len(acts)), learner].copy(), dones.copy()


def _boundary_seed(seed: int, update: int) -> int:
    """The seed of everything random from update ``update`` on (a checkpoint boundary)."""
    return (seed * 1_000_003 + update * 7_919) % 2**31


def _mix_text(sources: Sequence[Any]) -> str:
    """The drawn rules of the heuristic rows, shortly (``4p: deck=classic, stacking=False``)."""
    parts = []
    for src in sources:
        if isinstance(src, _Heuristic) and src.env.rules != Rules():
            changes = src.env.rules.to_dict(only_changes=True)
            preset = next((k for k, r in PRESETS.items() if r == src.env.rules), None)
            text = preset or ", ".join(
                f"{k}={'custom' if isinstance(v, dict) else v}" for k, v in changes.items()
            )
            parts.append(f"{src.players}p {text}")
    return "; ".join(parts)


def _checkpoint(torch: Any, path: Path, **state: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"version": CHECKPOINT_VERSION, **state}, tmp)
    tmp.replace(path)


def ppo(
    torch: Any, net: Any, cfg: Config, out: Path, ckpt: Path, log: Any, resume: dict[str, Any] | None
) -> float:
    """Phase 2; returns the best score (its weights written to ``out``)."""
    F = torch.nn.functional
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    rows = split(cfg.envs, PPO_SEATS, cfg.seats)
    sources: list[Any] = [
        _Heuristic(k, players, rules)
        for players, n in rows.items()
        for k, rules in row_groups(n, players, cfg.seed, cfg.rules)
    ]
    league = _League(cfg.league_envs) if cfg.league_envs else None
    if resume is None:
        rates = evaluate_all(Policy(export(net)), cfg)
        best, floor, first = score(rates), rates.get(2, 0.0) - cfg.two_seat_slack, 1
        save(out, export(net))
        log(f"start: {_rates(rates)} ({cfg.eval_rounds} rounds each, against heuristics)")
        _checkpoint(torch, ckpt, net=net.state_dict(), opt=opt.state_dict(), update=0, best=best, floor=floor,
                    snapshots=[], config=asdict(cfg))  # fmt: skip
    else:
        opt.load_state_dict(resume["opt"])
        best, floor, first = resume["best"], resume["floor"], resume["update"] + 1
        if league is not None:
            league.snapshots = [Policy(s) for s in resume["snapshots"]]
        log(f"resumed after update {resume['update']}: best score {best:.3f}")
    start = time.monotonic()
    for update in range(first, cfg.updates + 1):
        if (update - 1) % cfg.snapshot_every == 0:  # a boundary: everything seeded again
            seed = _boundary_seed(cfg.seed, update)
            torch.manual_seed(seed)
            if cfg.rules == MIX:  # the drawn groups draw their rules again
                drawn = [g for n, k in rows.items() for g in row_groups(k, n, seed, cfg.rules)]
                heuristic = [s for s in sources if isinstance(s, _Heuristic)]
                for src, (_, rules) in zip(heuristic, drawn, strict=True):
                    src.set_rules(rules)
                log(f"update {update}: rules {_mix_text(sources)}")
            for i, src in enumerate(s for s in sources if s is not league):
                src.reseed(seed + 100_000 * (i + 1))
            if league is not None:
                league.reseed(seed + 7, Policy(export(net)))
                if league not in sources:
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
        if update % cfg.eval_every == 0 or update == cfg.updates:
            rates = evaluate_all(Policy(export(net)), cfg)
            mark = ""
            if score(rates) > best and rates.get(2, 1.0) >= floor:
                best, mark = score(rates), " (best: written)"
                save(out, export(net))
            log(f"update {update} ({elapsed / 60:.1f} min): {_rates(rates)}{mark}")
        if update % cfg.snapshot_every == 0:
            snaps = [dict(zip(LAYERS, s.layers, strict=True)) for s in (league.snapshots if league else [])]
            _checkpoint(torch, ckpt, net=net.state_dict(), opt=opt.state_dict(), update=update, best=best,
                        floor=floor, snapshots=snaps, config=asdict(cfg))  # fmt: skip
        if elapsed > cfg.minutes * 60:
            log(f"stopped at the {cfg.minutes:g}-minute cap after update {update}: --resume goes on")
            break
    return best


def train(cfg: Config, out: Path, log: Any = print, init: Path | None = None, resume: bool = False,
          checkpoint: Path | None = None) -> float:  # fmt: skip
    """Both phases; returns the best score, whose weights are in ``out``."""
    torch = _torch()
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    ckpt = checkpoint or out.with_name(out.name + ".ckpt.pt")
    started = time.monotonic()
    state: dict[str, Any] | None = None
    if resume:
        if not ckpt.exists():
            raise SystemExit(f"--resume: no checkpoint at {ckpt}")
        state = torch.load(ckpt, weights_only=False)
        if state.get("version") != CHECKPOINT_VERSION:
            raise SystemExit(f"--resume: {ckpt} is not a checkpoint of this version")
        if _same_run(state["config"]) != _same_run(asdict(cfg)):
            raise SystemExit(f"--resume: {ckpt} was written by a run of other arguments: {state['config']}")
    hidden = cfg.hidden
    width = int(state["net"]["l0.weight"].shape[1]) if state is not None else OBS_SIZE
    if width != OBS_SIZE:  # an optimizer's state cannot be padded as a weights file is
        raise SystemExit(
            f"--resume: {ckpt} takes {width} inputs, this encoding {OBS_SIZE}: "
            "go on with --init from its weights file"
        )
    if init is not None:
        policy = load_policy(init)
        hidden = int(policy.layers[0].shape[1])
        if hidden != cfg.hidden:
            raise SystemExit(f"--init: {init} has {hidden} hidden units, this run {cfg.hidden} (--hidden)")
    net = _net(torch, hidden)
    if state is not None:
        net.load_state_dict(state["net"])
    elif init is not None:
        load_into(torch, net, load_policy(init))
        log(f"started from {init}")
    else:
        behaviour_clone(torch, net, cfg, log)
    best = ppo(torch, net, cfg, out, ckpt, log, state)
    log(f"done in {(time.monotonic() - started) / 60:.1f} min: best score {best:.3f}; weights in {out}")
    return best


def combine(main: Path, sizes: Path, seats: Sequence[int], out: Path) -> None:
    """Write ``out``: ``main``'s network for every table, and ``sizes``'s main network as
    the network of its own of each table size in ``seats`` (``nomercy.bots.learned``)."""
    arrays = dict(zip(LAYERS, load_policy(main).layers, strict=True))
    other = load_policy(sizes).layers
    for n in seats:
        arrays.update({seat_key(n, k): a for k, a in zip(LAYERS, other, strict=True)})
    save(out, arrays)


def _same_run(config: dict[str, Any]) -> dict[str, Any]:
    """A run's arguments but its length (a resumed run may be given more time and updates);
    a checkpoint from before ``rules`` was a field played ``no_mercy``."""
    return {
        k: tuple(v) if isinstance(v, list) else v
        for k, v in {"rules": "no_mercy", **config}.items()
        if k not in ("minutes", "updates")
    }


def _rules_name(text: str) -> str:
    try:
        run_rules(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _seat_list(text: str) -> tuple[int, ...]:
    seats = tuple(sorted({int(s) for s in text.split(",")}))
    if not seats or seats[0] < 2 or seats[-1] > MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"table sizes from 2 to {MAX_PLAYERS}, comma-separated")
    return seats


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nomercy.rl.train", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("learned.npz"), help="the weights file to write")
    parser.add_argument("--tiny", action="store_true", help="a run of seconds (smoke test)")
    parser.add_argument("--updates", type=int, help="PPO updates to run")
    parser.add_argument("--minutes", type=float, help="a safety cap on the PPO phase's wall time")
    parser.add_argument("--bc-samples", type=int, help="decisions of the heuristic to clone")
    parser.add_argument("--eval-rounds", type=int, help="rounds per table size at each evaluation")
    parser.add_argument("--seats", type=_seat_list, help="table sizes to train at (default 2,3,4,5,6)")
    parser.add_argument("--seed", type=int, help="seed of the run")
    parser.add_argument(
        "--rules",
        type=_rules_name,
        help="house rules of the rows against the heuristic and of the cloning: a preset "
        "(default no_mercy) or 'mix' (half of each table size's rows at no_mercy, half drawn "
        "from the seed: other presets and variations of no_mercy)",
    )
    parser.add_argument("--init", type=Path, help="start from this weights file (no behaviour cloning)")
    parser.add_argument("--checkpoint", type=Path, help="checkpoint file (default: OUT.ckpt.pt)")
    parser.add_argument("--resume", action="store_true", help="go on from the checkpoint")
    parser.add_argument(
        "--combine",
        nargs=2,
        type=Path,
        metavar=("MAIN", "SIZES"),
        help="train nothing: write OUT with MAIN's network for every table and SIZES's for the --seats",
    )
    args = parser.parse_args(argv)
    if args.combine:
        if args.seats is None:
            parser.error("--combine needs --seats: the table sizes that SIZES's network plays")
        combine(args.combine[0], args.combine[1], args.seats, args.out)
        print(f"{args.out}: {args.combine[0]} for every table, {args.combine[1]} at {args.seats}")
        return
    cfg = Config.tiny() if args.tiny else Config()
    for key in ("updates", "minutes", "bc_samples", "eval_rounds", "seats", "seed", "rules"):
        if getattr(args, key) is not None:
            setattr(cfg, key, getattr(args, key))
    train(cfg, args.out, init=args.init, resume=args.resume, checkpoint=args.checkpoint)


if __name__ == "__main__":
    main()
