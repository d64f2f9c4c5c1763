"""One version, written once: ``nomercy.__version__``, which the build, ``--version`` and
the installed metadata all report; and what a packager looks for beside it."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import nomercy
from nomercy.cli import app

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_build_reads_the_version_from_the_package() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project, "pyproject.toml must not repeat the version: it is dynamic"
    assert "version" in project["dynamic"]
    path = PYPROJECT["tool"]["hatch"]["version"]["path"]
    assert path == "src/nomercy/__init__.py"
    # hatch's default pattern: the first __version__ = "..." assignment in the file
    found = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', (ROOT / path).read_text(), re.MULTILINE)
    assert found is not None and found.group(1) == nomercy.__version__


def test_the_version_is_a_release_version() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", nomercy.__version__)


def test_installed_metadata_agrees() -> None:
    try:
        installed = importlib.metadata.version("nomercy")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("nomercy is not installed (only on the path)")
    assert installed == nomercy.__version__, "reinstall: the installed metadata is older than the source"


def test_version_option() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"nomercy {nomercy.__version__}\n"


def test_python_m_nomercy_version() -> None:
    command = [sys.executable, "-m", "nomercy", "--version"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, f"nomercy {nomercy.__version__}\n")


def test_license_and_urls() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 the nomercy authors" in text
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    urls = PYPROJECT["project"]["urls"]
    assert set(urls) == {"Homepage", "Repository", "Documentation", "Changelog", "Issues"}
    assert all(url.startswith(urls["Repository"]) for url in urls.values())


def test_the_release_check_runs_in_ci() -> None:
    """The full check (build, fresh venv, commands) is slow; here only that CI runs it."""
    script = ROOT / "scripts" / "release_check.sh"
    assert subprocess.run(["bash", "-n", str(script)], check=False, timeout=30).returncode == 0
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^release-check:.*\n\tbash scripts/release_check\.sh ", makefile, re.M)
    assert re.search(r"^make release-check\b", (ROOT / ".ci" / "run").read_text(), re.M)
