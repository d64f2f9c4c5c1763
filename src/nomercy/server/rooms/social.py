"""What the people at a table say and undo: chat history and removed players, stored.

Kept apart from the game's log (:mod:`nomercy.server.rooms.storage`) because neither changes a
game: chat lines are kept so that a reload shows the recent conversation, and a removed
player's seat token digest is kept so that the host can let them back in (after a server
restart too). Both use the game's database engine and commit before returning, like
:class:`~nomercy.server.rooms.storage.Storage`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine

from nomercy.server.base.tables import chat, removed
from nomercy.server.rooms.storage import Storage, StoredSeat

#: Chat lines a room keeps (and sends to a (re)connecting client).
CHAT_HISTORY = 50


@dataclass(frozen=True)
class ChatLine:
    seat: int
    nickname: str
    text: str
    #: A quick reaction's name instead of a text (kept in memory only, never stored).
    reaction: str | None = None


@dataclass(frozen=True)
class Removed:
    seat: int
    nickname: str
    token_hash: str


class SocialStore:
    """Chat lines and removed seats of every room.

    Every write of a room is fenced with its lease epoch like the game's own writes
    (several processes: a process that lost the room cannot write for it any more), and a
    removal or readmission changes the seat and the removed list in one transaction.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.engine: Engine = storage.engine
        chat.create(self.engine, checkfirst=True)
        removed.create(self.engine, checkfirst=True)

    def add_chat(self, room_id: int, line: ChatLine, epoch: int | None = None) -> None:
        """Store a line and drop the room's lines older than the last :data:`CHAT_HISTORY`."""
        with self.engine.begin() as conn:
            self.storage.fence_room(conn, room_id, epoch)
            conn.execute(
                insert(chat).values(
                    room_id=room_id, seat=line.seat, nickname=line.nickname, text=line.text, at=time.time()
                )
            )
            oldest_kept = conn.execute(
                select(chat.c.id)
                .where(chat.c.room_id == room_id)
                .order_by(chat.c.id.desc())
                .offset(CHAT_HISTORY - 1)
                .limit(1)
            ).scalar()
            if oldest_kept is not None:
                conn.execute(delete(chat).where(chat.c.room_id == room_id, chat.c.id < oldest_kept))

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

    def remove(self, room_id: int, seat: StoredSeat, entry: Removed | None, epoch: int | None = None) -> None:
        """The host removed a player: the seat as it is now, and who was removed from it."""
        with self.engine.begin() as conn:
            self.storage.fence_room(conn, room_id, epoch)
            self.storage.write_seat(conn, room_id, seat)
            conn.execute(delete(removed).where(removed.c.room_id == room_id, removed.c.seat == seat.seat))
            if entry is not None:
                conn.execute(
                    insert(removed).values(
                        room_id=room_id, seat=entry.seat, nickname=entry.nickname, token_hash=entry.token_hash
                    )
                )

    def readmit(self, room_id: int, seat: StoredSeat, epoch: int | None = None) -> None:
        """The host let a removed player back in: their seat again, and off the removed list."""
        with self.engine.begin() as conn:
            self.storage.fence_room(conn, room_id, epoch)
            self.storage.write_seat(conn, room_id, seat)
            conn.execute(delete(removed).where(removed.c.room_id == room_id, removed.c.seat == seat.seat))

    def removed_of(self, room_id: int) -> dict[int, Removed]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(removed).where(removed.c.room_id == room_id)).all()
        return {r.seat: Removed(r.seat, r.nickname, r.token_hash) for r in rows}
