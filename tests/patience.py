"""How long a test waits for something that must happen, and how it waits.

A wait ends the moment its condition holds, so a long limit costs nothing on an idle
machine: it only decides how long a broken test takes to fail. The limits are therefore set
for a machine that is doing other work too (the suite passes beside a two-process CPU load,
where a server can take tens of seconds to answer its first health check), never for the
idle case. ``NOMERCY_TEST_PATIENCE`` multiplies them on a slower machine still.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable

SCALE = float(os.environ.get("NOMERCY_TEST_PATIENCE", "1"))

#: A server, a proxy or a cluster to become ready (its health check answers).
START_SECONDS = 180.0 * SCALE
#: A message, a move or a stored row that must come.
WAIT_SECONDS = 30.0 * SCALE


def scaled(seconds: float) -> float:
    """A test's own limit, scaled like the others."""
    return seconds * SCALE


def wait_until_ready(
    proc: subprocess.Popen[bytes],
    ready: Callable[[], bool],
    what: str,
    log: Callable[[], str] | None = None,
    seconds: float = START_SECONDS,
) -> None:
    """Wait until ``ready()`` holds while ``proc`` runs.

    If the process exits or the time runs out, it is stopped (never left listening after the
    test) and the error says why, with the end of its log where there is one.
    """
    deadline = time.monotonic() + seconds
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{what} exited with {proc.returncode} before it was ready{_tail(log)}")
            if ready():
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} was not ready within {seconds:.0f} s{_tail(log)}")
            time.sleep(0.1)
    except BaseException:
        stop(proc)
        raise


def answers(url: str, status: int | None = 200) -> Callable[[], bool]:
    """A readiness check: ``url`` answers (with ``status``, unless it is None)."""
    import httpx

    def check() -> bool:
        try:
            got = httpx.get(url, timeout=2).status_code
        except httpx.HTTPError:
            return False
        return status is None or got == status

    return check


def stop(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds; waits until the process is gone."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _tail(log: Callable[[], str] | None) -> str:
    if log is None:
        return ""
    try:
        text = log()
    except OSError:
        return ""
    return "; its log ends:\n" + text[-3000:] if text else ""
