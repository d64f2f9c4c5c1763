"""Several server processes on one database: who runs which room, and moving rooms between them.

With PostgreSQL, any number of ``nomercy serve`` processes share the rooms. A process runs
a room only while it holds the room's lease (:mod:`nomercy.server.rooms.leases`); the proxy
routes every request of a room to one process by hashing the join code in the URL
(``/api/rooms/CODE/...``, ``/ws?room=CODE``), and that process:

- *opens* the room on the first request (:meth:`Cluster.open`): takes the lease and
  rebuilds the room by replaying its log, exactly as after a restart;
- if another live process holds the lease, answers ``room_moving`` (HTTP 503 with
  ``Retry-After``, or a WebSocket ``error``) and asks the holder to hand the room over,
  which it does at a renewal once no request for the room has reached it for
  :attr:`Cluster.hold` seconds: it lets go (under the room's lock, so no write is half
  done), releases the lease and closes the room's connections with ``room_moving``; the
  clients reconnect, through the proxy, to the process that asked. While some of the room's
  requests still reach the holder (its clients connected while the other process was
  down), the room stays where it is, so it cannot ping-pong between two processes that
  both get requests;
- every :attr:`Cluster.tick` renews its leases, drops the rooms it lost (another process
  took them over: fencing already refused any write) and *adopts* rooms being played
  whose holder died, so bot turns and timers go on even before anyone reconnects, and
  finished rooms whose last round is over in the log but not kept (the holder died
  between the last action and the keep). Whoever takes a room (adoption, opening,
  start-up) keeps a round that is over in its log (:meth:`RoomManager.keep_ended`),
  exactly once whichever process does it. A room
  it handed over itself is not adopted back for a lease's lifetime: the process that
  asked for it takes it at its next request (adopting it at once would take it back
  from under that process, round after round);
- when the database answers again after renewals failed (a restart of PostgreSQL), it
  adopts nothing and takes no room from another process for a lease's lifetime (every
  lease expired meanwhile: the others renew theirs in that time), and its paused rooms
  retry their write at once instead of at the end of their back-off.

A graceful shutdown (:meth:`Cluster.shutdown`) hands every room over at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from nomercy.server.base import protocol as P
from nomercy.server.base.logs import RepeatedFailure
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.rooms.leases import SharedLeases
from nomercy.server.rooms.manager import Room, RoomManager, moving

log = logging.getLogger("nomercy.server")


class Cluster:
    """This process's share of the rooms: leases taken, renewed, handed over, adopted."""

    def __init__(self, manager: RoomManager, leases: SharedLeases) -> None:
        self.manager = manager
        self.leases = leases
        self.storage = manager.storage
        #: Seconds between renewals (and hand-over, adoption checks).
        self.tick = min(1.0, leases.ttl / 4)
        #: A room asked for elsewhere is handed over only once this long has passed since it
        #: was taken here and since the last request for it reached this process.
        self.hold = 2 * self.tick
        self.draining = False
        #: ``time.monotonic()`` of the last successful renewal (readiness).
        self.renewed_at: float | None = None
        #: Called after a room stopped running here (the app forgets its driver).
        self.on_drop: Callable[[Room], None] | None = None
        self._opening: dict[str, asyncio.Future[None]] = {}
        self._taking: set[int] = set()
        #: Rooms handed over from here (id -> ``time.monotonic()``): not adopted back as
        #: orphans until the process that asked has had a lease's lifetime to take them.
        self._handed_over: dict[int, float] = {}
        self._task: asyncio.Task[None] | None = None
        #: A database away fails every renewal: logged once in full, then summarised.
        self.renewals = RepeatedFailure(log, "lease renewal")
        manager.cluster = self

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        await asyncio.to_thread(self.leases.start)
        await self.step()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="leases")

    async def shutdown(self, seconds: float = 5.0) -> None:
        """Stop taking rooms and hand every room over (the lease is free at once); idempotent.

        Bounded by ``seconds``: a room whose write is stuck on a slow database, or whose
        release is, is left as it is and logged; its lease frees up as this process exits
        (the liveness lock goes with the connection), so another process adopts it then."""
        if self.draining:
            return
        self.draining = True
        deadline = time.monotonic() + seconds
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=seconds)
        rooms = list(self.manager.rooms.values())
        drops = [asyncio.ensure_future(self._drop(room, release=True, wait=False)) for room in rooms]
        left: set[asyncio.Future[bool]] = set()
        if drops:
            _, left = await asyncio.wait(drops, timeout=max(0.0, deadline - time.monotonic()))
        for drop in left:
            drop.cancel()
        if rooms:
            released = sum(
                1
                for d in drops
                if d not in left and not d.cancelled() and d.exception() is None and d.result()
            )
            log.info("handed %d of %d room(s) over", released, len(rooms))
        if left:
            stuck = sorted(room.code for room, drop in zip(rooms, drops, strict=True) if drop in left)
            log.warning(
                "shutdown: %d room(s) not handed over within %.0f s (a write or a release still "
                "waiting on the database): %s; their leases free up as this process exits",
                len(left),
                seconds,
                ", ".join(stuck[:20]) + (" ..." if len(stuck) > 20 else ""),
            )
        closing = asyncio.ensure_future(asyncio.to_thread(self.leases.close))
        if not (await asyncio.wait({closing}, timeout=max(0.5, deadline - time.monotonic())))[0]:
            log.warning(
                "shutdown: the liveness connection did not close in time; it closes as this process exits"
            )

    def ready(self) -> bool:
        """Taking rooms: not shutting down, and the leases were renewed within their lifetime."""
        if self.draining or self.renewed_at is None:
            return False
        return time.monotonic() - self.renewed_at < self.leases.ttl

    # -- opening a room on demand ---------------------------------------------------------

    async def open(self, code: str) -> None:
        """Take the room's lease and load it; ``room_moving`` if another process runs it."""
        if self.draining:
            raise moving()
        pending = self._opening.get(code)
        if pending is not None:
            await asyncio.shield(pending)
            return
        # Rooms being opened count against the cap: each awaits storage before it is in memory.
        if len(self.manager.rooms) + len(self._opening) >= self.manager.settings.max_rooms:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "the server is full: try again later")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._opening[code] = future
        try:
            since = time.time() - self.manager.settings.idle_room_seconds
            room_id = await asyncio.to_thread(self.storage.room_id, code, since)
            if room_id is None:
                raise ProtocolError(ErrorCode.NOT_FOUND, "no room with that code")
            if await self._take(room_id, request=True) is None:
                raise moving()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it, nobody else needs to
            raise
        else:
            future.set_result(None)
        finally:
            del self._opening[code]

    async def _take(self, room_id: int, request: bool) -> Room | None:
        """Acquire the lease and rebuild the room from its log; None if another process has it."""
        if room_id in self._taking or any(r.id == room_id for r in self.manager.rooms.values()):
            return None
        self._taking.add(room_id)
        try:
            epoch = await asyncio.to_thread(self.leases.acquire, room_id, request)
            if epoch is None:
                return None
            try:
                stored = await asyncio.to_thread(self.storage.load_room, room_id)
                if stored is None:
                    raise ProtocolError(ErrorCode.NOT_FOUND, "no room with that code")
                room = await asyncio.to_thread(self.manager.rebuild, stored)
            except BaseException:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.leases.release, room_id, epoch)
                raise
            room.epoch = epoch
            room.opened_at = time.monotonic()
            if self.draining:
                await asyncio.to_thread(self.leases.release, room_id, epoch)
                return None
            self.manager._add(room)
            self.manager.keep_ended(room)  # its last round may be over in the log, not kept
            self.manager.metrics.room_moves.labels("taken").inc()
            log.info(
                "room %s: taken (lease epoch %d, %d log entries)",
                room.code,
                epoch,
                room.version,
                extra={"room": room.code},
            )
            return room
        finally:
            self._taking.discard(room_id)

    # -- letting a room go ------------------------------------------------------------------

    def let_go(self, room: Room) -> None:
        """A write found the lease lost: stop running the room (from inside its pipeline)."""
        asyncio.get_running_loop().create_task(self.drop(room, release=False))

    async def drop(self, room: Room, release: bool) -> None:
        """Stop running ``room`` here; with ``release`` free its lease for the next process."""
        await self._drop(room, release)

    async def _drop(self, room: Room, release: bool, wait: bool = True) -> bool:
        """:meth:`drop`; True when the lease was released (else it expires, or frees up as
        this process exits). Without ``wait`` (a shutdown) a lease row locked by a stalled
        transaction is left at once."""
        released = False
        room.closed = True
        async with room.lock:  # no write of this room is half done once we hold it
            if self.manager.rooms.get(room.code) is room:
                del self.manager.rooms[room.code]
            else:
                release = False  # dropped already
            if room.driver is not None:
                await room.driver.stop()
            if self.on_drop is not None:
                self.on_drop(room)
            if release and room.epoch is not None:
                try:
                    released = await asyncio.to_thread(self.leases.release, room.id, room.epoch, wait)
                except Exception:
                    log.warning(
                        "room %s: could not release its lease (it expires by itself)",
                        room.code,
                        extra={"room": room.code},
                    )
                if not released and not wait:
                    log.warning(
                        "room %s: could not release its lease (its row is locked by a stalled "
                        "transaction, or it is no longer ours): it frees up as this process exits",
                        room.code,
                        extra={"room": room.code},
                    )
        text = P.ErrorMessage(
            code=ErrorCode.ROOM_MOVING,
            message="this room is moving to another server process: reconnecting",
            version=room.version,
        ).model_dump_json()
        for client in list(room.clients):
            client.send(text)
            client.close()
        room.clients.clear()
        self.manager.metrics.room_moves.labels("handed_over" if release else "lost").inc()
        log.info(
            "room %s: %s",
            room.code,
            "handed over" if released else "let go" if release else "lost to another process",
            extra={"room": room.code},
        )
        return released

    # -- the renewal loop -------------------------------------------------------------------

    async def _run(self) -> None:
        failing = False
        while True:
            await asyncio.sleep(self.tick)
            try:
                await self.step()
            except Exception as exc:
                self.renewals.failed(exc)
                failing = True
                continue
            self.renewals.ok()
            if failing:
                failing = False
                try:
                    self.database_back()
                except Exception:  # the renewals must go on whatever happens here
                    log.exception("the database is back, but the paused rooms could not be woken")

    def database_back(self) -> None:
        """The database answers again after renewals failed: judge nobody gone for a lease's
        lifetime (the others renew meanwhile), and let every paused room try its write now
        rather than at the end of its back-off."""
        self.leases.reconnected()
        for room in list(self.manager.rooms.values()):
            if room.paused and room.driver is not None:
                room.driver.retry_now()

    async def step(self) -> None:
        """Renew, drop what was lost, hand over what was asked for, adopt orphans."""
        await asyncio.to_thread(self.leases.heartbeat)
        held = {r.id: r.epoch for r in self.manager.rooms.values() if r.epoch is not None and not r.closed}
        lost, wanted = await asyncio.to_thread(self.leases.renew, held)
        self.renewed_at = time.monotonic()
        now = time.monotonic()
        for room in list(self.manager.rooms.values()):
            if room.id in lost:
                await self.drop(room, release=False)
            elif room.id in wanted and now - max(room.opened_at, room.routed_at) >= self.hold:
                await self.drop(room, release=True)
                self._handed_over[room.id] = now
        if self.draining:
            return
        for room_id, at in list(self._handed_over.items()):
            if now - at >= self.leases.ttl:
                del self._handed_over[room_id]
        since = time.time() - self.manager.settings.idle_room_seconds
        for room_id in await asyncio.to_thread(self.leases.orphans, since):
            if room_id in self._handed_over:  # released for the process that asked: its turn
                continue
            try:
                await self._take(room_id, request=False)
            except Exception:
                log.exception("room %d could not be taken over", room_id)
