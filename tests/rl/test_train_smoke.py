"""A tiny run of examples/train_maskable_ppo.py (the full run is measured by hand)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra (torch, sb3-contrib) is not installed")
pytest.importorskip("sb3_contrib", reason="the train extra (torch, sb3-contrib) is not installed")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_maskable_ppo.py"


@pytest.mark.parametrize("env", ["gym", "native"])
def test_training_example_runs_end_to_end(env: str) -> None:
    if env == "native":
        pytest.importorskip("numpy", reason="the native env needs the fast extra")
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(["--timesteps", "512", "--envs", "2", "--eval-games", "4", "--env", env])
    assert 0.0 <= result["win_rate"] <= 1.0 and 0.0 <= result["random_win_rate"] <= 1.0
    assert result["timesteps"] >= 512
