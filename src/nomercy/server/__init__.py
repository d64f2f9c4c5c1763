"""Online rooms: ``nomercy serve`` (FastAPI on uvicorn, WebSockets, SQL storage).

Five packages, importing one way (``http`` → ``games`` → ``rooms`` → ``players`` → ``base``):

- :mod:`.http`     the edge: the application factory, the WebSocket endpoint, health, start-up;
- :mod:`.games`    kept games, replays, reviews and the coach;
- :mod:`.rooms`    a table's life: lobby, the one action pipeline, fan-out, timers, storage;
- :mod:`.players`  accounts, sign-in, profiles, ratings, the daily deal, fair play;
- :mod:`.base`     settings, the wire protocol, limits, logs, the shared tables, migrations.

The wire protocol is documented in ``docs/protocol.md``; ``docs/modules.md`` lists every module.
"""

from __future__ import annotations

from nomercy.server.base.settings import Settings

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings | None = None):  # type: ignore[no-untyped-def]
    """The ASGI application (imported lazily so that ``Settings`` needs no FastAPI)."""
    from nomercy.server.http.app import create_app as factory

    return factory(settings)
