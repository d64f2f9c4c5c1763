"""SIGTERM at load, with the database stalling: the process still exits within the bound.

A process runs many rooms with a player connected to each; a transaction of the test holds
the lease rows of some of them (a stalled database step: their release, and any write of
theirs, waits on it). On SIGTERM every step of the shutdown has its own deadline
(``nomercy.server.http.process``), so the process exits well within the systemd unit's
``TimeoutStopSec``; the rooms it could release are handed over at once, the stalled ones
free up as it exits, and the other process runs them all.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select

import needs
from nomercy.server.base.tables import rooms
from nomercy.server.rooms.leases import leases
from patience import WAIT_SECONDS, scaled

from .cluster import Serve
from .conftest import POSTGRES_URL, WS, reset_postgres

pytestmark = [needs.POSTGRES]

ROOT = Path(__file__).resolve().parents[2]
ROOMS = 24
STALLED = 8


def unit_stop_seconds() -> float:
    """``TimeoutStopSec`` of the several-process unit: after it systemd kills the process."""
    text = (ROOT / "deploy" / "systemd" / "nomercy@.service").read_text()
    found = re.search(r"^TimeoutStopSec=(\d+)$", text, re.M)
    assert found, "the unit must bound its stop"
    return float(found.group(1))


def owners(codes: list[str]) -> dict[str, str | None]:
    assert POSTGRES_URL is not None
    engine = create_engine(POSTGRES_URL)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(rooms.c.code, leases.c.owner)
                .select_from(rooms.join(leases, leases.c.room_id == rooms.c.id))
                .where(rooms.c.code.in_(codes))
            ).all()
    finally:
        engine.dispose()
    return {r.code: r.owner for r in rows}


def pid_of(owner: str | None) -> int | None:
    return None if owner is None else int(owner.split(":")[1])


def test_sigterm_with_a_stalled_database_exits_within_the_units_bound(tmp_path: Path) -> None:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    victim, survivor = (
        Serve(
            POSTGRES_URL,
            tmp_path / f"{name}.log",
            log_level="info",
            NOMERCY_LEASE_SECONDS="3",
            NOMERCY_MAX_ROOMS_PER_ADDRESS=str(2 * ROOMS),
        )
        for name in ("victim", "survivor")
    )
    sockets: list[WS] = []
    engine = create_engine(POSTGRES_URL)
    stall = engine.connect()
    try:
        victim.wait_ready()
        survivor.wait_ready()
        http = httpx.Client(base_url=victim.url, timeout=scaled(10))
        codes: list[str] = []
        for seed in range(ROOMS):
            made = http.post("/api/rooms", json={"nickname": "Ann", "seats": 2, "bots": 1, "seed": seed})
            assert made.status_code == 200, made.text
            code, token = made.json()["code"], made.json()["token"]
            ws = WS(f"ws://127.0.0.1:{victim.port}/ws?room={code}")
            sockets.append(ws)
            ws.send({"type": "hello", "room": code, "token": token})
            started = http.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
            assert started.status_code == 200, started.text
            ws.wait(lambda m: m["type"] == "state" and m["view"] is not None)
            codes.append(code)
        held = owners(codes)
        assert all(pid_of(held[c]) == victim.proc.pid for c in codes), "the rooms run on the process asked"

        # The slow database step: the lease rows of some rooms stay locked by this transaction.
        stalled = codes[:STALLED]
        stall.execute(
            select(leases.c.room_id)
            .select_from(leases.join(rooms, rooms.c.id == leases.c.room_id))
            .where(rooms.c.code.in_(stalled))
            .with_for_update(of=leases)
        ).all()

        t0 = time.monotonic()
        victim.proc.terminate()
        try:
            victim.proc.wait(scaled(60))
        except Exception:
            pytest.fail("the process did not exit at all while the database stalled")
        took = time.monotonic() - t0
        assert took < unit_stop_seconds(), f"the shutdown took {took:.1f} s: systemd would have killed it"

        log = victim.log.read_text()
        assert f"handed {ROOMS - STALLED} of {ROOMS} room(s) over" in log
        cut = log.count("could not release its lease") + sum(
            int(n) for n in re.findall(r"(\d+) room\(s\) not handed over within", log)
        )
        assert cut == STALLED, "each room cut short is logged"
        after = owners(codes)
        for code in codes[STALLED:]:  # handed over at once: free, or taken by the other already
            assert pid_of(after[code]) != victim.proc.pid, f"room {code} was not handed over"

        stall.rollback()  # the database answers again: the stalled rooms' owner is gone
        deadline = time.monotonic() + WAIT_SECONDS
        while not all(pid_of(o) == survivor.proc.pid for o in owners(codes).values()):
            assert time.monotonic() < deadline, "the other process did not take every room over"
            time.sleep(0.2)
    finally:
        for ws in sockets:
            ws.close()
        stall.close()
        engine.dispose()
        victim.stop()
        survivor.stop()
