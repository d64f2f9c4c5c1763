"""One version, written once: ``nomercy.__version__``, which the build, ``--version`` and
the installed metadata all report; and what a packager looks for beside it."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

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


# -- the version moves with what it stamps ------------------------------------------------
#
# Rooms and databases are stamped with ``nomercy.__version__`` (a room's engine version
# decides whether a later release continues it: ``nomercy.server.base.upgrades``). A change of the
# stored schema or of the engine's games under an unchanged version would make two different
# engines look alike there. ``tests/version_fingerprint.json`` records, beside the version,
# a digest of both; this section fails when either changes while the version stays.

FINGERPRINT = ROOT / "tests" / "version_fingerprint.json"
RECORD = "python tests/test_version.py --record"


def schema_fingerprint() -> dict[str, str]:
    """The newest migration and a digest of the schema it builds (SQLite, in memory)."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.pool import StaticPool

    from nomercy.server.base import schema

    engine = create_engine("sqlite://", poolclass=StaticPool)
    try:
        schema.upgrade(engine)
        found = inspect(engine)
        tables = {
            t: {
                "columns": [[c["name"], str(c["type"]), bool(c["nullable"])] for c in found.get_columns(t)],
                "indexes": sorted(
                    [str(i["name"]), [str(c) for c in i["column_names"]], bool(i["unique"])]
                    for i in found.get_indexes(t)
                ),
            }
            for t in sorted(found.get_table_names())
        }
    finally:
        engine.dispose()
    text = json.dumps(tables, sort_keys=True)
    return {"head": schema.head(), "digest": hashlib.sha256(text.encode()).hexdigest()}


def engine_fingerprint(**change: Any) -> dict[str, str | int]:
    """The state format and a digest of seeded games of every preset, played to their end
    (or 500 moves) by a seeded choice among the legal actions: every deal, shuffle and rule.
    ``change``: rule fields set in every preset (the test that the digest follows them)."""
    from nomercy.state import STATE_FORMAT_VERSION

    digest = hashlib.sha256()
    for preset in sorted(nomercy.PRESETS):
        rules = nomercy.Rules.preset(preset).replace(**change)
        for players in (2, 4):
            for seed in (1, 2, 3):
                state = nomercy.new_game(players=players, rules=rules, seed=seed)
                choose = random.Random(seed)
                for _ in range(500):
                    if state.outcome is not None:
                        break
                    action = choose.choice(state.legal_actions())
                    state.apply(action)
                    digest.update(f"{action};".encode())
                digest.update(json.dumps(state.to_dict(), sort_keys=True).encode())
    return {"state_format": STATE_FORMAT_VERSION, "digest": digest.hexdigest()}


def fingerprint() -> dict[str, Any]:
    return {"version": nomercy.__version__, "schema": schema_fingerprint(), "engine": engine_fingerprint()}


def problems(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What is wrong between the recorded fingerprint and today's, in words (none: [])."""
    if recorded["version"] != now["version"]:
        return [
            f"the version is {now['version']} but the fingerprint was recorded for "
            f"{recorded['version']}: record it for the new version ({RECORD})"
        ]
    found = []
    for part, what in (("schema", "the stored schema"), ("engine", "the engine's games")):
        if recorded[part] != now[part]:
            found.append(
                f"{what} changed ({recorded[part]} -> {now[part]}) but nomercy.__version__ is still "
                f"{now['version']}, which rooms and databases are stamped with: bump the version in "
                f"src/nomercy/__init__.py, add its entry to CHANGELOG.md (and, for the engine, say in "
                f"nomercy.server.base.upgrades.REPLAYS_EXACTLY which versions still replay exactly), then "
                f"record the fingerprint ({RECORD})"
            )
    return found


def test_the_schema_and_the_engine_change_only_with_the_version() -> None:
    pytest.importorskip("sqlalchemy", reason="the server extra: pip install -e '.[server]'")
    recorded = json.loads(FINGERPRINT.read_text(encoding="utf-8"))
    assert not problems(recorded, fingerprint()), "\n".join(problems(recorded, fingerprint()))


def test_a_change_under_the_same_version_is_caught() -> None:
    """The check itself: a schema or engine digest that moved under one version fails it."""
    recorded = json.loads(FINGERPRINT.read_text(encoding="utf-8"))
    for part in ("schema", "engine"):
        moved = {**recorded, part: {**recorded[part], "digest": "0" * 64}}
        found = problems(recorded, moved)
        assert len(found) == 1 and "bump the version" in found[0] and "CHANGELOG.md" in found[0]
    bumped = {**recorded, "version": "99.0.0"}
    assert "record it for the new version" in problems(recorded, bumped)[0]
    assert problems(recorded, recorded) == []


def test_the_fingerprint_follows_the_engine() -> None:
    """A rule that plays differently moves the engine's digest (the check is not blind)."""
    assert engine_fingerprint(hand_size=6)["digest"] != engine_fingerprint()["digest"]


def test_the_changelog_has_the_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(nomercy.__version__)}\]", changelog, re.M), (
        f"CHANGELOG.md has no section for {nomercy.__version__}"
    )


if __name__ == "__main__":  # python tests/test_version.py --record
    if sys.argv[1:] != ["--record"]:
        sys.exit(f"usage: {RECORD}")
    FINGERPRINT.write_text(json.dumps(fingerprint(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {FINGERPRINT.relative_to(ROOT)} for nomercy {nomercy.__version__}")
