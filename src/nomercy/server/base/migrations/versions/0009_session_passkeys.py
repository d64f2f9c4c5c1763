"""Sessions say which passkey opened them, when they were last seen and when their owner
last confirmed with a passkey: removing a passkey ends the sessions it opened, the account
page lists them, and a sensitive change needs a confirmation of the last few minutes.

Nullable columns only: a session opened before this revision has none of them (its
passkey unknown, never confirmed: a sensitive change asks for a passkey first), and a
process of the release before keeps running during a rolling upgrade (it leaves them NULL).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

COLUMNS = ("credential_id", "last_seen_at", "confirmed_at")


def upgrade() -> None:
    op.add_column("nomercy_sessions", sa.Column("credential_id", sa.String(512), nullable=True))
    op.add_column("nomercy_sessions", sa.Column("last_seen_at", sa.Float, nullable=True))
    op.add_column("nomercy_sessions", sa.Column("confirmed_at", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nomercy_sessions") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
