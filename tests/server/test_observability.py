"""Observable: /metrics (Prometheus), JSON log lines without tokens, liveness and readiness."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

import needs
from nomercy.server.base.logs import JsonFormatter, redact, room_var, seat_var
from nomercy.server.base.metrics import Metrics
from nomercy.server.rooms.manager import LogWriter
from nomercy.server.rooms.storage import Storage, StoredSeat
from patience import answers, wait_until_ready

from .conftest import POSTGRES_URL, WS, create_room, hello, join_room, start_room
from .tcpproxy import Forwarder


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = httpx.get(url + "/metrics", timeout=10)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(metrics: dict[Any, float], name: str, **labels: str) -> float:
    return metrics.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_rooms_connections_actions_refusals_and_storage(start_server: Any) -> None:
    server = start_server()
    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=3)
    code = host["code"]
    create_room(server, nickname="Cy", seats=2)  # a lobby
    ann = hello(server, code, host["token"])
    watcher = hello(server, code, None)
    start_room(server, code, host["token"])
    mine = 0
    deadline = time.monotonic() + 30
    while mine < 4 and time.monotonic() < deadline:
        state = ann.wait(lambda m: m["type"] == "state" and m["view"] and m["view"]["current_player"] == 0)
        if state["view"]["outcome"] is not None:
            break
        latest = ann.latest_state()
        if latest["version"] != state["version"] or latest["view"]["outcome"] is not None:
            continue
        legal = [a for a in state["view"]["legal_actions"] if a != "uno" and not a.startswith("catch")]
        start = ann.mark()
        ann.send({"type": "action", "action": legal[0], "version": state["version"]})
        got = ann.wait(
            lambda m, v=state["version"]: (m["type"] == "state" and m["version"] > v) or m["type"] == "error",
            start=start,
        )
        mine += got["type"] == "state"
    assert mine >= 1
    start = ann.mark()
    ann.send({"type": "action", "action": "draw", "version": 0})  # stale
    assert ann.error(start)["code"] in ("stale", "game_over")
    ann.send("{not json")
    flood = WS(server.ws_url)
    for _ in range(450):  # the test server allows bursts of 400
        flood.send({"type": "ping"})
    flood.wait(lambda m: m.get("code") == "rate_limited")
    assert httpx.get(f"{server.url}/api/rooms/ZZZZZZ", timeout=10).status_code == 404
    time.sleep(0.3)  # let the bot's last move land
    version = ann.latest_state()["version"]

    m = scrape(server.url)
    assert value(m, "nomercy_rooms", status="playing") + value(m, "nomercy_rooms", status="finished") == 1
    assert value(m, "nomercy_rooms", status="lobby") == 1
    assert value(m, "nomercy_connected_players") == 1
    assert value(m, "nomercy_spectators") == 1
    applied = value(m, "nomercy_actions_applied_total", by="human") + value(
        m, "nomercy_actions_applied_total", by="bot"
    )
    assert applied == version == value(m, "nomercy_action_seconds_count")
    assert value(m, "nomercy_actions_applied_total", by="human") == mine
    assert value(m, "nomercy_action_seconds_bucket", le="+Inf") == version
    assert 1 <= value(m, "nomercy_storage_write_seconds_count", what="log") <= version
    assert value(m, "nomercy_storage_write_seconds_count", what="lobby") >= 1  # the start
    assert value(m, "nomercy_storage_write_failures_total", what="log") == 0
    assert value(m, "nomercy_refusals_total", code="bad_json") == 1
    assert value(m, "nomercy_refusals_total", code="not_found") == 1
    assert (
        value(m, "nomercy_refusals_total", code="stale")
        + value(m, "nomercy_refusals_total", code="game_over")
        >= 1
    )
    hits = value(m, "nomercy_rate_limit_hits_total", where="websocket")
    assert hits >= 1 and hits == value(m, "nomercy_refusals_total", code="rate_limited")
    watcher.close()
    flood.close()


def test_a_failed_storage_write_is_counted(sqlite_url: str) -> None:
    storage = Storage(sqlite_url)
    room = storage.create_room("ABCDEF", {}, [StoredSeat(0, "human", "Ann", None, True)])
    metrics = Metrics()

    async def run() -> None:
        writer = LogWriter(storage, metrics)
        await writer.append((room, 0, 0, "draw", None, None))
        with pytest.raises(Exception, match="UNIQUE"):
            await writer.append((room, 0, 0, "pass", None, None))  # the same seq: refused by the key

    asyncio.run(run())
    storage.close()
    text = metrics.exposition().decode()
    assert 'nomercy_storage_write_failures_total{what="log"} 2.0' in text  # the batch, then alone
    assert 'nomercy_storage_write_seconds_count{what="log"} 3.0' in text


def test_json_log_lines_name_the_room_and_seat_and_never_a_token(start_server: Any, tmp_path: Path) -> None:
    server = start_server(NOMERCY_LOG_FORMAT="json", NOMERCY_LOG_LEVEL="info")
    host = create_room(server, nickname="Ann", seats=3, bots=0)
    code = host["code"]
    guest = join_room(server, code, "Bob")
    tokens = [host["token"], guest["token"]]
    ann, bob = hello(server, code, tokens[0]), hello(server, code, tokens[1])
    wrong = WS(server.ws_url)
    wrong.send({"type": "hello", "room": code, "token": tokens[0][::-1]})
    wrong.error(0)
    r = httpx.post(
        f"{server.url}/api/rooms/{code}/kick",
        json={"seat": 1},
        headers={"Authorization": f"Bearer {tokens[1]}"},
    )
    assert r.status_code == 403
    start_room(server, code, tokens[0])
    bob.close()
    ann.close()
    time.sleep(0.5)
    lines = [line for line in (tmp_path / "server.log").read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert {"ts", "level", "logger", "message"} <= set(records[0])
    seats = {(r.get("room"), r.get("seat")) for r in records if r["logger"].startswith("nomercy")}
    assert (code, 0) in seats and (code, 1) in seats
    assert any(r["message"] == "joined as seat 1" and r["room"] == code for r in records)
    text = "\n".join(lines)
    for token in (*tokens, tokens[0][::-1]):
        assert token not in text


def test_redaction_scrubs_anything_shaped_like_a_token() -> None:
    secret = "s3cr3t-T0ken_abcdefghijklmnop"
    assert secret not in redact(f'{{"type":"hello","room":"ABCDEF","token":"{secret}"}}')
    assert secret not in redact(f"Authorization: Bearer {secret}")
    assert secret not in redact(f"token={secret}")
    record = logging.LogRecord("nomercy.server", logging.ERROR, __file__, 1, "bad hello %s", (secret,), None)
    try:
        raise ValueError(f'{{"token": "{secret}"}}')
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    room_var.set("ABCDEF")
    seat_var.set(2)
    line = json.loads(JsonFormatter().format(record))
    assert line["room"] == "ABCDEF" and line["seat"] == 2
    assert secret not in line["exc"]
    # a message that merely mentions a token is kept, only the value goes
    assert re.search(r"token.*\[redacted\]", line["exc"])


def test_liveness_and_readiness(server: Any) -> None:
    assert httpx.get(server.url + "/livez", timeout=5).json() == {"live": True}
    ready = httpx.get(server.url + "/readyz", timeout=5)
    assert ready.status_code == 200 and ready.json() == {"ready": True, "reason": "ok"}


@pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")  # its in-process lifespan
def test_not_ready_once_shutting_down(sqlite_url: str) -> None:
    from starlette.testclient import TestClient

    from nomercy.server import Settings, create_app
    from nomercy.server.http.services import services_if_started

    app = create_app(Settings(database_url=sqlite_url))
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 200
        made = services_if_started(app)
        assert made is not None
        client.portal.call(made.drain.begin)  # what SIGTERM does first under nomercy serve
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json() == {"ready": False, "reason": "shutting down"}
        assert client.get("/livez").status_code == 200


@needs.POSTGRES
def test_not_ready_while_the_database_is_unreachable(start_server: Any) -> None:
    assert POSTGRES_URL is not None
    pg_port = int(re.search(r":(\d+)/", POSTGRES_URL).group(1))  # type: ignore[union-attr]
    forwarder = Forwarder(pg_port)
    url = POSTGRES_URL.replace(f":{pg_port}/", f":{forwarder.port}/")
    server = start_server(url)
    assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200
    port = forwarder.port
    forwarder.stop()
    r = httpx.get(server.url + "/readyz", timeout=10)
    assert r.status_code == 503 and r.json()["reason"].startswith("database unreachable")
    assert httpx.get(server.url + "/livez", timeout=5).status_code == 200  # alive all the same
    forwarder = Forwarder(pg_port, port)
    try:
        deadline = time.monotonic() + 15
        while httpx.get(server.url + "/readyz", timeout=10).status_code != 200:
            assert time.monotonic() < deadline, "never ready again"
            time.sleep(0.2)
    finally:
        server.stop()
        forwarder.stop()


def test_a_repeated_failure_is_logged_once_in_full_then_summarised(caplog: pytest.LogCaptureFixture) -> None:
    from nomercy.server.base.logs import RepeatedFailure

    now = [100.0]
    failures = RepeatedFailure(
        logging.getLogger("nomercy.test"), "lease renewal", every=30, clock=lambda: now[0]
    )
    caplog.set_level(logging.INFO, logger="nomercy.test")
    error = RuntimeError(
        "connection refused\n[SQL: UPDATE nomercy_leases ...]\n(Background on this error ...)"
    )
    for _ in range(70):  # a database away for 70 s, a renewal a second
        failures.failed(error)
        now[0] += 1
    failures.ok()
    failures.ok()  # nothing more to say
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4, lines  # the first in full, two summaries (30 s, 60 s), the recovery
    assert lines[0].startswith("lease renewal failed: connection refused\n[SQL:")
    assert lines[1].startswith("lease renewal still failing: 31 failures in 30 s (30 since the last line)")
    assert lines[1].endswith("RuntimeError: connection refused") and "\n" not in lines[1]
    assert lines[3] == "lease renewal recovered after 70 failure(s) in 70.0 s"
    failures.failed(error)  # a new outage is told in full again
    assert caplog.records[-1].getMessage().startswith("lease renewal failed: connection refused\n")


def test_the_lease_renewal_loop_does_not_log_every_failure(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The renewal runs every tick; while the database is away each one fails. One line
    says so, one says it recovered, not one a tick."""
    from types import SimpleNamespace

    from nomercy.server.base.settings import Settings
    from nomercy.server.rooms.cluster import Cluster
    from nomercy.server.rooms.manager import RoomManager

    storage = Storage(sqlite_url)
    manager = RoomManager(Settings(), storage)
    cluster = Cluster(manager, SimpleNamespace(ttl=0.02, reconnected=lambda: None))
    assert cluster.tick == 0.005
    down = [True]
    tries = [0]

    async def step() -> None:
        tries[0] += 1
        if down[0]:
            raise ConnectionError("the database is away")

    cluster.step = step  # type: ignore[method-assign]
    caplog.set_level(logging.INFO, logger="nomercy.server")

    async def scenario() -> None:
        task = asyncio.get_running_loop().create_task(cluster._run())
        while tries[0] < 40:
            await asyncio.sleep(0.01)
        down[0] = False
        while tries[0] < 45:
            await asyncio.sleep(0.01)
        task.cancel()

    try:
        asyncio.run(scenario())
    finally:
        storage.close()
    lines = [r.getMessage() for r in caplog.records if "lease renewal" in r.getMessage()]
    assert lines[0] == "lease renewal failed: the database is away"
    assert len(lines) == 2 and lines[1].startswith("lease renewal recovered after "), lines


def test_lease_lines_name_their_room(sqlite_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """A line of the leases' task (not a request's) carries the room in its own field."""
    from types import SimpleNamespace

    from nomercy.server.base import protocol as P
    from nomercy.server.base.settings import Settings
    from nomercy.server.rooms.cluster import Cluster
    from nomercy.server.rooms.manager import RoomManager

    storage = Storage(sqlite_url)
    manager = RoomManager(Settings(), storage)
    caplog.set_level(logging.INFO, logger="nomercy.server")

    async def scenario() -> str:
        room, _ = await manager.create(P.CreateRoom(nickname="Ann", seats=2, bots=1))
        Cluster(manager, SimpleNamespace(ttl=30))
        assert manager.cluster is not None
        await manager.cluster.drop(room, release=False)  # lost to another process
        return room.code

    outside = room_var.set(None)  # no request's room: the line must name it itself
    try:
        code = asyncio.run(scenario())
        lost = [r for r in caplog.records if "lost to another process" in r.getMessage()]
        assert len(lost) == 1
        line = json.loads(JsonFormatter().format(lost[0]))
    finally:
        room_var.reset(outside)
        storage.close()
    assert line["room"] == code and line["seat"] is None


def test_json_mode_writes_only_json_and_the_hint_names_an_allowed_host(tmp_path: Path) -> None:
    """``nomercy serve --log-format json``: every line on stdout and stderr is one JSON
    object (the startup hint too), and the address the hint names is one the server
    answers with --allowed-hosts (localhost would be refused with bad_host)."""
    import subprocess
    import sys

    from .conftest import free_port

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nomercy.cli", "serve", "--port", str(port), "--log-format", "json",
         "--database-url", f"sqlite:///{tmp_path / 'db.sqlite3'}", "--allowed-hosts", "play.example.org"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_until_ready(proc, answers(f"http://127.0.0.1:{port}/healthz"), "nomercy serve")
        page = httpx.get(f"http://127.0.0.1:{port}/", headers={"Host": "play.example.org"}, timeout=5)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=15)
    lines = [line for line in (out + err).decode().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # raises on a plain-text line
    hints = [r["message"] for r in records if "in a browser" in r["message"]]
    assert hints == [f"nomercy: open http://play.example.org:{port}/ in a browser (Ctrl-C stops)"]
    assert page.status_code == 200


def test_the_startup_hint_names_an_address_the_server_answers() -> None:
    from nomercy.server.base.settings import Settings
    from nomercy.server.http.startup import browser_url, startup_lines

    assert browser_url("127.0.0.1", 8000, Settings()) == "http://localhost:8000/"
    anywhere = "0.0.0.0"  # noqa: S104 (listening on every interface is what is tested)
    assert browser_url(anywhere, 8000, Settings()) == "http://0.0.0.0:8000/"
    named = Settings(allowed_hosts=("play.example.org", "*.example.org"))
    assert browser_url("127.0.0.1", 8000, named) == "http://play.example.org:8000/"
    proxied = Settings(
        allowed_hosts=("*.example.net", "play.example.org"), forwarded_allow_ips=("127.0.0.1",)
    )
    assert browser_url("127.0.0.1", 8001, proxied) == "https://play.example.org/"
    assert browser_url("127.0.0.1", 8000, Settings(allowed_hosts=("*.example.org",))).endswith(
        ".example.org:8000/"
    )
    warnings = [text for level, text in startup_lines(anywhere, 8000, Settings()) if level >= logging.WARNING]
    assert len(warnings) == 2 and "other machines" in warnings[0]
