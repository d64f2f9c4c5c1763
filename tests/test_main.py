"""``python -m nomercy`` is the ``nomercy`` command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)


def _console_script() -> str:
    """The ``nomercy`` script installed beside this interpreter (or on the PATH)."""
    beside = Path(sys.executable).with_name("nomercy")
    found = str(beside) if beside.exists() else shutil.which("nomercy")
    if found is None:
        pytest.skip("the nomercy command is not installed")
    return found


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["tournament", "--help"],
        ["tournament", "--bots", "heuristic,random", "--games", "2", "--workers", "1", "--json"],
        ["tournament", "--bots", "nobody,random"],  # refused the same way
    ],
    ids=["help", "sub-command help", "a run", "an error"],
)
def test_python_m_nomercy_behaves_like_the_command(args: list[str]) -> None:
    module = _run(sys.executable, "-m", "nomercy", *args)
    command = _run(_console_script(), *args)
    assert module.returncode == command.returncode
    assert (module.stdout, module.stderr) == (command.stdout, command.stderr)
    if "--json" in args:
        assert module.returncode == 0 and json.loads(module.stdout)["games"] == 2
    else:
        assert "Usage: nomercy" in module.stdout + module.stderr
