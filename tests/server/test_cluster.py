"""Two ``nomercy serve`` processes on one real PostgreSQL behind a real nginx.

The clients only ever talk to nginx. Mid-round the process running the room is SIGKILLed
(or stopped with SIGTERM); the clients reconnect by themselves, the other process takes
the room over by replaying its log, and the round goes on. Every state message any
client received, from either process, must be the replay of the one stored log at that
version: no acknowledged action lost, no fork.
"""

from __future__ import annotations

import random
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select
from websockets.exceptions import ConnectionClosed

import needs
from nomercy.server.base.tables import rooms
from nomercy.server.rooms.leases import leases
from nomercy.views import player_view

from .cluster import Nginx, Serve
from .conftest import POSTGRES_URL, WS, reset_postgres
from .truth import truth

pytestmark = [
    needs.POSTGRES,
    needs.NGINX,
]

RULES = {"draw_when_playable": True, "draw_rule": "one", "stacking": False}


class Player:
    """A seat's client through the proxy; reconnects by itself, keeps every state it received."""

    def __init__(self, proxy: Nginx, code: str, token: str, seat: int) -> None:
        self.proxy, self.code, self.token, self.seat = proxy, code, token, seat
        self.ws: WS | None = None
        self.done: list[WS] = []
        self.connections = 0

    def ensure(self, timeout: float = 30) -> WS:
        deadline = time.monotonic() + timeout
        while self.ws is None or self.ws.closed:
            assert time.monotonic() < deadline, f"seat {self.seat} could not reconnect"
            if self.ws is not None:
                self.done.append(self.ws)
                self.ws = None
            try:
                ws = WS(self.proxy.ws_url(self.code))
                ws.send({"type": "hello", "room": self.code, "token": self.token})
                ws.wait(lambda m: (m["type"] == "state" and m["snapshot"]) or m["type"] == "error", timeout=5)
            except Exception:
                time.sleep(0.2)
                continue
            if ws.latest_state_or_none() is None:  # room_moving: another process is taking over
                ws.close()
                self.done.append(ws)
                time.sleep(0.2)
                continue
            self.ws = ws
            self.connections += 1
        return self.ws

    def states(self) -> list[dict[str, Any]]:
        out = []
        for ws in [*self.done, *([self.ws] if self.ws else [])]:
            out += [m for m in ws.received if m["type"] == "state" and m["view"] is not None]
        return out


def _latest_state_or_none(self: WS) -> dict[str, Any] | None:
    try:
        return self.latest_state()
    except AssertionError:
        return None


WS.latest_state_or_none = _latest_state_or_none  # type: ignore[attr-defined]


def play(players: list[Player], actions: int, rng: random.Random, timeout: float = 90) -> bool:
    """Up to ``actions`` acknowledged actions (the current seat plays a random legal one).

    Returns True once the round is over. A connection that drops mid-action is reopened;
    whether that action was applied is read from the state, as a real client does.
    """
    deadline = time.monotonic() + timeout
    done = 0
    while done < actions:
        assert time.monotonic() < deadline, "the game stopped going on"
        try:
            first = players[0].ensure()
            for p in players[1:]:
                p.ensure()
            state = first.latest_state()
            if state["view"]["outcome"] is not None:
                return True
            version = state["version"]
            me = players[state["view"]["current_player"]]
            ws = me.ensure()
            mine = ws.wait(
                lambda m, v=version: m["type"] == "state" and m["version"] == v and m["view"], timeout=3
            )
            legal = [a for a in mine["view"]["legal_actions"] if a != "uno" and not a.startswith("catch")]
            mark = ws.mark()
            ws.send({"type": "action", "action": rng.choice(legal), "version": version})
            ws.wait(lambda m, v=version: m["type"] == "state" and m["version"] > v, timeout=3, start=mark)
            first.wait(lambda m, v=version: m["type"] == "state" and m["version"] > v, timeout=3)
            done += 1
        except (AssertionError, ConnectionClosed, OSError):
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)  # a dropped connection or a refusal: look at the table again
    return players[0].ensure().latest_state()["view"]["outcome"] is not None


def lease_of(code: str) -> tuple[str | None, int]:
    assert POSTGRES_URL is not None
    engine = create_engine(POSTGRES_URL)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                select(leases.c.owner, leases.c.epoch)
                .select_from(rooms.join(leases, leases.c.room_id == rooms.c.id))
                .where(rooms.c.code == code)
            ).one()
    finally:
        engine.dispose()
    return row.owner, int(row.epoch)


def owner_pid(code: str) -> int:
    owner, _ = lease_of(code)
    assert owner is not None
    return int(owner.split(":")[1])


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[Nginx, list[Serve]]]:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    servers = [
        Serve(POSTGRES_URL, tmp_path / f"serve{i}.log", log_level="info", NOMERCY_LEASE_SECONDS="3")
        for i in range(2)
    ]
    proxy = None
    try:
        for s in servers:
            s.wait_ready()
        proxy = Nginx(tmp_path / "nginx", [s.port for s in servers])
        yield proxy, servers
    finally:
        if proxy is not None:
            proxy.stop()
        for s in servers:
            s.stop()


def a_table(proxy: Nginx, seed: int) -> tuple[str, list[Player]]:
    """A two-player room created, joined and started through the proxy."""
    http = httpx.Client(base_url=proxy.url, timeout=10)
    body = {"nickname": "Ann", "seats": 2, "bots": 0, "seed": seed, "rules": RULES}
    host = http.post("/api/rooms", json=body).json()
    code = host["code"]
    guest = http.post(f"/api/rooms/{code}/join", json={"nickname": "Bob"})
    assert guest.status_code == 200, guest.text
    players = [Player(proxy, code, host["token"], 0), Player(proxy, code, guest.json()["token"], 1)]
    for p in players:
        p.ensure()
    started = http.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host['token']}"})
    assert started.status_code == 200, started.text
    players[0].ensure().wait(lambda m: m["type"] == "state" and m["view"] is not None)
    return code, players


def check_against_the_log(code: str, players: list[Player]) -> int:
    """Every state any client saw is the replay of the stored log: nothing lost, no fork."""
    assert POSTGRES_URL is not None
    t = truth(POSTGRES_URL, code)
    seen = 0
    for p in players:
        for msg in p.states():
            assert msg["version"] < len(t.states), (
                f"seat {p.seat} saw version {msg['version']}: not in the log"
            )
            assert msg["view"] == player_view(t.states[msg["version"]], p.seat).to_dict(), (
                f"seat {p.seat} saw a table at version {msg['version']} that the log does not give"
            )
            seen += 1
    return seen


def test_sigkill_the_process_running_a_room_mid_round_and_the_round_goes_on(
    cluster: tuple[Nginx, list[Serve]],
) -> None:
    proxy, servers = cluster
    code, players = a_table(proxy, seed=11)
    rng = random.Random(5)
    assert not play(players, 6, rng)
    _, epoch = lease_of(code)
    assert epoch == 1, "every request of the room went to one process: it was never moved"
    victim = next(s for s in servers if s.proc.pid == owner_pid(code))
    survivor = next(s for s in servers if s is not victim)
    before = players[0].ensure().latest_state()["version"]

    victim.kill()
    assert play(players, 400, rng), "the round did not finish after the takeover"

    after = players[0].ensure().latest_state()["version"]
    assert after > before + 3
    assert owner_pid(code) == survivor.proc.pid
    assert all(p.connections >= 2 for p in players), "the clients reconnected by themselves"
    assert check_against_the_log(code, players) >= after
    moves = httpx.get(survivor.url + "/metrics", timeout=10).text
    assert re.search(r'^nomercy_room_moves_total\{event="taken"\} [1-9]', moves, re.M)


def test_sigterm_hands_the_rooms_over_at_once(cluster: tuple[Nginx, list[Serve]]) -> None:
    proxy, servers = cluster
    code, players = a_table(proxy, seed=12)
    rng = random.Random(6)
    play(players, 4, rng)
    victim = next(s for s in servers if s.proc.pid == owner_pid(code))
    survivor = next(s for s in servers if s is not victim)

    t0 = time.monotonic()
    victim.proc.terminate()
    assert victim.proc.wait(15) in (0, -15)  # uvicorn re-raises the signal once it has shut down
    assert "handed over" in victim.log.read_text()
    play(players, 3, rng)
    assert time.monotonic() - t0 < 15
    assert owner_pid(code) == survivor.proc.pid
    check_against_the_log(code, players)


def test_any_process_creates_finds_and_opens_any_room(cluster: tuple[Nginx, list[Serve]]) -> None:
    _proxy, (a, b) = cluster
    made = httpx.post(a.url + "/api/rooms", json={"nickname": "Ann", "seats": 2}, timeout=10).json()
    code = made["code"]
    assert httpx.get(f"{b.url}/api/rooms/{code}", timeout=10).json()["code"] == code  # B opens it
    owner, _ = lease_of(code)
    assert owner is not None and int(owner.split(":")[1]) == b.proc.pid
    # A is asked for the room B runs: "moving" with Retry-After, and B is asked to hand it over.
    moved = httpx.get(f"{a.url}/api/rooms/{code}", timeout=10)
    assert moved.status_code == 503 and moved.json()["detail"]["code"] == "room_moving"
    assert moved.headers["retry-after"] == "1"
    deadline = time.monotonic() + 10
    while httpx.get(f"{a.url}/api/rooms/{code}", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, "B never handed the room over"
        time.sleep(0.2)
    assert owner_pid(code) == a.proc.pid
    assert httpx.get(f"{a.url}/api/rooms/ZZZZZZ", timeout=10).status_code == 404


def test_a_paused_process_that_lost_the_room_cannot_write_to_it(cluster: tuple[Nginx, list[Serve]]) -> None:
    """SIGSTOP the holder past its lease: the other process takes the room; once resumed, the
    paused one's next write is fenced off (room_moving), nothing of it reaches the log, and the
    players go on through the proxy."""
    proxy, servers = cluster
    code, players = a_table(proxy, seed=13)
    rng = random.Random(7)
    play(players, 3, rng)
    victim = next(s for s in servers if s.proc.pid == owner_pid(code))
    other = next(s for s in servers if s is not victim)
    state = players[0].ensure().latest_state()
    seat, version = state["view"]["current_player"], state["version"]
    ws = players[seat].ensure()
    mine = ws.wait(lambda m: m["type"] == "state" and m["version"] == version and m["view"])
    action = next(a for a in mine["view"]["legal_actions"] if a != "uno" and not a.startswith("catch"))

    victim.proc.send_signal(signal.SIGSTOP)
    try:
        # The lease (3 s) expires and the other adopts the room; the margin is for a CI machine
        # whose two cores are also compiling the native kernels and running browsers.
        deadline = time.monotonic() + 45
        while owner_pid(code) != other.proc.pid:
            assert time.monotonic() < deadline, "the other process never took the room over"
            httpx.get(f"{other.url}/api/rooms/{code}", timeout=10)
            time.sleep(0.3)
        mark = ws.mark()
        ws.send({"type": "action", "action": action, "version": version})  # to the paused holder
    finally:
        victim.proc.send_signal(signal.SIGCONT)
    refusal = ws.wait(lambda m: m["type"] in ("state", "error"), start=mark, timeout=10)
    assert refusal["type"] == "error" and refusal["code"] == "room_moving"
    ws.wait_closed()
    assert len(truth(POSTGRES_URL or "", code).room.log) == version  # the fenced write left no trace
    play(players, 3, rng)  # reconnected through the proxy; the room goes on
    check_against_the_log(code, players)
