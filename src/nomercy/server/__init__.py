"""Online rooms: ``nomercy serve`` (FastAPI on uvicorn, WebSockets, SQL storage).

Modules, each with one job:

- :mod:`settings`  the server's configuration (CLI flags, ``NOMERCY_*`` environment);
- :mod:`protocol`  pydantic models of every message on the wire, sizes, error codes;
- :mod:`limits`    token buckets for messages, chat, room creation and code guessing;
- :mod:`storage`   SQLAlchemy tables: rooms, seats and the append-only action log;
- :mod:`rooms`     room lifecycle and the one pipeline that applies an action
                   (validate, store, then broadcast each seat's own view);
- :mod:`timers`    the per-room driver: bot moves, reactions, turn timer, grace period;
- :mod:`ws`        the WebSocket endpoint;
- :mod:`app`       the application factory, HTTP API and the static browser client.

The wire protocol is documented in ``docs/protocol.md``.
"""

from __future__ import annotations

from nomercy.server.settings import Settings

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings | None = None):  # type: ignore[no-untyped-def]
    """The ASGI application (imported lazily so that ``Settings`` needs no FastAPI)."""
    from nomercy.server.app import create_app as factory

    return factory(settings)
