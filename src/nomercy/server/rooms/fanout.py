"""The fan-out: every connection of a room gets its own message (its seat's view only).

A part that :class:`nomercy.server.rooms.manager.RoomManager` holds: the state message per seat (built
once per seat and shared by that seat's connections), the coalesced room message, and
waking the room's driver after a change.
"""

from __future__ import annotations

import asyncio

from nomercy.events import Event
from nomercy.server.base import protocol as P
from nomercy.server.base.settings import Settings
from nomercy.server.rooms.room import Room, dumps, revealed_hands
from nomercy.server.rooms.seen import Held, seen_by


class FanOut:
    """Sending to a room's connections; needs only the settings (the room update delay)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def state_text(self, room: Room, seat: int | None, events: list[Event], snapshot: bool = False) -> str:
        """The ``state`` message for one seat: its own view and its redacted events only."""
        state = room.match.state if room.match is not None else None
        held: Held | None = (
            "aborted" if room.aborted else "waiting" if room.waiting_since is not None else None
        )
        seen = seen_by(state, seat, events, held=held)
        # The hot path: plain json.dumps of exactly the fields of P.StateMessage (a test
        # validates real messages against the model).
        return dumps(
            {
                "type": "state",
                **seen,
                "version": room.version,
                "snapshot": snapshot,
                "deadline": room.deadline(),
                "reveal": revealed_hands(room),
            }
        )

    def broadcast_state(self, room: Room, events: list[Event]) -> None:
        if room.update_due is not None:
            self._send_room(room)  # a due room update goes first, as it happened first
        cache: dict[int | None, str] = {}
        for client in list(room.clients):
            text = cache.get(client.seat)
            if text is None:
                text = cache[client.seat] = self.state_text(room, client.seat, events)
            client.send(text)

    def broadcast_room(self, room: Room, now: bool = False) -> None:
        """Tell everyone in the room about its seats, status and audience.

        Updates are coalesced: a storm of joins and leaves sends one ``room`` message per
        ``room_update_delay`` rather than one per connection to every connection (which
        grows with the square of the crowd). ``now`` sends at once (a status change).
        """
        if now or self.settings.room_update_delay <= 0:
            self._send_room(room)
        elif room.update_due is None:
            room.update_due = asyncio.get_running_loop().call_later(
                self.settings.room_update_delay, self._send_room, room
            )

    def _send_room(self, room: Room) -> None:
        if room.update_due is not None:
            room.update_due.cancel()
            room.update_due = None
        text = P.RoomMessage(room=room.info()).model_dump_json()
        for client in list(room.clients):
            client.send(text)

    def broadcast(self, room: Room, text: str) -> None:
        for client in list(room.clients):
            client.send(text)

    def poke(self, room: Room) -> None:
        if room.driver is not None:
            room.driver.poke()
