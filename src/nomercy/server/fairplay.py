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

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Table, Text, insert
from sqlalchemy.engine import Connection

from nomercy.server.storage import metadata

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
    Column("player", String(48), nullable=False),
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
