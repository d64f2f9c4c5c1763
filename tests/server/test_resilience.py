"""Storage trouble, in process (a real SQLite underneath, its writes made to fail or stall):

- a failing store pauses the room: its driver backs off (not ~90 retries a second), the
  players are told once, and when storage returns the game resumes with nothing lost;
- lobby writes (create, join, start, kick) run off the event loop, so one slow commit
  does not stall every other room, and a failed one changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from nomercy.server.base import protocol as P
from nomercy.server.base.settings import Settings
from nomercy.server.rooms.manager import Client, Room, RoomManager
from nomercy.server.rooms.storage import Storage
from nomercy.server.rooms.timers import RoomDriver

from .conftest import DATABASES, POSTGRES_URL, reset_postgres


def manager_for(tmp_path: Path, db: str = "sqlite", **overrides: Any) -> RoomManager:
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        url = POSTGRES_URL
    settings = Settings(
        database_url=url,
        bot_delay=0.005,
        reaction_delay=0.01,
        grace_seconds=0.01,
        between_rounds=0.01,
        test_options=True,
        room_update_delay=0.0,
        **overrides,
    )
    manager = RoomManager(settings, Storage(settings.resolved_database_url()))

    def on_new_room(room: Room) -> None:
        room.driver = RoomDriver(manager, room)
        room.driver.start()

    manager.on_new_room = on_new_room
    return manager


def drain(client: Client) -> list[dict[str, Any]]:
    out = []
    while not client.queue.empty():
        text = client.queue.get_nowait()
        if text is not None:
            out.append(json.loads(text))
    return out


async def wait_for(predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("db", DATABASES)
def test_a_storage_outage_pauses_the_room_backs_off_and_resumes_losing_nothing(
    db: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        manager = manager_for(tmp_path, db, storage_retry_base=0.1, storage_retry_max=0.4)
        storage = manager.storage
        real_append = storage.append_many
        outage = threading.Event()
        attempts = 0

        def append_many(entries: list[tuple[int, int, int, str, str | None]]) -> None:
            nonlocal attempts
            if outage.is_set():
                attempts += 1
                raise OSError("disk unplugged")
            real_append(entries)

        real_set_status = storage.set_status

        def set_status(room_id: int, status: str, epoch: int | None = None) -> None:
            nonlocal attempts
            if outage.is_set():
                attempts += 1
                raise OSError("disk unplugged")
            real_set_status(room_id, status, epoch)

        storage.append_many = append_many  # type: ignore[method-assign]
        storage.set_status = set_status  # type: ignore[method-assign]
        # Everyone at the table is a bot or a stand-in: the game plays itself.
        room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=3, bots=2, seed=21))
        watcher = Client(None, manager.settings, "test")
        manager.connect(room, watcher)
        await manager.start(room, token)
        await wait_for(lambda: room.version >= 3, 20)

        outage.set()
        stopped_at = room.version
        await asyncio.sleep(2.0)
        assert room.paused and room.version <= stopped_at + 1  # at most one write was in flight
        # Backing off: one probe after 0.1, 0.2, 0.4, 0.4... s (before: ~90 writes a second).
        assert attempts <= 12, f"{attempts} writes in 2 s: no back-off"
        messages = drain(watcher)
        assert [m["type"] for m in messages].count("paused") == 1
        assert any(m["type"] == "room" and m["room"]["paused"] for m in messages)

        outage.clear()
        paused_at = room.version
        await wait_for(lambda: room.version > paused_at + 3 or room.finished, 20)
        assert not room.paused
        messages = drain(watcher)
        assert [m["type"] for m in messages].count("resumed") == 1
        # Nothing lost: the log holds exactly the versions everyone saw, and replays to them.
        # (Under the room's lock: an action being committed right now is applied first.)
        async with room.lock:
            log = await asyncio.to_thread(storage.log, room.id)
            assert len(log) == room.version
            assert room.match is not None
            stored = next(r for r in storage.load_rooms() if r.code == room.code)
            rebuilt = manager.rebuild(stored)
            assert rebuilt.match is not None and rebuilt.match.state.to_dict() == room.match.state.to_dict()
        for r in list(manager.rooms.values()):
            await r.driver.stop()
        storage.close()

    asyncio.run(scenario())


def test_a_paused_game_runs_out_no_turn_timer(tmp_path: Path) -> None:
    """The idle player's timer expires while storage is down: the game pauses instead of
    playing for them again and again, and on resuming their turn starts afresh."""

    async def scenario() -> None:
        manager = manager_for(tmp_path, storage_retry_base=0.1, storage_retry_max=0.2)
        storage = manager.storage
        outage = threading.Event()
        writes = {"append_many": storage.append_many, "set_status": storage.set_status}

        def failing(name: str) -> Any:
            def write(*args: Any, **kwargs: Any) -> None:
                if outage.is_set():
                    raise OSError("database restarting")
                writes[name](*args, **kwargs)

            return write

        for name in writes:
            setattr(storage, name, failing(name))
        room, token = await manager.create(
            P.CreateRoom(nickname="Ann", seats=2, bots=1, seed=4, turn_seconds=1)
        )
        ann = Client(0, manager.settings, "test")
        manager.connect(room, ann)
        await manager.start(room, token)
        await wait_for(lambda: room.match is not None and room.match.state.current == 0, 10)
        version = room.version
        outage.set()  # Ann does nothing: her timer runs out against a database that is down
        await wait_for(lambda: room.paused, 5)
        await asyncio.sleep(1.5)  # longer than her turn
        assert room.version == version and room.match is not None and room.match.state.current == 0
        outage.clear()
        await wait_for(lambda: not room.paused, 5)
        assert room.version == version, "her turn was played the moment storage returned"
        deadline = room.deadline()
        assert deadline is not None and deadline > 0.5
        types = [m["type"] for m in drain(ann)]
        assert types.count("paused") == 1 and types.count("resumed") == 1
        assert room.driver is not None
        await room.driver.stop()
        storage.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("db", DATABASES)
def test_lobby_writes_leave_the_event_loop_free(db: str, tmp_path: Path) -> None:
    """Each lobby write is held in storage until the test lets it go; meanwhile the event
    loop keeps running other work (before, it sat inside the commit)."""

    async def scenario() -> None:
        manager = manager_for(tmp_path, db)
        storage = manager.storage
        gate = threading.Event()
        entered = threading.Event()

        def stall(func: Any) -> Any:
            def stalled(*args: Any, **kwargs: Any) -> Any:
                entered.set()
                assert gate.wait(10), "never released"
                return func(*args, **kwargs)

            return stalled

        async def stalled_call(name: str, call: Any, owner: Any = storage) -> Any:
            real = getattr(owner, name)
            setattr(owner, name, stall(real))
            gate.clear()
            entered.clear()
            task = asyncio.ensure_future(call())
            assert await asyncio.to_thread(entered.wait, 10), f"{name} never reached storage"
            ticks = 0
            for _ in range(20):  # the loop runs other work while the commit waits
                await asyncio.sleep(0.001)
                ticks += 1
            assert ticks == 20 and not task.done()
            gate.set()
            result = await task
            setattr(owner, name, real)
            return result

        room, token = await stalled_call(
            "create_room", lambda: manager.create(P.CreateRoom(nickname="Ann", seats=3, bots=0))
        )
        _, seat, _guest = await stalled_call("update_seat", lambda: manager.join(room.code, "Bob"))
        assert seat == 1 and room.seats[1].kind == "human"
        # A removal writes the seat and the removed list in one transaction (nomercy.server.rooms.social).
        await stalled_call("remove", lambda: manager.kick(room, token, 1), manager.social)
        assert room.seats[1].kind == "open"
        await stalled_call("start", lambda: manager.start(room, token))
        assert room.status == "playing"
        stored = next(r for r in storage.load_rooms() if r.code == room.code)
        assert stored.status == "playing" and [s.kind for s in stored.seats] == ["human", "bot", "bot"]
        assert room.driver is not None
        await room.driver.stop()
        storage.close()

    asyncio.run(scenario())


def test_a_failed_lobby_write_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_for(tmp_path)
        storage = manager.storage
        room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=2, bots=0))

        def broken(*_args: Any) -> None:
            raise OSError("database went away")

        real_update, real_start = storage.update_seat, storage.start
        storage.update_seat = broken  # type: ignore[method-assign]
        storage.start = broken  # type: ignore[method-assign]
        with pytest.raises(P.ProtocolError) as info:
            await manager.join(room.code, "Bob")
        assert info.value.code == "server_error" and room.seats[1].kind == "open"
        with pytest.raises(P.ProtocolError):
            await manager.start(room, token)
        assert room.status == "lobby" and room.match is None and room.seats[1].kind == "open"
        storage.update_seat, storage.start = real_update, real_start  # type: ignore[method-assign]
        _, seat, _ = await manager.join(room.code, "Bob")
        assert seat == 1
        storage.close()

    asyncio.run(scenario())


async def a_finished_room(manager: RoomManager) -> tuple[Room, str]:
    """Ann hosts, a bot plays; Ann is away, so a stand-in plays her seat to the end."""
    room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=2, bots=1, seed=5))
    await manager.start(room, token)
    await wait_for(lambda: room.finished, 30)
    return room, token


@pytest.mark.parametrize("db", DATABASES)
def test_chat_removal_and_rematch_fail_cleanly_when_storage_fails(db: str, tmp_path: Path) -> None:
    """The table's own writes (a chat line, a removal, a readmission, a rematch) go through
    storage like the game's: when it fails, the sender gets a clear error and nothing changes;
    a failed rematch pauses the room like a failed action, and it resumes once storage is back."""

    async def scenario() -> None:
        manager = manager_for(tmp_path, db)
        storage, social = manager.storage, manager.social

        def broken(*_args: Any, **_kwargs: Any) -> None:
            raise OSError("database went away")

        room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=3, bots=1, seed=3))
        _, bob, _ = await manager.join(room.code, "Bob")
        watcher = Client(None, manager.settings, "test")
        manager.connect(room, watcher)
        drain(watcher)

        real_chat, real_remove = social.add_chat, social.remove
        social.add_chat = broken  # type: ignore[method-assign]
        with pytest.raises(P.ProtocolError) as info:
            await manager.chat(room, 0, "hello")
        assert info.value.code == "server_error"
        assert not room.chat and not [m for m in drain(watcher) if m["type"] == "chat"]
        social.add_chat = real_chat  # type: ignore[method-assign]
        await manager.chat(room, 0, "hello")
        assert [m["text"] for m in drain(watcher) if m["type"] == "chat"] == ["hello"]

        social.remove = broken  # type: ignore[method-assign]
        with pytest.raises(P.ProtocolError):
            await manager.kick(room, token, bob)
        assert room.seats[bob].kind == "human" and not room.removed
        social.remove = real_remove  # type: ignore[method-assign]
        await manager.kick(room, token, bob)
        assert room.seats[bob].kind == "open" and bob in room.removed

        real_readmit = social.readmit
        social.readmit = broken  # type: ignore[method-assign]
        with pytest.raises(P.ProtocolError):
            await manager.readmit(room, token, bob)
        assert room.seats[bob].kind == "open" and bob in room.removed
        social.readmit = real_readmit  # type: ignore[method-assign]
        await manager.readmit(room, token, bob)
        assert room.seats[bob].kind == "human" and not room.removed
        for r in list(manager.rooms.values()):
            await r.driver.stop()

        room, token = await a_finished_room(manager)
        finished = room.match.state.to_dict() if room.match else None
        version = room.version
        real_append = storage.append_many
        storage.append_many = broken  # type: ignore[method-assign]
        with pytest.raises(P.ProtocolError) as info:
            await manager.rematch(room, token)
        assert info.value.code == "server_error" and room.paused
        assert room.version == version and room.status == "finished"
        assert room.match is not None and room.match.state.to_dict() == finished
        storage.append_many = real_append  # type: ignore[method-assign]
        await manager.rematch(room, token)
        assert not room.paused and room.status == "playing" and room.version == version + 1
        for r in list(manager.rooms.values()):
            await r.driver.stop()
        storage.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("db", DATABASES)
def test_chat_removed_players_and_a_rematch_are_in_storage_for_the_next_process(
    db: str, tmp_path: Path
) -> None:
    """Another process (or this one after a restart) rebuilds the room from storage alone:
    the recent chat, who was removed (and can be let back in), and the rematch's new deal."""

    async def scenario() -> None:
        manager = manager_for(tmp_path, db)
        room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=3, bots=1, seed=9))
        _, bob, _ = await manager.join(room.code, "Bob")
        for line in ("hi", "ready?"):
            await manager.chat(room, 0, line)
        await manager.kick(room, token, bob)
        await manager.start(room, token)
        await wait_for(lambda: room.finished, 30)
        await manager.rematch(room, token)
        for r in list(manager.rooms.values()):
            await r.driver.stop()

        other = RoomManager(manager.settings, Storage(manager.settings.resolved_database_url()))
        stored = await asyncio.to_thread(other.storage.load_room, room.id)
        assert stored is not None
        rebuilt = other.rebuild(stored)
        assert [c.text for c in rebuilt.chat] == ["hi", "ready?"]
        assert list(rebuilt.removed) == [bob] and rebuilt.removed[bob].nickname == "Bob"
        assert rebuilt.status == "playing" and rebuilt.version == room.version
        assert rebuilt.match is not None and room.match is not None
        assert rebuilt.match.state.to_dict() == room.match.state.to_dict()
        other.storage.close()
        manager.storage.close()

    asyncio.run(scenario())


def test_a_process_that_lost_the_room_cannot_chat_remove_or_rematch_for_it(tmp_path: Path) -> None:
    """Every write of the table is fenced by the room's lease: once it is lost, chat, a
    removal and a rematch are refused with room_moving and nothing reaches storage."""
    from nomercy.server.rooms.leases import LeaseLost

    async def scenario() -> None:
        manager = manager_for(tmp_path)
        storage = manager.storage
        room, token = await manager.create(P.CreateRoom(nickname="Ann", seats=3, bots=1, seed=3))
        _, bob, _ = await manager.join(room.code, "Bob")

        def fence(_conn: Any, room_id: int, _epoch: int) -> None:
            raise LeaseLost(room_id)

        storage.fence = fence
        room.epoch = 1
        with pytest.raises(P.ProtocolError) as info:
            await manager.chat(room, 0, "anyone?")
        assert info.value.code == "room_moving" and room.closed
        assert manager.social.recent_chat(room.id) == []
        room.closed = False
        with pytest.raises(P.ProtocolError) as info:
            await manager.kick(room, token, bob)
        assert info.value.code == "room_moving"
        assert manager.social.removed_of(room.id) == {} and room.seats[bob].kind == "human"

        storage.fence = None
        room, token = await a_finished_room(manager)
        logged = len(await asyncio.to_thread(storage.log, room.id))
        storage.fence = fence
        room.epoch = 1
        with pytest.raises(P.ProtocolError) as info:
            await manager.rematch(room, token)
        assert info.value.code == "room_moving" and room.closed
        assert len(await asyncio.to_thread(storage.log, room.id)) == logged
        for r in list(manager.rooms.values()):
            await r.driver.stop()
        storage.close()

    asyncio.run(scenario())
