"""The rolling upgrade of ``docs/deploy.md`` ("Upgrading"), done under play.

Two ``nomercy serve`` processes of the release before (0.1.0, its ``src/`` taken from git)
share one PostgreSQL behind the real nginx while two tables play. Step by step as the
section says: a backup (``pg_dump``), ``nomercy db upgrade`` while both still run, then
each process restarted onto this release in turn (SIGTERM, as ``systemctl restart`` sends;
its rooms move to the other process), the tables playing all along; then back the same
way, and ``nomercy db downgrade 0001``. Every state any client saw, from any process of
either release, is the replay of the one stored log: nothing lost, nothing altered.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import needs
from nomercy.server import schema

from .cluster import Nginx, Serve
from .conftest import FAST, POSTGRES_URL, free_port, reset_postgres
from .test_cluster import a_table, check_against_the_log, play

ROOT = Path(__file__).resolve().parents[2]
#: The release before migrations (nomercy 0.1.0), as in ``fixtures/make_v010.py``.
RELEASE = "367c6a1"


def _release_available() -> bool:
    probe = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{RELEASE}^{{commit}}"], capture_output=True
    )
    return probe.returncode == 0


pytestmark = [
    needs.POSTGRES,
    needs.NGINX,
    pytest.mark.skipif(not _release_available(), reason=f"the git history lacks {RELEASE} (a shallow clone)"),
    pytest.mark.slow,
]


class Process(Serve):
    """``nomercy serve`` of a given release (its ``src`` on PYTHONPATH) on a given port:
    restarting an instance keeps its port, as a systemd ``nomercy@N`` does."""

    def __init__(self, port: int, src: Path, log: Path) -> None:
        self.port = port
        self.log = log
        command = [
            sys.executable, "-m", "nomercy.cli", "serve", "--port", str(port), "--database-url",
            str(POSTGRES_URL), "--log-level", "info", "--forwarded-allow-ips", "127.0.0.1",
        ]  # fmt: skip
        env = {**os.environ, **FAST, "NOMERCY_LEASE_SECONDS": "3", "PYTHONPATH": str(src)}
        self.proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=open(log, "ab"))  # noqa: SIM115


def nomercy_db(*args: str) -> str:
    """``nomercy db ...`` of this release; its output."""
    done = subprocess.run(
        [sys.executable, "-m", "nomercy.cli", "db", *args, "--database-url", str(POSTGRES_URL)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def old_src(tmp_path: Path) -> Path:
    """The release's ``src/`` from git (``git archive``: no worktree to clean up)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", RELEASE, "src"], capture_output=True, check=True
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path / "old", filter="data")
    return tmp_path / "old" / "src"


@pytest.fixture
def processes() -> Iterator[list[Process]]:
    running: list[Process] = []
    yield running
    for p in running:
        p.stop()


def test_rolling_upgrade_and_back_under_play(tmp_path: Path, old_src: Path, processes: list[Process]) -> None:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    new_src = ROOT / "src"
    ports = [free_port(), free_port()]
    for i, port in enumerate(ports):
        processes.append(Process(port, old_src, tmp_path / f"serve{i}.log").wait_ready())
    proxy = Nginx(tmp_path / "nginx", ports)
    try:
        rng = random.Random(8)
        tables = [a_table(proxy, seed=21), a_table(proxy, seed=22)]
        for _, players in tables:
            assert not play(players, 3, rng)

        # 1. A backup first.
        bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
        backup = tmp_path / "nomercy.dump"
        dump = subprocess.run(
            [
                str(bindir / "pg_dump"),
                "--format=custom",
                "--file",
                str(backup),
                POSTGRES_URL.replace("+psycopg", ""),
            ],
            capture_output=True,
        )
        assert dump.returncode == 0 and backup.stat().st_size > 0, dump.stderr

        # 2. The schema, while the release before still serves on it.
        assert "database: unversioned" in nomercy_db("current")
        assert f"unversioned -> {schema.head()}" in nomercy_db("upgrade")
        for _, players in tables:
            assert not play(players, 2, rng)

        # 3. Each process in turn onto this release; the tables play between the restarts.
        def restart(i: int, src: Path) -> None:
            processes[i].stop()  # SIGTERM: its rooms are handed over
            processes[i] = Process(ports[i], src, tmp_path / f"serve{i}.log").wait_ready()
            for _, players in tables:
                before = players[0].ensure().latest_state()["version"]
                over = play(players, 3, rng)
                assert over or players[0].ensure().latest_state()["version"] >= before + 3, "play stopped"

        restart(0, new_src)
        restart(1, new_src)
        for code, players in tables:
            assert check_against_the_log(code, players) > 0
            assert all(p.connections >= 2 for p in players), "the clients reconnected by themselves"

        # 4. And back: the release before runs on the upgraded schema, then the downgrade.
        restart(0, old_src)
        restart(1, old_src)
        for code, players in tables:
            assert check_against_the_log(code, players) > 0
        assert f"{schema.head()} -> 0001" in nomercy_db("downgrade", "0001")
        for _, players in tables:
            play(players, 3, rng)
        # This release reads the logs only at its own schema: up again (no process minds).
        assert f"0001 -> {schema.head()}" in nomercy_db("upgrade")
        for code, players in tables:
            assert check_against_the_log(code, players) > 0
    finally:
        proxy.stop()
