"""Rooms: lifecycle (create, join, start, remove a player) and the action pipeline.

Everything that changes a game goes through :meth:`RoomManager.apply`, synchronously on
the event loop (so two messages can never interleave inside it):

1. parse and check the version; the engine checks the rest on a *clone* of the state
   (a refused action changes nothing, ``IllegalAction`` carries the reason);
2. append the action to the room's log in storage and commit;
3. apply it to the live match, then queue to every connection *its own* message:
   ``state.view(seat).to_dict()`` and ``redact(events, seat)`` (spectators: ``None``).

Who was first to an Uno call or a catch is therefore simply the order in which the
server processes the messages; the later one is refused with ``too_late``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from nomercy import bots as botlib
from nomercy.actions import Action
from nomercy.engine import new_game, started_event
from nomercy.errors import IllegalAction, InvalidAction, InvalidRules, NoMercyError
from nomercy.events import Event, redact
from nomercy.match import Match
from nomercy.rules import Rules
from nomercy.server import protocol as P
from nomercy.server.limits import TokenBucket
from nomercy.server.protocol import ErrorCode, ProtocolError
from nomercy.server.settings import Settings
from nomercy.server.social import CHAT_HISTORY, ChatLine, Removed, SocialStore
from nomercy.server.storage import NEXT_ROUND, REMATCH, Storage, StoredRoom, StoredSeat, token_hash

log = logging.getLogger("nomercy.server")


@dataclass
class Seat:
    """A seat at a table. ``kind``: ``human`` (has a token), ``bot`` or ``open``."""

    seat: int
    kind: str
    nickname: str | None = None
    token_hash: str | None = None
    host: bool = False
    connections: int = 0
    #: When the last connection of a human dropped (``time.monotonic``).
    away_since: float | None = None
    #: A bot plays this human's seat until they return (after the grace period).
    standin: bool = False
    bot: botlib.Bot | None = None
    #: The bot is choosing in a worker thread: events wait in ``backlog`` meanwhile, so
    #: a bot is never called from two threads at once.
    thinking: bool = False
    backlog: list[list[Event]] = field(default_factory=list)

    def tell(self, events: list[Event]) -> None:
        """Give this seat's bot the events as this seat may see them (now or after thinking)."""
        if self.bot is None:
            return
        redacted = redact(events, self.seat)
        if self.thinking:
            self.backlog.append(redacted)
            return
        try:
            self.bot.observe(redacted)
        except Exception:  # a bot's bookkeeping must never stop the table
            log.exception("bot observe failed")

    def done_thinking(self) -> None:
        self.thinking = False
        backlog, self.backlog = self.backlog, []
        for events in backlog:
            try:
                self.bot.observe(events)  # type: ignore[union-attr]
            except Exception:
                log.exception("bot observe failed")

    def stored(self) -> StoredSeat:
        return StoredSeat(self.seat, self.kind, self.nickname, self.token_hash, self.host)


class Client:
    """One WebSocket connection: its seat (None: spectator) and its outgoing queue.

    Messages are queued as ready JSON text and written by the connection's own writer
    task, so a slow client never stalls the room; one that falls too far behind is
    dropped (it can reconnect and get a fresh snapshot).
    """

    MAX_QUEUE = 512

    def __init__(self, seat: int | None, settings: Settings, address: str) -> None:
        self.seat = seat
        self.address = address
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.messages = TokenBucket(settings.message_rate, settings.message_burst)
        self.chat = TokenBucket(settings.chat_rate, settings.chat_burst)
        self.closed = False

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.MAX_QUEUE:
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self) -> None:
        """Ask the writer to close the connection after what is queued."""
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


@dataclass
class Room:
    id: int
    code: str
    #: The CreateRoom request as stored (without the nickname).
    config: dict[str, Any]
    rules: Rules
    seats: list[Seat]
    status: str = "lobby"
    seed: int | None = None
    match: Match | None = None
    #: Entries in the stored action log: the room's state version.
    version: int = 0
    clients: set[Client] = field(default_factory=set)
    #: Recent events (raw, redacted per recipient when sent).
    log: deque[Event] = field(default_factory=lambda: deque(maxlen=200))
    #: ``time.monotonic()`` of the last change of the game: timers count from here.
    changed_at: float = field(default_factory=time.monotonic)
    last_actor: int = 0
    #: Set by the server: wakes the room's driver (:mod:`nomercy.server.timers`).
    driver: Any = None
    #: Held from the version check until the action is stored and applied.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    touched: float = field(default_factory=time.monotonic)
    #: Recent chat lines (also in storage: a reload shows them again).
    chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=CHAT_HISTORY))
    #: Players the host removed, by seat: their token works again if the host undoes it.
    removed: dict[int, Removed] = field(default_factory=dict)
    #: Seats whose players confirmed a rematch after the game ended.
    rematch_ready: set[int] = field(default_factory=set)

    @property
    def turn_seconds(self) -> int | None:
        value = self.config.get("turn_seconds")
        return int(value) if value else None

    @property
    def mode(self) -> str:
        return str(self.config.get("mode", "round"))

    @property
    def finished(self) -> bool:
        m = self.match
        if m is None or not m.round_over:
            return False
        return self.mode == "round" or m.is_over

    def controller(self, seat: int) -> botlib.Bot | None:
        """The bot that decides for ``seat`` now (a bot seat, or a stand-in), or None."""
        s = self.seats[seat]
        if s.kind == "bot" or (s.kind == "human" and s.standin):
            return s.bot
        return None

    def spectators(self) -> int:
        return sum(1 for c in self.clients if c.seat is None)

    def info(self) -> P.RoomInfo:
        m = self.match
        return P.RoomInfo(
            code=self.code,
            status=self.status,  # type: ignore[arg-type]
            seats=[
                P.SeatInfo(
                    seat=s.seat,
                    nickname=s.nickname,
                    kind=s.kind,  # type: ignore[arg-type]
                    connected=s.connections > 0,
                    standin=s.standin,
                    host=s.host,
                )
                for s in self.seats
            ],
            rules=self.rules.to_dict(),
            preset=str(self.config.get("preset", "no_mercy")),
            mode=self.mode,  # type: ignore[arg-type]
            bot=str(self.config.get("bot", "random")),
            turn_seconds=self.turn_seconds,
            round=m.round_number if m else 0,
            scores=list(m.scores) if m else [0] * len(self.seats),
            rounds=[
                {"number": r.number, "winner": r.winner, "reason": r.reason, "points": list(r.points)}
                for r in (m.rounds if m else [])
            ],
            match_winner=self.winner(),
            spectators=self.spectators(),
            removed=[
                {"seat": r.seat, "nickname": r.nickname}
                for r in sorted(self.removed.values(), key=lambda r: r.seat)
            ],
            rematch=sorted(self.rematch_ready),
        )

    def winner(self) -> int | None:
        """The winner of the match (match mode) or of the single round, once decided."""
        m = self.match
        if m is None or not m.round_over:
            return None
        return m.winner if self.mode == "match" else m.rounds[-1].winner

    def deadline(self) -> float | None:
        """Seconds left on the turn timer of a human deciding now, or None."""
        if self.turn_seconds is None or self.match is None or self.match.state.current is None:
            return None
        if self.controller(self.match.state.current) is not None:
            return None
        return max(0.0, self.changed_at + self.turn_seconds - time.monotonic())


def event_dict(event: Event) -> dict[str, Any]:
    out = event.to_dict()
    out["text"] = event.describe()
    return out


class RoomManager:
    """Every room in memory, their storage, and the one pipeline that changes them."""

    def __init__(self, settings: Settings, storage: Storage) -> None:
        self.settings = settings
        self.storage = storage
        self.writer = LogWriter(storage)
        self.social = SocialStore(storage.engine)
        self.rooms: dict[str, Room] = {}
        #: Called with each new room to start its driver (set by the app).
        self.on_new_room: Any = None

    # -- creating and joining ----------------------------------------------------------

    def new_code(self) -> str:
        for _ in range(100):
            code = "".join(secrets.choice(P.CODE_ALPHABET) for _ in range(P.CODE_LENGTH))
            if code not in self.rooms and not self.storage.code_exists(code):
                return code
        raise ProtocolError(ErrorCode.SERVER_ERROR, "could not find a free join code")

    def create(self, req: P.CreateRoom) -> tuple[Room, str]:
        """A room in the lobby with the host in seat 0; returns it and the host's token."""
        if len(self.rooms) >= self.settings.max_rooms:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "the server is full: try again later")
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
        if req.turn_seconds and not 1 <= req.turn_seconds <= self.settings.max_turn_seconds:
            raise ProtocolError(
                ErrorCode.BAD_REQUEST,
                f"turn timer: 1 to {self.settings.max_turn_seconds} seconds, or 0 for off",
            )
        token = secrets.token_urlsafe(24)
        seats = [Seat(0, "human", req.nickname, token_hash(token), host=True, away_since=time.monotonic())]
        for i in range(1, req.seats):
            if i >= req.seats - req.bots:
                seats.append(Seat(i, "bot", bot_name(i, req.bot)))
            else:
                seats.append(Seat(i, "open"))
        config = req.model_dump(exclude={"nickname"})
        # The full rules, not the changes from a preset: a rebuild needs no preset table.
        config["rules"] = rules.to_dict()
        config["bot"] = req.bot.strip().lower()
        code = self.new_code()
        room_id = self.storage.create_room(code, config, [s.stored() for s in seats])
        room = Room(room_id, code, config, rules, seats)
        room.log = deque(maxlen=self.settings.log_length)
        self._attach_bots(room)
        self._add(room)
        return room, token

    def join(self, code: str, nickname: str) -> tuple[Room, int, str]:
        room = self.get(code)
        if room.status != "lobby":
            raise ProtocolError(ErrorCode.ROOM_FULL, "the game has started: you can watch as a spectator")
        for seat in room.seats:
            if seat.kind == "open":
                token = secrets.token_urlsafe(24)
                seat.kind, seat.nickname, seat.token_hash = "human", nickname, token_hash(token)
                seat.away_since = time.monotonic()
                self.storage.update_seat(room.id, seat.stored())
                self.broadcast_room(room)
                return room, seat.seat, token
        raise ProtocolError(ErrorCode.ROOM_FULL, "every seat is taken: you can watch as a spectator")

    def get(self, code: str) -> Room:
        room = self.rooms.get(code.upper())
        if room is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, "no room with that code")
        room.touched = time.monotonic()
        return room

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

    def start(self, room: Room, token: str | None) -> None:
        self.host_seat(room, token)
        if room.status != "lobby":
            raise ProtocolError(ErrorCode.BAD_REQUEST, "the game has already started")
        for seat in room.seats:
            if seat.kind == "open":
                seat.kind, seat.nickname = "bot", bot_name(seat.seat, room.config["bot"])
        self._attach_bots(room)
        seed = int(room.config["seed"]) if room.config.get("seed") is not None else secrets.randbits(63)
        self.storage.start(room.id, seed, [s.stored() for s in room.seats])
        room.seed, room.status = seed, "playing"
        room.match = Match(len(room.seats), room.rules, seed)
        room.log.append(started_event(room.match.state))
        room.changed_at = time.monotonic()
        self.broadcast_room(room)
        self.broadcast_state(room, [started_event(room.match.state)])
        self.poke(room)

    def kick(self, room: Room, token: str | None, seat: int) -> None:
        """The host removes a player: a bot takes the seat (the lobby: it opens again)."""
        host = self.host_seat(room, token)
        if not 0 <= seat < len(room.seats) or seat == host:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "pick another player's seat")
        target = room.seats[seat]
        if target.kind != "human":
            raise ProtocolError(ErrorCode.BAD_REQUEST, f"seat {seat} has no human player")
        old = target.nickname
        if target.token_hash is not None and old is not None:
            entry = Removed(seat, old, target.token_hash)
            self.social.set_removed(room.id, entry)
            room.removed[seat] = entry
        room.rematch_ready.discard(seat)
        target.token_hash, target.standin, target.away_since = None, False, None
        if room.status == "lobby":
            target.kind, target.nickname = "open", None
        else:
            target.kind, target.nickname = "bot", bot_name(seat, room.config["bot"])
            self._attach_bots(room)
        self.storage.update_seat(room.id, target.stored())
        kicked = P.Kicked(message=f"the host removed {old} from the table").model_dump_json()
        for client in list(room.clients):
            if client.seat == seat:
                client.send(kicked)
                client.close()
                room.clients.discard(client)
        target.connections = 0
        self.broadcast_room(room)
        self.poke(room)

    def readmit(self, room: Room, token: str | None, seat: int) -> None:
        """The host undoes a removal: the player's old token sits them at their seat again."""
        self.host_seat(room, token)
        entry = room.removed.get(seat)
        if entry is None:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "nobody was removed from that seat")
        target = room.seats[seat]
        if target.kind == "human":
            raise ProtocolError(ErrorCode.BAD_REQUEST, f"{target.nickname} sits there now")
        target.kind, target.nickname, target.token_hash = "human", entry.nickname, entry.token_hash
        # A bot keeps playing the seat until its player reconnects.
        target.standin = room.status != "lobby"
        target.away_since = time.monotonic()
        self._attach_bots(room)
        self.storage.update_seat(room.id, target.stored())
        self.social.clear_removed(room.id, seat)
        del room.removed[seat]
        self.broadcast_room(room)
        self.poke(room)

    async def chat(self, room: Room, seat: int, text: str) -> None:
        """A chat line: stored (a reload shows it again), then sent to everyone."""
        line = ChatLine(seat, room.seats[seat].nickname or f"P{seat}", text)
        await asyncio.to_thread(self.social.add_chat, room.id, line)
        room.chat.append(line)
        self.broadcast(room, P.ChatOut(seat=seat, nickname=line.nickname, text=text).model_dump_json())

    # -- rematch ---------------------------------------------------------------------------

    def confirm_rematch(self, room: Room, seat: int | None, ready: bool) -> None:
        """A player says they want (or no longer want) a rematch once the game is over."""
        if seat is None:
            raise ProtocolError(ErrorCode.FORBIDDEN, "spectators watch: only players confirm a rematch")
        if not room.finished:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "a rematch can be asked for once the game is over")
        if ready:
            room.rematch_ready.add(seat)
        else:
            room.rematch_ready.discard(seat)
        self.broadcast_room(room)

    def rematch_waiting(self, room: Room) -> list[str]:
        """Connected players (not the host) who have not confirmed the rematch yet."""
        return [
            s.nickname or f"P{s.seat}"
            for s in room.seats
            if s.kind == "human" and not s.host and s.connections > 0 and s.seat not in room.rematch_ready
        ]

    async def rematch(self, room: Room, token: str | None) -> None:
        """The host deals a new game at the same table with the same rules; bots stay.

        Logged like an action (``@rematch SEED``), so a restart replays into the new game.
        """
        self.host_seat(room, token)
        async with room.lock:
            if not room.finished:
                raise ProtocolError(ErrorCode.BAD_REQUEST, "the game is not over yet")
            waiting = self.rematch_waiting(room)
            if waiting:
                raise ProtocolError(
                    ErrorCode.BAD_REQUEST, f"waiting for {', '.join(waiting)} to confirm the rematch"
                )
            if room.config.get("seed") is not None:  # tests: a known, different deal each time
                seed = (int(room.config["seed"]) + room.version + 1) % 2**63
            else:
                seed = secrets.randbits(63)
            await self.writer.append(room.id, room.version, -1, f"{REMATCH} {seed}", "playing")
            room.seed, room.status = seed, "playing"
            room.match = Match(len(room.seats), room.rules, seed)
            room.version += 1
            room.rematch_ready.clear()
            for seat in room.seats:  # fresh bots: nothing remembered from the last game
                seat.bot, seat.backlog = None, []
            self._attach_bots(room)
            self._after(room, [started_event(room.match.state)])
            self.broadcast_room(room)

    # -- connections ---------------------------------------------------------------------

    def connect(self, room: Room, client: Client) -> None:
        room.clients.add(client)
        if client.seat is not None:
            seat = room.seats[client.seat]
            seat.connections += 1
            seat.away_since = None
            seat.standin = False
        client.send(P.Welcome(seat=client.seat, room=room.info()).model_dump_json())
        client.send(self.state_text(room, client.seat, list(room.log), snapshot=True))
        client.send(chat_history_text(room))
        self.broadcast_room(room)
        self.poke(room)

    def disconnect(self, room: Room, client: Client) -> None:
        if client not in room.clients:
            return
        room.clients.discard(client)
        if client.seat is not None:
            seat = room.seats[client.seat]
            seat.connections = max(0, seat.connections - 1)
            if seat.connections == 0 and seat.kind == "human":
                seat.away_since = time.monotonic()
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
        try:
            action = Action.parse(text)
        except InvalidAction as exc:
            raise ProtocolError(ErrorCode.INVALID_ACTION, str(exc), ref=ref) from None
        await self.apply(room, seat, action, version, ref=ref)

    def _too_late(self, room: Room) -> str:
        for event in reversed(room.log):
            if event.type == "caught":
                return f"too late: P{event.by} caught P{event.seat} first"  # type: ignore[attr-defined]
            if event.type == "uno":
                return f"too late: P{event.seat} called Uno first"  # type: ignore[attr-defined]
            if event.type in ("played", "drew", "passed"):
                break
        return "too late: the next turn has already begun (U3)"

    async def apply(
        self, room: Room, seat: int, action: Action, version: int, ref: str | None = None
    ) -> list[Event]:
        """Under the room's lock: check the version, check on a clone, store, apply, broadcast.

        The lock is held while the log entry is committed, so the next message for this
        room is checked against the state this one produced (and refused as stale if it
        named the old version). Other rooms go on meanwhile; their entries share commits.
        """
        async with room.lock:
            match = room.match
            assert match is not None
            if version != room.version:
                if action.kind in ("catch", "uno") and version < room.version:
                    raise ProtocolError(ErrorCode.TOO_LATE, self._too_late(room), ref=ref)
                raise ProtocolError(
                    ErrorCode.STALE,
                    f"that action was for version {version}; the table is at version {room.version}",
                    ref=ref,
                )
            if match.round_over:
                raise ProtocolError(ErrorCode.GAME_OVER, "the round is over", ref=ref)
            if action.kind in ("catch", "uno") and match.state.uno_seat is None:
                raise ProtocolError(ErrorCode.TOO_LATE, self._too_late(room), ref=ref)
            probe = match.state.clone()
            try:
                probe.apply(action, seat)
            except IllegalAction as exc:
                raise ProtocolError(exc.code, str(exc), ref=ref) from None
            except NoMercyError as exc:
                raise ProtocolError(ErrorCode.ILLEGAL_ACTION, str(exc), ref=ref) from None
            over_after = probe.outcome is not None
            status = None
            if over_after and (room.mode == "round" or _match_would_end(match, probe)):
                status = "finished"
            try:
                await self.writer.append(room.id, room.version, seat, str(action), status)
            except Exception:
                log.exception("storage failed for room %s", room.code)
                if await self._committed_anyway(room, seat, action):
                    return self._applied(room, seat, action, status, over_after)
                raise ProtocolError(
                    ErrorCode.SERVER_ERROR, "the server could not save that action: try again", ref=ref
                ) from None
            return self._applied(room, seat, action, status, over_after)

    async def _committed_anyway(self, room: Room, seat: int, action: Action) -> bool:
        """A commit can fail after the database kept it (a lost connection at COMMIT): look."""
        try:
            last = await asyncio.to_thread(self.storage.last_entry, room.id)
        except Exception:
            return False
        return last == (room.version, seat, str(action))

    def _applied(
        self, room: Room, seat: int, action: Action, status: str | None, over_after: bool
    ) -> list[Event]:
        """The action is on disk: apply it to the live match and tell everyone."""
        match = room.match
        assert match is not None
        events = match.apply(action, seat)
        room.version += 1
        room.last_actor = seat
        if status is not None:
            room.status = status
        self._after(room, events)
        if over_after:
            self.broadcast_room(room)
        return events

    async def next_round(self, room: Room, version: int) -> None:
        """Deal the next round of a match (logged like an action)."""
        async with room.lock:
            match = room.match
            if room.version != version or match is None or not match.round_over or room.finished:
                return
            await self.writer.append(room.id, room.version, -1, NEXT_ROUND, None)
            match.next_round()
            room.version += 1
            self._after(room, [started_event(match.state)])
            self.broadcast_room(room)

    def _after(self, room: Room, events: list[Event]) -> None:
        room.log.extend(events)
        room.changed_at = time.monotonic()
        room.touched = room.changed_at
        for seat in room.seats:
            seat.tell(events)
        self.broadcast_state(room, events)
        self.poke(room)

    # -- sending -------------------------------------------------------------------------

    def state_text(self, room: Room, seat: int | None, events: list[Event], snapshot: bool = False) -> str:
        """The ``state`` message for one seat: its own view and its redacted events only."""
        view = room.match.state.view(seat).to_dict() if room.match is not None else None
        # The hot path: plain json.dumps of exactly the fields of P.StateMessage (a test
        # validates real messages against the model).
        return dumps(
            {
                "type": "state",
                "view": view,
                "version": room.version,
                "events": [event_dict(e) for e in redact(events, seat)],
                "snapshot": snapshot,
                "deadline": room.deadline(),
                "reveal": revealed_hands(room),
            }
        )

    def broadcast_state(self, room: Room, events: list[Event]) -> None:
        cache: dict[int | None, str] = {}
        for client in list(room.clients):
            text = cache.get(client.seat)
            if text is None:
                text = cache[client.seat] = self.state_text(room, client.seat, events)
            client.send(text)

    def broadcast_room(self, room: Room) -> None:
        text = P.RoomMessage(room=room.info()).model_dump_json()
        for client in list(room.clients):
            client.send(text)

    def broadcast(self, room: Room, text: str) -> None:
        for client in list(room.clients):
            client.send(text)

    def poke(self, room: Room) -> None:
        if room.driver is not None:
            room.driver.poke()

    # -- loading after a restart -------------------------------------------------------------

    def _attach_bots(self, room: Room) -> None:
        """Every seat gets a bot: bot seats play with it, human seats as their stand-in."""
        name = str(room.config.get("bot", "random"))
        for seat in room.seats:
            if seat.bot is None and seat.kind != "open":
                seat.bot = botlib.make(name)

    def _add(self, room: Room) -> None:
        self.rooms[room.code] = room
        if self.on_new_room is not None:
            self.on_new_room(room)

    def load(self) -> int:
        """Rebuild every recent room from storage by replaying its log."""
        since = time.time() - self.settings.idle_room_seconds
        count = 0
        for stored in self.storage.load_rooms(since):
            try:
                room = self.rebuild(stored)
            except Exception:
                log.exception("room %s could not be rebuilt; skipped", stored.code)
                continue
            self._add(room)
            count += 1
        return count

    def rebuild(self, stored: StoredRoom) -> Room:
        config = stored.settings
        rules = build_rules("no_mercy", config.get("rules") or {})
        now = time.monotonic()
        seats = [
            Seat(
                s.seat,
                s.kind,
                s.nickname,
                s.token_hash,
                s.host,
                away_since=now if s.kind == "human" else None,
            )
            for s in stored.seats
        ]
        room = Room(stored.id, stored.code, config, rules, seats, status=stored.status, seed=stored.seed)
        room.log = deque(maxlen=self.settings.log_length)
        if stored.seed is not None:
            match = Match(len(seats), rules, stored.seed)
            room.log.append(started_event(match.state))
            for seat, text in stored.log:
                if text == NEXT_ROUND:
                    match.next_round()
                    room.log.append(started_event(match.state))
                elif text.startswith(REMATCH):
                    room.seed = int(text.split()[1])
                    match = Match(len(seats), rules, room.seed)
                    room.log.append(started_event(match.state))
                else:
                    room.log.extend(match.apply(Action.parse(text), seat))
                    room.last_actor = seat
            room.match = match
            room.version = len(stored.log)
        room.chat.extend(self.social.recent_chat(room.id))
        room.removed = self.social.removed_of(room.id)
        self._attach_bots(room)
        return room


class LogWriter:
    """Group commit: log entries of all rooms that arrive while a commit runs share the next.

    Each caller awaits its own entry's commit. The commit runs in a worker thread, so the
    event loop (every other room, every connection) never waits for the disk. One failing
    entry (a duplicate key) is retried alone so that it fails only its own caller.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._pending: list[tuple[tuple[int, int, int, str, str | None], asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None

    async def append(self, room_id: int, seq: int, seat: int, action: str, status: str | None) -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append(((room_id, seq, seat, action, status), future))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            entries = [entry for entry, _ in batch]
            try:
                await asyncio.to_thread(self.storage.append_many, entries)
            except Exception:
                for entry, future in batch:
                    try:
                        await asyncio.to_thread(self.storage.append_many, [entry])
                    except Exception as exc:
                        if not future.done():
                            future.set_exception(exc)
                    else:
                        if not future.done():
                            future.set_result(None)
                continue
            for _, future in batch:
                if not future.done():
                    future.set_result(None)


def _match_would_end(match: Match, finished_state: Any) -> bool:
    """Would this match be over once ``finished_state``'s round is scored? (E4)."""
    outcome = finished_state.outcome
    scores = [a + b for a, b in zip(match.scores, outcome.points, strict=True)]
    eliminated = set(match.eliminated)
    if not match.rules.knocked_out_return:
        eliminated.update(k.seat for k in outcome.knocked_out)
    remaining = [s for s in range(match.players) if s not in eliminated]
    return len(remaining) == 1 or max(scores) >= match.rules.target_score


def build_rules(preset: str, overrides: dict[str, Any]) -> Rules:
    """A preset plus a host's overrides. Decks are by name only: a hand-written deck
    mapping could ask for a billion cards."""
    deck = overrides.get("deck")
    if deck is not None and deck not in ("no_mercy", "classic"):
        raise ProtocolError(
            ErrorCode.INVALID_RULES, "deck: online rooms play the 'no_mercy' or 'classic' deck"
        )
    try:
        base = Rules.preset(preset)
        return Rules.from_dict(overrides, base=base)
    except InvalidRules as exc:
        raise ProtocolError(ErrorCode.INVALID_RULES, str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise ProtocolError(ErrorCode.INVALID_RULES, f"rules: {exc}") from None


def chat_history_text(room: Room) -> str:
    """The recent chat lines, sent on every (re)connect."""
    lines = [P.ChatOut(seat=c.seat, nickname=c.nickname, text=c.text) for c in room.chat]
    return P.ChatHistory(messages=lines).model_dump_json()


def revealed_hands(room: Room) -> list[list[str]] | None:
    """Every hand, once the round is over (to count its points); None while it is played."""
    match = room.match
    if match is None or not match.round_over:
        return None
    return [[c.code for c in hand] for hand in match.state.hands]


def bot_name(seat: int, strength: str) -> str:
    return f"Bot {seat} ({strength})"


def dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))
