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

This module holds the lobby and that pipeline. The room model lives in
:mod:`nomercy.server.rooms.room`, the fan-out in :mod:`nomercy.server.rooms.fanout`, the lifecycle
(sweep, load, rebuild, retire) in :mod:`nomercy.server.rooms.lifecycle` (both bases of
:class:`RoomManager`), the group commit of the log in :mod:`nomercy.server.rooms.logwriter`;
the ports this manager is given (storage, social store, cluster, clock) are the Protocols
of :mod:`nomercy.server.rooms.ports`, and an in-memory storage (:mod:`nomercy.server.rooms.memstore`)
runs the same logic without a database.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Literal, assert_never

from nomercy import bots as botlib
from nomercy.actions import Action
from nomercy.engine import GameState, new_game, started_event
from nomercy.errors import IllegalAction, InvalidAction, InvalidRules, NoMercyError
from nomercy.events import (
    Caught,
    Challenged,
    ColorNamed,
    DiscardedAll,
    Drew,
    Event,
    HandsPassed,
    HandsShuffled,
    HandsSwapped,
    KnockedOut,
    Passed,
    Played,
    Reshuffled,
    Reversed,
    RoundOver,
    Skipped,
    StackGrew,
    Started,
    UnoCalled,
)
from nomercy.match import Match
from nomercy.server.base import protocol as P
from nomercy.server.base.metrics import Metrics
from nomercy.server.base.names import name_key
from nomercy.server.base.protocol import (
    ErrorCode,
    ProtocolError,
    RoomStatus,
    SeatKind,
    StorageUnavailable,
    build_rules,
)
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import token_hash
from nomercy.server.players.ratings import check_rated_removal, check_rated_room, check_rated_seat
from nomercy.server.rooms.leases import LeaseLost
from nomercy.server.rooms.lifecycle import Lifecycle
from nomercy.server.rooms.logwriter import LogWriter
from nomercy.server.rooms.ports import Clock, ClusterPort, RoomStorage, SocialPort, SystemClock
from nomercy.server.rooms.room import (
    Client,
    Room,
    Seat,
    bot_name,
    bot_strength,
    chat_history_text,
    check_character,
    dumps,
    moving,
    revealed_hands,
)
from nomercy.server.rooms.social import ChatLine, Removed, SocialStore
from nomercy.server.rooms.storage import NEXT_ROUND, REMATCH, Storage, StoredSeat

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

log = logging.getLogger("nomercy.server")


class RoomManager(Lifecycle):
    """Every room in memory, their storage, and the one pipeline that changes them."""

    def __init__(
        self,
        settings: Settings,
        storage: RoomStorage,
        social: SocialPort | None = None,
        clock: Clock | None = None,
    ) -> None:
        """``social`` defaults to the chat and removals stored beside ``storage`` (which must
        then be the database :class:`Storage`); ``clock`` to the real one."""
        self.settings = settings
        self.storage = storage
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.metrics = Metrics()
        self.writer = LogWriter(storage, self.metrics)
        if social is None:
            if not isinstance(storage, Storage):
                raise TypeError("a storage other than the database one needs its own social store")
            social = SocialStore(storage)
        self.social: SocialPort = social
        #: Join code -> why: rooms this engine could not continue (ended, told on joining).
        self.retired: dict[str, str] = {}
        self.rooms: dict[str, Room] = {}
        self.metrics.watch(lambda: self.rooms.values())
        #: Called with each new room to start its driver (set by the app).
        self.on_new_room: Callable[[Room], None] | None = None
        #: Called with a room whose round just ended (the app keeps the round: nomercy.server.games.kept).
        self.on_round_end: Callable[[Room], None] | None = None
        #: Several processes: :class:`nomercy.server.rooms.cluster.Cluster` (rooms are opened on
        #: demand under a lease); None for one process (every room lives here).
        self.cluster: ClusterPort | None = None
        #: Several processes: ids of the rooms each address created here (rooms per address).
        self.created: dict[str, set[int]] = {}
        #: Creations under way (checked against the caps, not yet counted in ``rooms``), in
        #: all and by address: a creation awaits storage between its check and its room, so
        #: concurrent creators would each pass a check made on the rooms alone.
        self.creating = 0
        self.creating_by: dict[str, int] = {}

    # -- creating and joining ----------------------------------------------------------

    def new_code(self) -> str:
        """A free join code (reads storage: call it off the event loop)."""
        for _ in range(100):
            code = "".join(secrets.choice(P.CODE_ALPHABET) for _ in range(P.CODE_LENGTH))
            if code not in self.rooms and not self.storage.code_exists(code):
                return code
        raise ProtocolError(ErrorCode.SERVER_ERROR, "could not find a free join code")

    async def open_rooms_of(self, address: str) -> int:
        """Unfinished rooms that ``address`` created. Several processes: a room runs wherever
        the proxy routes its code, so the ones created here are counted in storage."""
        if self.cluster is None:
            return sum(1 for r in self.rooms.values() if r.creator == address and r.status != "finished")
        ids = set(self.created.get(address, ()))
        if not ids:
            return 0
        since = self.clock.time() - self.settings.idle_room_seconds
        try:
            still = await asyncio.to_thread(self.storage.open_rooms, sorted(ids), since)
        except Exception:
            log.warning("storage failed counting an address's rooms", exc_info=True)
            raise ProtocolError(
                ErrorCode.SERVER_ERROR, "the server could not save the room: try again"
            ) from None
        # Rooms created here while storage was asked are kept (and counted) too.
        self.created[address] = set(still) | (self.created.get(address, set()) - ids)
        return len(self.created[address])

    async def create(
        self,
        req: P.CreateRoom,
        address: str | None = None,
        account_id: str | None = None,
        config: dict[str, Any] | None = None,
    ) -> tuple[Room, str]:
        """A room in the lobby with the host in seat 0; returns it and the host's token.

        The caps hold under concurrent creators: the check and the reservation of a place
        happen together (no await between them), and the place stays reserved until the
        room is in memory or the creation failed."""
        if len(self.rooms) + self.creating >= self.settings.max_rooms:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "the server is full: try again later")
        self.creating += 1
        if address is not None:
            self.creating_by[address] = self.creating_by.get(address, 0) + 1
        try:
            return await self._create(req, address, account_id, config or {})
        finally:
            self.creating -= 1
            if address is not None:
                left = self.creating_by[address] - 1
                if left:
                    self.creating_by[address] = left
                else:
                    del self.creating_by[address]

    async def _create(
        self, req: P.CreateRoom, address: str | None, account_id: str | None, extra: dict[str, Any]
    ) -> tuple[Room, str]:
        if address is not None:
            open_rooms = await self.open_rooms_of(address)
            others = self.creating_by[address] - 1  # this address's other creations under way
            if open_rooms + others >= self.settings.max_rooms_per_address:
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED,
                    f"your address has {self.settings.max_rooms_per_address} open rooms: finish one first",
                )
        check_rated_room(req, account_id)
        if req.seed is not None and not self.settings.test_options:
            raise ProtocolError(ErrorCode.FORBIDDEN, "choosing the seed is a test option, off on this server")
        rules = build_rules(req.preset, req.rules)
        if req.seats > rules.max_players:
            raise ProtocolError(
                ErrorCode.BAD_REQUEST, f"{req.seats} seats: these rules seat at most {rules.max_players} (S1)"
            )
        try:
            new_game(req.seats, rules, seed=0)
        except InvalidRules as exc:
            raise ProtocolError(ErrorCode.INVALID_RULES, str(exc)) from None
        if req.bots > req.seats - 1:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "at least one seat is the host's: fewer bots, please")
        if req.bot.strip().lower() not in botlib.available():
            raise ProtocolError(
                ErrorCode.BAD_REQUEST, f"unknown bot {req.bot!r}: choose from {', '.join(botlib.available())}"
            )
        if req.character is not None:
            check_character(req.character, req.bot)
        if req.turn_seconds and not 1 <= req.turn_seconds <= self.settings.max_turn_seconds:
            raise ProtocolError(
                ErrorCode.BAD_REQUEST,
                f"turn timer: 1 to {self.settings.max_turn_seconds} seconds, or 0 for off",
            )
        token = secrets.token_urlsafe(24)
        seats = [
            Seat(
                0,
                "human",
                req.nickname,
                token_hash(token),
                host=True,
                account_id=account_id,
                away_since=self.clock.monotonic(),
            )
        ]
        strength = f"{req.character}, {req.bot.strip().lower()}" if req.character else req.bot
        for i in range(1, req.seats):
            if i >= req.seats - req.bots:
                seats.append(Seat(i, "bot", bot_name(i, strength)))
            else:
                seats.append(Seat(i, "open"))
        config = req.model_dump(exclude={"nickname"})
        # The full rules, not the changes from a preset: a rebuild needs no preset table.
        config["rules"] = rules.to_dict()
        config["bot"] = req.bot.strip().lower()
        config["character"] = req.character.strip().lower() if req.character else None
        config.update(extra)  # the server's own settings of the room (the daily deal's)
        stored = [s.stored() for s in seats]

        def store() -> tuple[str, int]:
            for attempt in range(3):
                code = self.new_code()
                try:
                    return code, self.storage.create_room(code, config, stored)
                except Exception:
                    if attempt == 2 or not self.storage.code_exists(code):
                        raise  # not a race for the same code: storage itself failed
            raise AssertionError("unreachable")

        try:
            code, room_id = await asyncio.to_thread(store)
        except ProtocolError:
            raise
        except Exception:
            log.warning("storage failed creating a room", exc_info=True)
            raise ProtocolError(
                ErrorCode.SERVER_ERROR, "the server could not save the room: try again"
            ) from None
        room = Room(room_id, code, config, rules, seats, creator=address)
        room.log = deque(maxlen=self.settings.log_length)
        self._attach_bots(room)
        if self.cluster is None:
            self._add(room)
        elif address is not None:  # several processes: the one the proxy routes it to opens it
            self.created.setdefault(address, set()).add(room_id)
        return room, token

    async def join(self, code: str, nickname: str, account_id: str | None = None) -> tuple[Room, int, str]:
        room = self.get(code)
        async with room.lock:
            if room.status != "lobby":
                raise ProtocolError(ErrorCode.ROOM_FULL, "the game has started: you can watch as a spectator")
            check_rated_seat(room.config, account_id)
            self._name_free(room, nickname)
            for seat in room.seats:
                if seat.kind == "open":
                    token = secrets.token_urlsafe(24)
                    stored = StoredSeat(
                        seat.seat, "human", nickname, token_hash(token), seat.host, account_id
                    )
                    await self._write(room, self.storage.update_seat, room.id, stored)
                    seat.kind, seat.nickname, seat.token_hash = "human", nickname, stored.token_hash
                    seat.account_id = account_id
                    seat.away_since = room.changed_at = self.clock.monotonic()
                    self.broadcast_room(room, now=True)  # a seat taken: news, not churn
                    return room, seat.seat, token
        raise ProtocolError(ErrorCode.ROOM_FULL, "every seat is taken: you can watch as a spectator")

    @staticmethod
    def _name_free(room: Room, nickname: str, seat: int | None = None) -> None:
        """Refuse ``nickname`` if a player seated at ``room`` (other than ``seat``) has a name
        a person could not tell from it (see :func:`nomercy.server.base.names.name_key`)."""
        key = name_key(nickname)
        for other in room.seats:
            if other.kind != "human" or other.seat == seat or not other.nickname:
                continue
            if name_key(other.nickname) == key:
                raise ProtocolError(
                    ErrorCode.NAME_TAKEN,
                    f"{other.nickname} already sits at this table: choose a name the others can tell apart",
                )

    async def _write(self, room: Room, func: Callable[..., None], *args: Any) -> None:
        """A lobby write of ``room`` (under its lock), in a worker thread so that a slow commit
        stalls no other room, fenced by the room's lease epoch (several processes): a lost
        lease refuses it with ``room_moving`` and lets the room go. A failure changes nothing."""
        if room.closed:
            raise moving()
        try:
            with self.fenced(room):
                await asyncio.to_thread(func, *args, epoch=room.epoch)
        except ProtocolError:
            raise
        except Exception:
            log.warning("storage failed (%s)", getattr(func, "__name__", func), exc_info=True)
            raise ProtocolError(ErrorCode.SERVER_ERROR, "the server could not save that: try again") from None

    def get(self, code: str) -> Room:
        room = self.rooms.get(code.upper())
        if room is None:
            if code.upper() in self.retired:
                raise ProtocolError(ErrorCode.ROOM_RETIRED, self.retired[code.upper()])
            raise ProtocolError(ErrorCode.NOT_FOUND, "no room with that code")
        if room.closed:
            raise moving()
        room.touched = self.clock.monotonic()
        return room

    async def find(self, code: str) -> Room:
        """:meth:`get`, or (several processes) take the room's lease and open it from storage."""
        room = self.rooms.get(code.upper())
        if room is None and self.cluster is not None:
            await self.cluster.open(code.upper())
        room = self.get(code)
        room.routed_at = self.clock.monotonic()
        return room

    @contextlib.contextmanager
    def fenced(self, room: Room) -> Iterator[None]:
        """A write of ``room``: if its lease was lost, refuse with ``room_moving`` and let go."""
        try:
            with self.metrics.storage_write("lobby"):
                yield
        except LeaseLost:
            self.lost(room)
            raise moving() from None

    def authenticate(self, room: Room, token: str | None) -> int:
        """The seat that ``token`` sits at; constant-time comparison with every seat."""
        if not token:
            raise ProtocolError(ErrorCode.UNAUTHORIZED, "this needs your seat token")
        digest = token_hash(token)
        found = None
        for seat in room.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = seat.seat
        if found is None:
            raise ProtocolError(ErrorCode.UNAUTHORIZED, "that seat token does not belong to this room")
        return found

    def host_seat(self, room: Room, token: str | None) -> int:
        seat = self.authenticate(room, token)
        if not room.seats[seat].host:
            raise ProtocolError(ErrorCode.FORBIDDEN, "only the host can do that")
        return seat

    async def start(self, room: Room, token: str | None) -> None:
        async with room.lock:
            self.host_seat(room, token)
            if room.status != "lobby":
                raise ProtocolError(ErrorCode.BAD_REQUEST, "the game has already started")
            seed = int(room.config["seed"]) if room.config.get("seed") is not None else secrets.randbits(63)
            bot = bot_strength(room.config)
            dealt = [
                StoredSeat(s.seat, "bot", bot_name(s.seat, bot), None, s.host)
                if s.kind == "open"
                else s.stored()
                for s in room.seats
            ]
            await self._write(room, self.storage.start, room.id, seed, dealt)
            for seat in room.seats:
                if seat.kind == "open":
                    seat.kind, seat.nickname = "bot", bot_name(seat.seat, bot)
            self._attach_bots(room)
            room.seed, room.status = seed, "playing"
            room.match = Match(len(room.seats), room.rules, seed)
            room.log.append(started_event(room.match.state))
            room.changed_at = self.clock.monotonic()
            self._dealt(room)
            self.broadcast_room(room, now=True)
            self.broadcast_state(room, [started_event(room.match.state)])
            self.poke(room)

    async def kick(self, room: Room, token: str | None, seat: int) -> None:
        """The host removes a player: a bot takes the seat (the lobby: it opens again)."""
        async with room.lock:
            host = self.host_seat(room, token)
            if not 0 <= seat < len(room.seats) or seat == host:
                raise ProtocolError(ErrorCode.BAD_REQUEST, "pick another player's seat")
            target = room.seats[seat]
            if target.kind != "human":
                raise ProtocolError(ErrorCode.BAD_REQUEST, f"seat {seat} has no human player")
            check_rated_removal(room.config, room.status == "playing")
            lobby = room.status == "lobby"
            kind: SeatKind = "open" if lobby else "bot"
            nickname = None if lobby else bot_name(seat, bot_strength(room.config))
            old = target.nickname
            # The removed player's token digest is kept (in the same transaction): the host
            # can let them back in, after a restart or from another process too.
            entry = Removed(seat, old, target.token_hash) if target.token_hash and old else None
            await self._write(
                room, self.social.remove, room.id, StoredSeat(seat, kind, nickname, None, target.host), entry
            )
            if entry is not None:
                room.removed[seat] = entry
            room.rematch_ready.discard(seat)
            target.token_hash, target.standin, target.away_since = None, False, None
            target.account_id = None
            target.kind, target.nickname = kind, nickname
            if not lobby:
                self._attach_bots(room)
            kicked = P.Kicked(message=f"the host removed {old} from the table").model_dump_json()
            for client in list(room.clients):
                if client.seat == seat:
                    client.send(kicked)
                    client.close()
                    room.clients.discard(client)
            target.connections = 0
            self.broadcast_room(room, now=True)
            self.poke(room)

    async def readmit(self, room: Room, token: str | None, seat: int) -> None:
        """The host undoes a removal: the player's old token sits them at their seat again."""
        async with room.lock:
            self.host_seat(room, token)
            entry = room.removed.get(seat)
            if entry is None:
                raise ProtocolError(ErrorCode.BAD_REQUEST, "nobody was removed from that seat")
            target = room.seats[seat]
            if target.kind == "human":
                raise ProtocolError(ErrorCode.BAD_REQUEST, f"{target.nickname} sits there now")
            self._name_free(room, entry.nickname, seat)
            back = StoredSeat(seat, "human", entry.nickname, entry.token_hash, target.host)
            await self._write(room, self.social.readmit, room.id, back)
            target.kind, target.nickname, target.token_hash = "human", entry.nickname, entry.token_hash
            # A bot keeps playing the seat until its player reconnects.
            target.standin = room.status != "lobby"
            target.away_since = room.changed_at = self.clock.monotonic()
            self._attach_bots(room)
            del room.removed[seat]
            self.broadcast_room(room, now=True)
            self.poke(room)

    async def chat(self, room: Room, seat: int, text: str) -> None:
        """A chat line: stored (a reload, or another process taking the room over, shows it
        again), then sent to everyone. Under the room's lock: stored and shown in one order."""
        async with room.lock:
            line = ChatLine(seat, room.seats[seat].nickname or f"P{seat}", text)
            await self._write(room, self.social.add_chat, room.id, line)
            room.chat.append(line)
            room.touched = self.clock.monotonic()
            self.broadcast(room, P.ChatOut(seat=seat, nickname=line.nickname, text=text).model_dump_json())

    def react(self, room: Room, seat: int, reaction: str) -> None:
        """A quick reaction: shown to everyone and kept with the recent chat in memory, so a
        reload shows it again (unlike chat lines it is not stored: a restart forgets it)."""
        line = ChatLine(seat, room.seats[seat].nickname or f"P{seat}", "", reaction)
        room.chat.append(line)
        self.broadcast(
            room, P.ReactionOut(seat=seat, nickname=line.nickname, reaction=reaction).model_dump_json()
        )

    # -- rematch ---------------------------------------------------------------------------

    def confirm_rematch(self, room: Room, seat: int | None, ready: bool) -> None:
        """A player says they want (or no longer want) a rematch once the game is over.

        Kept in memory only, like who is connected: a player who reconnects to another
        process confirms again (the room message shows who has).
        """
        if room.closed:
            raise moving()
        if seat is None:
            raise ProtocolError(ErrorCode.FORBIDDEN, "spectators watch: only players confirm a rematch")
        if not room.finished:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "a rematch can be asked for once the game is over")
        if ready:
            room.rematch_ready.add(seat)
        else:
            room.rematch_ready.discard(seat)
        self.broadcast_room(room, now=True)

    def rematch_waiting(self, room: Room) -> list[str]:
        """Connected players (not the host) who have not confirmed the rematch yet."""
        return [
            s.nickname or f"P{s.seat}"
            for s in room.seats
            if s.kind == "human" and not s.host and s.connections > 0 and s.seat not in room.rematch_ready
        ]

    async def rematch(self, room: Room, token: str | None) -> None:
        """The host deals a new game at the same table with the same rules; bots stay.

        Logged like an action (``@rematch SEED``) through the same group commit, fenced by
        the room's lease: a restart, or another process taking the room, replays into the
        new game. A failed write pauses the room like a failed action and changes nothing.
        """
        async with room.lock:
            if room.closed:
                raise moving()
            self.host_seat(room, token)
            if not room.finished:
                raise ProtocolError(ErrorCode.BAD_REQUEST, "the game is not over yet")
            if room.config.get("daily"):
                raise ProtocolError(ErrorCode.BAD_REQUEST, "the daily deal is dealt once: come back tomorrow")
            waiting = self.rematch_waiting(room)
            if waiting:
                raise ProtocolError(
                    ErrorCode.BAD_REQUEST, f"waiting for {', '.join(waiting)} to confirm the rematch"
                )
            if room.config.get("seed") is not None:  # tests: a known, different deal each time
                seed = (int(room.config["seed"]) + room.version + 1) % 2**63
            else:
                seed = secrets.randbits(63)
            marker = f"{REMATCH} {seed}"
            try:
                await self.writer.append((room.id, room.version, -1, marker, "playing", room.epoch))
            except LeaseLost:
                self.lost(room)
                raise moving() from None
            except Exception:
                last = None
                with contextlib.suppress(Exception):
                    last = await asyncio.to_thread(self.storage.last_entry, room.id)
                if last != (room.version, -1, marker):
                    self._storage_failed(room)
                    raise StorageUnavailable("the server could not save the rematch: try again") from None
            self._storage_ok(room)
            room.seed, room.status = seed, "playing"
            room.match = Match(len(room.seats), room.rules, seed)
            room.version += 1
            room.rematch_ready.clear()
            for seat in room.seats:  # fresh bots: nothing remembered from the last game
                seat.bot, seat.backlog = None, []
            self._attach_bots(room)
            room.changed_at = self.clock.monotonic()
            self._dealt(room)
            self._after(room, [started_event(room.match.state)])
            self.broadcast_room(room, now=True)

    # -- rated rounds as played ------------------------------------------------------------

    def _dealt(self, room: Room) -> None:
        """A round was just dealt: a rated one waits until every person has connected
        (:meth:`abort_unstarted` past the connect time), and nobody has forfeited it yet."""
        for seat in room.seats:  # a stand-in still at a seat plays this round too: a forfeit
            still = room.rated and seat.kind == "human" and seat.standin
            seat.forfeit, seat.timeouts = ("standin" if still else None), 0
        if room.rated and room.unconnected():
            self.wait_for_people(room)

    def wait_for_people(self, room: Room) -> None:
        """The rated round waits for every person to connect, ``rated_connect_seconds`` from now."""
        room.waiting_since = self.clock.monotonic()
        room.connect_seconds = self.settings.rated_connect_seconds

    async def abort_unstarted(self, room: Room) -> None:
        """A rated round still waiting for a person past ``rated_connect_seconds`` ends
        unrated: the room is over, nothing of the round is kept, the fair-play log says why."""
        async with room.lock:
            since = room.waiting_since
            if since is None or room.closed or room.status != "playing":
                return
            if self.clock.monotonic() < since + self.settings.rated_connect_seconds:
                return
            absent = room.unconnected()
            await self._write(room, self.storage.set_status, room.id, "finished")
            room.status, room.waiting_since, room.aborted = "finished", None, True
            room.never_connected = [s.seat for s in absent]
            room.changed_at = self.clock.monotonic()
            log.info("rated round of room %s aborted: %d never connected", room.code, len(absent))
            self.broadcast_room(room, now=True)
            self.broadcast_state(room, [])  # nobody plays on: each seat is told so
        accounts = [s.account_id for s in room.seats if s.kind == "human" and s.account_id]
        detail = {
            "round": room.match.round_number if room.match is not None else 0,
            "absent": [s.account_id or s.nickname for s in absent],
            "seconds": self.settings.rated_connect_seconds,
        }
        await self.fair_play_flag("abort", room, accounts, detail)

    def address_shared(self, room: Room, shared: bool) -> None:
        """The address check ran for a seat of ``room`` (``fairplay.seat_connected``):
        while two of its accounts share an address no operator allows, its rounds are not
        rated, and its players are told why (``RoomInfo.unrated_reason``)."""
        reason: Literal["address"] | None = "address" if shared and room.rated else None
        if room.unrated_reason != reason:
            room.unrated_reason = reason
            self.broadcast_room(room, now=True)

    def timed_out(self, room: Room, seat: int) -> None:
        """The turn timer played for ``seat``: at a rated table, a run of ``rated_timeouts``
        in a row hands the seat to a stand-in and makes the round the person's forfeit."""
        s = room.seats[seat]
        if not room.rated or s.kind != "human":
            return
        s.timeouts += 1
        if s.timeouts >= self.settings.rated_timeouts and not s.standin:
            s.standin, s.forfeit = True, s.forfeit or "timeouts"
            self.broadcast_room(room)

    def stood_in(self, room: Room, seat: int) -> None:
        """A stand-in took ``seat`` over after its grace period: at a rated table, a forfeit."""
        s = room.seats[seat]
        if room.rated and s.kind == "human" and room.status == "playing":
            s.forfeit = s.forfeit or "grace"

    async def fair_play_flag(
        self, kind: str, room: Room, accounts: list[str], detail: dict[str, Any]
    ) -> None:
        """A fair-play log entry (``nomercy.server.players.fairplay``), off the event loop; only the
        database storage keeps one, and a failure to log never stops a table."""
        engine = getattr(self.storage, "engine", None)
        if engine is None:
            return
        from nomercy.server.players.fairplay import log_flag

        def write() -> None:
            with engine.begin() as conn:
                log_flag(conn, kind, room=room.code, accounts=accounts, detail=detail)

        try:
            await asyncio.to_thread(write)
        except Exception:
            log.warning("the fair-play log failed for room %s", room.code, exc_info=True)

    # -- connections ---------------------------------------------------------------------

    def connect(self, room: Room, client: Client) -> None:
        """Seat (or seat as a spectator) a connection; a seat over its connection limit loses
        its oldest connection, so a player coming back is never turned away."""
        if room.closed:
            raise moving()
        if client.seat is not None:
            mine = sorted((c for c in room.clients if c.seat == client.seat), key=lambda c: c.serial)
            for old in mine[: max(0, len(mine) - self.settings.max_connections_per_seat + 1)]:
                old.close()
                self.disconnect(room, old)
        room.clients.add(client)
        if client.seat is not None:
            seat = room.seats[client.seat]
            seat.connections += 1
            seat.away_since = None
            seat.standin = False
            if room.waiting_since is not None and not room.unconnected():
                room.waiting_since = None  # everyone is here: the rated round begins now
                room.changed_at = self.clock.monotonic()
                self.broadcast_room(room, now=True)
                self.broadcast_state(room, [])  # whose move it is: nobody's until now
        client.send(P.Welcome(seat=client.seat, room=room.info()).model_dump_json())
        client.send(self.state_text(room, client.seat, list(room.log), snapshot=True))
        client.send(chat_history_text(room))
        self.broadcast_room(room)
        self.poke(room)

    def disconnect(self, room: Room, client: Client) -> None:
        if client not in room.clients:
            return
        room.clients.discard(client)
        if room.status == "lobby":
            room.changed_at = self.clock.monotonic()  # a lobby's idle time counts from its last visitor
        if client.seat is not None:
            seat = room.seats[client.seat]
            seat.connections = max(0, seat.connections - 1)
            if seat.connections == 0 and seat.kind == "human":
                seat.away_since = self.clock.monotonic()
        self.broadcast_room(room)
        self.poke(room)

    # -- the action pipeline ---------------------------------------------------------------

    async def act(
        self, room: Room, seat: int | None, text: str, version: int, ref: str | None = None
    ) -> None:
        """A client's action message: the checks that need no lock, then :meth:`apply`."""
        if seat is None:
            raise ProtocolError(ErrorCode.FORBIDDEN, "spectators watch: they cannot act", ref=ref)
        if room.match is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the host has not started the game yet", ref=ref)
        if room.waiting_since is not None:
            names = ", ".join(s.nickname or f"P{s.seat}" for s in room.unconnected())
            raise ProtocolError(
                ErrorCode.NOT_STARTED,
                f"the rated round begins once everyone is here: waiting for {names}",
                ref=ref,
            )
        try:
            action = Action.parse(text)
        except InvalidAction as exc:
            raise ProtocolError(ErrorCode.INVALID_ACTION, str(exc), ref=ref) from None
        await self.apply(room, seat, action, version, ref=ref)
        mine = room.seats[seat]
        mine.timeouts = 0  # the person answered: their run of timeouts ends
        if mine.standin and mine.connections:
            mine.standin = False  # back at the table (a stand-in took over after timeouts)
            self.broadcast_room(room)

    def _too_late(self, room: Room) -> str:
        for event in reversed(room.log):
            match event:
                case Caught(seat=seat, by=by):
                    return f"too late: P{by} caught P{seat} first"
                case UnoCalled(seat=seat):
                    return f"too late: P{seat} called Uno first"
                case Drew(reason="uno_penalty"):  # the cards of the catch itself
                    continue
                case Played() | Drew() | Passed():  # the next turn had begun
                    break
                case (
                    Started() | DiscardedAll() | Reshuffled() | ColorNamed() | Skipped() | Reversed()
                    | StackGrew() | HandsSwapped() | HandsPassed() | HandsShuffled() | KnockedOut()
                    | Challenged() | RoundOver()
                ):  # fmt: skip
                    continue
                case _:
                    assert_never(event)
        return "too late: the next turn has already begun (U3)"

    async def apply(
        self, room: Room, seat: int, action: Action, version: int, ref: str | None = None
    ) -> list[Event]:
        """Under the room's lock: check the version, try on a clone, store, keep the clone, broadcast.

        The lock is held while the log entry is committed, so the next message for this
        room is checked against the state this one produced (and refused as stale if it
        named the old version). Other rooms go on meanwhile; their entries share commits.
        """
        began = time.perf_counter()
        async with room.lock:
            if room.closed:
                raise moving(ref)
            match = room.match
            assert match is not None
            if version != room.version:
                if action.out_of_turn and version < room.version:
                    raise ProtocolError(ErrorCode.TOO_LATE, self._too_late(room), ref=ref)
                raise ProtocolError(
                    ErrorCode.STALE,
                    f"that action was for version {version}; the table is at version {room.version}",
                    ref=ref,
                )
            if match.round_over:
                raise ProtocolError(ErrorCode.GAME_OVER, "the round is over", ref=ref)
            if action.out_of_turn and not match.state.uno_open:
                raise ProtocolError(ErrorCode.TOO_LATE, self._too_late(room), ref=ref)
            probe = match.state.clone()
            try:
                events = probe.apply(action, seat)
            except IllegalAction as exc:
                raise ProtocolError(exc.code, str(exc), ref=ref) from None
            except NoMercyError as exc:
                raise ProtocolError(ErrorCode.ILLEGAL_ACTION, str(exc), ref=ref) from None
            outcome = probe.outcome
            over_after = outcome is not None
            status: RoomStatus | None = None
            if outcome is not None and (room.mode == "round" or match.would_end(outcome)):
                status = "finished"
            try:
                await self.writer.append((room.id, room.version, seat, str(action), status, room.epoch))
            except LeaseLost:
                self.lost(room)
                raise moving(ref) from None
            except Exception:
                if not await self._committed_anyway(room, seat, action):
                    self._storage_failed(room)
                    raise StorageUnavailable(
                        "the server could not save that action: the game is paused, try again", ref=ref
                    ) from None
            self._storage_ok(room)
            self._applied(room, seat, action, probe, events, status, over_after)
        self.metrics.action_seconds.observe(time.perf_counter() - began)
        return events

    def _storage_failed(self, room: Room) -> None:
        """The first failure pauses the room (logged with its traceback, players told);
        later ones while paused are only counted (the driver backs off)."""
        if room.paused:
            log.debug("storage still failing for room %s", room.code)
            return
        log.warning("storage failed for room %s: the game is paused", room.code, exc_info=True)
        room.paused = True
        self.broadcast(
            room,
            P.Paused(message="the server cannot save moves right now: the game is paused").model_dump_json(),
        )
        self.broadcast_room(room, now=True)
        # Wake the driver: it probes storage until it answers. Without this a table of people
        # only (no bot, no turn timer) stayed paused, its driver asleep, input blocked.
        self.poke(room)

    def _storage_ok(self, room: Room) -> None:
        if room.paused:
            log.warning("storage is back for room %s: the game resumes", room.code)
            room.paused = False
            # The game stood still while paused: its timers (a turn, a bot's pause) start afresh.
            room.changed_at = self.clock.monotonic()
            self.broadcast(room, P.Resumed().model_dump_json())
            self.broadcast_room(room, now=True)
            self.poke(room)

    async def probe_storage(self, room: Room) -> None:
        """While paused: one real write (the room's status, unchanged); success resumes.

        The room's driver calls this, backing off between tries, instead of playing bots
        or running out a human's turn timer against a database that is down.
        """
        async with room.lock:
            if room.closed:
                raise moving()
            try:
                await asyncio.to_thread(self.storage.set_status, room.id, room.status, room.epoch)
            except LeaseLost:
                self.lost(room)  # another process runs it now: nothing to resume here
                raise moving() from None
            except Exception:
                self._storage_failed(room)
                raise StorageUnavailable("storage is still unavailable") from None
            self._storage_ok(room)

    async def _committed_anyway(self, room: Room, seat: int, action: Action) -> bool:
        """A commit can fail after the database kept it (a lost connection at COMMIT): look."""
        try:
            last = await asyncio.to_thread(self.storage.last_entry, room.id)
        except Exception:
            return False
        return last == (room.version, seat, str(action))

    def _applied(
        self,
        room: Room,
        seat: int,
        action: Action,
        trial: GameState,
        events: list[Event],
        status: RoomStatus | None,
        over_after: bool,
    ) -> None:
        """The action is on disk: its trial state becomes the live one; tell everyone."""
        match = room.match
        assert match is not None
        self.metrics.actions.labels("human" if room.controller(seat) is None else "bot").inc()
        match.adopt(trial, action, seat)
        room.version += 1
        room.last_actor = seat
        if status is not None:
            room.status = status
        self._after(room, events)
        if over_after:
            if self.settings.test_options and os.environ.get("NOMERCY_TEST_DIE_AFTER_LAST_ACTION"):
                # Tests of recovery: die where a crash loses most, the round's end on disk, not kept.
                os._exit(17)
            self.broadcast_room(room, now=True)
            if self.on_round_end is not None:
                try:
                    self.on_round_end(room)
                except Exception:  # keeping the round never stops the game
                    log.exception("keeping a round of room %s failed", room.code)

    async def next_round(self, room: Room, version: int) -> None:
        """Deal the next round of a match (logged like an action)."""
        async with room.lock:
            match = room.match
            if room.version != version or match is None or not match.round_over or room.finished:
                return
            if room.closed:
                return
            try:
                await self.writer.append((room.id, room.version, -1, NEXT_ROUND, None, room.epoch))
            except LeaseLost:
                self.lost(room)
                return
            except Exception:
                last = None
                with contextlib.suppress(Exception):
                    last = await asyncio.to_thread(self.storage.last_entry, room.id)
                if last != (room.version, -1, NEXT_ROUND):
                    self._storage_failed(room)
                    raise StorageUnavailable("the server could not save the next round") from None
            self._storage_ok(room)
            match.next_round()
            room.version += 1
            room.changed_at = self.clock.monotonic()
            self._dealt(room)
            self._after(room, [started_event(match.state)])
            self.broadcast_room(room, now=True)

    def _after(self, room: Room, events: list[Event]) -> None:
        room.log.extend(events)
        room.changed_at = self.clock.monotonic()
        room.touched = room.changed_at
        for seat in room.seats:
            seat.tell(events)
        self.broadcast_state(room, events)
        self.poke(room)
