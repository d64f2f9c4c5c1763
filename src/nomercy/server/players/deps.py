"""What the players' routes use of the server's services, typed, and the dependency that gives it.

The services object is built at the edge (:mod:`nomercy.server.http.services`), above this
package; here is only the part that accounts, sign-in, profiles, ratings and the daily deal
read, as a ``Protocol`` that the object meets (the edge's type check proves it). Every
players' route takes it as a parameter, :data:`PlayersDep`, and hands its helpers the part they
need; :func:`players` itself is called only outside a route (the cross-site check, a
middleware). The ratings' routes take :data:`~nomercy.server.players.ratings.RatingsDep`
instead: this module is built on :mod:`~nomercy.server.players.ratings`.
``tests/server/test_services.py`` holds every route to this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Protocol, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from nomercy.server.base.services import installed, services_of
from nomercy.server.players.accounts import AccountsHolder
from nomercy.server.players.ratings import RatingsHolder

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from nomercy.server.base.addresses import HostPolicy
    from nomercy.server.base.limits import KeyedLimiter
    from nomercy.server.base.settings import Settings
    from nomercy.server.players.daily import DailyStore


class SeatedAccounts(Protocol):
    """The rooms' port for deleted accounts: their seats in play here lose the name."""

    def accounts_deleted(self, ids: set[str]) -> None: ...


class RoomIds(Protocol):
    """The rooms' storage port, for the one question players ask it: a join code's room id."""

    def id_of(self, code: str) -> int | None: ...


class PlayerServices(AccountsHolder, RatingsHolder, Protocol):
    """The services players' routes read (``accounts`` and ``ratings`` come from the two
    parts that their own modules declare)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def engine(self) -> Engine: ...
    @property
    def daily(self) -> DailyStore: ...
    @property
    def hosts(self) -> HostPolicy: ...
    @property
    def account_attempts(self) -> KeyedLimiter: ...
    @property
    def join_failures(self) -> KeyedLimiter: ...
    @property
    def seated(self) -> SeatedAccounts: ...
    @property
    def room_ids(self) -> RoomIds: ...

    def today(self) -> str:
        """Today as the daily deal counts it (UTC; a test server may set it)."""
        ...


def players(conn: HTTPConnection) -> PlayerServices:
    """The services, as players' routes see them (a FastAPI dependency)."""
    return cast("PlayerServices", services_of(conn))


def players_if_started(conn: HTTPConnection) -> PlayerServices | None:
    """The same, or None before start-up: a middleware may read a cookie that early."""
    return cast("PlayerServices | None", installed(conn.app))


PlayersDep = Annotated["PlayerServices", Depends(players)]
