"""The learned bot's training command at a tiny size: both phases run and write weights
that the numpy bot plays (the full run is measured by hand, docs/rl.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("nomercy.native", reason="the native engine needs the fast extra")

from nomercy import new_game
from nomercy.bots.learned import LearnedBot
from nomercy.rl.train import main
from nomercy.views import player_view


def test_the_training_command_runs_at_a_tiny_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tiny.npz"
    main(["--tiny", "--out", str(out), "--seed", "3"])
    printed = capsys.readouterr().out
    assert "behaviour cloning" in printed and "against heuristics" in printed
    state = new_game(2, seed=1)
    view = player_view(state, state.current)
    assert LearnedBot(weights=str(out)).choose(view) in view.legal_actions
