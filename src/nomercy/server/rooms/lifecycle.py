"""A room's life in this process: sweeping idle rooms, forgetting, loading and rebuilding
(replaying the stored log on this engine, or retiring the room when it cannot continue).

A part that :class:`nomercy.server.rooms.manager.RoomManager` holds, over the shared registry; its ports are
those of :mod:`nomercy.server.rooms.ports`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from nomercy.actions import Action
from nomercy.engine import started_event
from nomercy.errors import NoMercyError
from nomercy.match import Match
from nomercy.server.base.protocol import ErrorCode, ProtocolError, RoomStatus, SeatKind, build_rules
from nomercy.server.base.upgrades import Retired, check, unreplayable
from nomercy.server.rooms.leases import LeaseLost
from nomercy.server.rooms.room import Room, Seat, chat_history_text
from nomercy.server.rooms.storage import NEXT_ROUND, REMATCH, StoredRoom

if TYPE_CHECKING:
    from nomercy.server.rooms.fanout import FanOut
    from nomercy.server.rooms.registry import Registry

log = logging.getLogger("nomercy.server")


class Lifecycle:
    """Sweep, forget, load, rebuild and retire rooms."""

    def __init__(self, registry: Registry, fanout: FanOut) -> None:
        self.registry = registry
        self.fanout = fanout

    async def sweep(self, now: float) -> list[Room]:
        """Expire idle lobbies, reclaim finished rooms, forget rooms left alone; returns
        the rooms removed from memory (see :meth:`forget`).

        - a lobby nobody is connected to, unchanged for ``lobby_idle_seconds`` since it was
          created or its last player joined or left, closes for good (stored as
          ``expired``: neither a restart nor another process opening it on demand brings
          it back; looking it up does not keep it);
        - a finished room is reclaimed ``finished_room_seconds`` after its end, its
          remaining connections closed;
        - any room left alone for ``idle_room_seconds`` leaves memory (not storage).
        """
        s = self.registry.settings
        removed: list[Room] = []
        for code, room in list(self.registry.rooms.items()):
            if room.status == "lobby" and not room.clients and room.changed_at < now - s.lobby_idle_seconds:
                if not await self._expire(room, now - s.lobby_idle_seconds):
                    continue
            elif room.status == "finished" and room.changed_at < now - s.finished_room_seconds:
                for client in list(room.clients):
                    client.close()
                room.clients.clear()
            elif room.clients or room.touched >= now - s.idle_room_seconds:
                continue
            if self.registry.rooms.get(code) is room:
                await self.forget(room)
                removed.append(room)
        return removed

    async def _expire(self, room: Room, cutoff: float) -> bool:
        """Store an idle lobby as ``expired`` (fenced, under its lock so that no join is
        half written); False if it is still wanted, or the write failed (tried again)."""
        async with room.lock:
            if room.closed or room.status != "lobby" or room.clients or room.changed_at >= cutoff:
                return False
            try:
                await asyncio.to_thread(self.registry.storage.set_status, room.id, "expired", room.epoch)
            except LeaseLost:
                self.registry.lost(room)  # another process runs it now: not ours to expire
                return False
            except Exception:
                log.warning(
                    "could not expire room %s; tried again later",
                    room.code,
                    exc_info=True,
                    extra={"room": room.code},
                )
                return False
        return True

    async def forget(self, room: Room) -> None:
        """Take ``room`` out of memory (storage keeps it) and stop its driver; with several
        processes also release its lease, so whichever process is asked next opens it at once."""
        if self.registry.cluster is not None:
            await self.registry.cluster.drop(room, release=True)
            return
        if self.registry.rooms.get(room.code) is room:
            del self.registry.rooms[room.code]
        if room.driver is not None:
            await room.driver.stop()

    def seated_accounts(self) -> dict[str, list[tuple[int, int]]]:
        """Every account seated in a room here: its ``(room id, seat)``."""
        out: dict[str, list[tuple[int, int]]] = {}
        for room in self.registry.rooms.values():
            for seat in room.seats:
                if seat.kind == "human" and seat.account_id is not None:
                    out.setdefault(seat.account_id, []).append((room.id, seat.seat))
        return out

    def accounts_deleted(self, ids: set[str]) -> None:
        """These accounts were deleted while seated here: their seats keep playing (the seat
        token still works) but lose the name and the link, as the deletion left them in
        storage, and their chat lines are signed "Player N"; everyone is told."""
        from nomercy.server.players.accounts import FORMER_PLAYER

        for room in list(self.registry.rooms.values()):
            gone = {s.seat for s in room.seats if s.account_id is not None and s.account_id in ids}
            if not gone:
                continue
            for seat in room.seats:
                if seat.seat in gone:
                    seat.account_id, seat.nickname = None, None
            lines = [
                dataclasses.replace(c, nickname=FORMER_PLAYER.format(n=c.seat + 1)) if c.seat in gone else c
                for c in room.chat
            ]
            room.chat.clear()
            room.chat.extend(lines)
            self.fanout.broadcast_room(room, now=True)
            self.fanout.broadcast(room, chat_history_text(room))

    async def check_accounts(self, deleted_of: Callable[[dict[str, list[tuple[int, int]]]], set[str]]) -> int:
        """Ask storage which seated accounts were deleted elsewhere (another process, the
        ``nomercy accounts remove`` command) and take them out of the rooms here; how many."""
        seated = self.seated_accounts()
        if not seated:
            return 0
        gone = await asyncio.to_thread(deleted_of, seated)
        if gone:
            self.accounts_deleted(gone)
        return len(gone)

    def load(self) -> int:
        """Rebuild every recent room from storage by replaying its log."""
        since = self.registry.clock.time() - self.registry.settings.idle_room_seconds
        count = 0
        for stored in self.registry.storage.load_rooms(since):
            if stored.status not in ("lobby", "playing", "finished", "retired"):
                continue  # an expired lobby
            try:
                room = self.rebuild(stored)
            except ProtocolError as exc:
                if exc.code != ErrorCode.ROOM_RETIRED:
                    raise
                self.registry.retired[stored.code] = exc.message
                continue
            except Exception:
                log.exception(
                    "room %s could not be rebuilt; skipped", stored.code, extra={"room": stored.code}
                )
                continue
            self.registry.add(room)
            self.keep_ended(room)
            count += 1
        return count

    def keep_ended(self, room: Room) -> None:
        """A room just rebuilt from its log (start-up, adoption, opening on demand) whose
        round is over there: keep that round now. The process that played its last action
        may have died before keeping it; keeping is idempotent (one game per room and
        version, written with its ratings and daily result in one transaction), so a round
        kept already, or kept by another process at the same moment, is kept once."""
        if self.registry.on_round_end is None or room.match is None or not room.match.round_over:
            return
        try:
            self.registry.on_round_end(room)
        except Exception:  # keeping a round never stops a room from running
            log.exception("keeping the ended round of room %s failed", room.code, extra={"room": room.code})

    def rebuild(self, stored: StoredRoom) -> Room:
        """The room as its log replays on this engine; ``room_retired`` if this engine
        cannot continue it exactly (it is then stored as retired, its record untouched)."""
        if stored.status == "retired":
            raise ProtocolError(ErrorCode.ROOM_RETIRED, stored.retired or "this game has ended")
        try:
            check(stored.state_format, stored.engine_version)
            return self._replay(stored)
        except Retired as exc:
            reason = str(exc)
        except (NoMercyError, ValueError) as exc:  # a move this engine refuses, a bad marker
            reason = str(unreplayable(exc))
        except ProtocolError as exc:  # house rules this engine no longer accepts
            if exc.code != ErrorCode.INVALID_RULES:
                raise
            reason = str(unreplayable(exc))
        log.warning("room %s retired: %s", stored.code, reason, extra={"room": stored.code})
        self.registry.storage.retire(stored.id, reason)
        raise ProtocolError(ErrorCode.ROOM_RETIRED, reason)

    def _replay(self, stored: StoredRoom) -> Room:
        config = stored.settings
        rules = build_rules("no_mercy", config.get("rules") or {})
        now = self.registry.clock.monotonic()
        seats = [
            Seat(
                s.seat,
                cast(SeatKind, s.kind),
                s.nickname,
                s.token_hash,
                s.host,
                account_id=s.account_id,
                away_since=now if s.kind == "human" else None,
            )
            for s in stored.seats
        ]
        status = cast(RoomStatus, stored.status)
        room = Room(stored.id, stored.code, config, rules, seats, status=status, seed=stored.seed)
        room.log = deque(maxlen=self.registry.settings.log_length)
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
            last = stored.log[-1][1] if stored.log else None
            begun = last is not None and last != NEXT_ROUND and not last.startswith(REMATCH)
            if room.rated and status == "playing" and not match.round_over and not begun:
                # The wait for people lives in memory: a rated round with no action yet, rebuilt
                # (a restart, a hand-over), waits again for every person, its full connect time.
                room.waiting_since, room.connect_seconds = now, self.registry.settings.rated_connect_seconds
            if match.round_over and stored.last_at is not None:
                # Between rounds: the pause counts from the round's end, not from this
                # rebuild (a room taken over mid-pause waits only what was left of it).
                ago = min(
                    max(0.0, self.registry.clock.time() - stored.last_at),
                    self.registry.settings.between_rounds,
                )
                room.changed_at = now - ago
        room.chat.extend(self.registry.social.recent_chat(room.id))
        room.removed = self.registry.social.removed_of(room.id)
        self.registry.attach_bots(room)
        return room
