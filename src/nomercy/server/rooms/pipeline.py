"""The one pipeline that changes a game: check an action, store it, then send each seat its view.

Everything that changes a game goes through :meth:`Pipeline.apply`, synchronously on the event
loop (so two messages can never interleave inside it); see
:mod:`nomercy.server.rooms.manager` for the steps. Deals (a round's start, the next round) and
what follows an action (a round's end kept, a driver woken) are here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING, assert_never

from nomercy.actions import Action
from nomercy.engine import GameState, started_event
from nomercy.errors import IllegalAction, InvalidAction, NoMercyError
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
from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ErrorCode, ProtocolError, RoomStatus, StorageUnavailable
from nomercy.server.rooms.leases import LeaseLost
from nomercy.server.rooms.room import Room, moving
from nomercy.server.rooms.storage import NEXT_ROUND

if TYPE_CHECKING:
    from nomercy.server.rooms.fanout import FanOut
    from nomercy.server.rooms.registry import Registry

log = logging.getLogger("nomercy.server")


class Pipeline:
    """Act and apply: check, store, broadcast."""

    def __init__(self, registry: Registry, fanout: FanOut) -> None:
        self.registry = registry
        self.fanout = fanout

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
            self.fanout.broadcast_room(room)

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
                await self.registry.writer.append(
                    (room.id, room.version, seat, str(action), status, room.epoch)
                )
            except LeaseLost:
                self.registry.lost(room)
                raise moving(ref) from None
            except Exception:
                if not await self._committed_anyway(room, seat, action):
                    self._storage_failed(room)
                    raise StorageUnavailable(
                        "the server could not save that action: the game is paused, try again", ref=ref
                    ) from None
            self._storage_ok(room)
            self._applied(room, seat, action, probe, events, status, over_after)
        self.registry.metrics.action_seconds.observe(time.perf_counter() - began)
        return events

    def _storage_failed(self, room: Room) -> None:
        """The first failure pauses the room (logged with its traceback, players told);
        later ones while paused are only counted (the driver backs off)."""
        if room.paused:
            log.debug("storage still failing for room %s", room.code)
            return
        log.warning("storage failed for room %s: the game is paused", room.code, exc_info=True)
        room.paused = True
        self.fanout.broadcast(
            room,
            P.Paused(message="the server cannot save moves right now: the game is paused").model_dump_json(),
        )
        self.fanout.broadcast_room(room, now=True)
        # Wake the driver: it probes storage until it answers. Without this a table of people
        # only (no bot, no turn timer) stayed paused, its driver asleep, input blocked.
        self.fanout.poke(room)

    def _storage_ok(self, room: Room) -> None:
        if room.paused:
            log.warning("storage is back for room %s: the game resumes", room.code)
            room.paused = False
            # The game stood still while paused: its timers (a turn, a bot's pause) start afresh.
            room.changed_at = self.registry.clock.monotonic()
            self.fanout.broadcast(room, P.Resumed().model_dump_json())
            self.fanout.broadcast_room(room, now=True)
            self.fanout.poke(room)

    async def probe_storage(self, room: Room) -> None:
        """While paused: one real write (the room's status, unchanged); success resumes.

        The room's driver calls this, backing off between tries, instead of playing bots
        or running out a human's turn timer against a database that is down.
        """
        async with room.lock:
            if room.closed:
                raise moving()
            try:
                await asyncio.to_thread(self.registry.storage.set_status, room.id, room.status, room.epoch)
            except LeaseLost:
                self.registry.lost(room)  # another process runs it now: nothing to resume here
                raise moving() from None
            except Exception:
                self._storage_failed(room)
                raise StorageUnavailable("storage is still unavailable") from None
            self._storage_ok(room)

    async def _committed_anyway(self, room: Room, seat: int, action: Action) -> bool:
        """A commit can fail after the database kept it (a lost connection at COMMIT): look."""
        try:
            last = await asyncio.to_thread(self.registry.storage.last_entry, room.id)
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
        self.registry.metrics.actions.labels("human" if room.controller(seat) is None else "bot").inc()
        match.adopt(trial, action, seat)
        room.version += 1
        room.last_actor = seat
        if status is not None:
            room.status = status
        self.after(room, events)
        if over_after:
            if self.registry.settings.test_options and os.environ.get("NOMERCY_TEST_DIE_AFTER_LAST_ACTION"):
                # Tests of recovery: die where a crash loses most, the round's end on disk, not kept.
                os._exit(17)
            self.fanout.broadcast_room(room, now=True)
            if self.registry.on_round_end is not None:
                try:
                    self.registry.on_round_end(room)
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
                await self.registry.writer.append((room.id, room.version, -1, NEXT_ROUND, None, room.epoch))
            except LeaseLost:
                self.registry.lost(room)
                return
            except Exception:
                last = None
                with contextlib.suppress(Exception):
                    last = await asyncio.to_thread(self.registry.storage.last_entry, room.id)
                if last != (room.version, -1, NEXT_ROUND):
                    self._storage_failed(room)
                    raise StorageUnavailable("the server could not save the next round") from None
            self._storage_ok(room)
            match.next_round()
            room.version += 1
            room.changed_at = self.registry.clock.monotonic()
            self.dealt(room)
            self.after(room, [started_event(match.state)])
            self.fanout.broadcast_room(room, now=True)

    def after(self, room: Room, events: list[Event]) -> None:
        room.log.extend(events)
        room.changed_at = self.registry.clock.monotonic()
        room.touched = room.changed_at
        for seat in room.seats:
            seat.tell(events)
        self.fanout.broadcast_state(room, events)
        self.fanout.poke(room)

    def dealt(self, room: Room) -> None:
        """A round was just dealt: a rated one waits until every person has connected
        (:meth:`abort_unstarted` past the connect time), and nobody has forfeited it yet."""
        for seat in room.seats:  # a stand-in still at a seat plays this round too: a forfeit
            still = room.rated and seat.kind == "human" and seat.standin
            seat.forfeit, seat.timeouts = ("standin" if still else None), 0
        if room.rated and room.unconnected():
            self.wait_for_people(room)

    def wait_for_people(self, room: Room) -> None:
        """The rated round waits for every person to connect, ``rated_connect_seconds`` from now."""
        room.waiting_since = self.registry.clock.monotonic()
        room.connect_seconds = self.registry.settings.rated_connect_seconds
