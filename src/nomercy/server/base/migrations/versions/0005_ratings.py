"""Ratings: an OpenSkill rating per player and preset, and the change each rated game made.

A player is ``account:<id>`` or ``bot:<level>`` (one identity per bot level). New tables
only: a process of the release before keeps running during a rolling upgrade.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nomercy_ratings",
        sa.Column("player", sa.String(48), primary_key=True),
        sa.Column("preset", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "nomercy_rating_changes",
        # No foreign key to the game: a rating's history outlives the games retention prunes.
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("player", sa.String(48), primary_key=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_nomercy_rating_changes_player", "nomercy_rating_changes", ["player", "at"])


def downgrade() -> None:
    op.drop_index("ix_nomercy_rating_changes_player", "nomercy_rating_changes")
    op.drop_table("nomercy_rating_changes")
    op.drop_table("nomercy_ratings")
