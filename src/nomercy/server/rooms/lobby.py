"""The lobby: creating and joining rooms, starting, removing and readmitting players, chat,
reactions, rematches, and the connections that come and go.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from typing import TYPE_CHECKING, Any, Literal

from nomercy import bots as botlib
from nomercy.engine import new_game, started_event
from nomercy.errors import InvalidRules
from nomercy.match import Match
from nomercy.server.base import protocol as P
from nomercy.server.base.names import name_key
from nomercy.server.base.protocol import ErrorCode, ProtocolError, SeatKind, StorageUnavailable, build_rules
from nomercy.server.base.tables import token_hash
from nomercy.server.players.ratings import check_rated_removal, check_rated_room, check_rated_seat
from nomercy.server.rooms.leases import LeaseLost
from nomercy.server.rooms.room import (
    Client,
    Room,
    Seat,
    bot_name,
    bot_strength,
    chat_history_text,
    check_character,
    moving,
)
from nomercy.server.rooms.social import ChatLine, Removed
from nomercy.server.rooms.storage import REMATCH, StoredSeat

if TYPE_CHECKING:
    from nomercy.server.rooms.fanout import FanOut
    from nomercy.server.rooms.pipeline import Pipeline
    from nomercy.server.rooms.registry import Registry

log = logging.getLogger("nomercy.server")


class Lobby:
    """Create, join, start, kick, readmit, chat and rematch: a table's people."""

    def __init__(self, registry: Registry, fanout: FanOut, pipeline: Pipeline) -> None:
        self.registry = registry
        self.fanout = fanout
        self.pipeline = pipeline

    def new_code(self) -> str:
        """A free join code (reads storage: call it off the event loop)."""
        for _ in range(100):
            code = "".join(secrets.choice(P.CODE_ALPHABET) for _ in range(P.CODE_LENGTH))
            if code not in self.registry.rooms and not self.registry.storage.code_exists(code):
                return code
        raise ProtocolError(ErrorCode.SERVER_ERROR, "could not find a free join code")

    async def open_rooms_of(self, address: str) -> int:
        """Unfinished rooms that ``address`` created. Several processes: a room runs wherever
        the proxy routes its code, so the ones created here are counted in storage."""
        if self.registry.cluster is None:
            return sum(
                1 for r in self.registry.rooms.values() if r.creator == address and r.status != "finished"
            )
        ids = set(self.registry.created.get(address, ()))
        if not ids:
            return 0
        since = self.registry.clock.time() - self.registry.settings.idle_room_seconds
        try:
            still = await asyncio.to_thread(self.registry.storage.open_rooms, sorted(ids), since)
        except Exception:
            log.warning("storage failed counting an address's rooms", exc_info=True)
            raise ProtocolError(
                ErrorCode.SERVER_ERROR, "the server could not save the room: try again"
            ) from None
        # Rooms created here while storage was asked are kept (and counted) too.
        self.registry.created[address] = set(still) | (self.registry.created.get(address, set()) - ids)
        return len(self.registry.created[address])

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
        if len(self.registry.rooms) + self.registry.creating >= self.registry.settings.max_rooms:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "the server is full: try again later")
        self.registry.creating += 1
        if address is not None:
            self.registry.creating_by[address] = self.registry.creating_by.get(address, 0) + 1
        try:
            return await self._create(req, address, account_id, config or {})
        finally:
            self.registry.creating -= 1
            if address is not None:
                left = self.registry.creating_by[address] - 1
                if left:
                    self.registry.creating_by[address] = left
                else:
                    del self.registry.creating_by[address]

    async def _create(
        self, req: P.CreateRoom, address: str | None, account_id: str | None, extra: dict[str, Any]
    ) -> tuple[Room, str]:
        if address is not None:
            open_rooms = await self.open_rooms_of(address)
            others = self.registry.creating_by[address] - 1  # this address's other creations under way
            most = self.registry.settings.max_rooms_per_address
            if open_rooms + others >= most:
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED, f"your address has {most} open rooms: finish one first"
                )
        check_rated_room(req, account_id)
        if req.seed is not None and not self.registry.settings.test_options:
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
        if req.turn_seconds and not 1 <= req.turn_seconds <= self.registry.settings.max_turn_seconds:
            raise ProtocolError(
                ErrorCode.BAD_REQUEST,
                f"turn timer: 1 to {self.registry.settings.max_turn_seconds} seconds, or 0 for off",
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
                away_since=self.registry.clock.monotonic(),
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
                    return code, self.registry.storage.create_room(code, config, stored)
                except Exception:
                    if attempt == 2 or not self.registry.storage.code_exists(code):
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
        room.log = deque(maxlen=self.registry.settings.log_length)
        self.registry.attach_bots(room)
        if self.registry.cluster is None:
            self.registry.add(room)
        elif address is not None:  # several processes: the one the proxy routes it to opens it
            self.registry.created.setdefault(address, set()).add(room_id)
        return room, token

    async def join(self, code: str, nickname: str, account_id: str | None = None) -> tuple[Room, int, str]:
        room = self.registry.get(code)
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
                    await self.registry.write(room, self.registry.storage.update_seat, room.id, stored)
                    seat.kind, seat.nickname, seat.token_hash = "human", nickname, stored.token_hash
                    seat.account_id = account_id
                    seat.away_since = room.changed_at = self.registry.clock.monotonic()
                    self.fanout.broadcast_room(room, now=True)  # a seat taken: news, not churn
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

    async def start(self, room: Room, token: str | None) -> None:
        async with room.lock:
            self.registry.host_seat(room, token)
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
            await self.registry.write(room, self.registry.storage.start, room.id, seed, dealt)
            for seat in room.seats:
                if seat.kind == "open":
                    seat.kind, seat.nickname = "bot", bot_name(seat.seat, bot)
            self.registry.attach_bots(room)
            room.seed, room.status = seed, "playing"
            room.match = Match(len(room.seats), room.rules, seed)
            room.log.append(started_event(room.match.state))
            room.changed_at = self.registry.clock.monotonic()
            self.pipeline.dealt(room)
            self.fanout.broadcast_room(room, now=True)
            self.fanout.broadcast_state(room, [started_event(room.match.state)])
            self.fanout.poke(room)

    async def kick(self, room: Room, token: str | None, seat: int) -> None:
        """The host removes a player: a bot takes the seat (the lobby: it opens again)."""
        async with room.lock:
            host = self.registry.host_seat(room, token)
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
            await self.registry.write(
                room,
                self.registry.social.remove,
                room.id,
                StoredSeat(seat, kind, nickname, None, target.host),
                entry,
            )
            if entry is not None:
                room.removed[seat] = entry
            room.rematch_ready.discard(seat)
            target.token_hash, target.standin, target.away_since = None, False, None
            target.account_id = None
            target.kind, target.nickname = kind, nickname
            if not lobby:
                self.registry.attach_bots(room)
            kicked = P.Kicked(message=f"the host removed {old} from the table").model_dump_json()
            for client in list(room.clients):
                if client.seat == seat:
                    client.send(kicked)
                    client.close()
                    room.clients.discard(client)
            target.connections = 0
            self.fanout.broadcast_room(room, now=True)
            self.fanout.poke(room)

    async def readmit(self, room: Room, token: str | None, seat: int) -> None:
        """The host undoes a removal: the player's old token sits them at their seat again."""
        async with room.lock:
            self.registry.host_seat(room, token)
            entry = room.removed.get(seat)
            if entry is None:
                raise ProtocolError(ErrorCode.BAD_REQUEST, "nobody was removed from that seat")
            target = room.seats[seat]
            if target.kind == "human":
                raise ProtocolError(ErrorCode.BAD_REQUEST, f"{target.nickname} sits there now")
            self._name_free(room, entry.nickname, seat)
            back = StoredSeat(seat, "human", entry.nickname, entry.token_hash, target.host)
            await self.registry.write(room, self.registry.social.readmit, room.id, back)
            target.kind, target.nickname, target.token_hash = "human", entry.nickname, entry.token_hash
            # A bot keeps playing the seat until its player reconnects.
            target.standin = room.status != "lobby"
            target.away_since = room.changed_at = self.registry.clock.monotonic()
            self.registry.attach_bots(room)
            del room.removed[seat]
            self.fanout.broadcast_room(room, now=True)
            self.fanout.poke(room)

    async def chat(self, room: Room, seat: int, text: str) -> None:
        """A chat line: stored (a reload, or another process taking the room over, shows it
        again), then sent to everyone. Under the room's lock: stored and shown in one order."""
        async with room.lock:
            line = ChatLine(seat, room.seats[seat].nickname or f"P{seat}", text)
            await self.registry.write(room, self.registry.social.add_chat, room.id, line)
            room.chat.append(line)
            room.touched = self.registry.clock.monotonic()
            self.fanout.broadcast(
                room, P.ChatOut(seat=seat, nickname=line.nickname, text=text).model_dump_json()
            )

    def react(self, room: Room, seat: int, reaction: str) -> None:
        """A quick reaction: shown to everyone and kept with the recent chat in memory, so a
        reload shows it again (unlike chat lines it is not stored: a restart forgets it)."""
        line = ChatLine(seat, room.seats[seat].nickname or f"P{seat}", "", reaction)
        room.chat.append(line)
        self.fanout.broadcast(
            room, P.ReactionOut(seat=seat, nickname=line.nickname, reaction=reaction).model_dump_json()
        )

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
        self.fanout.broadcast_room(room, now=True)

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
            self.registry.host_seat(room, token)
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
                await self.registry.writer.append((room.id, room.version, -1, marker, "playing", room.epoch))
            except LeaseLost:
                self.registry.lost(room)
                raise moving() from None
            except Exception:
                last = None
                with contextlib.suppress(Exception):
                    last = await asyncio.to_thread(self.registry.storage.last_entry, room.id)
                if last != (room.version, -1, marker):
                    self.pipeline._storage_failed(room)
                    raise StorageUnavailable("the server could not save the rematch: try again") from None
            self.pipeline._storage_ok(room)
            room.seed, room.status = seed, "playing"
            room.match = Match(len(room.seats), room.rules, seed)
            room.version += 1
            room.rematch_ready.clear()
            for seat in room.seats:  # fresh bots: nothing remembered from the last game
                seat.bot, seat.backlog = None, []
            self.registry.attach_bots(room)
            room.changed_at = self.registry.clock.monotonic()
            self.pipeline.dealt(room)
            self.pipeline.after(room, [started_event(room.match.state)])
            self.fanout.broadcast_room(room, now=True)

    async def abort_unstarted(self, room: Room) -> None:
        """A rated round still waiting for a person past ``rated_connect_seconds`` ends
        unrated: the room is over, nothing of the round is kept, the fair-play log says why."""
        async with room.lock:
            since = room.waiting_since
            if since is None or room.closed or room.status != "playing":
                return
            if self.registry.clock.monotonic() < since + self.registry.settings.rated_connect_seconds:
                return
            absent = room.unconnected()
            await self.registry.write(room, self.registry.storage.set_status, room.id, "finished")
            room.status, room.waiting_since, room.aborted = "finished", None, True
            room.never_connected = [s.seat for s in absent]
            room.changed_at = self.registry.clock.monotonic()
            log.info("rated round of room %s aborted: %d never connected", room.code, len(absent))
            self.fanout.broadcast_room(room, now=True)
            self.fanout.broadcast_state(room, [])  # nobody plays on: each seat is told so
        accounts = [s.account_id for s in room.seats if s.kind == "human" and s.account_id]
        detail = {
            "round": room.match.round_number if room.match is not None else 0,
            "absent": [s.account_id or s.nickname for s in absent],
            "seconds": self.registry.settings.rated_connect_seconds,
        }
        await self.fair_play_flag("abort", room, accounts, detail)

    def address_shared(self, room: Room, shared: bool) -> None:
        """The address check ran for a seat of ``room`` (``fairplay.seat_connected``):
        while two of its accounts share an address no operator allows, its rounds are not
        rated, and its players are told why (``RoomInfo.unrated_reason``)."""
        reason: Literal["address"] | None = "address" if shared and room.rated else None
        if room.unrated_reason != reason:
            room.unrated_reason = reason
            self.fanout.broadcast_room(room, now=True)

    def timed_out(self, room: Room, seat: int) -> None:
        """The turn timer played for ``seat``: at a rated table, a run of ``rated_timeouts``
        in a row hands the seat to a stand-in and makes the round the person's forfeit."""
        s = room.seats[seat]
        if not room.rated or s.kind != "human":
            return
        s.timeouts += 1
        if s.timeouts >= self.registry.settings.rated_timeouts and not s.standin:
            s.standin, s.forfeit = True, s.forfeit or "timeouts"
            self.fanout.broadcast_room(room)

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
        engine = getattr(self.registry.storage, "engine", None)
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

    def connect(self, room: Room, client: Client) -> None:
        """Seat (or seat as a spectator) a connection; a seat over its connection limit loses
        its oldest connection, so a player coming back is never turned away."""
        if room.closed:
            raise moving()
        if client.seat is not None:
            mine = sorted((c for c in room.clients if c.seat == client.seat), key=lambda c: c.serial)
            for old in mine[: max(0, len(mine) - self.registry.settings.max_connections_per_seat + 1)]:
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
                room.changed_at = self.registry.clock.monotonic()
                self.fanout.broadcast_room(room, now=True)
                self.fanout.broadcast_state(room, [])  # whose move it is: nobody's until now
        client.send(P.Welcome(seat=client.seat, room=room.info()).model_dump_json())
        client.send(self.fanout.state_text(room, client.seat, list(room.log), snapshot=True))
        client.send(chat_history_text(room))
        self.fanout.broadcast_room(room)
        self.fanout.poke(room)

    def disconnect(self, room: Room, client: Client) -> None:
        if client not in room.clients:
            return
        room.clients.discard(client)
        if room.status == "lobby":
            room.changed_at = (
                self.registry.clock.monotonic()
            )  # a lobby's idle time counts from its last visitor
        if client.seat is not None:
            seat = room.seats[client.seat]
            seat.connections = max(0, seat.connections - 1)
            if seat.connections == 0 and seat.kind == "human":
                seat.away_since = self.registry.clock.monotonic()
        self.fanout.broadcast_room(room)
        self.fanout.poke(room)
