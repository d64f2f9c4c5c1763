"""What the people at a table say and undo: chat history and removed players, stored.

Kept apart from the game's log (:mod:`nomercy.server.storage`) because neither changes a
game: chat lines are kept so that a reload shows the recent conversation, and a removed
player's seat token digest is kept so that the host can let them back in (after a server
restart too). Both use the game's database engine and commit before returning, like
:class:`~nomercy.server.storage.Storage`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, delete, insert, select
from sqlalchemy.engine import Engine

from nomercy.server.storage import metadata

#: Chat lines a room keeps (and sends to a (re)connecting client).
CHAT_HISTORY = 50

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


@dataclass(frozen=True)
class ChatLine:
    seat: int
    nickname: str
    text: str


@dataclass(frozen=True)
class Removed:
    seat: int
    nickname: str
    token_hash: str


class SocialStore:
    """Chat lines and removed seats of every room."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        chat.create(engine, checkfirst=True)
        removed.create(engine, checkfirst=True)

    def add_chat(self, room_id: int, line: ChatLine) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(chat).values(
                    room_id=room_id, seat=line.seat, nickname=line.nickname, text=line.text, at=time.time()
                )
            )

    def recent_chat(self, room_id: int, limit: int = CHAT_HISTORY) -> list[ChatLine]:
        """The room's last ``limit`` lines, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(chat.c.seat, chat.c.nickname, chat.c.text)
                .where(chat.c.room_id == room_id)
                .order_by(chat.c.id.desc())
                .limit(limit)
            ).all()
        return [ChatLine(r.seat, r.nickname, r.text) for r in reversed(rows)]

    def set_removed(self, room_id: int, entry: Removed) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(removed).where(removed.c.room_id == room_id, removed.c.seat == entry.seat))
            conn.execute(
                insert(removed).values(
                    room_id=room_id, seat=entry.seat, nickname=entry.nickname, token_hash=entry.token_hash
                )
            )

    def clear_removed(self, room_id: int, seat: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(removed).where(removed.c.room_id == room_id, removed.c.seat == seat))

    def removed_of(self, room_id: int) -> dict[int, Removed]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(removed).where(removed.c.room_id == room_id)).all()
        return {r.seat: Removed(r.seat, r.nickname, r.token_hash) for r in rows}
