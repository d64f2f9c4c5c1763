"""The database schema's version: ``nomercy db upgrade / current / downgrade``, and the check
``nomercy serve`` makes before it opens storage.

The schema moves only by the Alembic migrations in :mod:`nomercy.server.base.migrations`
(shipped in the package: no ``alembic.ini``). What ``serve`` does with the schema it finds:

- an empty database: it is created at the newest revision (a first start needs no command);
- the newest revision: served;
- anything else (a database of an earlier release, before or after it had migrations, or
  one migrated by a newer release): refused with :class:`SchemaMismatch`, whose message
  names the command to run. Migrating is the operator's step (after a backup), never a
  side effect of a restart.

On PostgreSQL every check and migration runs under one advisory lock inside its
transaction, so processes started together never race a migration.

A downgrade (:func:`downgrade`) is refused while any server uses the database, shows what
it drops (:class:`Downgrade`) before it drops it, and ends, in its transaction, the rooms
that the release it goes back to cannot continue (:mod:`nomercy.server.base.upgrades`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import IO

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import bindparam, create_engine, func, inspect, select, text
from sqlalchemy import column as column_
from sqlalchemy import table as table_
from sqlalchemy.engine import Connection, Engine

#: The Alembic version table (prefixed like the others: the database may be shared).
VERSION_TABLE = "nomercy_alembic_version"
#: Advisory lock of schema changes and of processes starting together (PostgreSQL).
LOCK_KEY = 7210334501
#: What ``current`` reports for tables written before migrations existed (nomercy 0.1.0).
UNVERSIONED = "unversioned"


class SchemaMismatch(Exception):
    """The database's schema is not the one this nomercy serves; the message says what to run."""


def config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("nomercy.server.base") / "migrations"))
    return cfg


def head() -> str:
    """The newest revision this nomercy knows."""
    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def known(revision: str) -> bool:
    try:
        return ScriptDirectory.from_config(config()).get_revision(revision) is not None
    except Exception:
        return False


@contextlib.contextmanager
def locked(engine: Engine) -> Iterator[Connection]:
    """One transaction, holding the schema lock on PostgreSQL (released at its end)."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text(f"SELECT pg_advisory_xact_lock({LOCK_KEY})"))
        yield conn


def current_of(conn: Connection) -> str | None:
    """The database's revision; :data:`UNVERSIONED` for 0.1.0's tables; None when empty."""
    revision = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE}).get_current_revision()
    if revision is not None:
        return revision
    return UNVERSIONED if inspect(conn).has_table("nomercy_rooms") else None


def current(engine: Engine) -> str | None:
    with locked(engine) as conn:
        return current_of(conn)


def _run(conn: Connection, action: str, revision: str) -> None:
    cfg = config()
    cfg.attributes["connection"] = conn
    if action == "upgrade":
        command.upgrade(cfg, revision)
    else:
        command.downgrade(cfg, revision)


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Migrate up to ``revision``; returns (before, after). 0.1.0's tables are adopted as
    they are (the first revision creates only what is missing)."""
    with locked(engine) as conn:
        before = current_of(conn)
        _run(conn, "upgrade", revision)
        return before, current_of(conn)


#: What each table holds, for the list of what a downgrade drops.
HOLDS = {
    "nomercy_accounts": "accounts",
    "nomercy_sessions": "sign-in sessions",
    "nomercy_passkeys": "passkeys",
    "nomercy_ceremonies": "passkey ceremonies under way",
    "nomercy_ratings": "ratings",
    "nomercy_rating_changes": "rating changes",
    "nomercy_secrets": "the daily deal's secret",
    "nomercy_daily_results": "daily deal results",
    "nomercy_games": "kept games",
    "nomercy_game_seats": "kept games' seats",
    "nomercy_reviews": "reviews of kept games",
    "nomercy_hints": "the coach's hints",
    "nomercy_fairplay": "the fair-play log",
    "nomercy_fairplay_accounts": "accounts named in the fair-play log",
    "nomercy_fairplay_seen": "addresses seen in rated rooms, hashed",
    "nomercy_fairplay_allowed": "accounts allowed to share an address",
    "nomercy_rated_seats": "rated rounds' rankings",
}


class DatabaseBusy(Exception):
    """A ``nomercy serve`` uses the database: a downgrade would pull the schema from under it."""


@dataclass
class Downgrade:
    """What ``nomercy db downgrade`` will do, shown before it is done."""

    before: str
    target: str  # a revision, or "base"
    #: ``(table, rows, what it holds)`` of every table the downgrade drops.
    tables: list[tuple[str, int, str]] = field(default_factory=list)
    #: ``(table, column, values)`` of every column dropped from a table that stays.
    columns: list[tuple[str, str, int]] = field(default_factory=list)
    #: ``(code, why)`` of every room the release at ``target`` could not continue: ended.
    rooms: list[tuple[str, str]] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The plan in words, for the operator."""
        from nomercy.server.base import upgrades

        out = [f"database: {self.before} -> {self.target}"]
        if self.target == upgrades.OLDER_SCHEMA:
            out[0] += f" (the schema of nomercy {upgrades.OLDER_RELEASE})"
        if self.tables:
            out.append("These tables are dropped, with every row in them:")
            out += [f"  {t}: {n} row(s) ({what})" for t, n, what in self.tables]
        if self.columns:
            out.append("These columns are dropped:")
            out += [f"  {t}.{c}: {n} value(s)" for t, c, n in self.columns]
        if self.rooms:
            out.append(
                f"These rooms end (stored as expired), as nomercy {upgrades.OLDER_RELEASE} cannot "
                "continue them; their players are told the room is gone:"
            )
            out += [f"  {code}: {why}" for code, why in self.rooms]
        if not (self.tables or self.columns or self.rooms):
            out.append("Nothing stored is lost.")
        return out


def _chain() -> list[str]:
    """Every revision, newest first (the migrations are one line)."""
    return [r.revision for r in ScriptDirectory.from_config(config()).walk_revisions()]


def target_of(before: str, revision: str) -> str:
    """The revision ``revision`` names from ``before`` (``-N``: N steps down; ``base``)."""
    chain = _chain()
    if before not in chain:
        raise SchemaMismatch(f"the database is at revision {before}, which this nomercy does not know")
    here = chain.index(before)
    if revision == "base":
        return "base"
    if revision.startswith("-") and revision[1:].isdigit():
        down = here + int(revision[1:])
        if down > len(chain):
            raise SchemaMismatch(f"revision {before} is fewer than {revision[1:]} steps above the base")
        return "base" if down == len(chain) else chain[down]
    if revision not in chain:
        raise SchemaMismatch(f"no revision {revision}: this nomercy knows {', '.join(reversed(chain))}")
    if chain.index(revision) < here:
        raise SchemaMismatch(f"revision {revision} is newer than the database's {before}: not a downgrade")
    return revision


def _shape(conn: Connection) -> dict[str, set[str]]:
    found = inspect(conn)
    return {
        t: {c["name"] for c in found.get_columns(t)}
        for t in found.get_table_names()
        if t.startswith("nomercy_") and t != VERSION_TABLE
    }


def _shape_at(target: str) -> dict[str, set[str]]:
    """The tables and columns of an empty database migrated to ``target``."""
    if target == "base":
        return {}
    scratch = create_engine("sqlite://")
    try:
        with scratch.begin() as conn:
            _run(conn, "upgrade", target)
            return _shape(conn)
    finally:
        scratch.dispose()


def plan(conn: Connection, before: str, target: str) -> Downgrade:
    """What a downgrade from ``before`` to ``target`` drops and ends, counted on this database."""
    from nomercy.server.base import upgrades

    now, then = _shape(conn), _shape_at(target)
    down = Downgrade(before, target)
    for table in sorted(set(now) - set(then)):
        rows = int(conn.execute(select(func.count()).select_from(table_(table))).scalar_one())
        down.tables.append((table, rows, HOLDS.get(table, table.removeprefix("nomercy_"))))
    for table in sorted(set(now) & set(then)):
        for column in sorted(now[table] - then[table]):
            values = conn.execute(select(func.count(column_(column))).select_from(table_(table))).scalar_one()
            down.columns.append((table, column, int(values)))
    if target == upgrades.OLDER_SCHEMA and "engine_version" in now.get("nomercy_rooms", set()):
        found = conn.execute(
            text(
                "SELECT code, status, settings, state_format, engine_version FROM nomercy_rooms "
                "WHERE status != :ended ORDER BY id"
            ),
            {"ended": upgrades.ENDED_FOR_OLDER},
        ).all()
        for row in found:
            try:
                settings = json.loads(row.settings)
            except ValueError:
                settings = {"bot": "unreadable settings"}
            why = upgrades.older_cannot_continue(row.status, settings, row.state_format, row.engine_version)
            if why is not None:
                down.rooms.append((row.code, why))
    return down


def servers_on(conn: Connection) -> list[str]:
    """The ``nomercy serve`` processes using this database, each described (none: []).

    PostgreSQL: every process holds an advisory lock for as long as it lives (its liveness
    lock; a starting one, the schema lock), so any other session holding one in this
    database is a server. SQLite: a server holds the lock on ``FILE.lock``
    (:func:`nomercy.server.rooms.leases.lock_sqlite`).
    """
    if conn.dialect.name == "postgresql":
        rows = conn.execute(
            text(
                "SELECT DISTINCT l.pid, a.client_addr, a.application_name FROM pg_locks l "
                "LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
                "AND l.granted AND l.pid <> pg_backend_pid() AND l.database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY l.pid"
            )
        ).all()
        return [f"a session of PostgreSQL process {r.pid} (client {r.client_addr or 'local'})" for r in rows]
    return []


@contextlib.contextmanager
def _sqlite_held(engine: Engine) -> Iterator[list[str]]:
    """Hold the SQLite file's server lock for the block (no server starts meanwhile); yields
    the server found holding it instead, if any."""
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    if not path or path == ":memory:":
        yield []
        return
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock to ask
        yield []
        return
    handle: IO[str] = open(os.path.abspath(path) + ".lock", "a+")  # noqa: SIM115
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            pid = handle.read().strip() or "unknown"
            yield [f"nomercy serve (process {pid}) holds {path}.lock"]
            return
        yield []
    finally:
        handle.close()  # the lock goes with it


def downgrade(
    engine: Engine, revision: str, confirm: Callable[[Downgrade], bool] | None = None
) -> tuple[str | None, str | None]:
    """Migrate down to ``revision`` (``base`` drops every table); returns (before, after).

    Refused with :class:`DatabaseBusy` while a server uses the database. ``confirm`` is
    shown the :class:`Downgrade` first (what is dropped, which rooms end) and may refuse it
    (then nothing changes: returns (before, before)). Rooms the release at the target
    cannot continue are ended in the same transaction.
    """
    from nomercy.server.base import upgrades

    with _sqlite_held(engine) as holders, locked(engine) as conn:
        before = current_of(conn)
        if before == UNVERSIONED or before is None:
            raise SchemaMismatch(f"the database is at revision {before or 'none'}: nothing to downgrade")
        holders = holders + servers_on(conn)
        if holders:
            raise DatabaseBusy(
                "a nomercy serve is using this database: stop every server first (a downgrade "
                "under a running server makes it fail on every request). Found: " + "; ".join(holders)
            )
        target = target_of(before, revision)
        down = plan(conn, before, target)
        if confirm is not None and not confirm(down):
            return before, before
        codes = [code for code, _ in down.rooms]
        if codes:
            conn.execute(
                text("UPDATE nomercy_rooms SET status = :ended WHERE code IN :codes").bindparams(
                    bindparam("codes", expanding=True)
                ),
                {"ended": upgrades.ENDED_FOR_OLDER, "codes": codes},
            )
        _run(conn, "downgrade", target)
        return before, current_of(conn)


def ensure(engine: Engine) -> None:
    """What ``serve`` does at startup (see the module's docstring)."""
    newest = head()
    with locked(engine) as conn:
        found = current_of(conn)
        if found is None:
            _run(conn, "upgrade", "head")
            return
        if found == newest:
            return
    raise SchemaMismatch(mismatch_message(found, newest))


def check_url(url: str) -> None:
    """:func:`ensure` on a database given by URL (``nomercy serve`` before it starts)."""
    from sqlalchemy import create_engine

    engine = create_engine(url)
    try:
        ensure(engine)
    finally:
        engine.dispose()


def mismatch_message(found: str, newest: str) -> str:
    if found == UNVERSIONED or known(found):
        return (
            f"the database schema is at revision {found}, this nomercy serves {newest}: back the "
            "database up, then run `nomercy db upgrade` (with the same --database-url or "
            "NOMERCY_DATABASE_URL) and start again"
        )
    return (
        f"the database schema is at revision {found}, which this nomercy does not know (it serves "
        f"{newest}): a newer nomercy migrated it. Stop every server and run that release's "
        f"`nomercy db downgrade {newest}`, or install it again"
    )
