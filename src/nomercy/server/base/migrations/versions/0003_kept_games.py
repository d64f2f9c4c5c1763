"""Kept games: every finished round's record outlives its room, with its seats, review and hints.

Four new tables only (nothing existing changes), so a process of the release before keeps
running on the upgraded schema during a rolling upgrade (it simply keeps no games).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nomercy_games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("room_id", sa.Integer, nullable=False),
        sa.Column("room_code", sa.String(12), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.Column("access", sa.String(8), nullable=False),
        sa.Column("info", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.UniqueConstraint("room_id", "seq", name="nomercy_games_round"),
    )
    op.create_index("nomercy_games_room", "nomercy_games", ["room_id"])
    op.create_index("ix_nomercy_games_finished_at", "nomercy_games", ["finished_at"])
    op.create_table(
        "nomercy_game_seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("nomercy_games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
    )
    op.create_index("ix_nomercy_game_seats_token_hash", "nomercy_game_seats", ["token_hash"])
    op.create_table(
        "nomercy_reviews",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("nomercy_games.id"), primary_key=True),
        sa.Column("review", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "nomercy_hints",
        sa.Column("room_id", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nomercy_hints")
    op.drop_table("nomercy_reviews")
    op.drop_index("ix_nomercy_game_seats_token_hash", "nomercy_game_seats")
    op.drop_table("nomercy_game_seats")
    op.drop_index("ix_nomercy_games_finished_at", "nomercy_games")
    op.drop_index("nomercy_games_room", "nomercy_games")
    op.drop_table("nomercy_games")
