"""Storage and the social store in memory: the room logic without a database.

Implements :class:`nomercy.server.rooms.ports.RoomStorage` and
:class:`nomercy.server.rooms.ports.SocialPort` with the database's observable behaviour (a log
entry's ``seq`` is unique per room, a write with a stale lease epoch is refused), so that
the unit tests of :class:`nomercy.server.rooms.manager.RoomManager` run in milliseconds. Nothing
survives the process: never a server's storage.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nomercy import __version__
from nomercy.server.rooms.leases import LeaseLost
from nomercy.server.rooms.ports import Clock, RoomStorage, SocialPort, SystemClock
from nomercy.server.rooms.social import CHAT_HISTORY, ChatLine, Removed
from nomercy.server.rooms.storage import Entry, StoredRoom, StoredSeat
from nomercy.state import STATE_FORMAT_VERSION


@dataclass
class _Row:
    code: str
    settings: dict[str, Any]
    seats: list[StoredSeat]
    status: str = "lobby"
    seed: int | None = None
    retired: str | None = None
    updated_at: float = 0.0
    #: ``(seq, seat, action, at)`` in commit order.
    log: list[tuple[int, int, str, float]] = field(default_factory=list)


class MemoryStorage:
    """Rooms, seats and action logs in dictionaries (thread-safe: the manager writes from
    worker threads). ``epochs`` holds each room's current lease epoch, as a cluster would:
    a write fenced with another epoch raises :class:`LeaseLost`. ``fail`` set to an
    exception makes every write raise it (a database that went away)."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.rows: dict[int, _Row] = {}
        self.epochs: dict[int, int] = {}
        self.fail: Exception | None = None
        self._lock = threading.Lock()

    def _fence(self, room_id: int, epoch: int | None) -> None:
        if self.fail is not None:
            raise self.fail
        if epoch is not None and self.epochs.get(room_id, epoch) != epoch:
            raise LeaseLost(room_id)

    def _touch(self, room_id: int) -> _Row:
        row = self.rows[room_id]
        row.updated_at = self.clock.time()
        return row

    # -- writes ------------------------------------------------------------------------

    def create_room(self, code: str, settings: dict[str, Any], room_seats: list[StoredSeat]) -> int:
        with self._lock:
            self._fence(0, None)
            room_id = len(self.rows) + 1
            self.rows[room_id] = _Row(code, copy.deepcopy(settings), [copy.copy(s) for s in room_seats])
            self._touch(room_id)
            return room_id

    def write_seat(self, room_id: int, seat: StoredSeat) -> None:
        self._touch(room_id).seats[seat.seat] = copy.copy(seat)

    def update_seat(self, room_id: int, seat: StoredSeat, epoch: int | None = None) -> None:
        with self._lock:
            self._fence(room_id, epoch)
            self.write_seat(room_id, seat)

    def start(self, room_id: int, seed: int, room_seats: list[StoredSeat], epoch: int | None = None) -> None:
        with self._lock:
            self._fence(room_id, epoch)
            row = self._touch(room_id)
            for s in room_seats:
                row.seats[s.seat] = copy.copy(s)
            row.seed, row.status = seed, "playing"

    def set_status(self, room_id: int, status: str, epoch: int | None = None) -> None:
        with self._lock:
            self._fence(room_id, epoch)
            self._touch(room_id).status = status

    def retire(self, room_id: int, reason: str, epoch: int | None = None) -> None:
        with self._lock:
            self._fence(room_id, epoch)
            row = self._touch(room_id)
            row.status, row.retired = "retired", reason

    def append_many(self, entries: list[Entry]) -> None:
        """All or nothing, like the database's transaction: a duplicate ``seq`` fails them all."""
        with self._lock:
            for room_id, _, _, _, _, epoch in entries:
                self._fence(room_id, epoch)
            seen = {(r, q) for r, row in self.rows.items() for q, _, _, _ in row.log}
            for room_id, seq, _, _, _, _ in entries:
                if (room_id, seq) in seen:
                    raise ValueError(f"room {room_id}: log entry {seq} exists")
                seen.add((room_id, seq))
            now = self.clock.time()
            for room_id, seq, seat, action, status, _ in entries:
                row = self._touch(room_id)
                row.log.append((seq, seat, action, now))
                if status is not None:
                    row.status = status

    # -- reads -------------------------------------------------------------------------

    def _stored(self, room_id: int) -> StoredRoom:
        row = self.rows[room_id]
        log = sorted(row.log)
        return StoredRoom(
            id=room_id,
            code=row.code,
            status=row.status,
            settings=copy.deepcopy(row.settings),
            seed=row.seed,
            seats=[copy.copy(s) for s in row.seats],
            log=[(seat, action) for _, seat, action, _ in log],
            state_format=STATE_FORMAT_VERSION,
            engine_version=__version__,
            retired=row.retired,
            last_at=log[-1][3] if log else None,
        )

    def load_rooms(self, since: float = 0.0) -> Iterator[StoredRoom]:
        with self._lock:
            rooms = [self._stored(i) for i, row in sorted(self.rows.items()) if row.updated_at >= since]
        yield from rooms

    def load_room(self, room_id: int) -> StoredRoom | None:
        with self._lock:
            return self._stored(room_id) if room_id in self.rows else None

    def room_id(self, code: str, since: float = 0.0) -> int | None:
        with self._lock:
            for i, row in self.rows.items():
                if row.code == code and row.updated_at >= since and row.status != "expired":
                    return i
        return None

    def last_entry(self, room_id: int) -> tuple[int, int, str] | None:
        with self._lock:
            log = sorted(self.rows[room_id].log) if room_id in self.rows else []
        return (log[-1][0], log[-1][1], log[-1][2]) if log else None

    def open_rooms(self, ids: list[int], since: float) -> list[int]:
        with self._lock:
            return [
                i
                for i in ids
                if i in self.rows
                and self.rows[i].status in ("lobby", "playing")
                and self.rows[i].updated_at >= since
            ]

    def code_exists(self, code: str) -> bool:
        with self._lock:
            return any(row.code == code for row in self.rows.values())

    def id_of(self, code: str) -> int | None:
        with self._lock:
            return next((i for i, row in self.rows.items() if row.code == code), None)

    def seated_in(self, room_id: int, digest: str | None, account_id: str | None) -> bool:
        with self._lock:
            row = self.rows.get(room_id)
            held = row.seats if row is not None else []
            return any(
                (digest is not None and s.token_hash == digest)
                or (account_id is not None and s.account_id == account_id)
                for s in held
            )

    def rated_in_play(self, code: str) -> bool:
        with self._lock:
            return any(
                row.code == code and row.status == "playing" and bool(row.settings.get("rated"))
                for row in self.rows.values()
            )

    def log(self, room_id: int) -> list[tuple[int, str]]:
        with self._lock:
            return [(seat, action) for _, seat, action, _ in sorted(self.rows[room_id].log)]


class MemorySocial:
    """Chat lines and removed players beside a :class:`MemoryStorage` (fenced by its epochs)."""

    def __init__(self, storage: MemoryStorage) -> None:
        self.storage = storage
        self.chat: dict[int, list[ChatLine]] = {}
        self.removed: dict[int, dict[int, Removed]] = {}

    def add_chat(self, room_id: int, line: ChatLine, epoch: int | None = None) -> None:
        with self.storage._lock:
            self.storage._fence(room_id, epoch)
            lines = self.chat.setdefault(room_id, [])
            lines.append(line)
            del lines[:-CHAT_HISTORY]

    def recent_chat(self, room_id: int, limit: int = CHAT_HISTORY) -> list[ChatLine]:
        with self.storage._lock:
            return list(self.chat.get(room_id, [])[-limit:]) if limit > 0 else []

    def remove(self, room_id: int, seat: StoredSeat, entry: Removed | None, epoch: int | None = None) -> None:
        with self.storage._lock:
            self.storage._fence(room_id, epoch)
            self.storage.write_seat(room_id, seat)
            removed = self.removed.setdefault(room_id, {})
            removed.pop(seat.seat, None)
            if entry is not None:
                removed[entry.seat] = entry

    def readmit(self, room_id: int, seat: StoredSeat, epoch: int | None = None) -> None:
        with self.storage._lock:
            self.storage._fence(room_id, epoch)
            self.storage.write_seat(room_id, seat)
            self.removed.get(room_id, {}).pop(seat.seat, None)

    def removed_of(self, room_id: int) -> dict[int, Removed]:
        with self.storage._lock:
            return dict(self.removed.get(room_id, {}))


if TYPE_CHECKING:  # mypy checks that both implement their ports
    _storage: RoomStorage = MemoryStorage()
    _social: SocialPort = MemorySocial(MemoryStorage())
