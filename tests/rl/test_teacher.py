"""The expert as the learned bot's teacher (nomercy.rl.teacher) at a tiny size: the labels
compare legal actions only, with win chances, and depend on the seed alone; distilling
moves the network toward the teacher's best candidates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("nomercy.native", reason="the native engine needs the fast extra")

from nomercy.bots.learned import LearnedBot, Policy
from nomercy.encoding import OBS_SIZE
from nomercy.rl.teacher import CANDIDATES, distil, label, main


@pytest.fixture(scope="module")
def labels() -> dict[str, np.ndarray]:
    return label(rounds=4, worlds=6, seed=5)


def test_labels_compare_legal_candidates_with_win_chances(labels: dict[str, np.ndarray]) -> None:
    rows = len(labels["obs"])
    assert rows > 10 and labels["obs"].shape == (rows, OBS_SIZE)
    cidx, cval, mask = labels["cidx"], labels["cval"], labels["mask"]
    assert 2 <= cidx.shape[1] <= CANDIDATES
    for i in range(rows):
        chosen = cidx[i][cidx[i] >= 0]
        assert len(chosen) >= 2 and len(set(chosen.tolist())) == len(chosen)  # distinct
        assert mask[i, chosen].all()  # only legal actions are compared
        assert ((cval[i, : len(chosen)] >= 0) & (cval[i, : len(chosen)] <= 1)).all()


def test_labels_depend_on_the_seed_only(labels: dict[str, np.ndarray]) -> None:
    again = label(rounds=4, worlds=6, seed=5)
    for key, array in labels.items():
        assert np.array_equal(array, again[key]), key
    other = label(rounds=4, worlds=6, seed=6)
    assert not np.array_equal(labels["cval"][:5], other["cval"][:5]) or len(other["obs"]) != len(
        labels["obs"]
    )


def test_distilling_moves_the_network_toward_the_teacher(labels: dict[str, np.ndarray]) -> None:
    def agreement(policy: Policy) -> float:
        picks = policy(labels["obs"], labels["mask"])
        best = labels["cidx"][np.arange(len(picks)), labels["cval"].argmax(1)]
        return float((picks == best).mean())

    before = agreement(LearnedBot().policy)
    arrays = distil(
        None, labels, tau=0.01, anchor=0.0, epochs=30, lr=3e-3, anchor_rows=64, log=lambda _: None
    )
    after = agreement(Policy(arrays))
    assert after > before + 0.2, (before, after)  # ties among 6 worlds keep it below 1


def test_the_command_labels_and_distils(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows, weights = tmp_path / "rows.npz", tmp_path / "taught.npz"
    main(["label", "--out", str(rows), "--rounds", "2", "--worlds", "4", "--seed", "1"])
    main(["distil", str(rows), "--out", str(weights), "--epochs", "1"])
    printed = capsys.readouterr().out
    assert "decisions labelled" in printed and f"weights in {weights}" in printed
    assert LearnedBot(weights=str(weights)).policy.layers[0].shape[0] == OBS_SIZE
