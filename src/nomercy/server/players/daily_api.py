"""The daily deal over HTTP (``docs/daily.md``): today's deals and the boards (a table with the
day's deal is a room: :func:`nomercy.server.rooms.api.play_daily` starts one)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import select
from sqlalchemy.engine import Engine

from nomercy.rules import PRESETS
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.players.accounts import account_of, accounts
from nomercy.server.players.daily import BOT, over, seconds_left, valid_day
from nomercy.server.players.deps import PlayersDep

router = APIRouter()

#: Entrants on one page of a board.
PAGE = 50


def known_preset(preset: str) -> str:
    """``preset``, if the daily deal is dealt in it (else a 404)."""
    if preset not in PRESETS:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no preset {preset!r}: choose from {', '.join(PRESETS)}")
    return preset


def _names(engine: Engine, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(ids))).all()
    return {r.id: r.name for r in rows}


@router.get("/api/daily")
async def daily_today(request: Request, p: PlayersDep) -> dict[str, Any]:
    """Today (UTC), the time left in it, and for each preset whether this player played."""
    day = p.today()
    account = account_of(request)
    store = p.daily
    presets = []
    for name in PRESETS:
        entry = await asyncio.to_thread(store.entry, day, name, account.id) if account else None
        presets.append({"preset": name, "mine": entry})
    return {
        "day": day,
        "seconds_left": seconds_left(day),
        "signed_in": account is not None,
        "bot": BOT,
        "presets": presets,
    }


@router.get("/api/daily/{day}/{preset}")
async def daily_board(p: PlayersDep, day: str, preset: str, page: int = 1) -> dict[str, Any]:
    """The day's board: finished rated attempts, best first; a past day's games open to all."""
    known_preset(preset)
    if not valid_day(day):
        raise ProtocolError(ErrorCode.BAD_REQUEST, "a day is written YYYY-MM-DD")
    current = p.today()
    if day > current:
        raise ProtocolError(ErrorCode.NOT_FOUND, "that day has not come yet")
    page = max(1, min(page, 10_000))
    engine = p.accounts.engine
    total, entries = await asyncio.to_thread(
        p.daily.board, day, preset, lambda ids: _names(engine, ids), PAGE, (page - 1) * PAGE
    )
    done = over(day, current)
    for entry in entries:
        if not done:
            entry["game"] = None  # its replay opens when the day is over
    return {
        "day": day,
        "preset": preset,
        "over": done,
        "total": total,
        "page": page,
        "pages": max(1, -(-total // PAGE)),
        "entries": entries,
    }
