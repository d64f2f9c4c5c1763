"""The tables the code declares are the tables the migrations make: a column added to one and
not the other would pass every test on a fresh database and fail on an upgraded one."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine

import nomercy.server.accounts
import nomercy.server.daily
import nomercy.server.fairplay
import nomercy.server.games
import nomercy.server.leases
import nomercy.server.ratings
import nomercy.server.social  # noqa: F401  (each registers its tables on the metadata)
from nomercy.server import schema
from nomercy.server.storage import metadata


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
