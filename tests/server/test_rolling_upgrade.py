"""The rolling upgrade of ``docs/deploy.md`` ("Upgrading"), done under play, and going back.

Two ``nomercy serve`` processes of the release before (0.1.0, its ``src/`` taken from git)
share one PostgreSQL behind the real nginx, configured by 0.1.0's own site file
(``fixtures/v010.nginx.conf``, its upstream as 0.1.0's file said: ``max_fails=1
fail_timeout=2s``), while two tables play. Step by step as the section says: the nginx
upstream changed first (this release's file, ``max_fails=0``), a backup (``pg_dump``),
``nomercy db upgrade`` while both still run, then each process restarted onto this release
in turn (SIGTERM, as ``systemctl restart`` sends; its rooms move to the other process), the
tables playing all along. Then back as "Going back" says: every process stopped,
``nomercy db downgrade 0001 --yes``, the release before started again. Every state any
client saw, from any process of either release, is the replay of the one stored log:
nothing lost, nothing altered.
"""

from __future__ import annotations

import io
import os
import random
import re
import signal
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import needs
from nomercy.server.base import schema
from patience import WAIT_SECONDS, wait_until_ready

from .cluster import Nginx, Serve
from .conftest import FAST, POSTGRES_URL, free_port, reset_postgres
from .nginxconf import site_config
from .test_cluster import a_table, check_against_the_log, play

ROOT = Path(__file__).resolve().parents[2]
#: The release before migrations (nomercy 0.1.0), as in ``fixtures/make_v010.py``.
RELEASE = "367c6a1"
#: 0.1.0's ``deploy/nginx/nomercy.conf`` (``git show 367c6a1:deploy/nginx/nomercy.conf``).
V010_SITE = Path(__file__).resolve().parent / "fixtures" / "v010.nginx.conf"


def v010_site(app_ports: list[int], main_port: int, http_port: int) -> str:
    """0.1.0's site file as an operator of that release set it up for several processes
    (the upstream lines its comment showed), in plain HTTP on the test's ports."""
    servers = "\n    ".join(f"server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in app_ports)
    edits = [
        (r"server 127\.0\.0\.1:8000;", servers),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"listen \[::\]:80;\n", ""),
        (r"listen 443 ssl;", f"listen 127.0.0.1:{main_port};"),
        (r"listen \[::\]:443 ssl;\n", ""),
        (r"ssl_certificate +/etc/letsencrypt/live/play\.example\.org/fullchain\.pem;", ""),
        (r"ssl_certificate_key +/etc/letsencrypt/live/play\.example\.org/privkey\.pem;", ""),
    ]
    text = V010_SITE.read_text(encoding="utf-8")
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text)
        assert count == 1, f"{V010_SITE.name}: {pattern!r} matched {count} times"
    return text


def reload(proxy: Nginx, site: str) -> None:
    """Install ``site`` and reload nginx (SIGHUP, as ``systemctl reload nginx``); returns once
    a worker of the new configuration runs."""
    workers = set(_children(proxy.proc.pid))
    (proxy.dir / "site.conf").write_text(site, encoding="utf-8")
    proxy.proc.send_signal(signal.SIGHUP)
    wait_until_ready(
        proxy.proc,
        lambda: bool(set(_children(proxy.proc.pid)) - workers),
        "nginx's reload",
        (proxy.dir / "error.log").read_text,
        WAIT_SECONDS,
    )


def upstream(proxy: Nginx) -> list[str]:
    """The ``server`` lines of the site's upstream as nginx has them now."""
    site = (proxy.dir / "site.conf").read_text(encoding="utf-8")
    return re.findall(r"^ *server (127\.0\.0\.1:\d+[^;]*);", site, re.M)


def _children(pid: int) -> list[str]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return found.stdout.split()


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
        # Deployed as 0.1.0's file said.
        reload(proxy, v010_site(ports, proxy.port, free_port()))
        assert upstream(proxy) == [f"127.0.0.1:{p} max_fails=1 fail_timeout=2s" for p in ports]
        rng = random.Random(8)
        tables = [a_table(proxy, seed=21), a_table(proxy, seed=22)]
        for _, players in tables:
            assert not play(players, 3, rng)

        # 0. The upstream first: this release's file (max_fails=0), while 0.1.0 serves.
        reload(proxy, site_config(ports, proxy.port, free_port()))
        assert upstream(proxy) == [f"127.0.0.1:{p} max_fails=0" for p in ports]
        for _, players in tables:
            assert not play(players, 2, rng)

        # 1. A backup.
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

        # 4. And back, as "Going back" says: every process stopped, the downgrade, the
        # release before started (these tables are 0.1.0's: they continue there).
        for p in processes:
            p.stop()
        back = nomercy_db("downgrade", "0001", "--yes")
        assert f"database: {schema.head()} -> 0001" in back and "nomercy_accounts" in back, back
        for i, port in enumerate(ports):
            processes[i] = Process(port, old_src, tmp_path / f"serve{i}.log").wait_ready()
        for _, players in tables:
            before = players[0].ensure().latest_state()["version"]
            over = play(players, 3, rng)
            assert over or players[0].ensure().latest_state()["version"] >= before + 3, "play stopped"
        # This release reads the logs only at its own schema: up again (no process minds).
        assert f"0001 -> {schema.head()}" in nomercy_db("upgrade")
        for code, players in tables:
            assert check_against_the_log(code, players) > 0
    finally:
        proxy.stop()
