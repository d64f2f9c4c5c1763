"""The tables several packages read, and the value a finished round is kept as.

The rooms' log (``rooms``, ``seats``, ``actions``), the kept games (``games``, ``game_seats``,
``reviews``, ``hints``) and the table talk (``chat``, ``removed``) are written by their own
stores (:mod:`nomercy.server.rooms.storage`, :mod:`nomercy.server.games.store`,
:mod:`nomercy.server.rooms.social`), but deleting an account, rating a round or drawing a
profile reads them too. Declaring them here, below every package, lets ``players`` read them
without importing the packages that write them. The schema moves only by migrations
(:mod:`nomercy.server.base.schema`); the tests compare these declarations with them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

rooms = Table(
    "nomercy_rooms",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(12), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("status", String(16), nullable=False),
    #: CreateRoom settings as JSON (rules overrides, preset, mode, bot, turn timer).
    Column("settings", Text, nullable=False),
    #: The match seed, set when the host starts the game.
    Column("seed", BigInteger, nullable=True),
    #: The state format (``nomercy.state``) and engine version (``nomercy.__version__``) of
    #: the last process that wrote the room; NULL: written before they were recorded.
    Column("state_format", Integer, nullable=True),
    Column("engine_version", String(32), nullable=True),
    #: Why an engine that could not continue the room exactly ended it (status ``retired``).
    Column("retired", Text, nullable=True),
)

seats = Table(
    "nomercy_seats",
    metadata,
    Column("room_id", Integer, ForeignKey("nomercy_rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("nickname", String(64), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("host", Boolean, nullable=False, default=False),
    Column("account_id", String(32), nullable=True),
)

actions = Table(
    "nomercy_actions",
    metadata,
    Column("room_id", Integer, ForeignKey("nomercy_rooms.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    #: The acting seat; -1 for the ``next_round`` marker.
    Column("seat", Integer, nullable=False),
    #: Action text (``nomercy.actions``), ``@next_round`` or ``@rematch SEED``.
    Column("action", String(64), nullable=False),
    Column("at", Float, nullable=False),
)


games = Table(
    "nomercy_games",
    metadata,
    #: ``secrets.token_urlsafe(16)``: 128 random bits, nothing to guess from.
    Column("id", String(32), primary_key=True),
    #: The room it was played in (no foreign key: a game outlives its room's rows).
    Column("room_id", Integer, nullable=False),
    Column("room_code", String(12), nullable=False),
    #: The room's version when the round ended: one game per round, kept once.
    Column("seq", Integer, nullable=False),
    Column("round", Integer, nullable=False),
    Column("finished_at", Float, nullable=False, index=True),
    Column("access", String(8), nullable=False),
    #: JSON: preset, mode, rules, players (seat, name, bot), result.
    Column("info", Text, nullable=False),
    #: The round's record (``nomercy.record``), hints included.
    Column("record", Text, nullable=False),
    UniqueConstraint("room_id", "seq", name="nomercy_games_round"),
    Index("nomercy_games_room", "room_id"),
)

game_seats = Table(
    "nomercy_game_seats",
    metadata,
    Column("game_id", String(32), ForeignKey("nomercy_games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    #: SHA-256 of the seat token of the person who played the seat.
    Column("token_hash", String(64), nullable=False, index=True),
    #: The account that played the seat (:mod:`nomercy.server.players.accounts`); None: a guest.
    Column("account_id", String(32), nullable=True, index=True),
)

reviews = Table(
    "nomercy_reviews",
    metadata,
    Column("game_id", String(32), ForeignKey("nomercy_games.id"), primary_key=True),
    #: ``nomercy.review`` version 1 JSON (``docs/review.md``).
    Column("review", Text, nullable=False),
    Column("at", Float, nullable=False),
)

hints = Table(
    "nomercy_hints",
    metadata,
    Column("room_id", Integer, primary_key=True),
    #: The room's version when the hint was given.
    Column("seq", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    #: Actions of the round applied when the hint was given (the record's ``hints``).
    Column("step", Integer, nullable=False),
    Column("at", Float, nullable=False),
)


chat = Table(
    "nomercy_chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room_id", Integer, ForeignKey("nomercy_rooms.id"), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("nickname", String(64), nullable=False),
    Column("text", String(400), nullable=False),
    Column("at", Float, nullable=False),
)

removed = Table(
    "nomercy_removed",
    metadata,
    Column("room_id", Integer, ForeignKey("nomercy_rooms.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("nickname", String(64), nullable=False),
    #: SHA-256 of the removed player's seat token: it works again if the host undoes.
    Column("token_hash", String(64), nullable=False),
)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Kept:
    """A round to keep, as the room had it at the round's end."""

    room_id: int
    room_code: str
    seq: int
    round: int
    access: str
    info: dict[str, Any]
    record: dict[str, Any]
    #: seat -> token digest, for the seats people played.
    tokens: dict[int, str]
    #: The room's version when the round was dealt (its hints are those from here on).
    start_seq: int
    #: seat -> account id, for the seats signed-in players played.
    accounts: dict[int, str] = field(default_factory=dict)
