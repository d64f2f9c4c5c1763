"""Passkeys have names their owners give them, so that two passkeys no longer look the same
on the account page (a nickname's bounds: at most 24 characters).

A nullable column only: a passkey added before this revision has none (the page numbers
it), and a process of the release before keeps running during a rolling upgrade (it reads
the columns it knows and adds passkeys without a name).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nomercy_passkeys", sa.Column("name", sa.String(24), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nomercy_passkeys") as batch:
        batch.drop_column("name")
