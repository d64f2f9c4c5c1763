"""What the HTTP routes read off a request: the key its client's limits count under, and
a seat token sent as ``Authorization: Bearer``."""

from __future__ import annotations

from fastapi import Request

from nomercy.server.base.addresses import limit_key


def client_key(request: Request) -> str:
    """The key of the client's per-address limits (the real client behind trusted proxies:
    the front door has put it in ``request.client``)."""
    return limit_key(request.client.host) if request.client else "?"


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header; None without one."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None
