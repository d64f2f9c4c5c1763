"""The application: HTTP API for the lobby, the WebSocket for play, the browser client.

``create_app(settings)`` builds a FastAPI app. At startup it opens storage and rebuilds
every recent room by replaying its log (so a restart, even after SIGKILL, continues each
game exactly), then starts one driver per room (:mod:`nomercy.server.rooms.timers`).

HTTP API (JSON; errors are ``{"detail": {"code", "message"}}`` with the codes of
:class:`~nomercy.server.base.protocol.ErrorCode`; the seat token goes in
``Authorization: Bearer ...``):

- ``GET  /api/options``              house rules, presets and bots, for the create form
- ``POST /api/rooms``                create a room (:class:`CreateRoom`) -> code, seat, token
- ``GET  /api/rooms/{code}``         the room's public info
- ``POST /api/rooms/{code}/join``    take an open seat -> seat, token
- ``POST /api/rooms/{code}/start``   host: start (open seats get bots)
- ``POST /api/rooms/{code}/kick``    host: remove a player (a bot takes the seat)
- ``POST /api/rooms/{code}/readmit`` host: let a removed player back in (undo a kick)
- ``POST /api/rooms/{code}/rematch`` host: after the game, deal a new one at the same table
- kept games, replays and reviews (``/api/games/...``, ``/api/records/replay``, ``/g/{id}``):
  :mod:`nomercy.server.games.kept`

The browser client is served from the package's ``web/`` folder: ``/`` and the invite
link ``/join/{code}`` return ``index.html``; ``/static/...`` the rest; the icons and
the web app manifest are drawn by :mod:`nomercy.server.http.icons`.

In front of it all: :class:`~nomercy.server.base.addresses.FrontDoor` (the real client
address behind trusted proxies, the ``Host`` check) and
:class:`~nomercy.server.http.inputs.BodyLimit` (bodies counted as they arrive).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import html
import logging
import re
import time
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from nomercy import bots as botlib
from nomercy.bots.levels import CHARACTER_LEVELS, CHARACTERS, LEVELS, menu_order
from nomercy.rules import GROUPS, PRESETS, Rules
from nomercy.server.base import protocol as P
from nomercy.server.base.addresses import FrontDoor, HostPolicy
from nomercy.server.base.limits import per_minute
from nomercy.server.base.logs import room_var, setup
from nomercy.server.base.metrics import CONTENT_TYPE_LATEST
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import bearer, client_key
from nomercy.server.base.settings import Settings
from nomercy.server.games.kept import Games
from nomercy.server.games.kept import router as games_router
from nomercy.server.games.store import GameStore
from nomercy.server.http import icons
from nomercy.server.http.headers import SECURITY_HEADERS, SecurityHeaders
from nomercy.server.http.health import readiness
from nomercy.server.http.inputs import BodyLimit
from nomercy.server.http.loopwatch import LoopWatch, freeze_start_up
from nomercy.server.http.solo import router as solo_router
from nomercy.server.http.process import HANDOVER_SECONDS, SETTLE_SECONDS
from nomercy.server.http.ws import websocket_endpoint
from nomercy.server.players import auth, daily_api
from nomercy.server.players.accounts import AccountStore, account_of, vetted
from nomercy.server.players.daily import DailyStore
from nomercy.server.players.profiles import router as profiles_router
from nomercy.server.players.ratings import Ratings
from nomercy.server.players.ratings import router as ratings_router
from nomercy.server.players.standings import router as standings_router
from nomercy.server.players.store import account_store
from nomercy.server.rooms.cluster import Cluster
from nomercy.server.rooms.connections import SocketCounter
from nomercy.server.rooms.leases import SharedLeases, lock_sqlite
from nomercy.server.rooms.manager import Room, RoomManager
from nomercy.server.rooms.storage import Storage
from nomercy.server.rooms.timers import RoomDriver

log = logging.getLogger("nomercy.server")

WEB = Path(str(resources.files("nomercy") / "web"))
#: The message catalogs (``nomercy.i18n``): the page loads its language's ``game.json`` and
#: ``web.json`` from ``/i18n/LANG/``.
CATALOGS = Path(str(resources.files("nomercy") / "i18n" / "catalogs"))
# The page's entry module and style, each linked with a digest of its content: a browser
# that kept the file of an earlier release loads the new one the first time the new page
# names it. The modules it imports and the catalogs are served with ``no-cache`` (checked
# against their ETag on every load), so they are never stale either.
ASSETS = ("js/main.js", "style.css")


def asset_links(text: str) -> str:
    """``index.html`` with ``/static/NAME`` made ``/static/NAME?v=DIGEST`` for each asset."""
    for name in ASSETS:
        digest = hashlib.sha256((WEB / name).read_bytes()).hexdigest()[:12]
        text = text.replace(f'"/static/{name}"', f'"/static/{name}?v={digest}"')
    return text


_STATUS = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.ROOM_FULL: 409,
    ErrorCode.NAME_TAKEN: 409,
    ErrorCode.SERVER_ERROR: 500,
    ErrorCode.ROOM_MOVING: 503,
    ErrorCode.ROOM_RETIRED: 410,
    ErrorCode.BUSY: 429,
    ErrorCode.TOO_LARGE: 413,
}


@dataclasses.dataclass(frozen=True)
class Asked:
    """A request that acts on a room with a seat token (checked by the manager's call)."""

    room: Room
    token: str | None


def manager(request: Request) -> RoomManager:
    return request.app.state.manager  # type: ignore[no-any-return]


async def lookup(request: Request, code: str, token: str | None = None) -> Room:
    """A room by join code; misses count against the address's guessing limit.

    A blocked address still reaches a room whose seat token it holds (a host behind a
    shared proxy, a reconnect): the limit stops guessing, never a proven seat. With
    several processes the room may be opened here from storage (``find``); a
    ``room_moving`` refusal is no guess and is not charged.
    """
    limiter = request.app.state.join_failures
    address = client_key(request)
    blocked = limiter.blocked(address)
    room_var.set(code.upper()[:12])
    try:
        room = await manager(request).find(code)
        if blocked and token is not None:
            manager(request).authenticate(room, token)
    except ProtocolError as exc:
        if exc.code != ErrorCode.ROOM_MOVING:
            limiter.charge(address)
        if blocked:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute") from None
        raise
    if blocked and token is None:
        raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute")
    return room


async def with_token(request: Request, code: str, authorization: str | None = Header(None)) -> Asked:
    """The preamble of every route that acts with a seat token: the bearer token and
    the room it names (a FastAPI dependency)."""
    token = bearer(authorization)
    return Asked(await lookup(request, code, token), token)


#: A route's parameter: the token and room of a request that acts with a seat token.
AskedFor = Annotated[Asked, Depends(with_token)]


def rules_options() -> list[dict[str, Any]]:
    """Every house rule the host's form can set (all but ``deck``), from ``Rules.fields()``:
    its type, choices and default, and the group, rule ID and catalog key it is shown by,
    in the order of its group (``nomercy.rules.GROUPS``)."""
    shown = [f for f in Rules.fields() if f.type != "deck"]
    shown.sort(key=lambda f: GROUPS.index(f.group))
    return [
        {
            "name": f.name,
            "default": f.default,
            "doc": f.doc,
            "type": f.type,
            "nullable": f.nullable,
            "choices": list(f.choices) if f.choices else None,
            "minimum": f.minimum,
            "group": f.group,
            "rule_id": f.rule_id,
            "key": f.key,
        }
        for f in shown
    ]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    setup(settings.log_format, settings.log_level)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = settings.resolved_database_url()
        lock_sqlite(url)  # SQLite: one process; a second one is refused here
        storage = Storage(url)
        manager = RoomManager(settings, storage)
        cluster: Cluster | None = None
        if storage.engine.dialect.name == "postgresql":  # several processes may share it
            leases = SharedLeases(storage.engine, settings.lease_seconds)
            storage.fence = leases.fence
            cluster = Cluster(manager, leases)

        def on_new_room(room: Room) -> None:
            driver = RoomDriver(manager, room)
            room.driver = driver
            driver.start()

        manager.on_new_room = on_new_room
        app.state.settings = settings
        app.state.accounts = account_store(storage.engine)  # deletions reach every part
        games = Games(settings, GameStore(storage.engine))
        manager.on_round_end = games.round_ended  # every finished round is kept
        app.state.daily = daily = DailyStore(storage.engine, games.today)
        games.store.on_keep.append(daily.on_keep)  # a daily result commits with its round
        app.state.ratings = Ratings.install(settings, games.store, app.state.accounts)  # rated rounds
        games.store.vet.append(vetted)  # a round kept after a player's deletion keeps no name of theirs
        app.state.games = games
        if cluster is None:
            loaded = manager.load()  # a round ended just before a crash is kept now (once)
            log.info("nomercy server: %d room(s) restored from storage", loaded)
        else:
            await cluster.start()  # adopts the rooms being played that no live process runs
            log.info("nomercy server %s: %d room(s) taken over", cluster.leases.owner, len(manager.rooms))
        app.state.manager = manager
        app.state.cluster = cluster
        app.state.draining = False

        async def begin_shutdown(seconds: float = HANDOVER_SECONDS) -> None:
            """Not ready any more; hand every room over within ``seconds`` (idempotent)."""
            app.state.draining = True
            if cluster is not None:
                await cluster.shutdown(seconds)

        app.state.begin_shutdown = begin_shutdown
        app.state.join_failures = per_minute(settings.join_failures_per_minute)
        app.state.room_creation = per_minute(settings.rooms_per_minute)
        app.state.account_attempts = per_minute(settings.account_attempts_per_minute)
        app.state.sockets = SocketCounter(settings.max_sockets_per_address)
        app.state.hosts = HostPolicy(settings.allowed_hosts)
        sweeper = asyncio.get_running_loop().create_task(_sweep(manager, games, app.state.accounts))
        freeze_start_up()  # the last step of start-up: what it made is never collected
        loop_watch = LoopWatch(manager.metrics.registry)
        loop_watch.start()
        try:
            yield
        finally:
            loop_watch.stop()
            sweeper.cancel()
            await begin_shutdown()  # several processes: every room handed over, drivers stopped
            for room in list(manager.rooms.values()):
                if room.driver is not None:
                    await room.driver.stop()
            try:  # the rounds that just ended are kept; those cut short by whoever opens their room
                await asyncio.wait_for(asyncio.shield(games.settle()), SETTLE_SECONDS)
            except TimeoutError:
                log.warning(
                    "shutdown: rounds still being kept after %.0f s: cut short (each is kept by "
                    "whoever opens its room next)",
                    SETTLE_SECONDS,
                )
            games.close()
            storage.close()

    app = FastAPI(title="nomercy", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    # The page's script and style compress to under a third (a phone on a slow link sees the table sooner).
    app.add_middleware(GZipMiddleware, minimum_size=1024)

    @app.exception_handler(ProtocolError)
    async def protocol_error(request: Request, exc: ProtocolError) -> JSONResponse:
        request.app.state.manager.metrics.refused(exc.code, "http")
        headers = None
        if exc.code == ErrorCode.ROOM_MOVING:
            headers = {"Retry-After": "1"}
        elif exc.code == ErrorCode.BUSY:
            headers = {"Retry-After": "5"}
        extra = getattr(exc, "extra", None) or {}  # a kept game's refusal says more (room, step)
        status = getattr(exc, "status", None) or _STATUS.get(exc.code, 400)
        return JSONResponse(
            {"detail": {"code": exc.code, "message": exc.message, **extra}},
            status_code=status,
            headers=headers,
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        request.app.state.manager.metrics.refused(ErrorCode.BAD_MESSAGE, "http")
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        return JSONResponse(
            {"detail": {"code": ErrorCode.BAD_MESSAGE, "message": f"{where}: {first.get('msg', 'invalid')}"}},
            status_code=422,
        )

    @app.middleware("http")
    async def same_site_only(request: Request, call_next: Any) -> Any:
        """A page of another site may not change anything for a signed-in player (CSRF)."""
        if auth.needs_origin_check(request) and auth.cross_site(request):
            return JSONResponse(
                {"detail": {"code": ErrorCode.FORBIDDEN, "message": "a request from another site: refused"}},
                status_code=403,
            )
        return await call_next(request)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        """An unexpected error: Starlette answers it outside every middleware, so this
        answer carries the security headers itself (the error goes to the log, not out)."""
        return JSONResponse(
            {"detail": {"code": ErrorCode.SERVER_ERROR, "message": "the server failed: try again"}},
            status_code=500,
            headers=SECURITY_HEADERS,
        )

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return {
            "protocol": P.PROTOCOL_VERSION,
            "rules": rules_options(),
            "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
            "bots": menu_order(botlib.available()),  # the levels first: a player's words
            "levels": list(LEVELS),
            # Each character and the levels it plays at (the lobby offers it there only).
            "characters": {name: list(CHARACTER_LEVELS) for name in CHARACTERS},
            "reactions": list(P.REACTIONS),
            "max_turn_seconds": settings.max_turn_seconds,
            "test_options": settings.test_options,
        }

    @app.post("/api/rooms")
    async def create_room(request: Request, body: P.CreateRoom) -> dict[str, Any]:
        address = client_key(request)
        if not request.app.state.room_creation.allow(address):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many new rooms from your address: wait a minute")
        account = account_of(request)
        if account is not None:  # a signed-in player sits under their account's name
            body = body.model_copy(update={"nickname": account.name})
        else:
            await auth.guest_name(request, body.nickname)
        room, token = await manager(request).create(body, address, account.id if account else None)
        return {
            "code": room.code,
            "seat": 0,
            "token": token,
            "invite": f"/join/{room.code}",
            "room": room.info().model_dump(),
        }

    @app.get("/api/rooms/{code}")
    async def room_info(request: Request, code: str) -> dict[str, Any]:
        return (await lookup(request, code)).info().model_dump()

    @app.post("/api/rooms/{code}/join")
    async def join_room(request: Request, code: str, body: P.JoinRoom) -> dict[str, Any]:
        room = await lookup(request, code)
        account = account_of(request)
        nickname = account.name if account is not None else body.nickname
        if account is None:
            await auth.guest_name(request, nickname)
        room, seat, token = await manager(request).join(room.code, nickname, account.id if account else None)
        return {"code": room.code, "seat": seat, "token": token, "room": room.info().model_dump()}

    @app.post("/api/rooms/{code}/start")
    async def start_room(request: Request, asked: AskedFor) -> dict[str, Any]:
        await manager(request).start(asked.room, asked.token)
        return asked.room.info().model_dump()

    @app.post("/api/rooms/{code}/kick")
    async def kick(request: Request, asked: AskedFor, body: P.KickRequest) -> dict[str, Any]:
        await manager(request).kick(asked.room, asked.token, body.seat)
        return asked.room.info().model_dump()

    @app.post("/api/rooms/{code}/readmit")
    async def readmit(request: Request, asked: AskedFor, body: P.KickRequest) -> dict[str, Any]:
        await manager(request).readmit(asked.room, asked.token, body.seat)
        return asked.room.info().model_dump()

    @app.post("/api/rooms/{code}/rematch")
    async def rematch(request: Request, asked: AskedFor) -> dict[str, Any]:
        await manager(request).rematch(asked.room, asked.token)
        return asked.room.info().model_dump()

    @app.get("/healthz")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    @app.get("/metrics")
    async def metrics(request: Request) -> Response:
        exposition = request.app.state.manager.metrics.exposition()
        return Response(exposition, media_type=CONTENT_TYPE_LATEST)

    @app.get("/livez")
    async def livez() -> dict[str, Any]:
        return {"live": True}

    @app.get("/readyz")
    async def readyz(request: Request) -> JSONResponse:
        state = request.app.state
        ready, reason = await readiness(state.manager.storage, state.draining, state.cluster)
        return JSONResponse({"ready": ready, "reason": reason}, status_code=200 if ready else 503)

    app.add_api_websocket_route("/ws", websocket_endpoint)
    app.include_router(games_router)  # kept games, replays, reviews (nomercy.server.games.kept)
    app.include_router(auth.router)  # accounts: passkeys, sessions (nomercy.server.players.auth)
    app.include_router(daily_api.router)  # the daily deal (nomercy.server.players.daily_api)
    app.include_router(profiles_router)  # players' profiles (nomercy.server.players.profiles)
    app.include_router(ratings_router)  # leaderboards (nomercy.server.players.ratings)
    app.include_router(standings_router)  # what a rated game did (nomercy.server.players.standings)
    app.include_router(solo_router)  # solo play's engine, Pyodide, service worker (nomercy.server.http.solo)

    # HEAD too: link previewers and uptime checks ask for the head of the page first.
    @app.api_route("/", methods=["GET", "HEAD"])
    async def index(request: Request) -> HTMLResponse:
        return page(request, "/")

    @app.api_route("/join/{code}", methods=["GET", "HEAD"])
    async def invite(request: Request, code: str) -> HTMLResponse:
        return page(request, f"/join/{code}" if re.fullmatch(P.CODE_PATTERN, code.upper()) else "/")

    @app.api_route("/g/{game_id}", methods=["GET", "HEAD"])
    async def game_page(request: Request, game_id: str) -> HTMLResponse:
        """A kept game's replay: the client reads the path and asks the API for the game."""
        return page(request, f"/g/{game_id}" if re.fullmatch(r"[A-Za-z0-9_-]{16,32}", game_id) else "/")

    # The pages beside the game (js/pages.js renders them): a profile, the leaderboards, the
    # daily deal, the account. Anything else under them is the home page.
    @app.api_route("/u/{name}", methods=["GET", "HEAD"])
    async def profile_page(request: Request, name: str) -> HTMLResponse:
        return page(request, f"/u/{name}" if 0 < len(name) <= 64 else "/")

    @app.api_route("/leaders", methods=["GET", "HEAD"])
    @app.api_route("/daily", methods=["GET", "HEAD"])
    @app.api_route("/account", methods=["GET", "HEAD"])
    async def site_page(request: Request) -> HTMLResponse:
        return page(request, request.url.path)

    @app.api_route("/leaders/{preset}", methods=["GET", "HEAD"])
    @app.api_route("/daily/{day}", methods=["GET", "HEAD"])
    async def site_subpage(request: Request) -> HTMLResponse:
        path = request.url.path
        return page(request, path if re.fullmatch(r"/[a-z]+/[A-Za-z0-9_-]{1,32}", path) else "/")

    def page(request: Request, path: str) -> HTMLResponse:
        """index.html with absolute preview URLs: Open Graph asks for absolute ``og:image``
        and ``og:url`` (link previewers do not resolve relative ones). The origin is the
        request's own ``Host`` (checked against allowed_hosts by the front door) and its
        scheme (behind a trusted proxy, its ``X-Forwarded-Proto``: see the front door)."""
        scheme = request.url.scheme
        host = request.headers.get("host") or request.url.netloc
        origin = html.escape(f"{scheme}://{host}", quote=True)
        text = asset_links((WEB / "index.html").read_text(encoding="utf-8"))
        text = text.replace('content="/icon-512.png"', f'content="{origin}/icon-512.png"')
        text = text.replace('content="/"', f'content="{origin}{html.escape(path, quote=True)}"')
        return HTMLResponse(text, headers={"Cache-Control": "no-cache"})

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
    app.mount("/i18n", StaticFiles(directory=CATALOGS), name="i18n")
    # The last added runs first: the real client address and the Host check, then the body.
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        max_depth=settings.max_json_depth,
        files={"/api/records/replay": settings.max_record_bytes},
    )
    app.add_middleware(FrontDoor, settings=settings)
    # Outermost: the early answers (bad host, too large, bad JSON) take the headers too.
    app.add_middleware(SecurityHeaders)
    return app


async def _sweep(manager: RoomManager, games: Games, accounts: AccountStore) -> None:
    """Expire idle lobbies, reclaim finished rooms, forget idle ones (see ``RoomManager.sweep``);
    prune the kept games past their retention (one indexed delete); take accounts deleted
    elsewhere out of the rooms here (``RoomManager.check_accounts``)."""
    while True:
        await asyncio.sleep(manager.settings.sweep_seconds)
        try:
            await manager.check_accounts(accounts.deleted_of)
        except Exception:
            log.exception("checking the seated accounts failed")
        try:
            gone = await games.prune()
        except Exception:
            log.exception("pruning kept games failed")
        else:
            if gone:
                log.info("pruned %d kept game(s) past %g days", gone, manager.settings.keep_games_days)
        try:
            removed = await manager.sweep(time.monotonic())
        except Exception:
            log.exception("sweeping rooms failed")
            continue
        if removed:
            log.debug("sweep: %d room(s) left memory", len(removed))
