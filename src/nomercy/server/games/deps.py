"""What the kept games' routes use of the server's services, typed, and its dependency.

As in :mod:`nomercy.server.players.deps`: the object is built at the edge, above this package;
:class:`GameServices` is the part kept games, replays, reviews and the coach read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Protocol, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from nomercy.server.base.services import services_of

if TYPE_CHECKING:
    from nomercy.server.base.limits import KeyedLimiter
    from nomercy.server.base.metrics import Metrics
    from nomercy.server.games.kept import Games
    from nomercy.server.rooms.manager import RoomManager


class GameServices(Protocol):
    """The services kept games' routes read."""

    @property
    def games(self) -> Games: ...
    @property
    def manager(self) -> RoomManager: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def join_failures(self) -> KeyedLimiter: ...


def kept_games(conn: HTTPConnection) -> GameServices:
    """The services, as kept games' routes see them (a FastAPI dependency)."""
    return cast("GameServices", services_of(conn))


GamesDep = Annotated["GameServices", Depends(kept_games)]
