"""Solo play from ``nomercy serve``'s own pages: the engine, Pyodide and the service worker.

The same files a static site holds (:func:`nomercy.site.app_files`), at the same paths
from the root: ``/engine/nomercy.zip`` (the engine's zip), ``/pyodide/NAME`` (Pyodide's
core files), ``/sw.js`` (the service worker, its version set) and ``/sw-files.json`` (what
it keeps for offline play). Everything is read once per process: the sources do not
change under a running server. Without Pyodide's files (a wheel built without them, a
checkout without ``npm ci``) these routes answer 404 and the page offers no solo play.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from nomercy.server.base.protocol import ErrorCode, ProtocolError

router = APIRouter()

#: Served as they are: every file changes with a release, so the browser checks it.
NO_CACHE = {"Cache-Control": "no-cache"}
TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".zip": "application/zip", ".json": "application/json"}  # fmt: skip


@lru_cache(maxsize=1)
def _served() -> tuple[dict[str, bytes | Path], dict[str, object], bytes] | None:
    """The app's files, their listing and the service worker; None without Pyodide."""
    from nomercy.site import SiteError, app_files, listing, service_worker

    try:
        files = app_files()
    except SiteError:
        return None
    listed = listing(files)
    worker = service_worker(str(listed["version"]))
    listed["files"] = sorted([*files, "sw.js"])
    return files, listed, worker


def _missing() -> ProtocolError:
    return ProtocolError(ErrorCode.NOT_FOUND, "solo play is not installed here (Pyodide's files are missing)")


@router.get("/engine/nomercy.zip")
async def engine() -> Response:
    served = _served()
    if served is None:
        raise _missing()
    data = served[0]["engine/nomercy.zip"]
    assert isinstance(data, bytes)
    return Response(data, media_type="application/zip", headers=NO_CACHE)


@router.get("/pyodide/{name}")
async def pyodide(name: str) -> Response:
    served = _served()
    item = served[0].get(f"pyodide/{name}") if served is not None else None
    if not isinstance(item, Path):
        raise _missing()
    return FileResponse(item, media_type=TYPES.get(item.suffix, "application/octet-stream"), headers=NO_CACHE)


@router.get("/sw.js")
async def service_worker() -> Response:
    served = _served()
    if served is None:
        raise _missing()
    return Response(served[2], media_type="text/javascript", headers=NO_CACHE)


@router.get("/sw-files.json")
async def service_worker_files() -> Response:
    served = _served()
    if served is None:
        raise _missing()
    return Response(json.dumps(served[1]), media_type="application/json", headers=NO_CACHE)
