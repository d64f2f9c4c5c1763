"""The room caps hold under concurrent creators: a creation awaits storage between its
check and its room, so checks made on the rooms in memory alone let a crowd through."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import needs

pytest.importorskip("fastapi")

from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.settings import Settings
from nomercy.server.rooms.manager import RoomManager
from nomercy.server.rooms.storage import Storage, StoredSeat

from .conftest import POSTGRES_URL, reset_postgres


async def _crowd(manager: RoomManager, n: int, address: str | None = None) -> list[object]:
    """``n`` creations at once (each from its own address unless one is given)."""
    body = P.CreateRoom(nickname="Ann", seats=2, bots=1)
    return await asyncio.gather(
        *(manager.create(body, address or f"10.0.0.{i}") for i in range(n)), return_exceptions=True
    )


def _refused(results: list[object]) -> list[ProtocolError]:
    others = [r for r in results if isinstance(r, BaseException) and not isinstance(r, ProtocolError)]
    assert not others, others
    return [r for r in results if isinstance(r, ProtocolError)]


def test_concurrent_creators_do_not_overshoot_the_room_cap(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    manager = RoomManager(Settings(max_rooms=5), storage)

    async def scenario() -> None:
        results = await _crowd(manager, 20)
        refused = _refused(results)
        assert len(manager.rooms) == 5
        assert len(refused) == 15 and {r.code for r in refused} == {ErrorCode.RATE_LIMITED}
        assert manager.creating == 0 and manager.creating_by == {}
        # A failed creation gives its place back.
        del manager.rooms[next(iter(manager.rooms))]
        await manager.create(P.CreateRoom(nickname="Bea", seats=2, bots=1), "10.0.1.1")
        assert len(manager.rooms) == 5

    try:
        asyncio.run(scenario())
    finally:
        storage.close()


def test_concurrent_creators_from_one_address_do_not_overshoot_its_cap(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    manager = RoomManager(Settings(max_rooms_per_address=3), storage)

    async def scenario() -> None:
        refused = _refused(await _crowd(manager, 12, "10.0.0.1"))
        assert len(manager.rooms) == 3 and len(refused) == 9
        assert "open rooms" in refused[0].message

    try:
        asyncio.run(scenario())
    finally:
        storage.close()


@needs.POSTGRES
def test_several_processes_concurrent_opens_do_not_overshoot_the_room_cap() -> None:
    """With several processes a room is opened here on demand (the proxy routes its code
    here): concurrent first requests for different rooms must not overshoot the cap."""
    from nomercy.server.rooms.cluster import Cluster
    from nomercy.server.rooms.leases import SharedLeases

    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    storage = Storage(POSTGRES_URL)
    leases = SharedLeases(storage.engine, ttl=30)
    storage.fence = leases.fence
    leases.start()
    codes = [f"ABCD{a}{b}" for a in "EFGH" for b in "JK"]
    for code in codes:
        storage.create_room(code, {"rules": {}}, [StoredSeat(0, "human", "Ann", None, True)])
    manager = RoomManager(Settings(max_rooms=3), storage)
    Cluster(manager, leases)  # not started: no renewals needed here

    async def scenario() -> None:
        results = await asyncio.gather(*(manager.find(code) for code in codes), return_exceptions=True)
        refused = _refused(list(results))
        assert len(manager.rooms) == 3 and len(refused) == len(codes) - 3
        assert {r.code for r in refused} == {ErrorCode.RATE_LIMITED}

    try:
        asyncio.run(scenario())
    finally:
        leases.close()
        storage.close()
