"""Fixtures: a real uvicorn server in a subprocess on 127.0.0.1, real HTTP and WebSocket clients.

The server runs as a subprocess (not a thread) so that a test can SIGKILL it and start
it again on the same database. It is configured through ``NOMERCY_*`` variables with
short bot delays and the test-only seed option on.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import needs
from patience import WAIT_SECONDS, stop, wait_until_ready

pytest.importorskip("fastapi")
from websockets.sync.client import ClientConnection, connect

from nomercy.server.rooms.storage import Storage

POSTGRES_URL = needs.POSTGRES_URL
#: ``@pytest.mark.parametrize("db", DATABASES)``: SQLite always, PostgreSQL where the URL is
#: set. The PostgreSQL case's skip marker is what the suite groups the shared database's
#: tests by (tests/conftest.py), so none runs beside another that resets it.
DATABASES = [
    "sqlite",
    pytest.param(
        "postgresql",
        marks=needs.POSTGRES,
    ),
]

FAST = {
    "NOMERCY_BOT_DELAY": "0.01",
    "NOMERCY_REACTION_DELAY": "0.03",
    "NOMERCY_GRACE_SECONDS": "30",
    "NOMERCY_BETWEEN_ROUNDS": "0.05",
    "NOMERCY_TEST_OPTIONS": "1",
    "NOMERCY_MESSAGE_RATE": "200",
    "NOMERCY_MESSAGE_BURST": "400",
    "NOMERCY_ROOMS_PER_MINUTE": "1000",
    "NOMERCY_JOIN_FAILURES_PER_MINUTE": "1000",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PortTaken(RuntimeError):
    """The free port was taken by another process between its choice and the bind."""


class ServerProcess:
    """``uvicorn --factory nomercy.server.http.app:create_app`` on a free loopback port."""

    def __init__(self, database_url: str, env: dict[str, str] | None = None, log: Path | None = None) -> None:
        self.database_url = database_url
        self.env = {**FAST, **(env or {})}
        self.port = free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProcess:
        """Start and wait until ready; a port taken meanwhile by another test is tried again."""
        for attempt in range(3):
            try:
                return self._start()
            except PortTaken:
                if attempt == 2:
                    raise
                self.port = free_port()
        raise AssertionError("unreachable")

    def _start(self) -> ServerProcess:
        env = {**os.environ, **self.env, "NOMERCY_DATABASE_URL": self.database_url}
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "uvicorn", "--factory", "nomercy.server.http.app:create_app",
                "--host", "127.0.0.1", "--port", str(self.port), "--ws-max-size", "65536",
                "--log-level", "warning", "--timeout-graceful-shutdown", "1",
                # The app reads forwarding headers itself (NOMERCY_FORWARDED_ALLOW_IPS);
                # uvicorn's own reading would trust loopback behind its back.
                "--no-proxy-headers",
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        logged = len(self.log_text())
        try:
            wait_until_ready(self.proc, self.healthy, f"the server on port {self.port}", self.log_text)
        except RuntimeError:
            if "address already in use" in self.log_text()[logged:].lower():
                raise PortTaken(self.port) from None
            raise
        return self

    def healthy(self) -> bool:
        try:
            return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log and self.log.exists() else ""

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing; what was committed is all there is."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)


def reset_postgres(url: str) -> None:
    """Drop every nomercy table there is (reflected: whatever revision a test left behind)."""
    from sqlalchemy import MetaData, create_engine

    engine = create_engine(url)  # not Storage: a test may have left an older schema behind
    found = MetaData()
    found.reflect(engine, only=lambda name, _meta: name.startswith("nomercy_"))
    found.drop_all(engine)  # the migrations' version too: the next Storage starts afresh
    engine.dispose()


def fresh_database(db: str, tmp_path: Path) -> str:
    """The URL of an empty database of the kind ``db`` names (``DATABASES``): a new SQLite
    file under ``tmp_path``, or the shared PostgreSQL with every nomercy table dropped."""
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        return POSTGRES_URL
    return f"sqlite:///{tmp_path / 'db.sqlite3'}"


@pytest.fixture(params=DATABASES)
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """A :class:`Storage` on each of the ``DATABASES``, empty, closed after the test."""
    made = Storage(fresh_database(request.param, tmp_path))
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rooms.sqlite3'}"


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Factory: ``start_server(database_url=None, **env)``; every server is stopped after.

    Without a URL the servers share one SQLite file, one at a time (a restart finds the
    rooms); a server started while another still runs gets a file of its own."""
    started: list[ServerProcess] = []

    def start(database_url: str | None = None, **env: str) -> ServerProcess:
        url = database_url or f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
        if database_url is None and any(s.database_url == url and s.running for s in started):
            # One SQLite file is served by one process: a second server at once gets its own.
            url = f"sqlite:///{tmp_path / f'rooms{len(started)}.sqlite3'}"
        server = ServerProcess(url, env, log=tmp_path / "server.log").start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One shared server (SQLite) for the tests that need nothing special."""
    folder = tmp_path_factory.mktemp("server")
    srv = ServerProcess(f"sqlite:///{folder / 'rooms.sqlite3'}", log=folder / "server.log").start()
    yield srv
    srv.stop()


# -- clients ------------------------------------------------------------------------------


class WS:
    """A WebSocket client that records *every* message it receives (for the leak test)."""

    def __init__(self, url: str, origin: str | None = None) -> None:
        headers = {"Origin": origin} if origin else None
        self.conn: ClientConnection = connect(url, additional_headers=headers, open_timeout=10).__enter__()
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with contextlib.suppress(Exception):  # the socket closed or broke: reading ends
            for text in self.conn:
                assert isinstance(text, str)
                with self._cond:
                    self.raw.append(text)
                    self.received.append(json.loads(text))
                    self._cond.notify_all()
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def send(self, message: dict[str, Any] | str) -> None:
        self.conn.send(message if isinstance(message, str) else json.dumps(message))

    def wait(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = WAIT_SECONDS, start: int = 0
    ) -> dict[str, Any]:
        """The first message from index ``start`` on that satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for msg in self.received[start:]:
                    if pred(msg):
                        return msg
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError(
                        f"no matching message within {timeout}s (closed={self.closed}); "
                        f"last: {self.received[-3:]}"
                    )
                self._cond.wait(left)

    def mark(self) -> int:
        with self._cond:
            return len(self.received)

    def error(self, start: int, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        return self.wait(lambda m: m["type"] == "error", timeout, start)

    def latest_state(self) -> dict[str, Any]:
        with self._cond:
            for msg in reversed(self.received):
                if msg["type"] == "state":
                    return msg
        raise AssertionError("no state received")

    def wait_closed(self, timeout: float = WAIT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("connection still open")
                self._cond.wait(left)

    def close(self) -> None:
        self.conn.close()


def hello(server: ServerProcess, code: str, token: str | None) -> WS:
    ws = WS(server.ws_url)
    ws.send({"type": "hello", "room": code, "token": token})
    ws.wait(lambda m: m["type"] == "state" and m.get("snapshot"))
    return ws


def create_room(server: ServerProcess, **body: Any) -> dict[str, Any]:
    body.setdefault("nickname", "Host")
    r = httpx.post(server.url + "/api/rooms", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def join_room(server: ServerProcess, code: str, nickname: str) -> dict[str, Any]:
    r = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"nickname": nickname}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def start_room(server: ServerProcess, code: str, token: str) -> None:
    r = httpx.post(
        f"{server.url}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert r.status_code == 200, r.text
