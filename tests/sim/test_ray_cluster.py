"""``--ray ADDRESS`` against a Ray head started apart, the way docs/scale.md tells a user.

The head is started with ``ray start --head`` in a HOME of its own that holds a Ray token
(``~/.ray/auth_token``), so it runs with token authentication, as ``ray start --head``
does on any machine where Ray has made a token. The commands then run exactly as
documented, with no ``RAY_AUTH_MODE`` set: before the fix Ray refused them
("InvalidAuthToken") until the user also set ``RAY_AUTH_MODE=token``.

Ports: the head's GCS, dashboard, dashboard agent and a short range of
worker ports are all chosen free on 127.0.0.1; the node address is 127.0.0.1. The head
is stopped by SIGTERM to its ``ray start --block`` process (Ray drains and stops every
process it started) and then its whole process group: unlike ``ray stop``, this leaves
any other Ray on the machine alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the ray extra is not installed")

RAY = Path(sys.executable).with_name("ray")
START_TIMEOUT_S = 90
COMMAND_TIMEOUT_S = 120


@dataclass
class Head:
    address: str
    home: Path
    log: Path


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _free_range(size: int) -> int:
    """The first port of ``size`` consecutive free ports (none of Linux's ephemeral ones)."""
    for base in range(21_000, 31_000, size):
        if all(_free(p) for p in range(base, base + size)):
            return base
    raise RuntimeError(f"no {size} consecutive free ports between 21000 and 31000")


def _clean_env(home: Path) -> dict[str, str]:
    """This process's environment without any Ray setting, in ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(home)
    env["COLUMNS"] = "200"
    return env


def _make_home(root: Path, name: str, token: str | None) -> Path:
    home = root / name
    (home / ".ray").mkdir(parents=True)
    if token is not None:
        (home / ".ray" / "auth_token").write_text(token)
    return home


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Head]:
    if not RAY.exists():
        pytest.skip(f"no ray command beside {sys.executable}")
    root = tmp_path_factory.mktemp("ray-cluster")
    home = _make_home(root, "head-home", secrets.token_hex(32))
    # Ray's session directory holds Unix sockets, whose paths must stay short.
    temp_dir = tempfile.mkdtemp(prefix="nmray-", dir="/tmp")
    port = _free_port()
    workers = _free_range(16)
    log = root / "head.log"
    command = [
        str(RAY),
        "start",
        "--head",
        "--block",
        "--disable-usage-stats",
        f"--port={port}",
        "--node-ip-address=127.0.0.1",
        "--num-cpus=2",
        "--include-dashboard=false",
        "--dashboard-host=127.0.0.1",
        f"--dashboard-port={_free_port()}",
        f"--dashboard-agent-listen-port={_free_port()}",
        f"--min-worker-port={workers}",
        f"--max-worker-port={workers + 15}",
        f"--temp-dir={temp_dir}",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, env=_clean_env(home), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "Ray runtime started" not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start --head did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.25)
        text = log.read_text(errors="replace")
        assert "Token authentication is enabled" in text, text[-3000:]
        yield Head(f"127.0.0.1:{port}", home, log)
    finally:
        proc.send_signal(signal.SIGTERM)  # Ray drains, then stops what it started
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=40)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # anything left of this head, nothing else
        proc.wait(timeout=10)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _nomercy(args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nomercy", *args],
        env={**_clean_env(home), **env},
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )


def _summary(output: str) -> list[str]:
    """The result lines of `nomercy simulate`, without its timing and file lines."""
    return [
        line
        for line in output.splitlines()
        if line.strip() and " games/s on " not in line and not line.startswith("wrote ")
    ]


def test_simulate_joins_a_separately_started_head_as_documented(head: Head, tmp_path: Path) -> None:
    """docs/scale.md: `nomercy simulate ... --ray HEAD:PORT` on a node of the cluster
    (here: where the head runs, with its token), and nothing else to set."""
    args = ["simulate", "-n", "60", "-p", "3", "-s", "5", "--no-progress"]
    on_ray = _nomercy([*args, "--ray", head.address, "--out", str(tmp_path / "ray.csv")], head.home)
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    assert "InvalidAuthToken" not in on_ray.stderr
    assert re.search(r"games/s on ray \(\d+ workers\)", on_ray.stdout), on_ray.stdout
    here = _nomercy([*args, "-w", "1", "--out", str(tmp_path / "here.csv")], head.home)
    assert here.returncode == 0, here.stderr
    assert _summary(on_ray.stdout) == _summary(here.stdout)  # same games, whoever played them
    assert (tmp_path / "ray.csv").read_text() == (tmp_path / "here.csv").read_text()


def test_tournament_joins_the_same_head(head: Head) -> None:
    args = ["tournament", "--bots", "heuristic,random", "-n", "16", "-s", "3", "--json"]
    on_ray = _nomercy([*args, "--ray", head.address], head.home)
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    here = _nomercy([*args, "-w", "1"], head.home)
    assert here.returncode == 0, here.stderr
    assert json.loads(on_ray.stdout) == json.loads(here.stdout)


def test_a_driver_with_another_token_is_told_what_to_do(head: Head, tmp_path: Path) -> None:
    """A driver whose token is not the cluster's gets one error saying what to copy where."""
    stranger = _make_home(tmp_path, "driver-home", secrets.token_hex(32))
    result = _nomercy(
        ["simulate", "-n", "4", "-p", "2", "--no-progress", "--ray", head.address],
        stranger,
        # Ray tries a refused connection 20 times a second apart; a few are enough here.
        RAY_NUM_REDIS_GET_RETRIES="3",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    said = " ".join(result.stderr.split())
    assert f"cannot start or reach Ray at '{head.address}'" in said
    assert "ray get-auth-token" in said and "~/.ray/auth_token" in said
    assert "Traceback" not in result.stderr
