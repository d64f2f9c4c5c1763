"""What the rooms' routes use of the server's services, typed, and its dependency.

As in :mod:`nomercy.server.players.deps`: the object is built at the edge, above this package;
:class:`RoomServices` is the part the lobby's routes and the daily deal's table read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Protocol, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from nomercy.server.base.services import services_of

if TYPE_CHECKING:
    from nomercy.server.base.limits import KeyedLimiter
    from nomercy.server.players.daily import DailyStore
    from nomercy.server.rooms.manager import RoomManager


class RoomServices(Protocol):
    """The services the rooms' routes read."""

    @property
    def manager(self) -> RoomManager: ...
    @property
    def daily(self) -> DailyStore: ...
    @property
    def join_failures(self) -> KeyedLimiter: ...
    @property
    def room_creation(self) -> KeyedLimiter: ...

    def today(self) -> str:
        """Today as the daily deal counts it (UTC; a test server may set it)."""
        ...


def rooms_part(conn: HTTPConnection) -> RoomServices:
    """The services, as the rooms' routes see them (a FastAPI dependency)."""
    return cast("RoomServices", services_of(conn))


RoomsDep = Annotated["RoomServices", Depends(rooms_part)]
