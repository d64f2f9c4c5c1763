"""The application: ``create_app`` wires the packages together and does nothing else.

At start-up :func:`nomercy.server.http.services.start` opens storage, rebuilds every recent
room by replaying its log (so a restart, even after SIGKILL, continues each game exactly) and
builds the one services object that routes receive through dependencies. Each package brings
its router: the lobby (:mod:`nomercy.server.rooms.api`), kept games
(:mod:`nomercy.server.games.api`), accounts, profiles, ratings and the daily deal
(:mod:`nomercy.server.players.api`), and the edge's own (:mod:`nomercy.server.http.api`: options,
health, metrics, the browser client's pages and icons); ``/ws`` is
:mod:`nomercy.server.http.ws`. Errors are ``{"detail": {"code", "message"}}``
(:mod:`nomercy.server.http.errors`).

In front of it all: :class:`~nomercy.server.base.addresses.FrontDoor` (the real client
address behind trusted proxies, the ``Host`` check) and
:class:`~nomercy.server.http.inputs.BodyLimit` (bodies counted as they arrive).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles

from nomercy.server.base.addresses import FrontDoor
from nomercy.server.base.logs import setup
from nomercy.server.base.services import install
from nomercy.server.base.settings import Settings
from nomercy.server.games.api import router as games_router
from nomercy.server.http import errors
from nomercy.server.http.api import CATALOGS, WEB
from nomercy.server.http.api import router as edge_router
from nomercy.server.http.headers import SecurityHeaders
from nomercy.server.http.inputs import BodyLimit
from nomercy.server.http.loopwatch import LoopWatch, freeze_start_up
from nomercy.server.http.services import start, stop
from nomercy.server.http.solo import router as solo_router
from nomercy.server.http.ws import websocket_endpoint
from nomercy.server.players.api import router as players_router
from nomercy.server.rooms.api import router as rooms_router


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application: services built at start-up, each package's router, the middleware."""
    settings = settings or Settings.from_env()
    setup(settings.log_format, settings.log_level)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await start(settings)
        install(app, services)
        freeze_start_up()  # the last step of start-up: what it made is never collected
        loop_watch = LoopWatch(services.metrics.registry)
        loop_watch.start()
        try:
            yield
        finally:
            loop_watch.stop()
            await stop(services)

    app = FastAPI(title="nomercy", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    # The page's script and style compress to under a third (a phone on a slow link sees the table sooner).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    errors.install(app)
    app.add_api_websocket_route("/ws", websocket_endpoint)
    app.include_router(rooms_router)  # the lobby, the daily deal's table (nomercy.server.rooms.api)
    app.include_router(games_router)  # kept games, replays, reviews (nomercy.server.games.api)
    app.include_router(players_router)  # accounts, profiles, ratings, the daily deal (players.api)
    app.include_router(edge_router)  # options, health, metrics, pages, icons (nomercy.server.http.api)
    app.include_router(solo_router)  # solo play's engine, Pyodide, service worker (nomercy.server.http.solo)
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
