"""The Makefile rebuilds the compiled wheel for its compiled modules only (make -n, nothing runs)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _compiled_modules() -> list[str]:
    """The include list of the hatch-mypyc hook in pyproject.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[tool.hatch.build.targets.wheel.hooks.mypyc]", 1)[1].split("\n[", 1)[0]
    return re.findall(r'"(src/nomercy/[^"]+\.py)"', section)


def _would_run(tmp_path: Path, changed: str) -> str:
    """The commands ``make compiled`` would run if ``changed`` were edited now."""
    cvenv = tmp_path / "cvenv"
    cvenv.mkdir(exist_ok=True)
    for stamp in (".installed", ".synced"):
        (cvenv / stamp).touch()
    result = subprocess.run(
        ["make", "-n", "-W", changed, f"CVENV={cvenv}", f"{cvenv}/.synced"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_compiled_modules_are_read_from_pyproject() -> None:
    modules = _compiled_modules()
    assert "src/nomercy/engine.py" in modules and all((ROOT / m).exists() for m in modules)


@pytest.mark.parametrize("changed", ["src/nomercy/web/js/main.js", "src/nomercy/bots/heuristic.py"])
def test_other_files_are_copied_not_compiled(tmp_path: Path, changed: str) -> None:
    commands = _would_run(tmp_path, changed)
    assert "-m build" not in commands
    assert "cp " in commands


@pytest.mark.parametrize("changed", [*_compiled_modules(), "pyproject.toml"])
def test_a_compiled_module_or_pyproject_rebuilds_the_wheel(tmp_path: Path, changed: str) -> None:
    assert "-m build" in _would_run(tmp_path, changed)
