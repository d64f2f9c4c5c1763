"""The schema as ``create_all`` made it before migrations (nomercy 0.1.0).

A database written by that release already has these tables: each is created only where
it is missing, so upgrading adopts such a database as it is (nothing is rewritten).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def _tables() -> list[tuple[str, list[sa.Column[Any]]]]:
    """The six tables, column for column as the 0.1.0 metadata declared them."""
    return [
        (
            "nomercy_rooms",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("code", sa.String(12), nullable=False, unique=True),
                sa.Column("created_at", sa.Float, nullable=False),
                sa.Column("updated_at", sa.Float, nullable=False),
                sa.Column("status", sa.String(16), nullable=False),
                sa.Column("settings", sa.Text, nullable=False),
                sa.Column("seed", sa.BigInteger, nullable=True),
            ],
        ),
        (
            "nomercy_leases",
            [
                sa.Column("room_id", sa.Integer, primary_key=True),
                sa.Column("owner", sa.String(96), nullable=True),
                sa.Column("owner_key", sa.BigInteger, nullable=True),
                sa.Column("epoch", sa.Integer, nullable=False),
                sa.Column("expires_at", sa.Float, nullable=False),
                sa.Column("acquired_at", sa.Float, nullable=False),
                sa.Column("requested_at", sa.Float, nullable=True),
            ],
        ),
        (
            "nomercy_seats",
            [
                sa.Column("room_id", sa.Integer, sa.ForeignKey("nomercy_rooms.id"), primary_key=True),
                sa.Column("seat", sa.Integer, primary_key=True),
                sa.Column("kind", sa.String(8), nullable=False),
                sa.Column("nickname", sa.String(64), nullable=True),
                sa.Column("token_hash", sa.String(64), nullable=True),
                sa.Column("host", sa.Boolean, nullable=False),
            ],
        ),
        (
            "nomercy_actions",
            [
                sa.Column("room_id", sa.Integer, sa.ForeignKey("nomercy_rooms.id"), primary_key=True),
                sa.Column("seq", sa.Integer, primary_key=True),
                sa.Column("seat", sa.Integer, nullable=False),
                sa.Column("action", sa.String(64), nullable=False),
                sa.Column("at", sa.Float, nullable=False),
            ],
        ),
        (
            "nomercy_chat",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("room_id", sa.Integer, sa.ForeignKey("nomercy_rooms.id"), nullable=False),
                sa.Column("seat", sa.Integer, nullable=False),
                sa.Column("nickname", sa.String(64), nullable=False),
                sa.Column("text", sa.String(400), nullable=False),
                sa.Column("at", sa.Float, nullable=False),
            ],
        ),
        (
            "nomercy_removed",
            [
                sa.Column("room_id", sa.Integer, sa.ForeignKey("nomercy_rooms.id"), primary_key=True),
                sa.Column("seat", sa.Integer, primary_key=True),
                sa.Column("nickname", sa.String(64), nullable=False),
                sa.Column("token_hash", sa.String(64), nullable=False),
            ],
        ),
    ]


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, columns in _tables():
        if name not in present:
            op.create_table(name, *columns)
    if "nomercy_chat" not in present:
        op.create_index("ix_nomercy_chat_room_id", "nomercy_chat", ["room_id"])


def downgrade() -> None:
    for name, _ in reversed(_tables()):
        op.drop_table(name)
