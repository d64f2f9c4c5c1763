"""The rooms a process holds, shared by the lobby, the pipeline, the fan-out and the lifecycle.

One :class:`Registry` is the state they share: the rooms by join code, the rooms this engine
retired, the creations under way, the ports (storage, social store, cluster, clock) and the
hooks the application sets; with the few questions all of them ask of it (a room by code,
whose seat a token is, a fenced write). :class:`~nomercy.server.rooms.manager.RoomManager`
builds one and hands it to each part.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Callable, Iterator
from typing import Any

from nomercy import bots as botlib
from nomercy.server.base.metrics import Metrics
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import token_hash
from nomercy.server.rooms.leases import LeaseLost
from nomercy.server.rooms.logwriter import LogWriter
from nomercy.server.rooms.ports import Clock, ClusterPort, RoomStorage, SocialPort, SystemClock
from nomercy.server.rooms.room import Room, bot_spec, moving
from nomercy.server.rooms.social import SocialStore
from nomercy.server.rooms.storage import Storage

log = logging.getLogger("nomercy.server")


class Registry:
    """Every room in memory and what each part needs to reach them."""

    def __init__(
        self,
        settings: Settings,
        storage: RoomStorage,
        social: SocialPort | None = None,
        clock: Clock | None = None,
    ) -> None:
        """``social`` defaults to the chat and removals stored beside ``storage`` (which must
        then be the database :class:`Storage`); ``clock`` to the real one."""
        self.settings = settings
        self.storage = storage
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.metrics = Metrics()
        self.writer = LogWriter(storage, self.metrics)
        if social is None:
            if not isinstance(storage, Storage):
                raise TypeError("a storage other than the database one needs its own social store")
            social = SocialStore(storage)
        self.social: SocialPort = social
        #: Join code -> why: rooms this engine could not continue (ended, told on joining).
        self.retired: dict[str, str] = {}
        self.rooms: dict[str, Room] = {}
        self.metrics.watch(lambda: self.rooms.values())
        #: Called with each new room to start its driver (set by the app).
        self.on_new_room: Callable[[Room], None] | None = None
        #: Called with a room whose round just ended (the app keeps the round: nomercy.server.games.kept).
        self.on_round_end: Callable[[Room], None] | None = None
        #: Several processes: :class:`nomercy.server.rooms.cluster.Cluster` (rooms are opened on
        #: demand under a lease); None for one process (every room lives here).
        self.cluster: ClusterPort | None = None
        #: Several processes: ids of the rooms each address created here (rooms per address).
        self.created: dict[str, set[int]] = {}
        #: Creations under way (checked against the caps, not yet counted in ``rooms``), in
        #: all and by address: a creation awaits storage between its check and its room, so
        #: concurrent creators would each pass a check made on the rooms alone.
        self.creating = 0
        self.creating_by: dict[str, int] = {}

    async def write(self, room: Room, func: Callable[..., None], *args: Any) -> None:
        """A lobby write of ``room`` (under its lock), in a worker thread so that a slow commit
        stalls no other room, fenced by the room's lease epoch (several processes): a lost
        lease refuses it with ``room_moving`` and lets the room go. A failure changes nothing."""
        if room.closed:
            raise moving()
        try:
            with self.fenced(room):
                await asyncio.to_thread(func, *args, epoch=room.epoch)
        except ProtocolError:
            raise
        except Exception:
            log.warning("storage failed (%s)", getattr(func, "__name__", func), exc_info=True)
            raise ProtocolError(ErrorCode.SERVER_ERROR, "the server could not save that: try again") from None

    def get(self, code: str) -> Room:
        room = self.rooms.get(code.upper())
        if room is None:
            if code.upper() in self.retired:
                raise ProtocolError(ErrorCode.ROOM_RETIRED, self.retired[code.upper()])
            raise ProtocolError(ErrorCode.NOT_FOUND, "no room with that code")
        if room.closed:
            raise moving()
        room.touched = self.clock.monotonic()
        return room

    async def find(self, code: str) -> Room:
        """:meth:`get`, or (several processes) take the room's lease and open it from storage."""
        room = self.rooms.get(code.upper())
        if room is None and self.cluster is not None:
            await self.cluster.open(code.upper())
        room = self.get(code)
        room.routed_at = self.clock.monotonic()
        return room

    @contextlib.contextmanager
    def fenced(self, room: Room) -> Iterator[None]:
        """A write of ``room``: if its lease was lost, refuse with ``room_moving`` and let go."""
        try:
            with self.metrics.storage_write("lobby"):
                yield
        except LeaseLost:
            self.lost(room)
            raise moving() from None

    def authenticate(self, room: Room, token: str | None) -> int:
        """The seat that ``token`` sits at; constant-time comparison with every seat."""
        if not token:
            raise ProtocolError(ErrorCode.UNAUTHORIZED, "this needs your seat token")
        digest = token_hash(token)
        found = None
        for seat in room.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = seat.seat
        if found is None:
            raise ProtocolError(ErrorCode.UNAUTHORIZED, "that seat token does not belong to this room")
        return found

    def host_seat(self, room: Room, token: str | None) -> int:
        seat = self.authenticate(room, token)
        if not room.seats[seat].host:
            raise ProtocolError(ErrorCode.FORBIDDEN, "only the host can do that")
        return seat

    def lost(self, room: Room) -> None:
        """Another process took the room over: stop running it here."""
        room.closed = True
        if self.cluster is not None:
            self.cluster.let_go(room)

    def attach_bots(self, room: Room) -> None:
        """Every seat gets a bot: bot seats play with it, human seats as their stand-in."""
        name = bot_spec(room.config)
        seeds = room.config.get("bot_seeds")  # the daily deal: bots that answer alike
        for seat in room.seats:
            if seat.bot is None and seat.kind != "open":
                if isinstance(seeds, list) and seat.seat < len(seeds):
                    seat.bot = botlib.make(name, seed=int(seeds[seat.seat]))
                else:
                    seat.bot = botlib.make(name)

    def add(self, room: Room) -> None:
        self.rooms[room.code] = room
        if self.on_new_room is not None:
            self.on_new_room(room)
