"""Accounts: optional sign-in with passkeys, sessions, and the seats and games an account played.

New tables, and nullable ``account_id`` columns on seats and kept games' seats: a process
of the release before keeps running on the upgraded schema during a rolling upgrade (it
links nothing to accounts).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nomercy_accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(96), nullable=False, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("user_handle", sa.LargeBinary(64), nullable=False, unique=True),
    )
    op.create_table(
        "nomercy_passkeys",
        sa.Column("id", sa.String(512), primary_key=True),
        sa.Column("account_id", sa.String(32), sa.ForeignKey("nomercy_accounts.id"), nullable=False),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("transports", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("last_used_at", sa.Float, nullable=True),
    )
    op.create_index("ix_nomercy_passkeys_account_id", "nomercy_passkeys", ["account_id"])
    op.create_table(
        "nomercy_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(32), sa.ForeignKey("nomercy_accounts.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_nomercy_sessions_account_id", "nomercy_sessions", ["account_id"])
    op.create_table(
        "nomercy_ceremonies",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("purpose", sa.String(8), nullable=False),
        sa.Column("challenge", sa.LargeBinary(64), nullable=False),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column("user_handle", sa.LargeBinary(64), nullable=True),
        sa.Column("account_id", sa.String(32), nullable=True),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.add_column("nomercy_seats", sa.Column("account_id", sa.String(32), nullable=True))
    op.add_column("nomercy_game_seats", sa.Column("account_id", sa.String(32), nullable=True))
    op.create_index("ix_nomercy_game_seats_account_id", "nomercy_game_seats", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_nomercy_game_seats_account_id", "nomercy_game_seats")
    with op.batch_alter_table("nomercy_game_seats") as batch:
        batch.drop_column("account_id")
    with op.batch_alter_table("nomercy_seats") as batch:
        batch.drop_column("account_id")
    op.drop_table("nomercy_ceremonies")
    op.drop_index("ix_nomercy_sessions_account_id", "nomercy_sessions")
    op.drop_table("nomercy_sessions")
    op.drop_index("ix_nomercy_passkeys_account_id", "nomercy_passkeys")
    op.drop_table("nomercy_passkeys")
    op.drop_table("nomercy_accounts")
