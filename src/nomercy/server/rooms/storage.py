"""Storage: rooms, seats and an append-only action log, through SQLAlchemy 2.x Core.

A game is ``(rules, seed, actions)``: the log holds every applied action in order (and a
marker where a match dealt its next round), so a restarted server rebuilds each room by
replaying it and continues with exactly the same future draws. Each append is committed
before the action is broadcast (see :func:`nomercy.server.rooms.manager.RoomManager.act`).

Seat tokens are never stored, only their SHA-256 (a leaked database seats nobody).
SQLite (the default, a file under the user's data directory) and PostgreSQL
(``postgresql+psycopg://...``) are both supported and tested.

Each room records the state format and the engine version of the process that last wrote
it (:func:`writer`), so that a restart on another release can tell whether replaying its
log continues it exactly (:mod:`nomercy.server.base.upgrades`). The schema itself moves only by
migrations (:mod:`nomercy.server.base.schema`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    create_engine,
    event,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine

from nomercy import __version__
from nomercy.server.base import schema
from nomercy.server.base.tables import actions, rooms, seats
from nomercy.state import STATE_FORMAT_VERSION

NEXT_ROUND = "@next_round"
#: ``@rematch SEED``: the game ended and the host dealt a new one at the same table.
REMATCH = "@rematch"

#: A log entry to append: ``(room_id, seq, seat, action, status, epoch)``; ``epoch`` is the
#: room's lease epoch (several processes) or None (one process: no fencing).
Entry = tuple[int, int, int, str, str | None, int | None]


def writer() -> dict[str, Any]:
    """The columns every write of a room stamps: this process's state format and engine."""
    return {"state_format": STATE_FORMAT_VERSION, "engine_version": __version__}


@dataclass
class StoredSeat:
    seat: int
    kind: str
    nickname: str | None
    token_hash: str | None
    host: bool
    #: The account seated here (:mod:`nomercy.server.players.accounts`); None: a guest, a bot, open.
    account_id: str | None = None


@dataclass
class StoredRoom:
    id: int
    code: str
    status: str
    settings: dict[str, Any]
    seed: int | None
    seats: list[StoredSeat]
    log: list[tuple[int, str]] = field(default_factory=list)
    state_format: int | None = None
    engine_version: str | None = None
    retired: str | None = None
    #: ``time.time()`` of the newest log entry's write (None: no entry): how long ago the
    #: round that ended there ended (a room taken over between rounds waits the rest only).
    last_at: float | None = None


class Storage:
    """All database access of the server. Methods commit before they return."""

    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"future": True}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(url, **kwargs)
        #: Set when several processes share the database (:mod:`nomercy.server.rooms.leases`):
        #: called inside every write transaction of a room with a lease epoch, it raises
        #: if this process no longer holds the room, so the write rolls back.
        self.fence: Callable[[Connection, int, int], None] | None = None
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        schema.ensure(self.engine)  # an empty database is created; an old one refused

    def close(self) -> None:
        self.engine.dispose()

    # -- writes ------------------------------------------------------------------------

    def create_room(self, code: str, settings: dict[str, Any], room_seats: list[StoredSeat]) -> int:
        now = time.time()
        with self.engine.begin() as conn:
            key = conn.execute(
                insert(rooms).values(
                    code=code,
                    created_at=now,
                    updated_at=now,
                    status="lobby",
                    settings=json.dumps(settings),
                    **writer(),
                )
            ).inserted_primary_key
            assert key is not None
            room_id = key[0]
            conn.execute(insert(seats), [_seat_row(room_id, s) for s in room_seats])
        return int(room_id)

    def fence_room(self, conn: Connection, room_id: int, epoch: int | None) -> None:
        """Inside a write transaction of a room: raise if this process lost its lease."""
        if epoch is not None and self.fence is not None:
            self.fence(conn, room_id, epoch)

    def write_seat(self, conn: Connection, room_id: int, seat: StoredSeat) -> None:
        """One seat as it is now (inside the caller's transaction); the room counts as updated."""
        conn.execute(
            update(seats)
            .where(seats.c.room_id == room_id, seats.c.seat == seat.seat)
            .values(
                kind=seat.kind,
                nickname=seat.nickname,
                token_hash=seat.token_hash,
                host=seat.host,
                account_id=seat.account_id,
            )
        )
        conn.execute(update(rooms).where(rooms.c.id == room_id).values(updated_at=time.time()))

    def update_seat(self, room_id: int, seat: StoredSeat, epoch: int | None = None) -> None:
        with self.engine.begin() as conn:
            self.fence_room(conn, room_id, epoch)
            self.write_seat(conn, room_id, seat)

    def start(self, room_id: int, seed: int, room_seats: list[StoredSeat], epoch: int | None = None) -> None:
        """The host started: the seed and the seats as dealt, in one transaction."""
        with self.engine.begin() as conn:
            self.fence_room(conn, room_id, epoch)
            for s in room_seats:
                conn.execute(
                    update(seats)
                    .where(seats.c.room_id == room_id, seats.c.seat == s.seat)
                    .values(
                        kind=s.kind,
                        nickname=s.nickname,
                        token_hash=s.token_hash,
                        host=s.host,
                        account_id=s.account_id,
                    )
                )
            conn.execute(
                update(rooms)
                .where(rooms.c.id == room_id)
                .values(seed=seed, status="playing", updated_at=time.time(), **writer())
            )

    def set_status(self, room_id: int, status: str, epoch: int | None = None) -> None:
        """A room's status alone (``expired``: an idle lobby closed for good), fenced."""
        with self.engine.begin() as conn:
            self.fence_room(conn, room_id, epoch)
            conn.execute(
                update(rooms).where(rooms.c.id == room_id).values(status=status, updated_at=time.time())
            )

    def retire(self, room_id: int, reason: str, epoch: int | None = None) -> None:
        """End a room this engine cannot continue exactly: status ``retired`` and why. Its
        seats, seed, log and recorded versions stay as they were (readable, replayable by
        the release that wrote them)."""
        with self.engine.begin() as conn:
            self.fence_room(conn, room_id, epoch)
            conn.execute(
                update(rooms)
                .where(rooms.c.id == room_id)
                .values(status="retired", retired=reason, updated_at=time.time())
            )

    def append(self, room_id: int, seq: int, seat: int, action: str, status: str | None = None) -> None:
        """One log entry (and the room's new status), committed before returning.

        ``seq`` is the primary key with the room: a second writer of the same ``seq`` fails
        instead of forking the log.
        """
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(insert(actions).values(room_id=room_id, seq=seq, seat=seat, action=action, at=now))
            values: dict[str, Any] = {"updated_at": now, **writer()}
            if status is not None:
                values["status"] = status
            conn.execute(update(rooms).where(rooms.c.id == room_id).values(**values))

    def append_many(self, entries: list[Entry]) -> None:
        """Several log entries (:data:`Entry`) in one transaction, each room's lease fenced."""
        now = time.time()
        with self.engine.begin() as conn:
            # In room order: concurrent transactions lock the lease rows alike (no deadlock).
            for room_id, epoch in sorted({(e[0], e[5]) for e in entries if e[5] is not None}):
                self.fence_room(conn, room_id, epoch)
            conn.execute(
                insert(actions),
                [{"room_id": r, "seq": q, "seat": s, "action": a, "at": now} for r, q, s, a, _, _ in entries],
            )
            for room_id, _, _, _, status, _ in entries:
                values: dict[str, Any] = {"updated_at": now, **writer()}
                if status is not None:
                    values["status"] = status
                conn.execute(update(rooms).where(rooms.c.id == room_id).values(**values))

    # -- reads -------------------------------------------------------------------------

    def load_rooms(self, since: float = 0.0) -> Iterator[StoredRoom]:
        """Every room updated after ``since``, with its seats and its whole log."""
        with self.engine.connect() as conn:
            room_rows = conn.execute(
                select(rooms).where(rooms.c.updated_at >= since).order_by(rooms.c.id)
            ).all()
            for row in room_rows:
                yield _stored_room(conn, row)

    def load_room(self, room_id: int) -> StoredRoom | None:
        """One room with its seats and its whole log (a process taking the room over)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(rooms).where(rooms.c.id == room_id)).first()
            return _stored_room(conn, row) if row is not None else None

    def room_id(self, code: str, since: float = 0.0) -> int | None:
        """The id of the room with this join code, if it was updated after ``since`` and is
        not an expired lobby (closed for good: never opened again)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(rooms.c.id).where(
                    rooms.c.code == code, rooms.c.updated_at >= since, rooms.c.status != "expired"
                )
            ).first()
        return int(row.id) if row is not None else None

    def id_of(self, code: str) -> int | None:
        """The id of the room that ever had this join code, expired lobbies included: its kept
        games and rated rounds outlive the room (codes are never given twice)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(rooms.c.id).where(rooms.c.code == code)).first()
        return int(row.id) if row is not None else None

    def seated_in(self, room_id: int, digest: str | None, account_id: str | None) -> bool:
        """Whether a seat of the room is held by this seat token's digest or this account."""
        wanted = []
        if digest is not None:
            wanted.append(seats.c.token_hash == digest)
        if account_id is not None:
            wanted.append(seats.c.account_id == account_id)
        if not wanted:
            return False
        with self.engine.connect() as conn:
            row = conn.execute(select(seats.c.seat).where(seats.c.room_id == room_id, or_(*wanted)).limit(1))
            return row.first() is not None

    def rated_in_play(self, code: str) -> bool:
        """Whether the room with this join code is a rated room still being played (asked of
        storage, so that it holds whichever process runs the room)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(rooms.c.status, rooms.c.settings).where(rooms.c.code == code)).first()
        return row is not None and row.status == "playing" and bool(json.loads(row.settings).get("rated"))

    def last_entry(self, room_id: int) -> tuple[int, int, str] | None:
        """``(seq, seat, action)`` of the room's newest log entry (to settle an in-doubt commit)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(actions.c.seq, actions.c.seat, actions.c.action)
                .where(actions.c.room_id == room_id)
                .order_by(actions.c.seq.desc())
                .limit(1)
            ).first()
        return (row.seq, row.seat, row.action) if row is not None else None

    def open_rooms(self, ids: list[int], since: float) -> list[int]:
        """Those of ``ids`` still in the lobby or being played, updated after ``since``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(rooms.c.id).where(
                    rooms.c.id.in_(ids), rooms.c.status.in_(("lobby", "playing")), rooms.c.updated_at >= since
                )
            ).all()
        return [int(r.id) for r in rows]

    def code_exists(self, code: str) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(select(rooms.c.id).where(rooms.c.code == code)).first() is not None

    def log(self, room_id: int) -> list[tuple[int, str]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(actions.c.seat, actions.c.action)
                .where(actions.c.room_id == room_id)
                .order_by(actions.c.seq)
            ).all()
        return [(r.seat, r.action) for r in rows]


def _stored_room(conn: Connection, row: Any) -> StoredRoom:
    seat_rows = conn.execute(select(seats).where(seats.c.room_id == row.id).order_by(seats.c.seat)).all()
    log_rows = conn.execute(
        select(actions.c.seat, actions.c.action, actions.c.at)
        .where(actions.c.room_id == row.id)
        .order_by(actions.c.seq)
    ).all()
    return StoredRoom(
        id=row.id,
        code=row.code,
        status=row.status,
        settings=json.loads(row.settings),
        seed=row.seed,
        seats=[
            StoredSeat(r.seat, r.kind, r.nickname, r.token_hash, bool(r.host), r.account_id)
            for r in seat_rows
        ],
        log=[(r.seat, r.action) for r in log_rows],
        state_format=row.state_format,
        engine_version=row.engine_version,
        retired=row.retired,
        last_at=float(log_rows[-1].at) if log_rows else None,
    )


def _seat_row(room_id: int, s: StoredSeat) -> dict[str, Any]:
    return {
        "room_id": room_id,
        "seat": s.seat,
        "kind": s.kind,
        "nickname": s.nickname,
        "token_hash": s.token_hash,
        "host": s.host,
        "account_id": s.account_id,
    }


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL keeps readers off the writer's back; synchronous=FULL: a commit survives SIGKILL
    and power loss alike (NORMAL in WAL mode would only lose on power loss)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
