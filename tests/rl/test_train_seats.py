"""The learned bot's training at every table size (issue 43): the seat mix, the score that
picks the written weights, reproducibility from the seed and resumption from a checkpoint,
at the tiny size (the full run is measured by hand, docs/bots.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("nomercy.native", reason="the native engine needs the fast extra")

import numpy as np

from nomercy.bots.learned import load_policies, load_policy
from nomercy.rl.train import BC_SEATS, PPO_SEATS, evaluate, main, score, split


def _weights(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def test_the_mixes_cover_every_table_size_from_two_to_six() -> None:
    for mix in (BC_SEATS, PPO_SEATS):
        assert sorted(mix) == [2, 3, 4, 5, 6]
        assert sum(mix.values()) == pytest.approx(1.0)
    rows = split(256, PPO_SEATS, (2, 3, 4, 5, 6))
    assert sorted(rows) == [2, 3, 4, 5, 6] and all(n >= 1 for n in rows.values())
    assert abs(sum(rows.values()) - 256) <= 2
    assert split(100, BC_SEATS, (2, 6)) == {2: 63, 6: 37}  # renormalized over the sizes asked for


def test_the_score_is_the_mean_win_rate_over_the_fair_share() -> None:
    assert score({2: 0.5, 3: 1 / 3, 6: 1 / 6}) == pytest.approx(1.0)
    assert score({2: 0.6, 4: 0.25}) == pytest.approx((1.2 + 1.0) / 2)
    assert score({5: 0.1}) < score({5: 0.2})


def test_evaluation_plays_the_table_size_it_is_given() -> None:
    policy = load_policy()
    rate = evaluate(policy, 40, players=5)
    assert 0.0 <= rate <= 1.0


def test_a_run_is_reproducible_from_its_seed_and_resumes_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, part = tmp_path / "whole.npz", tmp_path / "part.npz"
    args = ["--tiny", "--seats", "2,5", "--seed", "11"]
    main([*args, "--out", str(whole)])
    printed = capsys.readouterr().out
    assert "at 2 table sizes" in printed and "5p " in printed and "update 4" in printed
    main([*args, "--out", str(part), "--updates", "2"])
    assert "update 2" in capsys.readouterr().out
    assert Path(str(part) + ".ckpt.pt").exists()
    main([*args, "--out", str(part), "--resume"])
    resumed = capsys.readouterr().out
    assert "resumed after update 2" in resumed and "behaviour cloning" not in resumed
    a, b = _weights(whole), _weights(part)
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_resume_refuses_a_checkpoint_of_other_arguments(tmp_path: Path) -> None:
    out = tmp_path / "w.npz"
    main(["--tiny", "--seats", "2,3", "--seed", "1", "--updates", "2", "--out", str(out)])
    with pytest.raises(SystemExit, match="other arguments"):
        main(["--tiny", "--seats", "2,4", "--seed", "1", "--out", str(out), "--resume"])
    with pytest.raises(SystemExit, match="no checkpoint"):
        main(["--tiny", "--out", str(tmp_path / "none.npz"), "--resume"])


def test_init_starts_from_a_weights_file_without_cloning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first.npz", tmp_path / "second.npz"
    main(["--tiny", "--seats", "2,6", "--updates", "2", "--out", str(first)])
    capsys.readouterr()
    main(["--tiny", "--seats", "2,6", "--updates", "2", "--init", str(first), "--out", str(second)])
    printed = capsys.readouterr().out
    assert f"started from {first}" in printed and "behaviour cloning" not in printed
    assert _weights(second)["w0"].shape == _weights(first)["w0"].shape


def test_table_sizes_outside_two_to_six_are_refused() -> None:
    with pytest.raises(SystemExit):
        main(["--tiny", "--seats", "2,7"])


def test_combine_writes_a_network_of_its_own_for_the_sizes_named(tmp_path: Path) -> None:
    first, second, out = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "ab.npz"
    main(["--tiny", "--seats", "2,3", "--updates", "2", "--seed", "1", "--out", str(first)])
    main(["--tiny", "--seats", "2,3", "--updates", "2", "--seed", "2", "--out", str(second)])
    main(["--combine", str(first), str(second), "--seats", "3,4", "--out", str(out)])
    policies = load_policies(out)
    assert sorted(policies) == [0, 3, 4]
    np.testing.assert_array_equal(policies[0].layers[0], load_policy(first).layers[0])
    np.testing.assert_array_equal(policies[4].layers[0], load_policy(second).layers[0])
    with pytest.raises(SystemExit):
        main(["--combine", str(first), str(second), "--out", str(out)])  # which sizes?
