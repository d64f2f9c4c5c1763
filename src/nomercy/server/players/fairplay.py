"""Fair play: the log of what an operator should look at, and what rated play keeps to
stop the ways of climbing without winning (``docs/ratings.md``, "Fair play").

- :data:`fairplay` is the fair-play log: one row per flag (:func:`log_flag`). Its kinds:
  ``address`` (accounts seen together from one address in a rated room), ``forfeit`` (a
  seat played by a stand-in), ``abort`` (a rated round that never started), ``void`` (an
  operator or a deletion voided rated results) and ``volume`` (the same accounts met more
  often in one day than counts in full). :data:`fairplay_accounts` indexes it by account,
  so that ``nomercy accounts flags NAME`` finds an account's flags.
- :data:`seen` records which account took a seat of a rated room from which address (as a
  keyed hash, never the address itself), :data:`allowed` the pairs of accounts an operator
  lets share one.
- :data:`rated_seats` keeps every rated round's full ranking, so that the boards can be
  recomputed from history once results are voided.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    delete,
    insert,
    or_,
    select,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from nomercy.server.base.addresses import limit_key
from nomercy.server.base.tables import metadata
from nomercy.server.players.daily import server_secrets

log = logging.getLogger("nomercy.server")

#: A person's rated identity starts so (``ratings.player_of_account``).
ACCOUNT = "account:"

#: The kinds of flag :func:`log_flag` records.
KINDS = ("address", "forfeit", "abort", "void", "volume")

fairplay = Table(
    "nomercy_fairplay",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    #: One of :data:`KINDS`.
    Column("kind", String(16), nullable=False),
    #: The room's code or id as text, or NULL when the flag is about no room.
    Column("room", String(64), nullable=True),
    #: JSON list of the account ids concerned.
    Column("accounts", Text, nullable=False),
    #: JSON object: what an operator needs to judge the flag.
    Column("detail", Text, nullable=False),
    Index("ix_nomercy_fairplay_kind", "kind", "at"),
)

fairplay_accounts = Table(
    "nomercy_fairplay_accounts",
    metadata,
    Column("flag_id", Integer, ForeignKey("nomercy_fairplay.id", ondelete="CASCADE"), primary_key=True),
    Column("account", String(32), primary_key=True),
    Index("ix_nomercy_fairplay_accounts_account", "account"),
)

#: Which account sat in which rated room from which address: ``address`` is a keyed hash of
#: the address's network (:func:`address_key`), so the table never holds an address.
seen = Table(
    "nomercy_fairplay_seen",
    metadata,
    Column("room", String(64), primary_key=True),
    Column("account", String(32), primary_key=True),
    Column("address", String(64), primary_key=True),
    Column("at", Float, nullable=False),
)

#: Pairs of accounts an operator allows to play rated rooms from one address (``account_a``
#: sorts before ``account_b``).
allowed = Table(
    "nomercy_fairplay_allowed",
    metadata,
    Column("account_a", String(32), primary_key=True),
    Column("account_b", String(32), primary_key=True),
    Column("at", Float, nullable=False),
    Column("note", Text, nullable=True),
)

#: Every rated round's ranking, one row per rated seat: what a recompute replays.
rated_seats = Table(
    "nomercy_rated_seats",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    #: ``account:<id>`` or ``bot:<level>``; NULL: a seat without a rated identity, kept so
    #: that the others' places stay the round's own.
    Column("player", String(48), nullable=True),
    Column("preset", String(32), nullable=False),
    #: The seat's rank in the round (1 best, ties equal), as ``ratings.round_order`` gives it.
    Column("rank", Integer, nullable=False),
    #: How many seats were dealt into the round (the fair share's measure).
    Column("dealt", Integer, nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_nomercy_rated_seats_player", "player", "at"),
    Index("ix_nomercy_rated_seats_preset", "preset", "at"),
)


def log_flag(
    conn: Connection,
    kind: str,
    *,
    room: str | None,
    accounts: Sequence[str],
    detail: Mapping[str, Any],
    at: float | None = None,
) -> None:
    """Record a flag in the fair-play log, inside the caller's transaction."""
    if kind not in KINDS:
        raise ValueError(f"unknown fair-play flag kind {kind!r}: the kinds are {', '.join(KINDS)}")
    ids = sorted(set(accounts))
    made = conn.execute(
        insert(fairplay).values(
            at=time.time() if at is None else at,
            kind=kind,
            room=room,
            accounts=json.dumps(ids),
            detail=json.dumps(dict(detail), sort_keys=True, default=str),
        )
    ).inserted_primary_key
    assert made is not None
    flag_id = made[0]
    if ids:
        conn.execute(insert(fairplay_accounts), [{"flag_id": flag_id, "account": a} for a in ids])


# -- one address, several accounts -----------------------------------------------------------

#: The name of the secret that keys the address hashes (``nomercy_secrets``).
KEY_NAME = "fairplay"


def secret(engine: Engine) -> bytes:
    """The server's key for address hashes, made once and shared by every process."""
    named = server_secrets.c.name == KEY_NAME
    with engine.connect() as conn:
        row = conn.execute(select(server_secrets.c.value).where(named)).first()
    if row is None:
        try:
            with engine.begin() as conn:
                conn.execute(insert(server_secrets).values(name=KEY_NAME, value=secrets.token_bytes(32)))
        except IntegrityError:
            pass  # another process made it first: read theirs
        with engine.connect() as conn:
            row = conn.execute(select(server_secrets.c.value).where(named)).one()
    return bytes(row.value)


def address_key(key: bytes, address: str) -> str:
    """A keyed hash of the address's network (:func:`limit_key`: an IPv6 /64 is one home):
    two seats from one network compare equal, and the table never holds an address."""
    return hmac.new(key, limit_key(address).encode("utf-8"), hashlib.sha256).hexdigest()


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def allowed_pairs(conn: Connection, accounts: Iterable[str]) -> set[tuple[str, str]]:
    """The pairs among ``accounts`` an operator allows to share an address."""
    ids = sorted(set(accounts))
    if len(ids) < 2:
        return set()
    rows = conn.execute(
        select(allowed.c.account_a, allowed.c.account_b).where(
            allowed.c.account_a.in_(ids), allowed.c.account_b.in_(ids)
        )
    ).all()
    return {(r.account_a, r.account_b) for r in rows}


def shared_pairs(conn: Connection, room: str) -> list[tuple[str, str]]:
    """The pairs of accounts seen in ``room`` (its id as text) from one address, less the
    pairs an operator allows: while there is one, the room's rounds are not rated."""
    rows = conn.execute(select(seen.c.account, seen.c.address).where(seen.c.room == room)).all()
    by_address: dict[str, set[str]] = {}
    for r in rows:
        by_address.setdefault(r.address, set()).add(r.account)
    found = {pair(a, b) for group in by_address.values() for a in group for b in group if a < b}
    return sorted(found - allowed_pairs(conn, {a for p in found for a in p}))


def note_seat(
    conn: Connection, key: bytes, *, room_id: int, room_code: str, account: str, address: str, now: float
) -> list[tuple[str, str]]:
    """An account's seat of a rated room connected from ``address``: recorded, and each
    account it now shares an address with there is flagged (once: when the second of the two
    is first seen). Returns the new pairs; the caller voids what they played together."""
    room, hashed = str(room_id), address_key(key, address)
    known = conn.execute(
        select(seen.c.at).where(seen.c.room == room, seen.c.account == account, seen.c.address == hashed)
    ).first()
    if known is not None:
        return []
    conn.execute(insert(seen).values(room=room, account=account, address=hashed, at=now))
    others = conn.execute(
        select(seen.c.account).where(seen.c.room == room, seen.c.address == hashed, seen.c.account != account)
    ).scalars()
    pairs = {pair(account, other) for other in others}
    new = sorted(pairs - allowed_pairs(conn, {a for p in pairs for a in p}))
    for a, b in new:
        log_flag(
            conn,
            "address",
            room=room_code,
            accounts=[a, b],
            detail={"room_id": room_id, "address": hashed[:12]},
            at=now,
        )
    return new


#: What becomes of the rated games two accounts played together in a room once they are
#: seen there from one address: ``ratings.void_together`` (passed in: the ratings import
#: this module).
OnShared = Callable[[Connection, int, str, tuple[str, str]], object]


async def seat_connected(
    storage: Any, room: Any, seat: int | None, address: str, on_shared: OnShared
) -> bool | None:
    """A connection took its seat (``ws`` hello): at a rated table, the seat's account is
    noted with its address (:func:`note_seat`), and each pair it now shares an address with
    goes to ``on_shared``. Off the event loop; only a database storage keeps it, and a
    failure never keeps a player from their seat. Returns whether the room now has a pair
    no operator allows (:func:`shared_pairs`: its rounds are not rated), None when no check
    ran."""
    engine = getattr(storage, "engine", None)
    if seat is None or engine is None or not room.config.get("rated") or address in ("", "?"):
        return None
    account = getattr(room.seats[seat], "account_id", None)
    if not account:
        return None

    def write() -> bool:
        key = secret(engine)
        with engine.begin() as conn:
            new = note_seat(
                conn,
                key,
                room_id=room.id,
                room_code=room.code,
                account=account,
                address=address,
                now=time.time(),
            )
            for found in new:
                on_shared(conn, room.id, room.code, found)
            return bool(shared_pairs(conn, str(room.id)))

    try:
        return await asyncio.to_thread(write)
    except Exception:
        log.warning("the fair-play address check failed for room %s", room.code, exc_info=True)
        return None


def allow(conn: Connection, a: str, b: str, note: str | None, now: float) -> bool:
    """Let two accounts play rated rooms from one address (friends on one home network);
    False if they were allowed already."""
    first, second = pair(a, b)
    if (first, second) in allowed_pairs(conn, [first, second]):
        return False
    conn.execute(insert(allowed).values(account_a=first, account_b=second, at=now, note=note))
    return True


def disallow(conn: Connection, a: str, b: str) -> bool:
    first, second = pair(a, b)
    done = conn.execute(delete(allowed).where(allowed.c.account_a == first, allowed.c.account_b == second))
    return bool(done.rowcount)


def forget(conn: Connection, account_id: str) -> None:
    """An ``AccountStore.on_delete`` part: the addresses and allowances go with the account;
    the log keeps its flags (the account id no longer names anybody)."""
    conn.execute(delete(seen).where(seen.c.account == account_id))
    conn.execute(
        delete(allowed).where(or_(allowed.c.account_a == account_id, allowed.c.account_b == account_id))
    )


# -- volume ------------------------------------------------------------------------------------

#: Rated games between the same two accounts in 24 hours that count in full; each further
#: one counts half as much as the one before (``docs/ratings.md``, "Fair play").
PAIR_GAMES_PER_DAY = 3
#: The window of :data:`PAIR_GAMES_PER_DAY`, in seconds.
DAY = 24 * 3600.0


def meetings(player: str, players: Iterable[str], history: Iterable[Iterable[str]]) -> int:
    """How often, in ``history`` (each game's players), ``player`` met the one of ``players``
    it met most: what :func:`weight` counts."""
    others = {p for p in players if p != player and p.startswith(ACCOUNT)}
    counts = dict.fromkeys(others, 0)
    for game in history:
        met = set(game)
        if player in met:
            for other in others & met:
                counts[other] += 1
    return max(counts.values(), default=0)


def weight(met: int, limit: int = PAIR_GAMES_PER_DAY) -> float:
    """How much a game counts after ``met`` earlier games in the day with the same account."""
    return 1.0 if met < limit else 0.5 ** (met - limit + 1)


def recent_games(conn: Connection, players: Sequence[str], since: float, until: float) -> list[list[str]]:
    """The account players of each rated game in ``(since, until]`` that had two of ``players``."""
    accounts = [p for p in players if p.startswith(ACCOUNT)]
    if len(accounts) < 2:
        return []
    rows = conn.execute(
        select(rated_seats.c.game_id, rated_seats.c.player).where(
            rated_seats.c.player.in_(accounts), rated_seats.c.at > since, rated_seats.c.at <= until
        )
    ).all()
    by_game: dict[str, set[str]] = {}
    for r in rows:
        by_game.setdefault(r.game_id, set()).add(r.player)
    return [sorted(g) for g in by_game.values() if len(g) >= 2]


# -- what an operator reads ----------------------------------------------------------------------


def flags_of(conn: Connection, account_id: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
    """The fair-play log, newest first: every flag, or those of one account."""
    query = select(fairplay).order_by(fairplay.c.at.desc(), fairplay.c.id.desc()).limit(limit)
    if account_id is not None:
        query = query.where(
            fairplay.c.id.in_(
                select(fairplay_accounts.c.flag_id).where(fairplay_accounts.c.account == account_id)
            )
        )
    return [
        {
            "id": int(r.id),
            "at": float(r.at),
            "kind": r.kind,
            "room": r.room,
            "accounts": json.loads(r.accounts),
            "detail": json.loads(r.detail),
        }
        for r in conn.execute(query).all()
    ]
