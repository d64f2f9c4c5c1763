"""The rooms' routes: the lobby over HTTP, and the daily deal's table (a room like any other).

- ``POST /api/rooms``                create a room (:class:`CreateRoom`) -> code, seat, token
- ``GET  /api/rooms/{code}``         the room's public info
- ``POST /api/rooms/{code}/join``    take an open seat -> seat, token
- ``POST /api/rooms/{code}/start``   host: start (open seats get bots)
- ``POST /api/rooms/{code}/kick``    host: remove a player (a bot takes the seat)
- ``POST /api/rooms/{code}/readmit`` host: let a removed player back in (undo a kick)
- ``POST /api/rooms/{code}/rematch`` host: after the game, deal a new one at the same table
- ``POST /api/daily/{preset}``       a table with today's deal (``docs/daily.md``)

Errors are ``{"detail": {"code", "message"}}`` with the codes of
:class:`~nomercy.server.base.protocol.ErrorCode`; the seat token goes in
``Authorization: Bearer ...``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request

from nomercy.rules import PRESETS
from nomercy.server.base import protocol as P
from nomercy.server.base.logs import room_var
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import bearer, client_key
from nomercy.server.players import auth
from nomercy.server.players.accounts import account_of
from nomercy.server.players.daily import BOT, SEATS
from nomercy.server.players.daily_api import known_preset
from nomercy.server.rooms.deps import RoomsDep, RoomServices
from nomercy.server.rooms.room import Room

router = APIRouter()


@dataclasses.dataclass(frozen=True)
class Asked:
    """A request that acts on a room with a seat token (checked by the manager's call)."""

    room: Room
    token: str | None


async def lookup(request: Request, services: RoomServices, code: str, token: str | None = None) -> Room:
    """A room by join code; misses count against the address's guessing limit.

    A blocked address still reaches a room whose seat token it holds (a host behind a
    shared proxy, a reconnect): the limit stops guessing, never a proven seat. With
    several processes the room may be opened here from storage (``find``); a
    ``room_moving`` refusal is no guess and is not charged.
    """
    limiter = services.join_failures
    address = client_key(request)
    blocked = limiter.blocked(address)
    room_var.set(code.upper()[:12])
    try:
        room = await services.manager.find(code)
        if blocked and token is not None:
            services.manager.authenticate(room, token)
    except ProtocolError as exc:
        if exc.code != ErrorCode.ROOM_MOVING:
            limiter.charge(address)
        if blocked:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute") from None
        raise
    if blocked and token is None:
        raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute")
    return room


async def with_token(
    request: Request, services: RoomsDep, code: str, authorization: str | None = Header(None)
) -> Asked:
    """The preamble of every route that acts with a seat token: the bearer token and
    the room it names (a FastAPI dependency)."""
    token = bearer(authorization)
    return Asked(await lookup(request, services, code, token), token)


#: A route's parameter: the token and room of a request that acts with a seat token.
AskedFor = Annotated[Asked, Depends(with_token)]


@router.post("/api/rooms")
async def create_room(request: Request, body: P.CreateRoom, services: RoomsDep) -> dict[str, Any]:
    address = client_key(request)
    if not services.room_creation.allow(address):
        raise ProtocolError(ErrorCode.RATE_LIMITED, "too many new rooms from your address: wait a minute")
    account = account_of(request)
    if account is not None:  # a signed-in player sits under their account's name
        body = body.model_copy(update={"nickname": account.name})
    else:
        await auth.guest_name(request, body.nickname)
    room, token = await services.manager.create(body, address, account.id if account else None)
    return {
        "code": room.code,
        "seat": 0,
        "token": token,
        "invite": f"/join/{room.code}",
        "room": room.info().model_dump(),
    }


@router.get("/api/rooms/{code}")
async def room_info(request: Request, services: RoomsDep, code: str) -> dict[str, Any]:
    return (await lookup(request, services, code)).info().model_dump()


@router.post("/api/rooms/{code}/join")
async def join_room(request: Request, code: str, body: P.JoinRoom, services: RoomsDep) -> dict[str, Any]:
    room = await lookup(request, services, code)
    account = account_of(request)
    nickname = account.name if account is not None else body.nickname
    if account is None:
        await auth.guest_name(request, nickname)
    room, seat, token = await services.manager.join(room.code, nickname, account.id if account else None)
    return {"code": room.code, "seat": seat, "token": token, "room": room.info().model_dump()}


@router.post("/api/rooms/{code}/start")
async def start_room(asked: AskedFor, services: RoomsDep) -> dict[str, Any]:
    await services.manager.start(asked.room, asked.token)
    return asked.room.info().model_dump()


@router.post("/api/rooms/{code}/kick")
async def kick(asked: AskedFor, body: P.KickRequest, services: RoomsDep) -> dict[str, Any]:
    await services.manager.kick(asked.room, asked.token, body.seat)
    return asked.room.info().model_dump()


@router.post("/api/rooms/{code}/readmit")
async def readmit(asked: AskedFor, body: P.KickRequest, services: RoomsDep) -> dict[str, Any]:
    await services.manager.readmit(asked.room, asked.token, body.seat)
    return asked.room.info().model_dump()


@router.post("/api/rooms/{code}/rematch")
async def rematch(asked: AskedFor, services: RoomsDep) -> dict[str, Any]:
    await services.manager.rematch(asked.room, asked.token)
    return asked.room.info().model_dump()


@router.post("/api/daily/{preset}")
async def play_daily(request: Request, preset: str, body: P.JoinRoom, services: RoomsDep) -> dict[str, Any]:
    """A table with today's deal for this player; rated (on the board) for a signed-in
    player's first attempt of the day, practice otherwise. (The daily deal's other routes
    are the players' own: :mod:`nomercy.server.players.daily_api`.)"""
    known_preset(preset)
    day = services.today()
    store = services.daily
    account = account_of(request)
    rules = PRESETS[preset]
    seats = min(SEATS, rules.max_players)
    deal, bots = await asyncio.to_thread(
        lambda: (store.seed(day, preset), [store.seed(day, preset, f"seat{s}") for s in range(seats)])
    )
    rated = account is not None and await asyncio.to_thread(store.entry, day, preset, account.id) is None
    nickname = account.name if account is not None else body.nickname
    if account is None:
        await auth.guest_name(request, nickname)
    req = P.CreateRoom(nickname=nickname, preset=preset, seats=seats, bots=seats - 1, bot=BOT, mode="round")
    config = {"daily": {"day": day, "preset": preset, "rated": rated}, "seed": deal, "bot_seeds": bots}
    manager = services.manager
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
