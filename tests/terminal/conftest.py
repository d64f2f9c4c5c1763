"""Helpers to drive the real ``nomercy`` program through a pseudo-terminal."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "program.py"
SCENARIO = HERE / "scenario.json"


@pytest.fixture
def term_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose data directory is private to the test."""
    env = dict(os.environ)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE.parents[1] / "src"), env.get("PYTHONPATH")) if p)
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm-256color"
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):  # English, unless a test asks otherwise
        env.pop(name, None)
    env["LANG"] = "C.UTF-8"
    return env


Spawn = Callable[[list[str]], pexpect.spawn]


def as_a_foreground_job() -> None:
    """Ctrl-C at its default, as a shell starts a terminal's foreground job: a test run
    started in the background by a script (as CI may be) has SIGINT ignored, and a child
    would inherit that and never see the person's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def spawn(term_env: dict[str, str]) -> Spawn:
    """Start the program in an 80x24 pseudo-terminal, with the predictable bots registered."""

    def run(args: list[str]) -> pexpect.spawn:
        return pexpect.spawn(
            sys.executable,
            [str(PROGRAM), *args],
            env=term_env,
            encoding="utf-8",
            timeout=20,
            dimensions=(24, 80),
            preexec_fn=as_a_foreground_job,
        )

    return run


@pytest.fixture
def scenario() -> Path:
    """The hand-built position every scripted round starts from."""
    return SCENARIO


@pytest.fixture(scope="session")
def test_bots() -> None:
    """Register the predictable ``first`` and ``quiet`` bots in this process too."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("nomercy_test_program", PROGRAM)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
