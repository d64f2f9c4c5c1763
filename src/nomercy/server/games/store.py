"""Kept games: every finished round's record, stored apart from its room so it outlives it.

A room's log is the game while it is played; once a round ends its record (the format of
``docs/state-format.md``) is written here as a *game* with an unguessable id, the
players' names, the result and the digests of the seat tokens that played it (so "my
games" finds it from the tokens a browser keeps, and a players-only game opens with one).
Rooms leave memory after their end; games stay until the operator's retention prunes them
(``Settings.keep_games_days``).

Hints the coach gave during a round are written as they are given (``nomercy_hints``) and
join the record when the round is kept, so a restart in the middle of the round keeps them.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine

from nomercy.server.base.tables import Kept, game_seats, games, hints, reviews

#: Who may open a room's kept games (the room setting ``replays``); the first is the default.
ACCESS = ("players", "link")


def new_id() -> str:
    return secrets.token_urlsafe(16)


@dataclass(frozen=True)
class Game:
    id: str
    room_id: int
    room_code: str
    round: int
    finished_at: float
    access: str
    info: dict[str, Any]
    record: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "room": self.room_code,
            "round": self.round,
            "finished_at": self.finished_at,
            "access": self.access,
            "result": self.info.get("result"),
        }


class GameStore:
    """Reads and writes of kept games, reviews and hints (each call commits)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: Called inside the transaction that keeps a round, with its new game id: what
        #: else a finished round writes (ratings, the daily deal's results) commits with it
        #: or not at all, and once (a round kept again calls nothing).
        self.on_keep: list[Callable[[Connection, str, Kept], None]] = []
        #: Called first inside that transaction: the round as it may be kept (an account
        #: deleted while the round was played leaves it nameless: ``accounts.vetted``).
        self.vet: list[Callable[[Connection, Kept], Kept]] = []

    def keep(self, kept: Kept, now: float | None = None) -> str:
        """Write the round as a game (once: keeping it again returns the same id)."""
        record = dict(kept.record)
        with self.engine.begin() as conn:
            for vet in self.vet:
                kept = vet(conn, kept)
            given = conn.execute(
                select(hints.c.seat, hints.c.step)
                .where(hints.c.room_id == kept.room_id, hints.c.seq >= kept.start_seq, hints.c.seq < kept.seq)
                .order_by(hints.c.seq, hints.c.seat)
            ).all()
            noted = {(int(r.seat), int(r.step)) for r in given}
            noted |= {(int(seat), int(step)) for seat, step in record.get("hints", [])}
            if noted:
                record["hints"] = [[seat, step] for step, seat in sorted((b, a) for a, b in noted)]
            game_id = new_id()
            # ON CONFLICT DO NOTHING, not a savepoint: pysqlite commits a SAVEPOINT that opens
            # the transaction when it is released, and the hooks' writes would then stand alone.
            values = {
                "id": game_id,
                "room_id": kept.room_id,
                "room_code": kept.room_code,
                "seq": kept.seq,
                "round": kept.round,
                "finished_at": now if now is not None else time.time(),
                "access": kept.access,
                "info": json.dumps(kept.info),
                "record": json.dumps(record),
            }
            dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
            once = (
                dialect_insert(games).values(values).on_conflict_do_nothing(index_elements=["room_id", "seq"])
            )
            if conn.execute(once.returning(games.c.id)).first() is None:
                row = conn.execute(
                    select(games.c.id).where(games.c.room_id == kept.room_id, games.c.seq == kept.seq)
                ).one()
                return str(row.id)
            if kept.tokens:
                conn.execute(
                    insert(game_seats),
                    [
                        {"game_id": game_id, "seat": s, "token_hash": h, "account_id": kept.accounts.get(s)}
                        for s, h in sorted(kept.tokens.items())
                    ],
                )
            for hook in self.on_keep:
                hook(conn, game_id, kept)
        return game_id

    def get(self, game_id: str) -> Game | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(games).where(games.c.id == game_id)).first()
        return _game(row) if row is not None else None

    def allowed(self, game_id: str, token_hash: str) -> bool:
        """Did the token's seat play this game?"""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(game_seats.c.seat).where(
                    game_seats.c.game_id == game_id, game_seats.c.token_hash == token_hash
                )
            ).first()
        return row is not None

    def played_by(self, game_id: str, account_id: str) -> bool:
        """Did a seat of this account play this game? (Its owner opens a players-only game
        on any device, signed in, without the seat token: the profile links to it.)"""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(game_seats.c.seat).where(
                    game_seats.c.game_id == game_id, game_seats.c.account_id == account_id
                )
            ).first()
        return row is not None

    def of_room(self, room_id: int) -> list[Game]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(games).where(games.c.room_id == room_id).order_by(games.c.seq)).all()
        return [_game(r) for r in rows]

    def played_in_room(self, room_id: int, digest: str | None, account_id: str | None) -> bool:
        """Whether this seat token's digest or this account played a kept round of the room."""
        wanted = []
        if digest is not None:
            wanted.append(game_seats.c.token_hash == digest)
        if account_id is not None:
            wanted.append(game_seats.c.account_id == account_id)
        if not wanted:
            return False
        with self.engine.connect() as conn:
            found = conn.execute(
                select(game_seats.c.seat)
                .join(games, games.c.id == game_seats.c.game_id)
                .where(games.c.room_id == room_id, or_(*wanted))
                .limit(1)
            ).first()
        return found is not None

    def newest_of_room(self, room_id: int, limit: int) -> list[Game]:
        """The room's newest ``limit`` kept games, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games).where(games.c.room_id == room_id).order_by(games.c.seq.desc()).limit(limit)
            ).all()
        return [_game(r) for r in reversed(rows)]

    def mine(self, token_hashes: list[str], limit: int = 100) -> list[tuple[Game, int]]:
        """The games those tokens' seats played, newest first, with the seat."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games, game_seats.c.seat)
                .join(game_seats, game_seats.c.game_id == games.c.id)
                .where(game_seats.c.token_hash.in_(token_hashes))
                .order_by(games.c.finished_at.desc(), games.c.id)
                .limit(limit)
            ).all()
        return [(_game(r), int(r.seat)) for r in rows]

    def note_hint(self, room_id: int, seq: int, seat: int, step: int) -> None:
        with self.engine.begin() as conn:
            exists = conn.execute(
                select(hints.c.step).where(
                    hints.c.room_id == room_id, hints.c.seq == seq, hints.c.seat == seat
                )
            ).first()
            if exists is None:
                conn.execute(
                    insert(hints).values(room_id=room_id, seq=seq, seat=seat, step=step, at=time.time())
                )

    def review(self, game_id: str) -> str | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(reviews.c.review).where(reviews.c.game_id == game_id)).first()
        return str(row.review) if row is not None else None

    def store_review(self, game_id: str, text: str) -> None:
        with self.engine.begin() as conn:
            if conn.execute(select(reviews.c.game_id).where(reviews.c.game_id == game_id)).first() is None:
                conn.execute(insert(reviews).values(game_id=game_id, review=text, at=time.time()))

    def prune(self, older_than: float) -> int:
        """Delete the games that ended before ``older_than`` (Unix seconds), their seats
        and reviews, and the hints given before it; returns how many games."""
        with self.engine.begin() as conn:
            old = select(games.c.id).where(games.c.finished_at < older_than).scalar_subquery()
            conn.execute(delete(reviews).where(reviews.c.game_id.in_(old)))
            conn.execute(delete(game_seats).where(game_seats.c.game_id.in_(old)))
            result = conn.execute(delete(games).where(games.c.finished_at < older_than))
            conn.execute(delete(hints).where(hints.c.at < older_than))
            return int(result.rowcount or 0)

    def count(self) -> int:
        with self.engine.connect() as conn:
            return len(conn.execute(select(games.c.id)).all())


def _game(row: Any) -> Game:
    return Game(
        id=row.id,
        room_id=row.room_id,
        room_code=row.room_code,
        round=row.round,
        finished_at=row.finished_at,
        access=row.access,
        info=json.loads(row.info),
        record=json.loads(row.record),
    )
