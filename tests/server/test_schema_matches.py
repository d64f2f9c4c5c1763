"""The tables the code declares are the tables the migrations make: a column added to one and
not the other would pass every test on a fresh database and fail on an upgraded one."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine

import nomercy.server.games.store
import nomercy.server.players.accounts
import nomercy.server.players.daily
import nomercy.server.players.fairplay
import nomercy.server.players.ratings
import nomercy.server.rooms.leases
import nomercy.server.rooms.social  # noqa: F401  (each registers its tables on the metadata)
from nomercy.server.base import schema
from nomercy.server.base.tables import metadata


def test_migrated_schema_is_the_declared_one(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 's.sqlite3'}")
    try:
        schema.upgrade(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": False, "version_table": schema.VERSION_TABLE}
            )
            diff = [
                d
                for d in compare_metadata(context, metadata)
                if not (isinstance(d, tuple) and d[0] == "remove_table" and d[1].name == schema.VERSION_TABLE)
            ]
        assert diff == []
    finally:
        engine.dispose()
