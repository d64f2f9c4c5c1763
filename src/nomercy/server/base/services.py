"""Where the server's services object lives: stored on the application once, read here only.

The object itself (:class:`nomercy.server.http.services.Services`) is built at start-up by the
edge, which knows every package. The packages below it cannot name its type, so each one
declares, as a typed ``Protocol``, the part it uses (``PlayerServices``, ``RoomServices``,
``GameServices``) and reaches it through an ``Annotated`` FastAPI dependency that calls
:func:`services_of`. This module and ``install`` are the only places that touch
``app.state``: no route reads a service by an attribute name that no type checks.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp


class NotStarted(RuntimeError):
    """A request reached the application before its start-up built the services."""


def install(app: Any, services: object) -> None:
    """Keep ``services`` on ``app`` (a Starlette application): done once, at start-up."""
    app.state.services = services


def installed(app: ASGIApp | Any) -> object | None:
    """The services object of ``app``, or None before start-up (or after an app without one)."""
    state = getattr(app, "state", None)
    return getattr(state, "services", None) if state is not None else None


def services_of(conn: HTTPConnection) -> object:
    """The services of the application that ``conn`` (a request or a WebSocket) reached."""
    found = installed(conn.app)
    if found is None:
        raise NotStarted("the server's start-up has not built its services yet")
    return found
