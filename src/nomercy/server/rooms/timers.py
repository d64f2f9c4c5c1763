"""The room driver: one task per room that does what no message asks for.

After every change it plans the *earliest* of these and sleeps until then (or until the
next change, which replans):

- a bot's move (bot seats, and human seats whose grace period ran out: a stand-in bot
  plays them until they return), ``bot_delay`` after the last change;
- a bot's out-of-turn reaction (catching a player who did not call Uno, a late Uno
  call), ``reaction_delay`` after the change that opened it, so humans have a fair chance
  to be first (the server's order of processing decides);
- the turn timer of an idle human: the server takes the pending total, or draws, or
  plays the drawn card, or names a color for them (:func:`idle_action`);
- the end of a disconnected human's grace period (the stand-in takes over; never at the
  daily deal's table, which waits for its one player);
- a rated round dealt before all its people connected: nothing of the above until they
  have, and its abort, unrated, ``rated_connect_seconds`` after the deal;
- the next round of a match, ``between_rounds`` after a round ends.

When storage fails the room is paused (its players are told): the driver then only
probes storage with one write, after a delay that doubles each time up to
``storage_retry_max`` (or at once when the process sees the database answer again:
:meth:`RoomDriver.retry_now`), and plays no bot and runs out no turn timer meanwhile. Nothing
was applied that was not stored, so on success the game resumes exactly where it
stopped, its timers started afresh.

Every job re-checks the room's version before acting, so a job planned for a state
that has since changed does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from nomercy.actions import Action
from nomercy.server.base.logs import room_var
from nomercy.server.base.protocol import ProtocolError, StorageUnavailable
from nomercy.server.rooms.connections import Backoff
from nomercy.server.rooms.manager import Room, RoomManager
from nomercy.views import PlayerView, player_view

log = logging.getLogger("nomercy.server")

Job = Callable[[], Awaitable[None]]


def idle_action(view: PlayerView) -> Action:
    """What the turn timer does for an idle player: take, draw, or the first legal action."""
    legal = [a for a in view.legal_actions if not a.out_of_turn]
    for kind in ("take", "draw", "pass"):
        for action in legal:
            if action.kind == kind:
                return action
    return legal[0]


class RoomDriver:
    """Plans and runs the room's timed jobs; :meth:`poke` after every change."""

    def __init__(self, manager: RoomManager, room: Room) -> None:
        self.manager = manager
        self.room = room
        self.settings = manager.settings
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        #: (version, seat) of bot actions the engine refused: never planned again.
        self._refused: set[tuple[int, int]] = set()
        self.backoff = Backoff(self.settings.storage_retry_base, self.settings.storage_retry_max)
        #: Set to cut a storage back-off short (the database answers again).
        self._retry = asyncio.Event()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"room-{self.room.code}")

    def poke(self) -> None:
        self.changed.set()

    def retry_now(self) -> None:
        """Storage is reachable again: end the back-off and probe at once."""
        self.backoff.succeeded()
        self._retry.set()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _run(self) -> None:
        room_var.set(self.room.code)
        while True:
            self.changed.clear()
            try:
                plan = self.plan(time.monotonic())
            except Exception:
                log.exception("planning failed in room %s", self.room.code)
                plan = None
            if plan is None:
                await self.changed.wait()
                continue
            due, job = plan
            delay = due - time.monotonic()
            if delay > 0:
                try:
                    await asyncio.wait_for(self.changed.wait(), delay)
                    continue
                except TimeoutError:
                    pass
            try:
                await job()
            except StorageUnavailable:
                # Nothing was applied: wait (longer each time, unless the database is seen
                # to answer again meanwhile), then plan afresh.
                self._retry.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._retry.wait(), self.backoff.failed())
                continue
            except ProtocolError as exc:
                log.debug("room %s: job refused: %s", self.room.code, exc.message)
            except Exception:
                log.exception("room %s: job failed", self.room.code)
                await asyncio.sleep(1.0)  # never spin on a failing job
            else:
                self.backoff.succeeded()

    # -- planning -------------------------------------------------------------------------

    def plan(self, now: float) -> tuple[float, Job] | None:
        room = self.room
        match = room.match
        if room.status != "playing" or match is None or room.closed:
            return None  # (closed: another process runs the room now; its driver stops)
        if room.paused:
            return now, self._probe  # nothing else until storage answers (backing off)
        if room.waiting_since is not None:  # a rated round waits for its people: nothing moves
            return room.waiting_since + self.settings.rated_connect_seconds, self._abort
        if match.round_over:
            if room.finished:
                return None
            return room.changed_at + self.settings.between_rounds, self._next_round(room.version)
        # The daily deal has no stand-in: the same seeded bot would play every absent
        # entrant's attempt alike, and a start left at once would post the bot's result.
        daily = bool(room.config.get("daily"))
        jobs: list[tuple[float, Job]] = [
            (seat.away_since + self.settings.grace_seconds, self._standin(seat.seat))
            for seat in room.seats
            if (
                not daily
                and seat.kind == "human"
                and not seat.standin
                and seat.connections == 0
                and seat.away_since is not None
            )
        ]
        reaction = self._reaction()
        if reaction is not None:
            jobs.append((room.changed_at + self.settings.reaction_delay, reaction))
        current = match.state.current
        if current is not None:
            if room.controller(current) is not None:
                jobs.append(
                    (room.changed_at + self.settings.bot_delay, self._bot_move(current, room.version))
                )
            elif room.turn_seconds:
                jobs.append((room.changed_at + room.turn_seconds, self._idle(current, room.version)))
        if not jobs:
            return None
        return min(jobs, key=lambda j: j[0])

    def _reaction(self) -> Job | None:
        """The first bot (in seat order after the last actor) that wants to act out of turn."""
        room = self.room
        state = room.match.state  # type: ignore[union-attr]
        if not state.uno_open:
            return None
        n = state.players
        for i in range(1, n + 1):
            seat = (room.last_actor + i) % n
            bot = room.controller(seat)
            if bot is None or not state.active[seat] or (room.version, seat) in self._refused:
                continue
            if room.seats[seat].thinking:
                continue
            view = player_view(state, seat)
            if not any(a.out_of_turn for a in view.legal_actions):
                continue
            action = bot.react(view)
            if action is not None:
                return self._apply(seat, action, room.version)
        return None

    # -- jobs -----------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action, version: int) -> Job:
        async def job() -> None:
            if self.room.version == version:
                try:
                    await self.manager.apply(self.room, seat, action, version)
                except StorageUnavailable:
                    raise  # not a refusal: tried again later
                except ProtocolError:
                    self._refused.add((version, seat))
                    raise

        return job

    def _bot_move(self, seat: int, version: int) -> Job:
        async def job() -> None:
            room = self.room
            bot = room.controller(seat)
            if bot is None or room.version != version or room.match is None:
                return
            view = player_view(room.match.state, seat)
            # A searching bot may think for a while: off the event loop, on an immutable view.
            s = room.seats[seat]
            s.thinking = True
            try:
                action = await asyncio.to_thread(bot.choose, view)
            finally:
                s.done_thinking()
            if room.version == version and room.controller(seat) is bot:
                try:
                    await self.manager.apply(room, seat, action, version)
                except StorageUnavailable:
                    raise
                except ProtocolError as exc:  # a bot bug must not stop the table
                    if room.version != version:
                        return  # a human's message came first: fine
                    log.warning("room %s: bot %r chose %s: %s", room.code, bot, action, exc.message)
                    await self.manager.apply(room, seat, idle_action(view), version)

        return job

    def _idle(self, seat: int, version: int) -> Job:
        async def job() -> None:
            room = self.room
            if room.version != version or room.match is None or room.match.state.current != seat:
                return
            await self.manager.apply(room, seat, idle_action(player_view(room.match.state, seat)), version)
            self.manager.timed_out(room, seat)

        return job

    def _standin(self, seat: int) -> Job:
        async def job() -> None:
            s = self.room.seats[seat]
            if s.kind == "human" and s.connections == 0:
                s.standin = True
                self.manager.stood_in(self.room, seat)
                self.manager.broadcast_room(self.room)

        return job

    async def _abort(self) -> None:
        await self.manager.abort_unstarted(self.room)

    async def _probe(self) -> None:
        await self.manager.probe_storage(self.room)

    def _next_round(self, version: int) -> Job:
        async def job() -> None:
            await self.manager.next_round(self.room, version)

        return job
