"""Training after the rules became an input (encoding 3): the network takes today's
observation, and ``--init`` starts from a weights file of the width before the rules
section, padded with zero weights for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("nomercy.native", reason="the native engine needs the fast extra")

import numpy as np  # noqa: E402

from nomercy.bots.learned import LAYERS, OLD_OBS_SIZE, load_policy  # noqa: E402
from nomercy.encoding import NUM_ACTIONS, OBS_SIZE  # noqa: E402
from nomercy.rl.train import Config, _net, load_into, main  # noqa: E402


def _old_file(path: Path, hidden: int) -> Path:
    rng = np.random.default_rng(0)
    shapes = {"w0": (OLD_OBS_SIZE, hidden), "b0": (hidden,), "w1": (hidden, hidden), "b1": (hidden,),
              "wp": (hidden, NUM_ACTIONS), "bp": (NUM_ACTIONS,)}  # fmt: skip
    arrays: dict[str, Any] = {k: rng.normal(0.0, 0.2, shapes[k]).astype(np.float32) for k in LAYERS}
    np.savez(path, **arrays)
    return path


def test_the_network_takes_todays_observation_and_loads_an_old_file_padded(tmp_path: Path) -> None:
    hidden = Config.tiny().hidden
    net = _net(torch, hidden)
    assert tuple(net.l0.weight.shape) == (hidden, OBS_SIZE)
    old = _old_file(tmp_path / "old.npz", hidden)
    load_into(torch, net, load_policy(old))
    weight = net.l0.weight.detach().numpy()
    np.testing.assert_array_equal(weight[:, :OLD_OBS_SIZE], np.load(old)["w0"].T)
    assert not weight[:, OLD_OBS_SIZE:].any()


def test_init_from_an_old_width_file_trains(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _old_file(tmp_path / "old.npz", Config.tiny().hidden)
    out = tmp_path / "new.npz"
    main(["--tiny", "--seats", "2,3", "--updates", "2", "--init", str(old), "--out", str(out)])
    assert f"started from {old}" in capsys.readouterr().out
    with np.load(out) as data:
        assert data["w0"].shape == (OBS_SIZE, Config.tiny().hidden)
