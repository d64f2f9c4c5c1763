"""The room logic on the in-memory storage: lobby, pipeline and lifecycle without a database.

These run in milliseconds (no server, no SQL): :class:`RoomManager` is given the ports of
:mod:`nomercy.server.rooms.ports`, here :mod:`nomercy.server.rooms.memstore`, and the tests read what
reached storage as a restarted process would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.settings import Settings
from nomercy.server.rooms.manager import RoomManager
from nomercy.server.rooms.memstore import MemorySocial, MemoryStorage
from nomercy.server.rooms.room import Room

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def manager(storage: MemoryStorage | None = None) -> RoomManager:
    storage = storage if storage is not None else MemoryStorage()
    return RoomManager(Settings(test_options=True), storage, MemorySocial(storage))


async def table(m: RoomManager, seats: int = 2, seed: int = 7) -> tuple[Room, list[str]]:
    """A started room of ``seats`` people (no bots: nothing plays on its own)."""
    room, host = await m.create(P.CreateRoom(nickname="Ann", seats=seats, seed=seed))
    tokens = [host]
    for i in range(1, seats):
        _, _, token = await m.join(room.code, f"P{i}")
        tokens.append(token)
    await m.start(room, host)
    return room, tokens


def test_created_room_and_its_lobby_reach_storage() -> None:
    async def go() -> None:
        storage = MemoryStorage()
        m = manager(storage)
        room, tokens = await table(m, seats=3)
        (stored,) = storage.load_rooms()
        assert stored.code == room.code and stored.status == "playing" and stored.seed == 7
        assert [s.nickname for s in stored.seats] == ["Ann", "P1", "P2"]
        assert m.authenticate(room, tokens[2]) == 2
        with pytest.raises(ProtocolError) as err:
            m.authenticate(room, "not a token")
        assert err.value.code == ErrorCode.UNAUTHORIZED

    run(go())


def test_an_action_is_stored_once_and_a_stale_or_illegal_one_changes_nothing() -> None:
    async def go() -> None:
        storage = MemoryStorage()
        m = manager(storage)
        room, _ = await table(m)
        assert room.match is not None
        seat = room.match.state.current
        assert seat is not None
        action = room.match.state.legal_actions(seat)[0]
        await m.apply(room, seat, action, room.version)
        assert room.version == 1
        assert storage.log(room.id) == [(seat, str(action))]
        with pytest.raises(ProtocolError) as err:
            await m.apply(room, seat, action, 0)
        assert err.value.code == ErrorCode.STALE
        other = 1 - room.match.state.current if room.match.state.current is not None else 0
        before = room.match.state.to_dict()
        with pytest.raises(ProtocolError):
            await m.act(room, other, "play Z9", room.version)
        assert room.match.state.to_dict() == before and storage.log(room.id) == [(seat, str(action))]

    run(go())


def test_a_room_rebuilt_from_storage_continues_exactly() -> None:
    async def go() -> None:
        storage = MemoryStorage()
        m = manager(storage)
        room, _ = await table(m, seats=3)
        assert room.match is not None
        for _ in range(6):
            seat = room.match.state.current
            if seat is None:
                break
            await m.apply(room, seat, room.match.state.legal_actions(seat)[0], room.version)
        restarted = manager(storage)
        assert restarted.load() == 1
        again = restarted.get(room.code)
        assert again.match is not None and again.version == room.version
        assert again.match.state.to_dict() == room.match.state.to_dict()

    run(go())


def test_a_write_with_a_lost_lease_closes_the_room_and_says_it_is_moving() -> None:
    async def go() -> None:
        storage = MemoryStorage()
        m = manager(storage)
        room, _ = await m.create(P.CreateRoom(nickname="Ann", seats=2))
        room.epoch, storage.epochs[room.id] = 1, 2  # another process took the room over
        with pytest.raises(ProtocolError) as err:
            await m.join(room.code, "Bob")
        assert err.value.code == ErrorCode.ROOM_MOVING and room.closed
        assert [s.nickname for s in next(storage.load_rooms()).seats] == ["Ann", None]

    run(go())


def test_a_failed_lobby_write_changes_nothing_and_says_so() -> None:
    async def go() -> None:
        storage = MemoryStorage()
        m = manager(storage)
        room, _ = await m.create(P.CreateRoom(nickname="Ann", seats=2))
        storage.fail = OSError("database gone")
        with pytest.raises(ProtocolError) as err:
            await m.join(room.code, "Bob")
        assert err.value.code == ErrorCode.SERVER_ERROR
        assert room.seats[1].kind == "open"

    run(go())


def test_storage_other_than_the_database_needs_its_own_social_store() -> None:
    with pytest.raises(TypeError, match="social store"):
        RoomManager(Settings(), MemoryStorage())


def test_an_idle_lobby_expires_for_good_and_a_room_in_play_stays() -> None:
    async def go() -> None:
        storage = MemoryStorage()
        m = manager(storage)
        lobby, _ = await m.create(P.CreateRoom(nickname="Ann", seats=2))
        playing, _ = await table(m)
        later = m.clock.monotonic() + m.settings.lobby_idle_seconds + 1
        assert await m.sweep(later) == [lobby]
        assert list(m.rooms) == [playing.code]
        assert storage.room_id(lobby.code) is None  # expired: never opened again
        assert storage.room_id(playing.code) == playing.id
        with pytest.raises(ProtocolError) as err:
            m.get(lobby.code)
        assert err.value.code == ErrorCode.NOT_FOUND

    run(go())
