"""The solo benchmarks run and print their figures and command (the figures themselves are
measurements, never asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nomercy.site import pyodide_dir

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_bot_times_print_each_bot_and_the_command(tmp_path: Path) -> None:
    out = run(
        "benchmarks/solo_bots.py",
        "--decisions",
        "3",
        "--bots",
        "random,stacker",
        "--json",
        str(tmp_path / "b.json"),
    )
    assert "random" in out and "stacker" in out and "command: " in out
    data = json.loads((tmp_path / "b.json").read_text())
    assert set(data["native"]) == {"random", "stacker"}
    assert all(v["decisions"] == 3 for v in data["native"].values())


@pytest.mark.skipif(pyodide_dir() is None, reason="needs Pyodide's npm package: npm ci (make pyodide)")
def test_site_download_sums_every_part(tmp_path: Path) -> None:
    out = run("benchmarks/solo_site.py", "--json", str(tmp_path / "s.json"))
    assert "total" in out and "command: " in out
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["total"][0] == sum(part[0] for part in data["parts"].values())
