"""The expert's search as a teacher of the learned bot: ``python -m nomercy.rl.teacher``
(the ``train`` and ``fast`` extras).

Two steps, after :mod:`nomercy.rl.train` (DAgger, Ross et al. 2011, with a search as the
expert, as ExIt and AlphaZero train a policy toward its search's choices):

1. ``label``: two-seat rounds of the learned bot against ``expert``, seat-rotated. At
   every decision of the learned bot with two or more legal actions, the expert's
   :meth:`~nomercy.bots.expert.ExpertBot.estimate` plays each candidate out on the same
   ``--worlds`` sampled worlds. The candidates are the network's best four and the
   heuristic's best four (up to :data:`CANDIDATES` in all); the worlds are drawn from the
   learned seat's view and what it observed, never from hidden cards. A row is the
   observation, the mask, the candidates' action indices and their mean values (win
   chances). With probability ``--explore`` the round goes on with the teacher's best
   candidate instead of the network's pick, so the rows also cover where the teacher
   leads. Every round's generators come from ``(--seed, round)``: the rows depend on the
   seed only, not on ``--workers``.
2. ``distil``: fine-tune a weights file toward the labels: cross-entropy to the softmax of
   the candidates' values at temperature ``--tau``, plus the KL divergence from the
   starting policy on the same rows (``--anchor``) and on heuristic positions at 3 to 6
   seats (weight 1), so the other table sizes keep their play.

``docs/bots.md`` ("The expert as a teacher") gives the commands run and what they gave.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from nomercy.actions import Action
from nomercy.bots import make
from nomercy.bots.expert import ExpertBot
from nomercy.bots.heuristic import score_actions, table_from_view
from nomercy.bots.learned import LearnedBot, load_policy
from nomercy.bots.runner import play_round
from nomercy.encoding import action_to_index
from nomercy.engine import new_game
from nomercy.events import Event
from nomercy.rl.train import _net, _torch, export, heuristic_positions, load_into, save
from nomercy.views import PlayerView

__all__ = ["CANDIDATES", "Labels", "distil", "label", "main"]

#: Most candidates a decision's label compares.
CANDIDATES: Final = 8
#: Anchor positions per table size of 3 to 6 seats (heuristic self-play).
ANCHOR_ROWS: Final = 8000

Labels = dict[str, npt.NDArray[Any]]


class _Student(LearnedBot):
    """The learned bot that has each of its decisions labelled by the expert's estimate."""

    def __init__(self, seed: int, weights: str | None, worlds: int, explore: float) -> None:
        super().__init__(seed=seed, weights=weights)
        self.teacher = ExpertBot(seed=seed + 7)
        self.worlds = worlds
        self.explore = explore
        self.rows: list[tuple[Any, Any, list[int], list[float]]] = []
        self._rng = random.Random(seed)

    def observe(self, events: list[Event]) -> None:
        self.teacher.observe(events)

    def choose(self, view: PlayerView) -> Action:
        pick = super().choose(view)
        legal = list(view.legal_actions)
        if len(legal) < 2:
            return pick
        assert view.seat is not None
        logits = self.policies.get(view.players, self.policy).logits(self._obs)[0]
        index = {a: action_to_index(a, view.seat, view.players) for a in legal}
        by_net = sorted(legal, key=lambda a: -float(logits[index[a]]))
        by_heuristic = [a for _, a in score_actions(table_from_view(view), legal)]
        candidates: list[Action] = []
        for a in [*by_net[:4], *by_heuristic[:4], *by_net[4:], *by_heuristic[4:]]:
            if a not in candidates:
                candidates.append(a)
        candidates = candidates[:CANDIDATES]
        self.teacher.memory.sync(view)
        values = [sum(v) / len(v) for v in self.teacher.estimate(view, candidates, self.worlds, self._rng)]
        self.rows.append((self._obs[0].copy(), self._mask[0].copy(), [index[a] for a in candidates], values))
        if self._rng.random() < self.explore:
            return candidates[int(np.argmax(values))]
        return pick


def _label_rounds(job: tuple[str | None, int, int, int, float, int]) -> list[Any]:
    weights, seed, first, count, explore, worlds = job
    rows: list[Any] = []
    for r in range(first, first + count):
        mine = r % 2  # seat-rotated: the learned bot deals from both seats
        student = _Student(seed * 1_000_003 + 2 * r, weights, worlds, explore)
        bots: list[Any] = [None, None]
        bots[mine] = student
        bots[1 - mine] = make("expert", seed=seed * 1_000_003 + 2 * r + 1)
        play_round(new_game(2, seed=seed * 1_000_003 + r), bots)
        rows.extend(student.rows)
    return rows


def label(
    rounds: int, worlds: int, seed: int, weights: str | None = None, explore: float = 0.3, workers: int = 1
) -> Labels:
    """The teacher's rows of ``rounds`` two-seat rounds (see the module docstring)."""
    if rounds < 1 or worlds < 1:
        raise ValueError("label needs at least one round and one world")
    chunk = max(1, rounds // (4 * max(1, workers)))
    jobs = [(weights, seed, lo, min(chunk, rounds - lo), explore, worlds) for lo in range(0, rounds, chunk)]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_label_rounds, jobs)
    else:
        parts = [_label_rounds(job) for job in jobs]
    rows = [row for part in parts for row in part]
    width = max(len(r[2]) for r in rows)
    cidx = np.full((len(rows), width), -1, np.int16)
    cval = np.zeros((len(rows), width), np.float32)
    for i, (_, _, idx, values) in enumerate(rows):
        cidx[i, : len(idx)] = idx
        cval[i, : len(values)] = values
    return {
        "obs": np.stack([r[0] for r in rows]),
        "mask": np.stack([r[1] for r in rows]),
        "cidx": cidx,
        "cval": cval,
    }


def _anchor_positions(seed: int, rows: int) -> tuple[Any, Any]:
    parts = [heuristic_positions(players, rows, seed + players, 64) for players in (3, 4, 5, 6)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def distil(
    init: Path | None,
    labels: Labels,
    *,
    tau: float = 0.03,
    anchor: float = 1.0,
    epochs: int = 3,
    lr: float = 1e-4,
    seed: int = 0,
    anchor_rows: int = ANCHOR_ROWS,
    log: Any = print,
) -> dict[str, npt.NDArray[np.float32]]:
    """The weights of ``init`` (default: the shipped ones) fine-tuned toward ``labels``."""
    torch = _torch()
    torch.manual_seed(seed)
    start = load_policy(init)
    net = _net(torch, int(start.layers[0].shape[1]))
    load_into(torch, net, start)
    t = torch.from_numpy
    obs, mask = labels["obs"], labels["mask"]
    valid = labels["cidx"] >= 0
    values = t(np.where(valid, labels["cval"], -1e9).astype(np.float32))
    target = torch.softmax(values / tau, 1)
    cidx = t(np.where(valid, labels["cidx"], 0).astype(np.int64))
    anchor_obs, anchor_mask = _anchor_positions(seed, anchor_rows)
    with torch.no_grad():
        before = net(t(obs), t(mask))[0].log_softmax(1)
        before_anchor = net(t(anchor_obs), t(anchor_mask))[0].log_softmax(1)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        order = rng.permutation(len(obs))
        total = 0.0
        for lo in range(0, len(order), 512):
            idx = t(order[lo : lo + 512])
            logp = net(t(obs)[idx], t(mask)[idx])[0].log_softmax(1)
            cross = -(target[idx] * logp.gather(1, cidx[idx])).sum(1).mean()
            kl = (before[idx].exp() * (before[idx] - logp)).sum(1).mean()
            a = t(rng.integers(0, len(anchor_obs), len(idx)))
            logq = net(t(anchor_obs)[a], t(anchor_mask)[a])[0].log_softmax(1)
            kl_anchor = (before_anchor[a].exp() * (before_anchor[a] - logq)).sum(1).mean()
            loss = cross + anchor * kl + kl_anchor
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(cross.detach()) * len(idx)
        log(f"  epoch {epoch + 1}: cross-entropy to the teacher {total / len(obs):.4f}")
    return export(net)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nomercy.rl.teacher", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    lab = sub.add_parser("label", help="label the learned bot's decisions against the expert")
    lab.add_argument("--out", type=Path, required=True, help="the labels file to write (.npz)")
    lab.add_argument("--weights", help="the student's weights (default: the shipped ones)")
    lab.add_argument("--rounds", type=int, default=6000)
    lab.add_argument("--worlds", type=int, default=160, help="sampled worlds per decision")
    lab.add_argument("--explore", type=float, default=0.3, help="chance to follow the teacher's best")
    lab.add_argument("--seed", type=int, default=0)
    lab.add_argument("--workers", type=int, default=1)
    dis = sub.add_parser("distil", help="fine-tune weights toward labels")
    dis.add_argument("labels", type=Path, nargs="+", help="labels files written by label")
    dis.add_argument("--out", type=Path, required=True, help="the weights file to write")
    dis.add_argument("--init", type=Path, help="the starting weights (default: the shipped ones)")
    dis.add_argument("--tau", type=float, default=0.03, help="temperature of the values' softmax")
    dis.add_argument("--anchor", type=float, default=1.0, help="weight of the KL to the start")
    dis.add_argument("--epochs", type=int, default=3)
    dis.add_argument("--lr", type=float, default=1e-4)
    dis.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.step == "label":
        rows = label(args.rounds, args.worlds, args.seed, args.weights, args.explore, args.workers)
        np.savez(args.out, **rows)  # type: ignore[arg-type]
        print(f"{args.out}: {len(rows['obs']):,} decisions labelled")
        return
    parts = [dict(np.load(p)) for p in args.labels]
    width = max(p["cidx"].shape[1] for p in parts)

    def pad(a: npt.NDArray[Any], fill: float) -> npt.NDArray[Any]:
        return np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=fill)

    labels = {
        "obs": np.concatenate([p["obs"] for p in parts]),
        "mask": np.concatenate([p["mask"] for p in parts]),
        "cidx": np.concatenate([pad(p["cidx"], -1) for p in parts]),
        "cval": np.concatenate([pad(p["cval"], 0) for p in parts]),
    }
    print(f"distilling {len(labels['obs']):,} decisions")
    arrays = distil(
        args.init, labels, tau=args.tau, anchor=args.anchor, epochs=args.epochs, lr=args.lr, seed=args.seed
    )
    save(args.out, arrays)
    print(f"weights in {args.out}")


if __name__ == "__main__":
    main()
