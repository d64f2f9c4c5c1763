"""The room model: a table's seats, its connections and its game, as this process holds them.

Plain data with the few questions asked of it (who decides for a seat, the room as the
lobby sees it, the turn deadline); everything that changes a room goes through
:class:`nomercy.server.rooms.manager.RoomManager`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from nomercy import bots as botlib
from nomercy.events import (
    Event,
    redact,
)
from nomercy.match import Match
from nomercy.rules import Rules
from nomercy.server.base import protocol as P
from nomercy.server.base.limits import TokenBucket
from nomercy.server.base.protocol import ErrorCode, ProtocolError, RoomStatus, SeatKind
from nomercy.server.base.settings import Settings
from nomercy.server.rooms.social import CHAT_HISTORY, ChatLine, Removed
from nomercy.server.rooms.storage import StoredSeat
from nomercy.summary import rules_summary

log = logging.getLogger("nomercy.server")


class Driver(Protocol):
    """A room's driver, the room model's one port: plays bots and runs timers
    (:class:`nomercy.server.rooms.timers.RoomDriver`; see also :mod:`nomercy.server.rooms.ports`)."""

    def poke(self) -> None: ...

    def retry_now(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass
class Seat:
    """A seat at a table. ``kind``: ``human`` (has a token), ``bot`` or ``open``."""

    seat: int
    kind: SeatKind
    nickname: str | None = None
    token_hash: str | None = None
    host: bool = False
    #: The signed-in account playing this seat (None: a guest, a bot or open).
    account_id: str | None = None
    connections: int = 0
    #: When the last connection of a human dropped (``time.monotonic``).
    away_since: float | None = None
    #: A bot plays this human's seat until they return (after the grace period).
    standin: bool = False
    #: A rated round: why this person forfeits it (``grace``: away past the grace period,
    #: ``timeouts``: the turn timer ran out too often in a row), None while they play it.
    forfeit: str | None = None
    #: A rated round: the turn timer's consecutive runs for this person (their move resets it).
    timeouts: int = 0
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
        return StoredSeat(self.seat, self.kind, self.nickname, self.token_hash, self.host, self.account_id)


class Client:
    """One WebSocket connection: its seat (None: spectator) and its outgoing queue.

    Messages are queued as ready JSON text and written by the connection's own writer
    task, so a slow client never stalls the room; one that falls too far behind is
    dropped (it can reconnect and get a fresh snapshot).
    """

    MAX_QUEUE = 512
    _serials = itertools.count()

    def __init__(self, seat: int | None, settings: Settings, address: str) -> None:
        self.seat = seat
        self.address = address
        #: Order of arrival: a seat over its connection limit loses its oldest.
        self.serial = next(Client._serials)
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
    status: RoomStatus = "lobby"
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
    #: Set by the server: wakes the room's driver (:mod:`nomercy.server.rooms.timers`).
    driver: Driver | None = None
    #: Held from the version check until the action is stored and applied.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    touched: float = field(default_factory=time.monotonic)
    #: The client address that created the room (None after a restart): rooms per address.
    creator: str | None = None
    #: Storage failed on the last write: the game waits (players were told).
    paused: bool = False
    #: A coalesced room message is due (see :meth:`RoomManager.broadcast_room`).
    update_due: asyncio.TimerHandle | None = None
    #: The room's lease epoch when several processes share the database (every write is
    #: fenced with it), None for one process.
    epoch: int | None = None
    #: This process no longer runs the room (lease lost or handed over): refuse everything.
    closed: bool = False
    #: ``time.monotonic()`` when this process took the room (hand-over hysteresis).
    opened_at: float = field(default_factory=time.monotonic)
    #: ``time.monotonic()`` of the last request for the room that reached this process: a
    #: room the proxy still routes here is not handed over (see :meth:`Cluster.step`).
    routed_at: float = field(default_factory=time.monotonic)
    #: Recent chat lines (also in storage: a reload shows them again).
    chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=CHAT_HISTORY))
    #: Players the host removed, by seat: their token works again if the host undoes it.
    removed: dict[int, Removed] = field(default_factory=dict)
    #: Seats whose players confirmed a rematch after the game ended.
    rematch_ready: set[int] = field(default_factory=set)
    #: A rated round was dealt before every person connected: ``time.monotonic()`` of the
    #: deal. Nothing is played until they all have; past the connect time it is aborted.
    waiting_since: float | None = None
    #: How long a waiting rated round waits (``rated_connect_seconds``, set with the wait).
    connect_seconds: float = 0.0
    #: The rated round was aborted unrated (someone never connected): the room is over.
    aborted: bool = False
    #: With ``aborted``: the seats whose persons never connected.
    never_connected: list[int] = field(default_factory=list)
    #: Why this rated room's rounds are not rated for now (``address``), or None.
    unrated_reason: Literal["address"] | None = None

    @property
    def rated(self) -> bool:
        return bool(self.config.get("rated", False))

    def unconnected(self) -> list[Seat]:
        """The persons seated here with no live connection."""
        return [s for s in self.seats if s.kind == "human" and s.connections == 0]

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
            status=self.status,
            seats=[
                P.SeatInfo(
                    seat=s.seat,
                    nickname=s.nickname,
                    kind=s.kind,
                    connected=s.connections > 0,
                    standin=s.standin,
                    host=s.host,
                    account=s.kind == "human" and s.account_id is not None,
                )
                for s in self.seats
            ],
            rules=self.rules.to_dict(),
            preset=str(self.config.get("preset", "no_mercy")),
            mode=self.mode,  # type: ignore[arg-type]
            bot=str(self.config.get("bot", "random")),
            character=self.config.get("character"),
            turn_seconds=self.turn_seconds,
            rated=bool(self.config.get("rated", False)),
            round=m.round_number if m else 0,
            scores=list(m.scores) if m else [0] * len(self.seats),
            rounds=[
                {"number": r.number, "winner": r.winner, "reason": r.reason, "points": list(r.points)}
                for r in (m.rounds if m else [])
            ],
            match_winner=self.winner(),
            spectators=self.spectators(),
            paused=self.paused,
            removed=[
                {"seat": r.seat, "nickname": r.nickname}
                for r in sorted(self.removed.values(), key=lambda r: r.seat)
            ],
            rematch=sorted(self.rematch_ready),
            summary=[line.to_dict() for line in rules_summary(self.rules)],
            daily=(self.config.get("daily") or {}).get("day"),
            daily_board=bool((self.config.get("daily") or {}).get("rated")),
            waiting=[s.seat for s in self.unconnected()] if self.waiting_since is not None else [],
            waiting_seconds=None
            if self.waiting_since is None
            else round(max(0.0, self.waiting_since + self.connect_seconds - time.monotonic()), 1),
            aborted=self.aborted,
            never_connected=list(self.never_connected),
            unrated_reason=self.unrated_reason,
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
        if self.waiting_since is not None or self.status != "playing":
            return None  # the round has not begun, or the room is over (an aborted round): no clock runs
        if self.controller(self.match.state.current) is not None:
            return None
        return max(0.0, self.changed_at + self.turn_seconds - time.monotonic())


def moving(ref: str | None = None) -> ProtocolError:
    return ProtocolError(
        ErrorCode.ROOM_MOVING, "this room is moving to another server process: reconnecting", ref=ref
    )


def chat_history_text(room: Room) -> str:
    """The recent chat lines and reactions, sent on every (re)connect."""
    lines: list[P.ChatOut | P.ReactionOut] = [
        P.ReactionOut(seat=c.seat, nickname=c.nickname, reaction=c.reaction)
        if c.reaction is not None
        else P.ChatOut(seat=c.seat, nickname=c.nickname, text=c.text)
        for c in room.chat
    ]
    return P.ChatHistory(messages=lines).model_dump_json()


def revealed_hands(room: Room) -> list[list[str]] | None:
    """Every hand, once the round is over (to count its points); None while it is played."""
    match = room.match
    if match is None or not match.round_over:
        return None
    return [[c.code for c in hand] for hand in match.state.hands]


def bot_name(seat: int, strength: str) -> str:
    return f"Bot {seat} ({strength})"


def bot_strength(config: dict[str, Any]) -> str:
    """The room's bots as their names say it: the level, or the character and its level."""
    character = config.get("character")
    return f"{character}, {config.get('bot', 'random')}" if character else str(config.get("bot", "random"))


def check_character(character: str, level: str) -> None:
    """A character the host chose, at a level it plays at; refused in words otherwise."""
    from nomercy.bots.levels import CHARACTER_LEVELS, CHARACTERS

    if character.strip().lower() not in CHARACTERS:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST, f"unknown character {character!r}: choose from {', '.join(CHARACTERS)}"
        )
    if level.strip().lower() not in CHARACTER_LEVELS:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST,
            f"a character plays at the {', '.join(CHARACTER_LEVELS)} level, not {level!r}",
        )


def bot_spec(config: dict[str, Any]) -> str:
    """The room's bots as ``nomercy.bots.make`` takes them (a character at its level)."""
    character = config.get("character")
    return f"{character}:level={config['bot']}" if character else str(config.get("bot", "random"))


def dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))
