"""Fair play: the fair-play log, the addresses seen in rated rooms (hashed), the pairs of
accounts allowed to share one, and each rated round's ranking (what a recompute replays).

New tables only: a process of the release before keeps running during a rolling upgrade.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nomercy_fairplay",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("room", sa.String(64), nullable=True),
        sa.Column("accounts", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_index("ix_nomercy_fairplay_kind", "nomercy_fairplay", ["kind", "at"])
    op.create_table(
        "nomercy_fairplay_accounts",
        sa.Column(
            "flag_id",
            sa.Integer,
            sa.ForeignKey("nomercy_fairplay.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("account", sa.String(32), primary_key=True),
    )
    op.create_index("ix_nomercy_fairplay_accounts_account", "nomercy_fairplay_accounts", ["account"])
    op.create_table(
        "nomercy_fairplay_seen",
        sa.Column("room", sa.String(64), primary_key=True),
        sa.Column("account", sa.String(32), primary_key=True),
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "nomercy_fairplay_allowed",
        sa.Column("account_a", sa.String(32), primary_key=True),
        sa.Column("account_b", sa.String(32), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("note", sa.Text, nullable=True),
    )
    op.create_table(
        "nomercy_rated_seats",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player", sa.String(48), nullable=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("dealt", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_nomercy_rated_seats_player", "nomercy_rated_seats", ["player", "at"])
    op.create_index("ix_nomercy_rated_seats_preset", "nomercy_rated_seats", ["preset", "at"])
    _carry_history()


def _carry_history() -> None:
    """Rounds rated before this revision enter the history a recompute replays, from their
    rating changes: each player's place as its rank, one seat per player (a bot level's
    several seats were kept as one), as many seats dealt as players rated."""
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT game_id, player, preset, place, at FROM nomercy_rating_changes"
            " ORDER BY game_id, place, player"
        )
    ).all()
    by_game: dict[str, list[sa.Row[tuple[str, str, str, int, float]]]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(row)
    made = [
        {
            "game_id": game_id,
            "seat": seat,
            "player": row.player,
            "preset": row.preset,
            "rank": row.place,
            "dealt": len(players),
            "at": row.at,
        }
        for game_id, players in by_game.items()
        for seat, row in enumerate(players)
    ]
    if made:
        table = sa.table(
            "nomercy_rated_seats",
            *(sa.column(c) for c in ("game_id", "seat", "player", "preset", "rank", "dealt", "at")),
        )
        op.bulk_insert(table, made)


def downgrade() -> None:
    op.drop_index("ix_nomercy_rated_seats_preset", "nomercy_rated_seats")
    op.drop_index("ix_nomercy_rated_seats_player", "nomercy_rated_seats")
    op.drop_table("nomercy_rated_seats")
    op.drop_table("nomercy_fairplay_allowed")
    op.drop_table("nomercy_fairplay_seen")
    op.drop_index("ix_nomercy_fairplay_accounts_account", "nomercy_fairplay_accounts")
    op.drop_table("nomercy_fairplay_accounts")
    op.drop_index("ix_nomercy_fairplay_kind", "nomercy_fairplay")
    op.drop_table("nomercy_fairplay")
