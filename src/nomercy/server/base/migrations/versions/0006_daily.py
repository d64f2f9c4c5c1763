"""The daily deal: one deal per UTC day and preset, and each entrant's result.

The deal's seed is derived from the server's secret (``nomercy_secrets``, made at first
use) and the day; it is not stored anywhere a client can read. New tables only: a process
of the release before keeps running during a rolling upgrade.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nomercy_daily_results",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("preset", sa.String(32), primary_key=True),
        #: ``account:<id>``: one rated attempt per account and day (guests are not kept here).
        sa.Column("entrant", sa.String(48), primary_key=True),
        #: The kept round; null while it is played, and again once retention prunes the game.
        sa.Column(
            "game_id", sa.String(32), sa.ForeignKey("nomercy_games.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("room_id", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("points", sa.Integer, nullable=True),
        sa.Column("turns", sa.Integer, nullable=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
    )

    op.create_table(
        "nomercy_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.LargeBinary(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nomercy_secrets")
    op.drop_table("nomercy_daily_results")
