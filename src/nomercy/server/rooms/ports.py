"""The ports a :class:`nomercy.server.rooms.manager.RoomManager` is given, as typed Protocols.

The manager decides; these carry its decisions out: storage (rooms, seats and the action
log), the social store (chat lines, removed players), the cluster (leases when several
processes share the database), the room's driver (timers and bots) and the clock. The
database implementations are :class:`nomercy.server.rooms.storage.Storage` and
:class:`nomercy.server.rooms.social.SocialStore`; :mod:`nomercy.server.rooms.memstore` keeps both in
memory, so that the room logic is tested in milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from nomercy.server.rooms.room import Driver, Room

__all__ = ["Clock", "ClusterPort", "Driver", "LogStorage", "RoomStorage", "SocialPort", "SystemClock"]

if TYPE_CHECKING:
    from nomercy.server.rooms.social import ChatLine, Removed
    from nomercy.server.rooms.storage import Entry, StoredRoom, StoredSeat


class LogStorage(Protocol):
    """Where the action log is committed (the group commit's only need)."""

    def append_many(self, entries: list[Entry]) -> None: ...


class RoomStorage(LogStorage, Protocol):
    """Rooms, seats and the action log. Every method commits before it returns; a write
    with an ``epoch`` is fenced by the room's lease (raises ``LeaseLost`` if it was lost)."""

    def create_room(self, code: str, settings: dict[str, Any], room_seats: list[StoredSeat]) -> int: ...

    def update_seat(self, room_id: int, seat: StoredSeat, epoch: int | None = None) -> None: ...

    def start(
        self, room_id: int, seed: int, room_seats: list[StoredSeat], epoch: int | None = None
    ) -> None: ...

    def set_status(self, room_id: int, status: str, epoch: int | None = None) -> None: ...

    def retire(self, room_id: int, reason: str, epoch: int | None = None) -> None: ...

    def load_rooms(self, since: float = 0.0) -> Iterator[StoredRoom]: ...

    def load_room(self, room_id: int) -> StoredRoom | None: ...

    def room_id(self, code: str, since: float = 0.0) -> int | None: ...

    def last_entry(self, room_id: int) -> tuple[int, int, str] | None: ...

    def open_rooms(self, ids: list[int], since: float) -> list[int]: ...

    def code_exists(self, code: str) -> bool: ...

    def id_of(self, code: str) -> int | None: ...

    def seated_in(self, room_id: int, digest: str | None, account_id: str | None) -> bool: ...

    def rated_in_play(self, code: str) -> bool: ...


class SocialPort(Protocol):
    """Chat lines and removed players of every room (fenced like the game's writes)."""

    def add_chat(self, room_id: int, line: ChatLine, epoch: int | None = None) -> None: ...

    def recent_chat(self, room_id: int, limit: int = ...) -> list[ChatLine]: ...

    def remove(
        self, room_id: int, seat: StoredSeat, entry: Removed | None, epoch: int | None = None
    ) -> None: ...

    def readmit(self, room_id: int, seat: StoredSeat, epoch: int | None = None) -> None: ...

    def removed_of(self, room_id: int) -> dict[int, Removed]: ...


class ClusterPort(Protocol):
    """Several processes on one database: rooms are opened on demand under a lease."""

    async def open(self, code: str) -> None: ...

    def let_go(self, room: Room) -> None: ...

    async def drop(self, room: Room, release: bool) -> None: ...


class Clock(Protocol):
    """Time as the manager reads it: ``monotonic`` for timers, ``time`` for storage."""

    def monotonic(self) -> float: ...

    def time(self) -> float: ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()
