"""Alembic's entry point: runs the migrations on the connection nomercy hands it.

:mod:`nomercy.server.base.schema` always passes an open connection (inside its transaction,
under the PostgreSQL advisory lock), so there is no URL or offline mode to set up here.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, version_table="nomercy_alembic_version")
with context.begin_transaction():
    context.run_migrations()
