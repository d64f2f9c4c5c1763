"""The application: HTTP API for the lobby, the WebSocket for play, the browser client.

``create_app(settings)`` builds a FastAPI app. At startup it opens storage and rebuilds
every recent room by replaying its log (so a restart, even after SIGKILL, continues each
game exactly), then starts one driver per room (:mod:`nomercy.server.timers`).

HTTP API (JSON; errors are ``{"detail": {"code", "message"}}`` with the codes of
:class:`~nomercy.server.protocol.ErrorCode`; the seat token goes in
``Authorization: Bearer ...``):

- ``GET  /api/options``              house rules, presets and bots, for the create form
- ``POST /api/rooms``                create a room (:class:`CreateRoom`) -> code, seat, token
- ``GET  /api/rooms/{code}``         the room's public info
- ``POST /api/rooms/{code}/join``    take an open seat -> seat, token
- ``POST /api/rooms/{code}/start``   host: start (open seats get bots)
- ``POST /api/rooms/{code}/kick``    host: remove a player (a bot takes the seat)
- ``POST /api/rooms/{code}/readmit`` host: let a removed player back in (undo a kick)
- ``POST /api/rooms/{code}/rematch`` host: after the game, deal a new one at the same table

The browser client is served from the package's ``web/`` folder: ``/`` and the invite
link ``/join/{code}`` return ``index.html``; ``/static/...`` the rest; the icons and
the web app manifest are drawn by :mod:`nomercy.server.icons`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from nomercy import bots as botlib
from nomercy.rules import PRESETS, Rules
from nomercy.server import icons
from nomercy.server import protocol as P
from nomercy.server.limits import per_minute
from nomercy.server.protocol import ErrorCode, ProtocolError
from nomercy.server.rooms import Room, RoomManager
from nomercy.server.settings import Settings
from nomercy.server.storage import Storage
from nomercy.server.timers import RoomDriver
from nomercy.server.ws import websocket_endpoint

log = logging.getLogger("nomercy.server")

WEB = Path(str(resources.files("nomercy") / "web"))

_STATUS = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.ROOM_FULL: 409,
    ErrorCode.SERVER_ERROR: 500,
}


def _bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def rules_options() -> list[dict[str, Any]]:
    """Every house rule with its type and choices, for the host's form."""
    out = []
    for f in dataclasses.fields(Rules):
        if f.name == "deck":
            continue
        kind = str(f.type)
        choices = Rules._CHOICES.get(f.name)
        out.append(
            {
                "name": f.name,
                "default": f.default,
                "doc": f.metadata["doc"],
                "type": "choice" if choices else ("bool" if kind == "bool" else "int"),
                "nullable": "None" in kind,
                "choices": list(choices) if choices else None,
            }
        )
    return out


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        storage = Storage(settings.resolved_database_url())
        manager = RoomManager(settings, storage)
        drivers: list[RoomDriver] = []

        def on_new_room(room: Room) -> None:
            driver = RoomDriver(manager, room)
            room.driver = driver
            driver.start()
            drivers.append(driver)

        manager.on_new_room = on_new_room
        loaded = manager.load()
        log.info("nomercy server: %d room(s) restored from storage", loaded)
        app.state.manager = manager
        app.state.join_failures = per_minute(settings.join_failures_per_minute)
        app.state.room_creation = per_minute(settings.rooms_per_minute)
        sweeper = asyncio.get_running_loop().create_task(_sweep(manager, drivers))
        try:
            yield
        finally:
            sweeper.cancel()
            for driver in drivers:
                await driver.stop()
            storage.close()

    app = FastAPI(title="nomercy", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    # The page's script and style compress to under a third (a phone on a slow link sees the table sooner).
    app.add_middleware(GZipMiddleware, minimum_size=1024)

    @app.exception_handler(ProtocolError)
    async def protocol_error(_request: Request, exc: ProtocolError) -> JSONResponse:
        return JSONResponse(
            {"detail": {"code": exc.code, "message": exc.message}}, status_code=_STATUS.get(exc.code, 400)
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        return JSONResponse(
            {"detail": {"code": ErrorCode.BAD_MESSAGE, "message": f"{where}: {first.get('msg', 'invalid')}"}},
            status_code=422,
        )

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > 16_384:
            return JSONResponse(
                {"detail": {"code": ErrorCode.TOO_LARGE, "message": "request body too large"}},
                status_code=413,
            )
        response = await call_next(request)
        host = request.headers.get("host", "")
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            f"connect-src 'self' ws://{host} wss://{host}; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'self'"
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    def manager(request: Request) -> RoomManager:
        return request.app.state.manager  # type: ignore[no-any-return]

    def lookup(request: Request, code: str) -> Room:
        """A room by join code; misses count against the address's guessing limit."""
        limiter = request.app.state.join_failures
        address = _client(request)
        if limiter.blocked(address):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute")
        try:
            return manager(request).get(code)
        except ProtocolError:
            limiter.charge(address)
            raise

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return {
            "protocol": P.PROTOCOL_VERSION,
            "rules": rules_options(),
            "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
            "bots": botlib.available(),
            "reactions": list(P.REACTIONS),
            "max_turn_seconds": settings.max_turn_seconds,
            "test_options": settings.test_options,
        }

    @app.post("/api/rooms")
    async def create_room(request: Request, body: P.CreateRoom) -> dict[str, Any]:
        if not request.app.state.room_creation.allow(_client(request)):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many new rooms from your address: wait a minute")
        room, token = manager(request).create(body)
        return {
            "code": room.code,
            "seat": 0,
            "token": token,
            "invite": f"/join/{room.code}",
            "room": room.info().model_dump(),
        }

    @app.get("/api/rooms/{code}")
    async def room_info(request: Request, code: str) -> dict[str, Any]:
        return lookup(request, code).info().model_dump()

    @app.post("/api/rooms/{code}/join")
    async def join_room(request: Request, code: str, body: P.JoinRoom) -> dict[str, Any]:
        room = lookup(request, code)
        room, seat, token = manager(request).join(room.code, body.nickname)
        return {"code": room.code, "seat": seat, "token": token, "room": room.info().model_dump()}

    @app.post("/api/rooms/{code}/start")
    async def start_room(
        request: Request, code: str, authorization: str | None = Header(None)
    ) -> dict[str, Any]:
        room = lookup(request, code)
        manager(request).start(room, _bearer(authorization))
        return room.info().model_dump()

    @app.post("/api/rooms/{code}/kick")
    async def kick(
        request: Request, code: str, body: P.KickRequest, authorization: str | None = Header(None)
    ) -> dict[str, Any]:
        room = lookup(request, code)
        manager(request).kick(room, _bearer(authorization), body.seat)
        return room.info().model_dump()

    @app.post("/api/rooms/{code}/readmit")
    async def readmit(
        request: Request, code: str, body: P.KickRequest, authorization: str | None = Header(None)
    ) -> dict[str, Any]:
        room = lookup(request, code)
        manager(request).readmit(room, _bearer(authorization), body.seat)
        return room.info().model_dump()

    @app.post("/api/rooms/{code}/rematch")
    async def rematch(
        request: Request, code: str, authorization: str | None = Header(None)
    ) -> dict[str, Any]:
        room = lookup(request, code)
        await manager(request).rematch(room, _bearer(authorization))
        return room.info().model_dump()

    @app.get("/healthz")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    app.add_api_websocket_route("/ws", websocket_endpoint)

    # HEAD too: link previewers and uptime checks ask for the head of the page first.
    @app.api_route("/", methods=["GET", "HEAD"])
    async def index() -> FileResponse:
        return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})

    @app.api_route("/join/{code}", methods=["GET", "HEAD"])
    async def invite(code: str) -> FileResponse:
        return FileResponse(WEB / "index.html", headers={"Cache-Control": "no-cache"})

    day = {"Cache-Control": "public, max-age=86400"}

    @app.get("/manifest.webmanifest")
    async def manifest() -> JSONResponse:
        return JSONResponse(icons.manifest(), media_type="application/manifest+json", headers=day)

    @app.get("/favicon.svg")
    async def favicon_svg() -> Response:
        return Response(icons.SVG, media_type="image/svg+xml", headers=day)

    @app.get("/favicon.ico")
    async def favicon_ico() -> Response:
        return Response(icons.png(48), media_type="image/png", headers=day)

    @app.get("/icon-{size}.png")
    async def icon_png(size: int) -> Response:
        if size not in (192, 512):
            raise ProtocolError(ErrorCode.NOT_FOUND, "icons come in 192 and 512 pixels")
        data = await asyncio.to_thread(icons.png, size)
        return Response(data, media_type="image/png", headers=day)

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


async def _sweep(manager: RoomManager, drivers: list[RoomDriver]) -> None:
    """Forget rooms nobody used for a while (they stay in storage)."""
    while True:
        await asyncio.sleep(60)
        cutoff = time.monotonic() - manager.settings.idle_room_seconds
        for code, room in list(manager.rooms.items()):
            if not room.clients and room.touched < cutoff:
                del manager.rooms[code]
                if room.driver is not None:
                    await room.driver.stop()
                    drivers.remove(room.driver)
