"""How the application answers what went wrong: refusals, invalid bodies, a cross-site
request, an internal error. Registered on the application by :func:`install`."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.http.headers import SECURITY_HEADERS
from nomercy.server.http.services import services
from nomercy.server.players import auth

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


async def protocol_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ProtocolError)
    services(request).metrics.refused(exc.code, "http")
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


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    services(request).metrics.refused(ErrorCode.BAD_MESSAGE, "http")
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
    return JSONResponse(
        {"detail": {"code": ErrorCode.BAD_MESSAGE, "message": f"{where}: {first.get('msg', 'invalid')}"}},
        status_code=422,
    )


async def same_site_only(request: Request, call_next: Any) -> Any:
    """A page of another site may not change anything for a signed-in player (CSRF)."""
    if auth.needs_origin_check(request) and auth.cross_site(request):
        return JSONResponse(
            {"detail": {"code": ErrorCode.FORBIDDEN, "message": "a request from another site: refused"}},
            status_code=403,
        )
    return await call_next(request)


async def internal_error(request: Request, exc: Exception) -> JSONResponse:
    """An unexpected error: Starlette answers it outside every middleware, so this
    answer carries the security headers itself (the error goes to the log, not out)."""
    return JSONResponse(
        {"detail": {"code": ErrorCode.SERVER_ERROR, "message": "the server failed: try again"}},
        status_code=500,
        headers=SECURITY_HEADERS,
    )


def install(app: FastAPI) -> None:
    """The handlers and the cross-site check, in the order ``create_app`` always had them."""
    app.add_exception_handler(ProtocolError, protocol_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.middleware("http")(same_site_only)
    app.add_exception_handler(Exception, internal_error)
