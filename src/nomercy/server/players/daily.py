"""The daily deal: one deal per UTC day and preset that every player gets alike.

Every player sits in seat 0 of a four-seat table (fewer where the preset seats fewer)
against ``strong`` bots, for one round. The deal's seed and the bots' seeds come from an
HMAC of the server's secret (``nomercy_secrets``, made at first use) and ``day:preset``,
so every player gets the same cards and bots that answer the same moves the same way; the
seed is never stored with a name a client can read, and the deal's kept games open (to
everyone) only once the day is over.

Each signed-in player has one rated attempt a day and preset: the first start writes their
entrant row (leaving the game does not give a second try) and the round's end writes the
result, in the transaction that keeps the round, if it ends within its day. Later attempts,
and guests, play off the board.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from nomercy.server.base.tables import Kept, metadata, rooms

daily_results = Table(
    "nomercy_daily_results",
    metadata,
    Column("day", String(10), primary_key=True),
    Column("preset", String(32), primary_key=True),
    #: ``account:<id>``: one rated attempt per account and day.
    Column("entrant", String(48), primary_key=True),
    #: The kept round; null while it is played, and again once retention prunes the game.
    Column("game_id", String(32), ForeignKey("nomercy_games.id", ondelete="SET NULL"), nullable=True),
    Column("room_id", Integer, nullable=False),
    Column("won", Boolean, nullable=True),
    Column("place", Integer, nullable=True),
    Column("points", Integer, nullable=True),
    Column("turns", Integer, nullable=True),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
)

#: Server secrets made at first use (one row each), shared by every process.
server_secrets = Table(
    "nomercy_secrets",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", LargeBinary(64), nullable=False),
)

#: The daily table: seats (at most; fewer where a preset seats fewer) and the bots' level.
SEATS = 4
BOT = "strong"
DAY_FORMAT = "%Y-%m-%d"


def today(now: float | None = None) -> str:
    """The UTC day (``YYYY-MM-DD``) at ``now``."""
    at = time.time() if now is None else now
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime(DAY_FORMAT)


def valid_day(day: str) -> bool:
    try:
        return dt.datetime.strptime(day, DAY_FORMAT).strftime(DAY_FORMAT) == day
    except ValueError:
        return False


def seconds_left(day: str, now: float | None = None) -> float:
    """Seconds until ``day`` ends (UTC midnight); 0 once it has."""
    end = dt.datetime.strptime(day, DAY_FORMAT).replace(tzinfo=dt.UTC) + dt.timedelta(days=1)
    return max(0.0, end.timestamp() - (time.time() if now is None else now))


def over(day: str, current: str) -> bool:
    """Is ``day`` over when it is ``current``? (Days compare as their ISO text.)"""
    return day < current


def entrant_of(account_id: str) -> str:
    return f"account:{account_id}"


def place_of(result: dict[str, Any], seat: int, seats: int) -> int:
    """The seat's place in a finished round: the winner 1st, knocked-out players last (the
    first out last), everyone else 2nd."""
    if result.get("winner") == seat:
        return 1
    out = list(result.get("knocked_out") or [])
    if seat in out:
        return seats - out.index(seat)
    return 2


class DailyStore:
    """The daily deal's seeds and results (each call commits)."""

    def __init__(self, engine: Engine, today: Callable[[], str] = today) -> None:
        self.engine = engine
        #: The current UTC day (a test server sets its own: ``Games.today``).
        self.today = today
        self._secret: bytes | None = None

    def secret(self) -> bytes:
        """The server's daily secret, made once and shared by every process."""
        if self._secret is None:
            named = server_secrets.c.name == "daily"
            with self.engine.connect() as conn:
                row = conn.execute(select(server_secrets.c.value).where(named)).first()
            if row is None:
                try:
                    with self.engine.begin() as conn:
                        conn.execute(
                            insert(server_secrets).values(name="daily", value=secrets.token_bytes(32))
                        )
                except IntegrityError:
                    pass  # another process made it first: read theirs
                with self.engine.connect() as conn:
                    row = conn.execute(select(server_secrets.c.value).where(named)).one()
            self._secret = bytes(row.value)
        return self._secret

    def seed(self, day: str, preset: str, what: str = "deal") -> int:
        """The day's seed of ``what`` (the deal, or a bot's seat) for the preset."""
        digest = hmac.new(self.secret(), f"{day}:{preset}:{what}".encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def entry(self, day: str, preset: str, account_id: str) -> dict[str, Any] | None:
        """The account's rated attempt, with its table's join code (``room``): the way back
        to an attempt left unfinished (the table waits for its player). Only its own
        player gets the code: watching an attempt in play would show the deal."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(daily_results, rooms.c.code)
                .join(rooms, rooms.c.id == daily_results.c.room_id, isouter=True)
                .where(
                    daily_results.c.day == day,
                    daily_results.c.preset == preset,
                    daily_results.c.entrant == entrant_of(account_id),
                )
            ).first()
        if row is None:
            return None
        return {**_entry(row), "room": row.code}

    def enter(self, day: str, preset: str, account_id: str, room_id: int) -> bool:
        """Record the account's rated attempt (its first of the day); False if it had one."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(daily_results).values(
                        day=day,
                        preset=preset,
                        entrant=entrant_of(account_id),
                        room_id=room_id,
                        started_at=time.time(),
                    )
                )
        except IntegrityError:
            return False
        return True

    def on_keep(self, conn: Connection, game_id: str, kept: Kept) -> None:
        """The ``GameStore.on_keep`` hook: a rated attempt's round ended; write its result."""
        daily = kept.info.get("daily")
        if not isinstance(daily, dict) or kept.accounts.get(0) is None:
            return
        if over(str(daily.get("day")), self.today()):
            # Ended after its day: the day's replays were open by then (the whole deal and
            # the bots' answers), so a round held over midnight stays off the board.
            return
        result = kept.info.get("result") or {}
        players = len(kept.info.get("players") or []) or SEATS
        points = list(result.get("points") or [0])
        conn.execute(
            update(daily_results)
            .where(
                daily_results.c.day == str(daily.get("day")),
                daily_results.c.preset == str(daily.get("preset")),
                daily_results.c.entrant == entrant_of(kept.accounts[0]),
                daily_results.c.room_id == kept.room_id,
                daily_results.c.game_id.is_(None),
            )
            .values(
                game_id=game_id,
                won=result.get("winner") == 0,
                place=place_of(result, 0, players),
                points=int(points[0]) if points else 0,
                turns=sum(1 for seat, _ in kept.record.get("actions", []) if seat == 0),
                finished_at=time.time(),
            )
        )

    def forget(self, conn: Connection, account_id: str) -> None:
        """The ``AccountStore.on_delete`` hook: the account's results go with it."""
        conn.execute(delete(daily_results).where(daily_results.c.entrant == entrant_of(account_id)))

    def board(
        self,
        day: str,
        preset: str,
        names: Callable[[list[str]], dict[str, str]],
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[int, list[dict[str, Any]]]:
        """The day's finished rated attempts, best first: winners by points scored (most
        first), then by fewest own moves; the others by place, then fewest moves."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(daily_results).where(
                    daily_results.c.day == day,
                    daily_results.c.preset == preset,
                    daily_results.c.finished_at.is_not(None),
                )
            ).all()
        ranked = sorted(
            rows,
            key=lambda r: (not r.won, r.place, -(r.points or 0), r.turns or 0, r.finished_at or 0.0),
        )
        page = ranked[offset : offset + limit]
        who = names([r.entrant.split(":", 1)[1] for r in page])
        out = []
        for i, r in enumerate(page):
            entry = _entry(r)
            entry["rank"] = offset + i + 1
            entry["name"] = who.get(r.entrant.split(":", 1)[1])
            out.append(entry)
        return len(ranked), out


def _entry(row: Any) -> dict[str, Any]:
    return {
        "won": row.won,
        "place": row.place,
        "points": row.points,
        "turns": row.turns,
        "game": row.game_id,
        "finished": row.finished_at is not None,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
    }
