"""The database schema's version: ``nomercy db upgrade / current / downgrade``, and the check
``nomercy serve`` makes before it opens storage.

The schema moves only by the Alembic migrations in :mod:`nomercy.server.migrations`
(shipped in the package: no ``alembic.ini``). What ``serve`` does with the schema it finds:

- an empty database: it is created at the newest revision (a first start needs no command);
- the newest revision: served;
- anything else (a database of an earlier release, before or after it had migrations, or
  one migrated by a newer release): refused with :class:`SchemaMismatch`, whose message
  names the command to run. Migrating is the operator's step (after a backup), never a
  side effect of a restart.

On PostgreSQL every check and migration runs under one advisory lock inside its
transaction, so processes started together never race a migration.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from importlib import resources

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
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
    cfg.set_main_option("script_location", str(resources.files("nomercy.server") / "migrations"))
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


def downgrade(engine: Engine, revision: str) -> tuple[str | None, str | None]:
    """Migrate down to ``revision`` (``base`` drops every table); returns (before, after)."""
    with locked(engine) as conn:
        before = current_of(conn)
        if before == UNVERSIONED or before is None:
            raise SchemaMismatch(f"the database is at revision {before or 'none'}: nothing to downgrade")
        _run(conn, "downgrade", revision)
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
        f"{newest}): a newer nomercy migrated it. Run that release's `nomercy db downgrade {newest}`, "
        "or install it again"
    )
