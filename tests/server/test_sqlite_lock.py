"""SQLite serves one process: a second ``nomercy serve`` on the same file is refused at start."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx

from .conftest import ServerProcess


def test_a_second_process_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    first = ServerProcess(
        url, log=tmp_path / "first.log"
    ).start()  # uvicorn --factory: the lock is in the app
    try:
        second = subprocess.run(
            [sys.executable, "-m", "nomercy.cli", "serve", "--port", "1", "--database-url", url],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        assert re.search(r"another nomercy serve is already using .*rooms\.sqlite3", second.stderr)
        assert "PostgreSQL" in second.stderr
        assert httpx.get(first.url + "/healthz", timeout=5).status_code == 200
    finally:
        first.stop()
    # Once the first process is gone (even killed), the file is free again.
    again = ServerProcess(url, log=tmp_path / "again.log").start()
    again.stop()
