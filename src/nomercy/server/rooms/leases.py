"""Which process runs each room: leases in the database, and the SQLite single-process lock.

Several ``nomercy serve`` processes may share one PostgreSQL. Each room is then run by
exactly one of them, the holder of its row in ``nomercy_leases``:

- ``epoch`` grows by one at every acquisition. Every write of a room (log entries, seats,
  the start) runs :meth:`SharedLeases.fence` *in the same transaction*: an ``UPDATE`` that
  matches only while this process still holds the lease at the epoch it loaded the room
  with. A process that lost its lease therefore can never append to the room's log: the
  row lock serialises the fence with a takeover, and the loser's transaction fails.
- ``expires_at`` (the database's clock, so processes need not agree on time) is pushed
  forward by every fence and by :meth:`SharedLeases.renew`; an expired lease is free.
- Each process holds a PostgreSQL session advisory lock on its own random ``owner_key``
  for as long as it lives. When it dies (even by SIGKILL) the server drops the lock with
  the connection, so another process sees at once that the owner is gone and takes the
  room without waiting for the expiry.
- A process cut off from the database (a restart of PostgreSQL, a broken network) comes
  back to find every lease expired and every other process's advisory lock gone, only
  because nobody could renew or hold anything meanwhile. It therefore judges no other
  process's lease expired or its owner dead until a whole lease's lifetime after it got
  back (:meth:`SharedLeases.reconnected`): the others have had that long to renew, and a
  database outage moves no room. A lease released by its owner is free at once.
- ``requested_at``: another process was asked for the room (the proxy routes the room
  there now); the holder hands it over at a renewal, unless the proxy still routes the
  room to it too (``Cluster.step``). A request older than the lease's lifetime is stale:
  the process that asked has stopped asking.

SQLite keeps one process: :func:`lock_sqlite` takes an exclusive lock on a file beside
the database and refuses a second ``nomercy serve`` with a clear message.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import time
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    Integer,
    String,
    Table,
    and_,
    exists,
    func,
    literal_column,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.sql.elements import ColumnElement

from nomercy.server.base.tables import actions, games, metadata, rooms

leases = Table(
    "nomercy_leases",
    metadata,
    Column("room_id", Integer, primary_key=True),
    #: ``host:pid:key`` of the process that runs the room, or NULL when released.
    Column("owner", String(96), nullable=True),
    #: The owner's liveness advisory lock (PostgreSQL).
    Column("owner_key", BigInteger, nullable=True),
    Column("epoch", Integer, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("acquired_at", Float, nullable=False),
    #: When another process last asked for the room (it gets it at the next renewal).
    Column("requested_at", Float, nullable=True),
)


class LeaseLost(Exception):
    """This process no longer holds the room's lease: the write was refused (fenced)."""

    def __init__(self, room_id: int) -> None:
        super().__init__(f"lease of room {room_id} lost")
        self.room_id = room_id


class SharedLeases:
    """Room leases for several processes on one database (PostgreSQL in production)."""

    def __init__(self, engine: Engine, ttl: float = 10.0) -> None:
        self.engine = engine
        self.ttl = ttl
        self.postgres = engine.dialect.name == "postgresql"
        self.key = secrets.randbits(62)
        self.owner = f"{socket.gethostname()[:48]}:{os.getpid()}:{self.key:x}"
        self._alive: Connection | None = None
        #: ``time.monotonic()`` from which others' expired leases and free liveness locks
        #: mean what they say (see :meth:`reconnected`); 0: since the start.
        self.judging_from = 0.0
        with engine.begin() as conn:
            if self.postgres:  # processes starting together: one at a time
                conn.execute(text("SELECT pg_advisory_xact_lock(7210334501)"))
            leases.create(conn, checkfirst=True)

    # -- liveness ------------------------------------------------------------------------

    def start(self) -> None:
        """Hold this process's liveness lock (PostgreSQL) until :meth:`close`."""
        if not self.postgres:
            return
        conn = self.engine.connect()
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": self.key})
        conn.commit()
        self._alive = conn

    def heartbeat(self) -> None:
        """Check the liveness connection; take the lock again on a new one if it broke."""
        if not self.postgres:
            return
        if self._alive is not None:
            try:
                self._alive.execute(text("SELECT 1"))
                self._alive.commit()
                return
            except Exception:
                with contextlib.suppress(Exception):  # a broken connection: nothing to clean
                    self._alive.invalidate()
                    self._alive.close()
                self._alive = None
        self.start()
        self.reconnected()  # the lock was lost with its connection (or never retaken): back now

    def reconnected(self) -> None:
        """This process was cut off from the database and is back: for a lease's lifetime,
        judge no other process gone. Their leases expired and their liveness locks were
        dropped while nobody could reach the database; they renew within that time if alive."""
        self.judging_from = time.monotonic() + self.ttl

    def judging(self) -> bool:
        """May an expired lease or a free liveness lock be taken as its owner gone?"""
        return time.monotonic() >= self.judging_from

    def close(self) -> None:
        """Drop the liveness lock: the connection itself closes (a pooled one would keep it)."""
        if self._alive is not None:
            try:
                self._alive.invalidate()
                self._alive.close()
            finally:
                self._alive = None

    def _dead(self, conn: Connection, key: int | None) -> bool:
        """Is the process with this liveness key gone? (Its advisory lock is free.)"""
        if not self.postgres or key is None or key == self.key:
            return False
        # Transaction-level: released at this transaction's end, never kept.
        return bool(conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": key}).scalar())

    # -- the database's clock ------------------------------------------------------------

    def _now_sql(self) -> ColumnElement[Any]:
        if self.postgres:
            return literal_column("extract(epoch from clock_timestamp())")
        return literal_column("((julianday('now') - 2440587.5) * 86400.0)")

    def _now(self, conn: Connection) -> float:
        if self.postgres:
            return float(conn.execute(select(self._now_sql())).scalar_one())
        return time.time()

    # -- acquiring, fencing, renewing, releasing -----------------------------------------

    def acquire(self, room_id: int, request: bool = True) -> int | None:
        """Take the room's lease if it is free, expired, or its owner is gone: the new epoch.

        Otherwise None; with ``request`` the owner is asked to hand the room over.
        """
        try:
            with self.engine.begin() as conn:
                if self.postgres:  # a holder stalled mid-write must not stall this request too
                    conn.execute(text("SET LOCAL lock_timeout = '2s'"))
                now = self._now(conn)
                row = conn.execute(
                    select(leases).where(leases.c.room_id == room_id).with_for_update()
                ).first()
                values = {
                    "owner": self.owner,
                    "owner_key": self.key,
                    "expires_at": now + self.ttl,
                    "acquired_at": now,
                    "requested_at": None,
                }
                if row is None:
                    conn.execute(leases.insert().values(room_id=room_id, epoch=1, **values))
                    return 1
                free = (
                    row.owner is None
                    or row.owner == self.owner
                    or (self.judging() and (row.expires_at < now or self._dead(conn, row.owner_key)))
                )
                if not free:
                    if request:
                        conn.execute(
                            update(leases)
                            .where(leases.c.room_id == room_id, leases.c.epoch == row.epoch)
                            .values(requested_at=now)
                        )
                    return None
                epoch = int(row.epoch) + 1
                done = conn.execute(
                    update(leases)
                    .where(leases.c.room_id == room_id, leases.c.epoch == row.epoch)
                    .values(epoch=epoch, **values)
                )
                return epoch if done.rowcount == 1 else None
        except IntegrityError:  # another process inserted the first lease row meanwhile
            return None
        except OperationalError as exc:
            if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_timeout: the holder is mid-write
                return None
            raise

    def fence(self, conn: Connection, room_id: int, epoch: int) -> None:
        """Inside a write's transaction: still ours at ``epoch``? Renews it; else LeaseLost."""
        done = conn.execute(
            update(leases)
            .where(leases.c.room_id == room_id, leases.c.epoch == epoch, leases.c.owner == self.owner)
            .values(expires_at=self._now_sql() + self.ttl)
        )
        if done.rowcount != 1:
            raise LeaseLost(room_id)

    def renew(self, held: dict[int, int]) -> tuple[set[int], set[int]]:
        """Push back the expiry of the rooms held (room id -> epoch).

        Returns the rooms lost (taken over by another process: drop them, they are no
        longer ours to write) and the rooms another process asked for within the lease's
        lifetime.
        """
        with self.engine.begin() as conn:
            now = self._now(conn)
            ids = sorted(held)
            rows: list[Any] = []
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                # Row locks in room order, as the fences of a group commit take them: no deadlock.
                conn.execute(
                    select(leases.c.room_id)
                    .where(leases.c.owner == self.owner, leases.c.room_id.in_(chunk))
                    .order_by(leases.c.room_id)
                    .with_for_update()
                )
                conn.execute(
                    update(leases)
                    .where(leases.c.owner == self.owner, leases.c.room_id.in_(chunk))
                    .values(expires_at=self._now_sql() + self.ttl)
                )
                rows += conn.execute(
                    select(leases.c.room_id, leases.c.epoch, leases.c.requested_at).where(
                        leases.c.owner == self.owner, leases.c.room_id.in_(chunk)
                    )
                ).all()
        mine = {r.room_id: r for r in rows}
        lost = {rid for rid, epoch in held.items() if rid not in mine or mine[rid].epoch != epoch}
        wanted = {
            rid
            for rid, r in mine.items()
            if r.requested_at is not None and r.requested_at >= now - self.ttl and rid not in lost
        }
        return lost, wanted

    def release(self, room_id: int, epoch: int, wait: bool = True) -> bool:
        """Give the room up (graceful shutdown, hand-over): free for the next process at once.
        True when released; False when it was no longer ours, or (``wait`` False: a shutdown)
        its row is locked by a stalled transaction, which it then does not wait for.

        Waiting, a row held by a stalled transaction fails it after 2 s (it expires by itself
        then): a hand-over never waits on it for long, nor leaves a thread behind."""
        mine = (leases.c.room_id == room_id, leases.c.epoch == epoch, leases.c.owner == self.owner)
        with self.engine.begin() as conn:
            if self.postgres:
                conn.execute(text("SET LOCAL lock_timeout = '2s'"))
                if not wait:
                    locked = select(leases.c.room_id).where(*mine).with_for_update(skip_locked=True)
                    if conn.execute(locked).first() is None:
                        return False
            done = conn.execute(
                update(leases)
                .where(*mine)
                .values(owner=None, owner_key=None, expires_at=0.0, requested_at=None)
            )
            return done.rowcount == 1

    def orphans(self, since: float, limit: int = 20) -> list[int]:
        """Rooms whose lease is free, expired or held by a process now gone, and that need
        running: being played, or finished with their last round not kept (the process
        that played the last action died before keeping it: whoever takes the room keeps it)."""
        last = select(func.max(actions.c.seq) + 1).where(actions.c.room_id == rooms.c.id).scalar_subquery()
        kept = exists().where(games.c.room_id == rooms.c.id, games.c.seq == last)
        with self.engine.begin() as conn:
            now = self._now(conn)
            rows = conn.execute(
                select(rooms.c.id, leases.c.owner, leases.c.owner_key, leases.c.expires_at)
                .select_from(rooms.outerjoin(leases, leases.c.room_id == rooms.c.id))
                .where(
                    or_(rooms.c.status == "playing", and_(rooms.c.status == "finished", ~kept)),
                    rooms.c.updated_at >= since,
                )
                .order_by(rooms.c.id)
            ).all()
            out: list[int] = []
            dead: dict[int, bool] = {}
            judging = self.judging()
            for r in rows:
                if r.owner == self.owner:
                    continue
                if r.owner is None:
                    out.append(r.id)
                elif not judging:
                    continue  # back from an outage: the owner may be renewing right now
                elif r.expires_at < now:
                    out.append(r.id)
                elif r.owner_key is not None:
                    if r.owner_key not in dead:
                        dead[r.owner_key] = self._dead(conn, r.owner_key)
                    if dead[r.owner_key]:
                        out.append(r.id)
                if len(out) >= limit:
                    break
        return out

    def owner_of(self, room_id: int) -> tuple[str | None, int] | None:
        """``(owner, epoch)`` of the room's lease row (tests, diagnostics)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(leases.c.owner, leases.c.epoch).where(leases.c.room_id == room_id)
            ).first()
        return (row.owner, int(row.epoch)) if row is not None else None


# -- SQLite: one process ------------------------------------------------------------------

_held_locks: dict[str, Any] = {}


class DatabaseInUse(RuntimeError):
    """Another process serves rooms from this SQLite file."""


def sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///...`` URL (None for an in-memory database)."""
    if not url.startswith("sqlite"):
        return None
    path = url.split("///", 1)[1] if "///" in url else ""
    path = path.split("?", 1)[0]
    return None if path in ("", ":memory:") else path


def lock_sqlite(url: str) -> None:
    """Refuse to serve a SQLite file that another process already serves.

    An exclusive ``flock`` on ``FILE.lock``, held until this process ends (the kernel
    releases it even after SIGKILL). Taking it again in the same process is a no-op.
    """
    path = sqlite_path(url)
    if path is None:
        return
    lock_path = os.path.abspath(path) + ".lock"
    if lock_path in _held_locks:
        return
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock (run one process there)
        return

    handle = open(lock_path, "a+")  # noqa: SIM115 (kept open: the lock lives with it)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise DatabaseInUse(
            f"another nomercy serve is already using {path}: SQLite serves rooms from one process only. "
            "Stop the other process, choose another --database-url, or use PostgreSQL "
            "(--database-url postgresql+psycopg://...) to run several processes."
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    _held_locks[lock_path] = handle
