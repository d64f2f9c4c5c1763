"""Failover that an operator meets: a restart then a kill, a PostgreSQL restart, a pause between rounds.

Two ``nomercy serve`` processes on one real PostgreSQL, behind the real nginx running
``deploy/nginx/nomercy.conf`` (as ``test_cluster.py``). Each process reaches the database
through its own loopback forwarder, which the test cuts and restores: every connection
drops at once (the sessions end, the advisory locks go), as in a restart of PostgreSQL,
and nothing answers until it is restored; restored for one process a moment before the
other, as processes see a restarted database at their own next try.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

import needs
from nomercy.server.base.tables import actions, rooms
from nomercy.server.rooms.storage import NEXT_ROUND
from patience import scaled

from .cluster import Nginx, Serve
from .conftest import POSTGRES_URL, WS, reset_postgres
from .tcpproxy import Forwarder
from .test_cluster import Player, a_table, lease_of, owner_pid, play

pytestmark = [
    needs.POSTGRES,
    needs.NGINX,
]


class Cluster:
    """The database's forwarder, two processes, nginx; a process may be restarted on its port."""

    def __init__(self, folder: Path, **env: str) -> None:
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        self.folder = folder
        self.env = {"NOMERCY_LEASE_SECONDS": "3", **env}
        self.pg_port = int(re.search(r":(\d+)/", POSTGRES_URL).group(1))  # type: ignore[union-attr]
        self.dbs = [Forwarder(self.pg_port) for _ in range(2)]
        self.starts = 0
        self.servers = [self.serve(i) for i in range(2)]
        for s in self.servers:
            s.wait_ready()
        self.proxy = Nginx(folder / "nginx", [s.port for s in self.servers])

    def serve(self, i: int, port: int | None = None) -> Serve:
        assert POSTGRES_URL is not None
        self.starts += 1
        log = self.folder / f"serve{self.starts}.log"
        url = POSTGRES_URL.replace(f":{self.pg_port}/", f":{self.dbs[i].port}/")
        return Serve(url, log, log_level="info", port=port, **self.env)

    def stop_one(self, i: int) -> None:
        """SIGTERM process ``i``: it hands its rooms over and exits."""
        self.servers[i].proc.terminate()
        self.servers[i].proc.wait(15)

    def start_again(self, i: int) -> Serve:
        """Process ``i`` again, on its port (a restart)."""
        self.servers[i] = self.serve(i, self.servers[i].port).wait_ready()
        return self.servers[i]

    def database_away(self) -> None:
        for db in self.dbs:
            db.stop()

    def database_back(self, i: int) -> None:
        self.dbs[i] = Forwarder(self.pg_port, self.dbs[i].port)

    def stop(self) -> None:
        self.proxy.stop()
        for s in self.servers:
            s.stop()
        for db in self.dbs:
            db.stop()

    def logs(self) -> str:
        return "".join(p.read_text() for p in sorted(self.folder.glob("serve*.log")))


@pytest.fixture
def make_cluster(tmp_path: Path) -> Iterator[Any]:
    made: list[Cluster] = []

    def make(**env: str) -> Cluster:
        made.append(Cluster(tmp_path, **env))
        return made[-1]

    yield make
    for c in made:
        c.stop()


def tables_on_both(cluster: Cluster, most: int = 12) -> list[tuple[str, list[Player]]]:
    """Tables until each process runs at least one (nginx hashes the join codes)."""
    tables = []
    pids = {s.proc.pid for s in cluster.servers}
    for seed in range(most):
        tables.append(a_table(cluster.proxy, seed=100 + seed))
        if {owner_pid(code) for code, _ in tables} == pids:
            return tables
    raise AssertionError("nginx sent every room to one process")


def errors(players: list[Player], code: str) -> int:
    """How many ``code`` errors the seats' connections received, old ones included."""
    sockets = [ws for p in players for ws in [*p.done, *([p.ws] if p.ws else [])]]
    return sum(1 for ws in sockets for m in ws.received if m["type"] == "error" and m.get("code") == code)


def test_a_restart_then_a_kill_leaves_nginx_a_live_upstream(make_cluster: Any) -> None:
    """A process restarts (its rooms move to the other), then the other is SIGKILLed: nginx
    still sends every reconnect to the live process; it never answers "no live upstreams"."""
    cluster = make_cluster()
    tables = tables_on_both(cluster)
    rng = random.Random(3)
    for _, players in tables:
        play(players, 2, rng)

    cluster.stop_one(0)
    for _, players in tables:  # its rooms' players reconnect while it is away: to the other
        play(players, 2, rng)
    cluster.start_again(0)
    for _, players in tables:
        play(players, 2, rng)
    time.sleep(3)  # longer than any fail_timeout: the restart is behind us
    killed = cluster.servers[1].proc.pid
    on_killed = {code for code, _ in tables if owner_pid(code) == killed}
    cluster.servers[1].kill()
    for code, players in tables:
        if code in on_killed:
            # Its seats see their connections drop before they look again: a round that ended
            # early would otherwise be read from the dead connection and its room not reopened.
            deadline = time.monotonic() + scaled(30)
            while not all(p.ws is None or p.ws.closed for p in players):
                assert time.monotonic() < deadline, (
                    f"room {code}: connections to the killed process stay open"
                )
                time.sleep(0.05)
        play(players, 3, rng, timeout=60)
        for p in players:
            p.ensure()
        assert owner_pid(code) == cluster.servers[0].proc.pid
    error_log = (cluster.proxy.dir / "error.log").read_text()
    assert "no live upstreams" not in error_log, error_log[-2000:]


def test_a_database_restart_moves_no_room_and_paused_rooms_resume_at_once(make_cluster: Any) -> None:
    """PostgreSQL goes away for longer than the leases last and comes back: no process takes
    another's room (no epoch changes, no room_moving), and a room paused by a failed write
    resumes within about two seconds of the database answering, not after its back-off."""
    cluster = make_cluster()
    tables = tables_on_both(cluster)
    rng = random.Random(4)
    for _, players in tables:
        play(players, 2, rng)
    epochs = {code: lease_of(code) for code, _ in tables}

    cluster.database_away()
    for _, players in tables:  # each room tries a write: it pauses
        state = players[0].ensure().latest_state()
        seat, version = state["view"]["current_player"], state["version"]
        ws = players[seat].ensure()
        mine = ws.wait(lambda m, v=version: m["type"] == "state" and m["version"] == v and m["view"])
        legal = [a for a in mine["view"]["legal_actions"] if a != "uno" and not a.startswith("catch")]
        ws.send({"type": "action", "action": legal[0], "version": version})
    for _, players in tables:
        players[0].ws.wait(lambda m: m["type"] == "paused", timeout=10)  # type: ignore[union-attr]
    time.sleep(8)  # leases (3 s) long expired; the rooms' back-off has grown
    marks = [players[0].ensure().mark() for _, players in tables]
    holders = [[s.proc.pid for s in cluster.servers].index(owner_pid(code)) for code, _ in tables]
    cluster.database_back(0)
    back = [time.monotonic()]
    time.sleep(1.5)  # the first process is back and renewing; the leases are 3 s
    cluster.database_back(1)
    back.append(time.monotonic())

    late = []
    for (code, players), mark, i in zip(tables, marks, holders, strict=True):
        ws = players[0].ws
        assert ws is not None
        ws.wait(lambda m: m["type"] in ("resumed", "error"), timeout=30, start=mark)
        late.append((code, round(time.monotonic() - back[i], 1)))
    for _, players in tables:
        play(players, 3, rng, timeout=60)
    for code, players in tables:
        assert errors(players, "room_moving") == 0, f"room {code} moved"
        assert lease_of(code) == epochs[code], f"room {code} changed hands"
    assert all(t <= 4 for _, t in late), f"rooms resumed late (s after the database was back): {late}"


def test_a_room_taken_over_between_rounds_waits_only_the_rest_of_the_pause(make_cluster: Any) -> None:
    """A match between rounds when its process dies: the process that adopts it deals the next
    round when the pause that began at the round's end is over, not a whole pause later."""
    pause = 8.0
    cluster = make_cluster(NOMERCY_BETWEEN_ROUNDS=str(pause), NOMERCY_GRACE_SECONDS="0.1")
    http = httpx.Client(base_url=cluster.proxy.url, timeout=10)
    # One human who never connects (a stand-in plays the seat) and a bot: a quick round.
    body = {"nickname": "Ann", "seats": 2, "bots": 1, "seed": 21, "mode": "match"}
    host = http.post("/api/rooms", json=body).json()
    code = host["code"]
    started = http.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host['token']}"})
    assert started.status_code == 200, started.text
    watcher = WS(cluster.proxy.ws_url(code))
    watcher.send({"type": "hello", "room": code})
    watcher.wait(lambda m: m["type"] == "state" and m["view"] and m["view"]["outcome"], timeout=120)
    time.sleep(pause / 2)
    holder = next(s for s in cluster.servers if s.proc.pid == owner_pid(code))
    holder.kill()

    assert POSTGRES_URL is not None
    engine = create_engine(POSTGRES_URL)
    try:
        deadline = time.monotonic() + 3 * pause
        while True:
            with engine.connect() as conn:
                log = conn.execute(
                    select(actions.c.action, actions.c.at)
                    .select_from(actions.join(rooms, rooms.c.id == actions.c.room_id))
                    .where(rooms.c.code == code)
                    .order_by(actions.c.seq)
                ).all()
            if any(row.action == NEXT_ROUND for row in log):
                break
            assert time.monotonic() < deadline, "the next round was never dealt"
            time.sleep(0.2)
    finally:
        engine.dispose()
    i = next(i for i, row in enumerate(log) if row.action == NEXT_ROUND)
    waited = log[i].at - log[i - 1].at  # from the round's last action to the next deal
    assert pause - 0.5 <= waited <= pause + 2.5, f"the pause between rounds lasted {waited:.1f} s"
    assert owner_pid(code) != holder.proc.pid
