"""Each room records the state format and engine version that wrote it, and why it was retired.

Rooms written before this revision keep NULL in both (unknown: nomercy 0.1.0 recorded
neither); :mod:`nomercy.server.base.upgrades` reads NULL as that release. ``retired`` stays NULL
until an engine that cannot continue a room exactly ends it (status ``retired``).
Only nullable columns are added: a process of the release before keeps running on the
upgraded schema during a rolling upgrade.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nomercy_rooms", sa.Column("state_format", sa.Integer, nullable=True))
    op.add_column("nomercy_rooms", sa.Column("engine_version", sa.String(32), nullable=True))
    op.add_column("nomercy_rooms", sa.Column("retired", sa.Text, nullable=True))


def downgrade() -> None:
    op.drop_column("nomercy_rooms", "retired")
    op.drop_column("nomercy_rooms", "engine_version")
    op.drop_column("nomercy_rooms", "state_format")
