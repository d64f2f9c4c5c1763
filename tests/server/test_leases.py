"""Room leases on a real PostgreSQL: one writer per room, fenced, and a dead owner noticed at once.

Two :class:`SharedLeases` on two engines stand for two server processes. The property that
matters: a process that lost a room's lease can never append to the room's log, however
its writes and the takeover interleave.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import insert

import needs
from nomercy.server.base.tables import actions
from nomercy.server.rooms.leases import LeaseLost, SharedLeases
from nomercy.server.rooms.storage import Storage, StoredSeat

from .conftest import POSTGRES_URL, reset_postgres

pytestmark = needs.POSTGRES


def eventually(probe: Callable[[], Any], timeout: float = 5.0) -> Any:
    """``probe()`` once it is truthy: the server ends a closed session's backend asynchronously."""
    deadline = time.monotonic() + timeout
    while not (value := probe()):
        assert time.monotonic() < deadline, f"still not so after {timeout} s"
        time.sleep(0.02)
    return value


@pytest.fixture
def two() -> Iterator[tuple[Storage, SharedLeases, Storage, SharedLeases, int]]:
    """Processes A and B on one database, and a room."""
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    sa, sb = Storage(POSTGRES_URL), Storage(POSTGRES_URL)
    la, lb = SharedLeases(sa.engine, ttl=30), SharedLeases(sb.engine, ttl=30)
    sa.fence, sb.fence = la.fence, lb.fence
    la.start()
    lb.start()
    room = sa.create_room("ABCDEF", {"rules": {}}, [StoredSeat(0, "human", "Ann", None, True)])
    yield sa, la, sb, lb, room
    for leases, storage in ((la, sa), (lb, sb)):
        leases.close()
        storage.close()


def test_one_holder_at_a_time_and_the_holder_is_asked_to_hand_over(two: tuple) -> None:  # type: ignore[type-arg]
    _sa, la, _sb, lb, room = two
    assert la.acquire(room) == 1
    assert lb.acquire(room) is None  # A is alive and its lease is fresh
    lost, wanted = la.renew({room: 1})
    assert lost == set() and wanted == {room}  # B asked for it
    la.release(room, 1)
    assert lb.acquire(room) == 2  # released: B takes it at once
    lost, _ = la.renew({room: 1})
    assert lost == {room}


def test_a_request_older_than_the_lease_lifetime_is_stale(two: tuple) -> None:  # type: ignore[type-arg]
    """The process that asked has stopped asking (the proxy routes the room elsewhere again):
    the holder is no longer told to hand the room over."""
    _sa, la, _sb, lb, room = two
    # A lifetime of 2 s, and steps well inside and well past it: a loaded machine (the CI
    # runs browsers beside this) once stalled long enough to age a 0.5 s request early.
    la.ttl = lb.ttl = 2.0
    assert la.acquire(room) == 1
    assert lb.acquire(room) is None
    assert la.renew({room: 1}) == (set(), {room})
    time.sleep(0.3)
    assert la.renew({room: 1}) == (set(), {room})  # still recent
    time.sleep(2.2)
    assert la.renew({room: 1}) == (set(), set())  # B has not asked again for longer than the ttl
    assert lb.acquire(room) is None  # asking again makes it wanted again
    assert la.renew({room: 1}) == (set(), {room})


def test_a_process_that_lost_its_lease_cannot_append(two: tuple) -> None:  # type: ignore[type-arg]
    sa, la, sb, lb, room = two
    la.ttl = 0.2
    assert la.acquire(room) == 1
    sa.append_many([(room, 0, 0, "draw", None, 1)])
    time.sleep(0.4)  # A stops renewing (a pause, a partition): its lease expires
    assert lb.acquire(room) == 2
    with pytest.raises(LeaseLost):
        sa.append_many([(room, 1, 0, "pass", None, 1)])
    with pytest.raises(LeaseLost):  # seats and the start are fenced too
        sa.update_seat(room, StoredSeat(0, "human", "Mallory", None, True), epoch=1)
    sb.append_many([(room, 1, 0, "take", None, 2)])
    assert sb.log(room) == [(0, "draw"), (0, "take")]
    assert sb.load_room(room).seats[0].nickname == "Ann"  # type: ignore[union-attr]


def test_a_write_in_flight_and_a_takeover_never_interleave(two: tuple) -> None:  # type: ignore[type-arg]
    """A's append transaction holds the lease row: B's takeover waits for it, then sees it renewed."""
    sa, la, _sb, lb, room = two
    la.ttl = 0.3
    assert la.acquire(room) == 1
    time.sleep(0.5)  # expired, but nobody has taken it yet
    taken: list[int | None] = []
    with sa.engine.connect() as conn:
        trans = conn.begin()
        la.fence(conn, room, 1)  # A's write begins: still A's (nobody took it), renewed
        thread = threading.Thread(target=lambda: taken.append(lb.acquire(room)))
        thread.start()
        thread.join(0.5)
        assert thread.is_alive(), "the takeover must wait for the write in flight"
        conn.execute(insert(actions).values(room_id=room, seq=0, seat=0, action="draw", at=time.time()))
        trans.commit()
    thread.join(10)
    assert taken == [None]  # A's write renewed the lease: B does not fork the room
    assert sa.log(room) == [(0, "draw")]


def test_a_dead_owner_is_noticed_at_once(two: tuple) -> None:  # type: ignore[type-arg]
    _sa, la, _sb, lb, room = two
    assert la.acquire(room) == 1
    assert lb.acquire(room) is None
    la.close()  # A's liveness connection closes, as when its process dies (SIGKILL included)
    assert eventually(lambda: lb.acquire(room)) == 2  # well before the 30 s expiry
    assert lb.owner_of(room) == (lb.owner, 2)


def test_orphans_are_the_rooms_in_play_without_a_live_holder(two: tuple) -> None:  # type: ignore[type-arg]
    sa, la, _sb, lb, room = two
    lobby = sa.create_room("GHJKMN", {"rules": {}}, [StoredSeat(0, "human", "Bo", None, True)])
    sa.start(room, 7, [StoredSeat(0, "human", "Ann", None, True)])
    assert lb.orphans(0) == [room]  # never leased, being played; the lobby waits for a request
    assert la.acquire(room) == 1
    assert lb.orphans(0) == []
    la.close()
    assert eventually(lambda: lb.orphans(0)) == [room]
    assert lobby not in lb.orphans(0)


def test_lobby_writes_off_the_event_loop_are_fenced_and_an_expired_lobby_stays_closed(
    two: tuple,  # type: ignore[type-arg]
) -> None:
    """A join (written in a worker thread) and the expiry of an idle lobby, by a process whose
    lease is gone, are refused as ``room_moving`` and change nothing; a lobby expired by the
    holder is never opened again on demand."""
    import asyncio

    from nomercy.server.base import protocol as P
    from nomercy.server.base.protocol import ErrorCode, ProtocolError
    from nomercy.server.base.settings import Settings
    from nomercy.server.rooms.manager import RoomManager

    sa, la, sb, lb, _ = two
    la.ttl = 0.2

    async def scenario() -> None:
        manager = RoomManager(Settings(lobby_idle_seconds=0.0), sa)
        room, _token = await manager.create(P.CreateRoom(nickname="Ann", seats=3))
        room.epoch = await asyncio.to_thread(la.acquire, room.id)
        assert room.epoch == 1
        bob = await manager.join(room.code, "Bob")  # A holds the lease: written
        assert bob[1] == 1
        await asyncio.sleep(0.4)  # A stops renewing: B takes the room
        assert await asyncio.to_thread(lb.acquire, room.id) == 2
        with pytest.raises(ProtocolError) as refused:
            await manager.join(room.code, "Mallory")
        assert refused.value.code == ErrorCode.ROOM_MOVING
        assert room.closed and room.seats[2].kind == "open"
        stored = sb.load_room(room.id)
        assert stored is not None and [s.kind for s in stored.seats] == ["human", "human", "open"]
        # A's sweep may not expire the lobby B now runs, even before A noticed the loss.
        room.closed = False
        assert await manager.sweep(time.monotonic() + 1) == []
        assert sb.load_room(room.id).status == "lobby"  # type: ignore[union-attr]
        assert sb.room_id(room.code) == room.id
        # B expires it (fenced by its own epoch): no process opens it again.
        sb.set_status(room.id, "expired", epoch=2)
        assert sb.room_id(room.code) is None

    asyncio.run(scenario())


def test_rooms_per_address_are_counted_in_storage_with_several_processes(
    two: tuple,  # type: ignore[type-arg]
) -> None:
    """The process that creates a room does not run it (the proxy routes its code to
    another), so the cap on an address's open rooms counts them in storage."""
    import asyncio

    from nomercy.server.base import protocol as P
    from nomercy.server.base.protocol import ErrorCode, ProtocolError
    from nomercy.server.base.settings import Settings
    from nomercy.server.rooms.cluster import Cluster
    from nomercy.server.rooms.manager import RoomManager

    sa, la, _sb, _lb, _ = two

    async def scenario() -> None:
        manager = RoomManager(Settings(max_rooms_per_address=2), sa)
        Cluster(manager, la)  # several processes (not started: no renewals needed here)
        first, _ = await manager.create(P.CreateRoom(nickname="Ann"), "10.0.0.1")
        await manager.create(P.CreateRoom(nickname="Ann"), "10.0.0.1")
        assert manager.rooms == {}  # created in storage only
        with pytest.raises(ProtocolError) as refused:
            await manager.create(P.CreateRoom(nickname="Ann"), "10.0.0.1")
        assert refused.value.code == ErrorCode.RATE_LIMITED
        await manager.create(P.CreateRoom(nickname="Bea"), "10.0.0.2")  # another address
        sa.set_status(first.id, "finished")  # one of Ann's rooms ends (wherever it ran)
        await manager.create(P.CreateRoom(nickname="Ann"), "10.0.0.1")

    asyncio.run(scenario())


def test_a_room_the_proxy_still_routes_here_is_not_handed_over(
    two: tuple,  # type: ignore[type-arg]
) -> None:
    """A asks for B's room while requests for it still reach B (the proxy sends it some of
    the room's sockets for a while after a failure): B keeps the room, so it cannot
    ping-pong; once no request has reached B for ``hold`` seconds, B hands it over."""
    import asyncio

    from nomercy.server.base import protocol as P
    from nomercy.server.base.protocol import ErrorCode, ProtocolError
    from nomercy.server.base.settings import Settings
    from nomercy.server.rooms.cluster import Cluster
    from nomercy.server.rooms.manager import RoomManager

    sa, la, sb, lb, _ = two

    async def scenario() -> None:
        a, b = RoomManager(Settings(), sa), RoomManager(Settings(), sb)
        ca, cb = Cluster(a, la), Cluster(b, lb)
        ca.hold = cb.hold = 1.0  # far above a step's time on a loaded machine (0.3 flaked)
        made, host = await b.create(P.CreateRoom(nickname="Ann", seats=2, bots=1), "10.0.0.1")
        room = await b.find(made.code)  # routed to B: B takes the room
        await b.start(room, host)  # in play: a room without a holder would be adopted
        with pytest.raises(ProtocolError) as refused:
            await a.find(made.code)  # now routed to A: A asks B for it
        assert refused.value.code == ErrorCode.ROOM_MOVING
        for _ in range(3):  # B keeps getting the room's requests too: it keeps the room
            await asyncio.sleep(0.2)
            await b.find(made.code)
            await cb.step()
            assert b.rooms.get(made.code) is room and not room.closed
        await asyncio.sleep(1.2)  # nothing reached B for longer than hold
        await cb.step()
        assert room.closed and made.code not in b.rooms
        await cb.step()  # released for A: B does not adopt it back as an orphan
        assert made.code not in b.rooms
        assert (await a.find(made.code)).code == made.code  # A's next request opens it there

    asyncio.run(scenario())
