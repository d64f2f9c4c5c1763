"""The edge's own routes: the house rules' options, health, metrics, the browser client's
pages, its icons and manifest (the static files are mounted by ``create_app``).

- ``GET /api/options``  house rules, presets and bots, for the create form
- ``GET /healthz``, ``/livez``, ``/readyz``  (:mod:`nomercy.server.http.health`)
- ``GET /metrics``      the Prometheus text format
- ``/``, ``/join/{code}``, ``/g/{id}``, ``/u/{name}``, ``/leaders``, ``/daily``, ``/account``:
  ``index.html`` (the client reads the path)
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import re
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from nomercy import bots as botlib
from nomercy.bots.levels import CHARACTER_LEVELS, CHARACTERS, LEVELS, menu_order
from nomercy.rules import PRESETS
from nomercy.server.base import protocol as P
from nomercy.server.base.metrics import CONTENT_TYPE_LATEST
from nomercy.server.base.options import rules_options
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.http import icons
from nomercy.server.http.health import readiness
from nomercy.server.http.services import ServicesDep

router = APIRouter()

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


@router.get("/api/options")
async def options(services: ServicesDep) -> dict[str, Any]:
    settings = services.settings
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


@router.get("/healthz")
async def health() -> dict[str, Any]:
    return {"ok": True}


@router.get("/metrics")
async def metrics(services: ServicesDep) -> Response:
    return Response(services.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)


@router.get("/livez")
async def livez() -> dict[str, Any]:
    return {"live": True}


@router.get("/readyz")
async def readyz(services: ServicesDep) -> JSONResponse:
    ready, reason = await readiness(services.storage, services.drain.draining, services.cluster)
    return JSONResponse({"ready": ready, "reason": reason}, status_code=200 if ready else 503)


# HEAD too: link previewers and uptime checks ask for the head of the page first.
@router.api_route("/", methods=["GET", "HEAD"])
async def index(request: Request) -> HTMLResponse:
    return page(request, "/")


@router.api_route("/join/{code}", methods=["GET", "HEAD"])
async def invite(request: Request, code: str) -> HTMLResponse:
    return page(request, f"/join/{code}" if re.fullmatch(P.CODE_PATTERN, code.upper()) else "/")


@router.api_route("/g/{game_id}", methods=["GET", "HEAD"])
async def game_page(request: Request, game_id: str) -> HTMLResponse:
    """A kept game's replay: the client reads the path and asks the API for the game."""
    return page(request, f"/g/{game_id}" if re.fullmatch(r"[A-Za-z0-9_-]{16,32}", game_id) else "/")


# The pages beside the game (js/pages.js renders them): a profile, the leaderboards, the
# daily deal, the account. Anything else under them is the home page.
@router.api_route("/u/{name}", methods=["GET", "HEAD"])
async def profile_page(request: Request, name: str) -> HTMLResponse:
    return page(request, f"/u/{name}" if 0 < len(name) <= 64 else "/")


@router.api_route("/leaders", methods=["GET", "HEAD"])
@router.api_route("/daily", methods=["GET", "HEAD"])
@router.api_route("/account", methods=["GET", "HEAD"])
async def site_page(request: Request) -> HTMLResponse:
    return page(request, request.url.path)


@router.api_route("/leaders/{preset}", methods=["GET", "HEAD"])
@router.api_route("/daily/{day}", methods=["GET", "HEAD"])
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


DAY = {"Cache-Control": "public, max-age=86400"}


@router.get("/manifest.webmanifest")
async def manifest() -> JSONResponse:
    return JSONResponse(icons.manifest(), media_type="application/manifest+json", headers=DAY)


@router.get("/favicon.svg")
async def favicon_svg() -> Response:
    return Response(icons.SVG, media_type="image/svg+xml", headers=DAY)


@router.get("/favicon.ico")
async def favicon_ico() -> Response:
    return Response(icons.png(48), media_type="image/png", headers=DAY)


@router.get("/icon-{size}.png")
async def icon_png(size: int) -> Response:
    if size not in (192, 512):
        raise ProtocolError(ErrorCode.NOT_FOUND, "icons come in 192 and 512 pixels")
    data = await asyncio.to_thread(icons.png, size)
    return Response(data, media_type="image/png", headers=DAY)
