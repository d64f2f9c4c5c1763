"""Ratings: OpenSkill ratings per player and preset, written with each rated round.

A player is ``account:<id>`` or ``bot:<level>`` (:func:`player_of`): every bot level is one
rated identity, so the leaderboard shows where each level stands.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Table

from nomercy.server.storage import metadata

ratings = Table(
    "nomercy_ratings",
    metadata,
    Column("player", String(48), primary_key=True),
    Column("preset", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)

#: What each rated game changed, per player: the rating over time and a game's effect.
rating_changes = Table(
    "nomercy_rating_changes",
    metadata,
    Column("game_id", String(32), ForeignKey("nomercy_games.id"), primary_key=True),
    Column("player", String(48), primary_key=True),
    Column("preset", String(32), nullable=False),
    Column("place", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_nomercy_rating_changes_player", "player", "at"),
)


def player_of_account(account_id: str) -> str:
    return f"account:{account_id}"


def player_of_bot(level: str) -> str:
    return f"bot:{level}"
