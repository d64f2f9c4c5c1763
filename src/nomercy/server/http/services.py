"""The server's services, built once at start-up and handed to routes through dependencies.

:func:`start` opens storage, rebuilds or adopts the rooms, wires the stores' hooks to each
other (a kept round is rated, enters the daily board, forgets a deleted account's name) and
returns one frozen :class:`Services`; :func:`stop` hands the rooms over and closes it all.
Routes of the edge take :data:`ServicesDep`; the packages below take their own part of it
(``PlayersDep``, ``RatingsDep``, ``RoomsDep``, ``KeptDep``), typed by a ``Protocol`` that :func:`_parts`
proves this object meets. Only :mod:`nomercy.server.base.services` touches ``app.state``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, cast

from fastapi import Depends
from sqlalchemy.engine import Engine
from starlette.requests import HTTPConnection

from nomercy.server.base.addresses import HostPolicy
from nomercy.server.base.limits import KeyedLimiter, per_minute
from nomercy.server.base.metrics import Metrics
from nomercy.server.base.services import installed, services_of
from nomercy.server.base.settings import Settings
from nomercy.server.games.kept import Games
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import AccountStore, vetted
from nomercy.server.players.daily import DailyStore
from nomercy.server.players.ratings import Ratings
from nomercy.server.players.store import account_store
from nomercy.server.rooms.cluster import Cluster
from nomercy.server.rooms.connections import SocketCounter
from nomercy.server.rooms.leases import SharedLeases, lock_sqlite
from nomercy.server.rooms.manager import Room, RoomManager
from nomercy.server.rooms.storage import Storage
from nomercy.server.rooms.timers import RoomDriver

if TYPE_CHECKING:
    from nomercy.server.games.kept import GameServices
    from nomercy.server.players.deps import PlayerServices
    from nomercy.server.rooms.deps import RoomServices

log = logging.getLogger("nomercy.server")

#: Handing the rooms over (several processes): then the rooms left free up as the process exits.
HANDOVER_SECONDS = 5.0
#: Keeping the rounds that just ended.
SETTLE_SECONDS = 3.0


@dataclass
class Drain:
    """Whether this process is handing its rooms over (then ``/readyz`` says not ready)."""

    cluster: Cluster | None
    draining: bool = False

    async def begin(self, seconds: float = HANDOVER_SECONDS) -> None:
        """Not ready any more; hand every room over within ``seconds`` (idempotent)."""
        self.draining = True
        if self.cluster is not None:
            await self.cluster.shutdown(seconds)


@dataclass(frozen=True)
class Services:
    """Everything a route may need, built once by :func:`start`."""

    settings: Settings
    storage: Storage
    manager: RoomManager
    cluster: Cluster | None
    games: Games
    accounts: AccountStore
    daily: DailyStore
    ratings: Ratings
    #: Unknown join codes per address (guessing), shared by every route that takes a code.
    join_failures: KeyedLimiter
    room_creation: KeyedLimiter
    #: Sign-ups, sign-ins and name look-ups per address.
    account_attempts: KeyedLimiter
    sockets: SocketCounter
    hosts: HostPolicy
    drain: Drain
    background: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def engine(self) -> Engine:
        return self.storage.engine

    @property
    def metrics(self) -> Metrics:
        return self.manager.metrics

    @property
    def seated(self) -> RoomManager:
        """The rooms' port for deleted accounts (``players.deps.SeatedAccounts``)."""
        return self.manager

    @property
    def room_ids(self) -> Storage:
        """The rooms' storage, for a join code's room id (``players.deps.RoomIds``)."""
        return self.storage

    def today(self) -> str:
        return self.games.today()


def _parts(s: Services) -> tuple[PlayerServices, RoomServices, GameServices]:
    """Never called: mypy checks here that :class:`Services` is each package's part."""
    return s, s, s


def services(conn: HTTPConnection) -> Services:
    """The application's services (a FastAPI dependency)."""
    return cast(Services, services_of(conn))


def services_if_started(app: object) -> Services | None:
    """The services of ``app``, or None before its start-up (the process's shutdown asks)."""
    return cast("Services | None", installed(app))


ServicesDep = Annotated[Services, Depends(services)]


async def start(settings: Settings) -> Services:
    """Open storage, restore or adopt the rooms, and wire the stores together."""
    url = settings.resolved_database_url()
    lock_sqlite(url)  # SQLite: one process; a second one is refused here
    storage = Storage(url)
    manager = RoomManager(settings, storage)
    cluster: Cluster | None = None
    if storage.engine.dialect.name == "postgresql":  # several processes may share it
        leases = SharedLeases(storage.engine, settings.lease_seconds)
        storage.fence = leases.fence
        cluster = Cluster(manager, leases)

    def on_new_room(room: Room) -> None:
        driver = RoomDriver(manager, room)
        room.driver = driver
        driver.start()

    manager.on_new_room = on_new_room
    accounts = account_store(storage.engine)  # deletions reach every part
    games = Games(settings, GameStore(storage.engine))
    manager.on_round_end = games.round_ended  # every finished round is kept
    daily = DailyStore(storage.engine, games.today)
    games.store.on_keep.append(daily.on_keep)  # a daily result commits with its round
    ratings = Ratings.install(settings, games.store, accounts)  # rated rounds
    games.store.vet.append(vetted)  # a round kept after a player's deletion keeps no name of theirs
    if cluster is None:
        loaded = manager.load()  # a round ended just before a crash is kept now (once)
        log.info("nomercy server: %d room(s) restored from storage", loaded)
    else:
        await cluster.start()  # adopts the rooms being played that no live process runs
        log.info("nomercy server %s: %d room(s) taken over", cluster.leases.owner, len(manager.rooms))
    made = Services(
        settings=settings,
        storage=storage,
        manager=manager,
        cluster=cluster,
        games=games,
        accounts=accounts,
        daily=daily,
        ratings=ratings,
        join_failures=per_minute(settings.join_failures_per_minute),
        room_creation=per_minute(settings.rooms_per_minute),
        account_attempts=per_minute(settings.account_attempts_per_minute),
        sockets=SocketCounter(settings.max_sockets_per_address),
        hosts=HostPolicy(settings.allowed_hosts),
        drain=Drain(cluster),
    )
    made.background.append(asyncio.get_running_loop().create_task(_sweep(manager, games, accounts)))
    return made


async def stop(made: Services) -> None:
    """Hand every room over (several processes), stop the drivers, keep the rounds that just
    ended, and close the stores."""
    for task in made.background:
        task.cancel()
    await made.drain.begin()  # several processes: every room handed over, drivers stopped
    for room in list(made.manager.rooms.values()):
        if room.driver is not None:
            await room.driver.stop()
    try:  # the rounds that just ended are kept; those cut short by whoever opens their room
        await asyncio.wait_for(asyncio.shield(made.games.settle()), SETTLE_SECONDS)
    except TimeoutError:
        log.warning(
            "shutdown: rounds still being kept after %.0f s: cut short (each is kept by "
            "whoever opens its room next)",
            SETTLE_SECONDS,
        )
    made.games.close()
    made.storage.close()


async def _sweep(manager: RoomManager, games: Games, accounts: AccountStore) -> None:
    """Expire idle lobbies, reclaim finished rooms, forget idle ones (see ``RoomManager.sweep``);
    prune the kept games past their retention (one indexed delete); take accounts deleted
    elsewhere out of the rooms here (``RoomManager.check_accounts``)."""
    while True:
        await asyncio.sleep(manager.settings.sweep_seconds)
        try:
            await manager.check_accounts(accounts.deleted_of)
        except Exception:
            log.exception("checking the seated accounts failed")
        try:
            gone = await games.prune()
        except Exception:
            log.exception("pruning kept games failed")
        else:
            if gone:
                log.info("pruned %d kept game(s) past %g days", gone, manager.settings.keep_games_days)
        try:
            removed = await manager.sweep(time.monotonic())
        except Exception:
            log.exception("sweeping rooms failed")
            continue
        if removed:
            log.debug("sweep: %d room(s) left memory", len(removed))
