"""Training across house rules (``--rules mix``, issue "Research 3.0"): the rows against
the heuristic and the cloned decisions play rules drawn from the seed, half of each table
size at ``no_mercy``; the draw only yields tables the encoding seats (``check_table``, S1,
W7); a mixed run is reproducible from its seed and resumes where it stopped; the default
stays ``no_mercy`` (tests/rl/test_train_seats.py keeps its run bit for bit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the train extra is not installed")
pytest.importorskip("nomercy.native", reason="the native engine needs the fast extra")

import numpy as np  # noqa: E402

from nomercy.bots.learned import OLD_OBS_SIZE  # noqa: E402
from nomercy.encoding import OBS_SIZE  # noqa: E402
from nomercy.rl import train as T  # noqa: E402
from nomercy.rl.rules_mix import MIX_GROUPS  # noqa: E402
from nomercy.rules import Rules  # noqa: E402


def _weights(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _same(a: Path, b: Path) -> None:
    x, y = _weights(a), _weights(b)
    assert x.keys() == y.keys()
    for key in x:
        np.testing.assert_array_equal(x[key], y[key])


def test_an_unknown_or_refused_rules_name_stops_the_run() -> None:
    """W7: ``--rules classic_112`` (Wild Shuffle Hands, which no RL table seats) and an
    unknown name stop the command with a message, before any training."""
    for bad in ("classic_112", "house"):
        with pytest.raises(SystemExit):
            T.main(["--tiny", "--rules", bad])


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Record every environment training makes (kind, env) by wrapping the classes."""
    made: list[tuple[str, Any]] = []

    class Native(T.NativeVectorEnv):  # type: ignore[misc,name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(("native", self))

    class Self(T.SelfPlayEnv):  # type: ignore[misc,name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(("self", self))

    monkeypatch.setattr(T, "NativeVectorEnv", Native)
    monkeypatch.setattr(T, "SelfPlayEnv", Self)
    return made


def test_a_mixed_run_plays_different_rules_at_each_table_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made = _recording(monkeypatch)
    out = tmp_path / "mix.npz"
    T.main(["--tiny", "--seats", "2,4", "--rules", "mix", "--seed", "5", "--out", str(out)])
    assert _weights(out)["w0"].shape[0] == OBS_SIZE
    printed = capsys.readouterr().out
    assert "rules mix" in printed and "update 3: rules " in printed  # drawn again at a boundary
    for players in (2, 4):
        # the rows against the heuristic: rows = num_envs of the training groups (the
        # evaluation's are eval_rounds wide and play no_mercy)
        rows = [e for kind, e in made if kind == "native" and e.players == players and e.num_envs < 30]
        drawn = {e.rules for e in rows}
        assert Rules() in drawn and len(drawn) >= 1 + MIX_GROUPS
        assert all(e.rules == Rules() for kind, e in made if kind == "native" and e.num_envs == 30)
        cloned = {e.rules for kind, e in made if kind == "self" and e.players == players}
        assert Rules() in cloned and len(cloned) >= 2
    league = [e for kind, e in made if kind == "self" and e.num_envs == T.Config.tiny().league_envs]
    assert league and all(e.rules == Rules() for e in league)


def test_a_mixed_run_is_reproducible_from_its_seed_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two, part = tmp_path / "one.npz", tmp_path / "two.npz", tmp_path / "part.npz"
    args = ["--tiny", "--seats", "2,5", "--rules", "mix", "--seed", "9"]
    T.main([*args, "--out", str(one)])
    T.main([*args, "--out", str(two)])
    _same(one, two)
    T.main([*args, "--out", str(part), "--updates", "2"])
    capsys.readouterr()
    T.main([*args, "--out", str(part), "--resume"])
    assert "resumed after update 2" in capsys.readouterr().out
    _same(one, part)
    other = tmp_path / "other.npz"
    T.main(["--tiny", "--seats", "2,5", "--rules", "mix", "--seed", "10", "--out", str(other)])
    assert not np.array_equal(_weights(one)["w0"], _weights(other)["w0"])


def test_resume_checks_the_rules_and_takes_an_old_checkpoint_as_no_mercy(tmp_path: Path) -> None:
    out = tmp_path / "w.npz"
    ckpt = Path(str(out) + ".ckpt.pt")
    T.main(["--tiny", "--seats", "2,3", "--seed", "1", "--updates", "2", "--out", str(out)])
    with pytest.raises(SystemExit, match="other arguments"):
        T.main(["--tiny", "--seats", "2,3", "--seed", "1", "--rules", "mix", "--out", str(out), "--resume"])
    state = torch.load(ckpt, weights_only=False)
    del state["config"]["rules"]  # a checkpoint written before the field
    torch.save(state, ckpt)
    T.main(["--tiny", "--seats", "2,3", "--seed", "1", "--updates", "4", "--out", str(out), "--resume"])


def test_resume_refuses_a_checkpoint_of_the_width_before_the_rules_section(tmp_path: Path) -> None:
    """--init pads an old weights file (tests/rl/test_train_rules_width.py); a checkpoint
    also holds the optimizer's state, which cannot be padded, so --resume refuses it."""
    out = tmp_path / "w.npz"
    ckpt = Path(str(out) + ".ckpt.pt")
    T.main(["--tiny", "--seats", "2,3", "--seed", "1", "--updates", "2", "--out", str(out)])
    state = torch.load(ckpt, weights_only=False)
    state["net"]["l0.weight"] = state["net"]["l0.weight"][:, :OLD_OBS_SIZE].clone()
    torch.save(state, ckpt)
    with pytest.raises(SystemExit, match=f"takes {OLD_OBS_SIZE} inputs.*--init"):
        T.main(["--tiny", "--seats", "2,3", "--seed", "1", "--out", str(out), "--resume"])
