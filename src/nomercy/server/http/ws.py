"""The WebSocket endpoint ``/ws``: one connection, one seat (or one spectator).

The first message must be ``hello`` with the room's join code and, for a player, the
seat token (never in the URL, where proxies and logs would keep it). From then on the
connection sends intents and receives only what its seat may see: everything it gets
is built by :meth:`RoomManager.state_text` from ``player_view(state, seat)`` and
``redact(events, seat)``.

Checks, in order, on every message: size, rate, JSON, schema, then (in the room) seat,
version, whose turn and the rules. A refusal is an ``error`` message with a stable code
and changes nothing; the connection stays open except for a bad ``Origin`` or ``Host``
(refused at the handshake), too many sockets from one address, no ``hello`` within
``hello_timeout`` seconds, a full spectator gallery and repeated failed joins.

The join-failure limit never refuses a valid seat token: an address that guessed too
many codes may still take the seat its token proves (a player behind the same proxy or
NAT as a guesser, or their own reconnect), and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from nomercy.server.base import protocol as P
from nomercy.server.base.addresses import HostPolicy, limit_key, origin_allowed
from nomercy.server.base.limits import KeyedLimiter, TokenBucket
from nomercy.server.base.logs import room_var, seat_var
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.games.kept import Games
from nomercy.server.http.inputs import json_depth_ok
from nomercy.server.http.services import ServicesDep
from nomercy.server.players.fairplay import seat_connected
from nomercy.server.players.ratings import void_together
from nomercy.server.rooms.connections import SocketCounter
from nomercy.server.rooms.manager import Client, Room, RoomManager

log = logging.getLogger("nomercy.server")


def parse_message(raw: str | bytes, limit: int, max_depth: int = 32) -> Any:
    """Size, nesting, JSON and (strict) schema checks; returns a client message model."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > limit:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"a message may be {limit} bytes at most, this one is {size}"
        )
    if not json_depth_ok(raw, max_depth):
        raise ProtocolError(ErrorCode.BAD_JSON, f"JSON nested deeper than {max_depth} levels")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(ErrorCode.BAD_JSON, "messages are JSON objects") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_JSON, "messages are JSON objects")
    try:
        return P.client_message.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
        ) from None


def error_text(exc: ProtocolError, version: int | None = None) -> str:
    return P.ErrorMessage(code=exc.code, message=exc.message, ref=exc.ref, version=version).model_dump_json()


class Connection:
    """Reads one WebSocket until it closes; writes through the client's queue."""

    def __init__(
        self,
        ws: WebSocket,
        manager: RoomManager,
        join_failures: KeyedLimiter,
        sockets: SocketCounter | None = None,
        hosts: HostPolicy | None = None,
        *,
        games: Games,
    ) -> None:
        self.ws = ws
        self.games = games  # the coach's pool answers hints
        self.manager = manager
        self.settings = manager.settings
        self.join_failures = join_failures
        self.sockets = sockets or SocketCounter(self.settings.max_sockets_per_address)
        self.hosts = hosts or HostPolicy(self.settings.allowed_hosts)
        #: Counted in ``sockets`` (until seated or closed).
        self.counted = False
        self.address = limit_key(ws.client.host) if ws.client else "?"
        self.bucket = TokenBucket(self.settings.message_rate, self.settings.message_burst)
        self.room: Room | None = None
        self.client: Client | None = None
        #: Hints being worked out for this connection (kept referenced until done).
        self.hints: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        headers = self.ws.headers
        if not origin_allowed(
            headers.get("origin"),
            headers.get("host"),
            self.hosts,
            self.settings.allowed_origins,
            scheme=str(self.ws.scope.get("scheme", "ws")),
        ):
            await self.ws.close(code=1008, reason="origin not allowed")  # before accept: HTTP 403
            return
        await self.ws.accept()
        if not self.sockets.acquire(self.address):
            await self._refuse(ErrorCode.RATE_LIMITED, "too many connections from your address")
            return
        self.counted = True
        writer: asyncio.Task[None] | None = None
        hello_by = time.monotonic() + self.settings.hello_timeout
        try:
            while True:
                message = await self._receive(hello_by)
                if message is None:
                    timeout = self.settings.hello_timeout
                    await self._refuse(
                        ErrorCode.HELLO_FIRST, f"say hello within {timeout:g} seconds of connecting"
                    )
                    return
                if message["type"] == "websocket.disconnect":
                    return
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                try:
                    await self.handle(raw)
                except ProtocolError as exc:
                    self.manager.metrics.refused(exc.code, "websocket")
                    version = self.room.version if self.room is not None else None
                    await self.send(error_text(exc, version))
                    if exc.close:
                        return
                except Exception:  # a bug must cost one message, not the connection
                    log.exception("unexpected error handling a message")
                    await self.send(
                        error_text(ProtocolError(ErrorCode.SERVER_ERROR, "internal error: try again"))
                    )
                if self.client is not None and writer is None:
                    writer = asyncio.get_running_loop().create_task(self._write(self.client))
                if self.client is not None and self.client.closed and writer is not None and writer.done():
                    return
        except WebSocketDisconnect:
            return
        finally:
            if self.counted:
                self.sockets.release(self.address)
                self.counted = False
            if self.room is not None and self.client is not None:
                self.manager.disconnect(self.room, self.client)
                log.info("left")
                self.client.close()
            if writer is not None:
                with contextlib.suppress(asyncio.TimeoutError, Exception):
                    await asyncio.wait_for(writer, 2.0)
                writer.cancel()

    async def _receive(self, hello_by: float) -> Any:
        """The next ASGI message; before ``hello`` only until ``hello_by`` (then None)."""
        if self.client is not None:
            return await self.ws.receive()
        try:
            return await asyncio.wait_for(self.ws.receive(), max(0.0, hello_by - time.monotonic()))
        except TimeoutError:
            return None

    async def _refuse(self, code: str, message: str) -> None:
        """An error, then the connection closed (policy violation)."""
        await self.send(error_text(ProtocolError(code, message)))
        with contextlib.suppress(Exception):
            await self.ws.close(code=1008)

    async def send(self, text: str) -> None:
        """Before hello, errors go straight out; afterwards through the ordered queue."""
        if self.client is not None:
            self.client.send(text)
        else:
            with contextlib.suppress(Exception):
                await self.ws.send_text(text)

    async def _write(self, client: Client) -> None:
        try:
            while True:
                text = await client.queue.get()
                if text is None:
                    await self.ws.close(code=1000)
                    return
                await self.ws.send_text(text)
        except Exception:  # the peer went away: the reader will notice
            client.closed = True

    async def handle(self, raw: str | bytes) -> None:
        if not self.bucket.allow():
            raise ProtocolError(ErrorCode.RATE_LIMITED, "slow down: too many messages")
        msg = parse_message(raw, self.settings.max_message_bytes, self.settings.max_json_depth)
        if isinstance(msg, P.Hello):
            await self.hello(msg)
            return
        if isinstance(msg, P.PingMessage):
            await self.send(P.Pong().model_dump_json())
            return
        if self.room is None or self.client is None:
            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first: {type: hello, room, token}")
        room, client = self.room, self.client
        if isinstance(msg, P.ActionMessage):
            await self.manager.act(room, client.seat, msg.action, msg.version, msg.id)
        elif isinstance(msg, P.ChatMessage | P.ReactMessage):
            if client.seat is None:
                raise ProtocolError(ErrorCode.FORBIDDEN, "spectators cannot chat")
            if not client.chat.allow():
                raise ProtocolError(ErrorCode.RATE_LIMITED, "slow down: too many chat messages")
            if isinstance(msg, P.ChatMessage):
                await self.manager.chat(room, client.seat, msg.text)
            else:
                self.manager.react(room, client.seat, msg.reaction)
        elif isinstance(msg, P.RematchMessage):
            self.manager.confirm_rematch(room, client.seat, msg.ready)
        elif isinstance(msg, P.HintMessage):
            # Worked out in a worker process; the reader goes on meanwhile.
            task = asyncio.get_running_loop().create_task(self._hint(room, client))
            self.hints.add(task)
            task.add_done_callback(self.hints.discard)

    async def _hint(self, room: Room, client: Client) -> None:
        """The coach's answer, or the refusal, to this connection only."""
        try:
            text = await self.games.hint(self.manager, room, client.seat, self.address)
        except ProtocolError as exc:
            text = error_text(exc)
        except Exception:
            log.warning("a hint failed", exc_info=True)
            text = error_text(ProtocolError(ErrorCode.SERVER_ERROR, "the coach could not answer: ask again"))
        client.send(text)

    async def hello(self, msg: P.Hello) -> None:
        if self.client is not None:
            raise ProtocolError(ErrorCode.ALREADY_JOINED, "this connection has already joined a room")
        if msg.protocol != P.PROTOCOL_VERSION:
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE,
                f"protocol version {msg.protocol} is not supported: this server speaks {P.PROTOCOL_VERSION}"
                " (reload the page)",
            )
        blocked = self.join_failures.blocked(self.address)
        too_many = ProtocolError(
            ErrorCode.RATE_LIMITED, "too many failed attempts: wait a minute", close=True
        )
        try:
            room = await self.manager.find(msg.room)
            seat = self.manager.authenticate(room, msg.token) if msg.token is not None else None
        except ProtocolError as exc:
            if exc.code != ErrorCode.ROOM_MOVING:
                self.join_failures.charge(self.address)
            if blocked:  # a blocked address learns nothing of the room, not even that it moves
                raise too_many from None
            if exc.code == ErrorCode.ROOM_MOVING:
                exc.close = True  # the client reconnects; the proxy routes it to the room's process
            raise
        if seat is None:
            if blocked:
                raise too_many  # only a proven seat passes a blocked address
            if room.spectators() >= self.settings.max_spectators:
                raise ProtocolError(
                    ErrorCode.ROOM_FULL,
                    f"this room has {self.settings.max_spectators} spectators, as many as it admits",
                    close=True,
                )
        elif self.counted:
            self.sockets.release(self.address)  # a seated player no longer counts
            self.counted = False
        self.room = room
        room_var.set(room.code)  # this connection's log lines name its room and seat
        seat_var.set(seat)
        self.client = Client(seat, self.settings, self.address)
        self.manager.connect(room, self.client)
        log.info("joined as %s", "a spectator" if seat is None else f"seat {seat}")
        shared = await seat_connected(self.manager.storage, room, seat, self.address, void_together)
        if shared is not None:  # the players learn why their rated room stopped being rated
            self.manager.address_shared(room, shared)


async def websocket_endpoint(ws: WebSocket, made: ServicesDep) -> None:
    """``/ws``: one connection, its services handed in as every route's are."""
    await Connection(ws, made.manager, made.join_failures, made.sockets, made.hosts, games=made.games).run()
