"""The daily deal: one deal per UTC day and preset that every player gets alike.

Each signed-in entrant has one rated attempt a day (``nomercy_daily_results``); guests play
it off the board.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Integer, String, Table

from nomercy.server.storage import metadata

daily_results = Table(
    "nomercy_daily_results",
    metadata,
    Column("day", String(10), primary_key=True),
    Column("preset", String(32), primary_key=True),
    #: ``account:<id>``: one rated attempt per account and day.
    Column("entrant", String(48), primary_key=True),
    Column("game_id", String(32), ForeignKey("nomercy_games.id"), nullable=True),
    Column("room_id", Integer, nullable=False),
    Column("won", Boolean, nullable=True),
    Column("place", Integer, nullable=True),
    Column("points", Integer, nullable=True),
    Column("turns", Integer, nullable=True),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
)
