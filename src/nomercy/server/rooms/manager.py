"""Rooms: the lobby (create, join, start, remove a player) and the action pipeline.

Everything that changes a game goes through :meth:`RoomManager.apply`, synchronously on
the event loop (so two messages can never interleave inside it):

1. parse and check the version; the engine applies the action to a *clone* of the state
   (a refused action changes nothing, ``IllegalAction`` carries the reason);
2. append the action to the room's log in storage and commit;
3. keep the clone as the live match's state (the action is applied once, not again), then
   queue to every connection *its own* message:
   ``player_view(state, seat).to_dict()`` and ``redact(events, seat)`` (spectators: ``None``).

Who was first to an Uno call or a catch is therefore simply the order in which the
server processes the messages; the later one is refused with ``too_late``.

:class:`RoomManager` is a facade over parts that share one
:class:`~nomercy.server.rooms.registry.Registry` (the rooms and their locks): the
:class:`~nomercy.server.rooms.lobby.Lobby` (create, join, kick, rematch), the
:class:`~nomercy.server.rooms.pipeline.Pipeline` (act and apply), the
:class:`~nomercy.server.rooms.fanout.FanOut` and the
:class:`~nomercy.server.rooms.lifecycle.Lifecycle` (sweep, load, rebuild, retire); composed,
not inherited. The room model lives in :mod:`nomercy.server.rooms.room`, the group commit of
the log in :mod:`nomercy.server.rooms.logwriter`;
the ports this manager is given (storage, social store, cluster, clock) are the Protocols
of :mod:`nomercy.server.rooms.ports`, and an in-memory storage (:mod:`nomercy.server.rooms.memstore`)
runs the same logic without a database.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nomercy.actions import Action
from nomercy.events import Event
from nomercy.server.base import protocol as P
from nomercy.server.base.metrics import Metrics
from nomercy.server.base.settings import Settings
from nomercy.server.rooms.fanout import FanOut
from nomercy.server.rooms.lifecycle import Lifecycle
from nomercy.server.rooms.lobby import Lobby
from nomercy.server.rooms.logwriter import LogWriter
from nomercy.server.rooms.pipeline import Pipeline
from nomercy.server.rooms.ports import Clock, ClusterPort, RoomStorage, SocialPort
from nomercy.server.rooms.registry import Registry
from nomercy.server.rooms.room import (
    Client,
    Room,
    Seat,
    bot_name,
    chat_history_text,
    dumps,
    moving,
    revealed_hands,
)
from nomercy.server.rooms.storage import StoredRoom

__all__ = [
    "Client",
    "LogWriter",
    "Room",
    "RoomManager",
    "Seat",
    "bot_name",
    "chat_history_text",
    "dumps",
    "moving",
    "revealed_hands",
]


class RoomManager:
    """Every room in memory, their storage, and the one pipeline that changes them: the
    lobby, the pipeline, the fan-out and the lifecycle over one shared registry."""

    def __init__(
        self,
        settings: Settings,
        storage: RoomStorage,
        social: SocialPort | None = None,
        clock: Clock | None = None,
    ) -> None:
        """``social`` defaults to the chat and removals stored beside ``storage`` (which must
        then be the database :class:`Storage`); ``clock`` to the real one."""
        self.registry = Registry(settings, storage, social, clock)
        self.fanout = FanOut(settings)
        self.pipeline = Pipeline(self.registry, self.fanout)
        self.lobby = Lobby(self.registry, self.fanout, self.pipeline)
        self.lifecycle = Lifecycle(self.registry, self.fanout)

    # -- the shared state, as the routes, the drivers and the cluster read it --------------

    @property
    def settings(self) -> Settings:
        return self.registry.settings

    @property
    def storage(self) -> RoomStorage:
        return self.registry.storage

    @property
    def clock(self) -> Clock:
        return self.registry.clock

    @property
    def metrics(self) -> Metrics:
        return self.registry.metrics

    @property
    def writer(self) -> LogWriter:
        return self.registry.writer

    @property
    def social(self) -> SocialPort:
        return self.registry.social

    @property
    def retired(self) -> dict[str, str]:
        return self.registry.retired

    @property
    def rooms(self) -> dict[str, Room]:
        return self.registry.rooms

    @property
    def created(self) -> dict[str, set[int]]:
        return self.registry.created

    @property
    def creating_by(self) -> dict[str, int]:
        return self.registry.creating_by

    @property
    def on_new_room(self) -> Callable[[Room], None] | None:
        return self.registry.on_new_room

    @on_new_room.setter
    def on_new_room(self, value: Callable[[Room], None] | None) -> None:
        self.registry.on_new_room = value

    @property
    def on_round_end(self) -> Callable[[Room], None] | None:
        return self.registry.on_round_end

    @on_round_end.setter
    def on_round_end(self, value: Callable[[Room], None] | None) -> None:
        self.registry.on_round_end = value

    @property
    def cluster(self) -> ClusterPort | None:
        return self.registry.cluster

    @cluster.setter
    def cluster(self, value: ClusterPort | None) -> None:
        self.registry.cluster = value

    @property
    def creating(self) -> int:
        return self.registry.creating

    @creating.setter
    def creating(self, value: int) -> None:
        self.registry.creating = value

    # -- what each part does ---------------------------------------------------------------

    def new_code(self) -> str:
        return self.lobby.new_code()

    async def open_rooms_of(self, address: str) -> int:
        return await self.lobby.open_rooms_of(address)

    async def create(
        self,
        req: P.CreateRoom,
        address: str | None = None,
        account_id: str | None = None,
        config: dict[str, Any] | None = None,
    ) -> tuple[Room, str]:
        return await self.lobby.create(req, address, account_id, config)

    async def join(self, code: str, nickname: str, account_id: str | None = None) -> tuple[Room, int, str]:
        return await self.lobby.join(code, nickname, account_id)

    def get(self, code: str) -> Room:
        return self.registry.get(code)

    async def find(self, code: str) -> Room:
        return await self.registry.find(code)

    def authenticate(self, room: Room, token: str | None) -> int:
        return self.registry.authenticate(room, token)

    def host_seat(self, room: Room, token: str | None) -> int:
        return self.registry.host_seat(room, token)

    async def start(self, room: Room, token: str | None) -> None:
        return await self.lobby.start(room, token)

    async def kick(self, room: Room, token: str | None, seat: int) -> None:
        return await self.lobby.kick(room, token, seat)

    async def readmit(self, room: Room, token: str | None, seat: int) -> None:
        return await self.lobby.readmit(room, token, seat)

    async def chat(self, room: Room, seat: int, text: str) -> None:
        return await self.lobby.chat(room, seat, text)

    def react(self, room: Room, seat: int, reaction: str) -> None:
        return self.lobby.react(room, seat, reaction)

    def confirm_rematch(self, room: Room, seat: int | None, ready: bool) -> None:
        return self.lobby.confirm_rematch(room, seat, ready)

    def rematch_waiting(self, room: Room) -> list[str]:
        return self.lobby.rematch_waiting(room)

    async def rematch(self, room: Room, token: str | None) -> None:
        return await self.lobby.rematch(room, token)

    def wait_for_people(self, room: Room) -> None:
        return self.pipeline.wait_for_people(room)

    async def abort_unstarted(self, room: Room) -> None:
        return await self.lobby.abort_unstarted(room)

    def address_shared(self, room: Room, shared: bool) -> None:
        return self.lobby.address_shared(room, shared)

    def timed_out(self, room: Room, seat: int) -> None:
        return self.lobby.timed_out(room, seat)

    def stood_in(self, room: Room, seat: int) -> None:
        return self.lobby.stood_in(room, seat)

    async def fair_play_flag(
        self, kind: str, room: Room, accounts: list[str], detail: dict[str, Any]
    ) -> None:
        return await self.lobby.fair_play_flag(kind, room, accounts, detail)

    def connect(self, room: Room, client: Client) -> None:
        return self.lobby.connect(room, client)

    def disconnect(self, room: Room, client: Client) -> None:
        return self.lobby.disconnect(room, client)

    async def act(
        self, room: Room, seat: int | None, text: str, version: int, ref: str | None = None
    ) -> None:
        return await self.pipeline.act(room, seat, text, version, ref)

    async def apply(
        self, room: Room, seat: int, action: Action, version: int, ref: str | None = None
    ) -> list[Event]:
        return await self.pipeline.apply(room, seat, action, version, ref)

    async def probe_storage(self, room: Room) -> None:
        return await self.pipeline.probe_storage(room)

    async def next_round(self, room: Room, version: int) -> None:
        return await self.pipeline.next_round(room, version)

    def lost(self, room: Room) -> None:
        return self.registry.lost(room)

    async def sweep(self, now: float) -> list[Room]:
        return await self.lifecycle.sweep(now)

    async def forget(self, room: Room) -> None:
        return await self.lifecycle.forget(room)

    def seated_accounts(self) -> dict[str, list[tuple[int, int]]]:
        return self.lifecycle.seated_accounts()

    def accounts_deleted(self, ids: set[str]) -> None:
        return self.lifecycle.accounts_deleted(ids)

    async def check_accounts(self, deleted_of: Callable[[dict[str, list[tuple[int, int]]]], set[str]]) -> int:
        return await self.lifecycle.check_accounts(deleted_of)

    def _add(self, room: Room) -> None:
        return self.registry.add(room)

    def load(self) -> int:
        return self.lifecycle.load()

    def keep_ended(self, room: Room) -> None:
        return self.lifecycle.keep_ended(room)

    def rebuild(self, stored: StoredRoom) -> Room:
        return self.lifecycle.rebuild(stored)

    def state_text(self, room: Room, seat: int | None, events: list[Event], snapshot: bool = False) -> str:
        return self.fanout.state_text(room, seat, events, snapshot)

    def broadcast_state(self, room: Room, events: list[Event]) -> None:
        return self.fanout.broadcast_state(room, events)

    def broadcast_room(self, room: Room, now: bool = False) -> None:
        return self.fanout.broadcast_room(room, now)

    def broadcast(self, room: Room, text: str) -> None:
        return self.fanout.broadcast(room, text)

    def poke(self, room: Room) -> None:
        return self.fanout.poke(room)
