"""The daily deal over HTTP (``docs/daily.md``): today's deals, starting one, the boards."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import select

from nomercy.rules import PRESETS
from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import client_key
from nomercy.server.players.accounts import account_of, accounts
from nomercy.server.players.auth import guest_name
from nomercy.server.players.daily import BOT, SEATS, DailyStore, over, seconds_left, valid_day

router = APIRouter()

#: Entrants on one page of a board.
PAGE = 50


def _daily(request: Request) -> DailyStore:
    store: DailyStore = request.app.state.daily
    return store


def _today(request: Request) -> str:
    day: str = request.app.state.games.today()
    return day


def _preset(preset: str) -> str:
    if preset not in PRESETS:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no preset {preset!r}: choose from {', '.join(PRESETS)}")
    return preset


def _names(request: Request, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    with request.app.state.accounts.engine.connect() as conn:
        rows = conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(ids))).all()
    return {r.id: r.name for r in rows}


@router.get("/api/daily")
async def daily_today(request: Request) -> dict[str, Any]:
    """Today (UTC), the time left in it, and for each preset whether this player played."""
    day = _today(request)
    account = account_of(request)
    store = _daily(request)
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


@router.post("/api/daily/{preset}")
async def play_daily(request: Request, preset: str, body: P.JoinRoom) -> dict[str, Any]:
    """A table with today's deal for this player; rated (on the board) for a signed-in
    player's first attempt of the day, practice otherwise."""
    _preset(preset)
    day = _today(request)
    store = _daily(request)
    account = account_of(request)
    rules = PRESETS[preset]
    seats = min(SEATS, rules.max_players)
    deal, bots = await asyncio.to_thread(
        lambda: (store.seed(day, preset), [store.seed(day, preset, f"seat{s}") for s in range(seats)])
    )
    rated = account is not None and await asyncio.to_thread(store.entry, day, preset, account.id) is None
    nickname = account.name if account is not None else body.nickname
    if account is None:
        await guest_name(request, nickname)
    req = P.CreateRoom(nickname=nickname, preset=preset, seats=seats, bots=seats - 1, bot=BOT, mode="round")
    config = {"daily": {"day": day, "preset": preset, "rated": rated}, "seed": deal, "bot_seeds": bots}
    manager = request.app.state.manager
    room, token = await manager.create(req, client_key(request), account.id if account else None, config)
    if rated:
        assert account is not None
        if not await asyncio.to_thread(store.enter, day, preset, account.id, room.id):
            rated = False  # a second start raced the first: this one is practice
            room.config["daily"]["rated"] = False
    await manager.start(room, token)
    return {
        "code": room.code,
        "seat": 0,
        "token": token,
        "rated": rated,
        "day": day,
        "room": room.info().model_dump(),
    }


@router.get("/api/daily/{day}/{preset}")
async def daily_board(request: Request, day: str, preset: str, page: int = 1) -> dict[str, Any]:
    """The day's board: finished rated attempts, best first; a past day's games open to all."""
    _preset(preset)
    if not valid_day(day):
        raise ProtocolError(ErrorCode.BAD_REQUEST, "a day is written YYYY-MM-DD")
    current = _today(request)
    if day > current:
        raise ProtocolError(ErrorCode.NOT_FOUND, "that day has not come yet")
    page = max(1, min(page, 10_000))
    total, entries = await asyncio.to_thread(
        _daily(request).board, day, preset, lambda ids: _names(request, ids), PAGE, (page - 1) * PAGE
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
