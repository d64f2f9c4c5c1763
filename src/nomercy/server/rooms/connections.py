"""Connection limits: open sockets per client address, and a bounded retry delay.

A crowd of sockets from one address (a script, not a room full of friends) is what made
the server drop players, so each address may hold at most ``max_sockets_per_address``
WebSockets that are not seated players: ones that have not said ``hello`` yet and
spectators. A socket that sits at a seat with a valid token stops counting, so a
player's reconnect is never refused by this limit once a seat is proven; the number of
connections per seat is bounded separately (the oldest is closed, see
:meth:`nomercy.server.rooms.manager.RoomManager.connect`).
"""

from __future__ import annotations


class SocketCounter:
    """How many unseated sockets each address holds; ``acquire`` refuses over the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        count = self._open.get(address, 0)
        if count >= self.limit:
            return False
        self._open[address] = count + 1
        return True

    def release(self, address: str) -> None:
        count = self._open.get(address, 0) - 1
        if count > 0:
            self._open[address] = count
        else:
            self._open.pop(address, None)

    def count(self, address: str) -> int:
        return self._open.get(address, 0)


class Backoff:
    """Exponential delays for retrying a failing store: ``base``, ``2 base``... up to ``cap``."""

    def __init__(self, base: float, cap: float) -> None:
        self.base = base
        self.cap = cap
        self.failures = 0

    def failed(self) -> float:
        """Count a failure; the delay to wait before the next attempt."""
        self.failures += 1
        return float(min(self.cap, self.base * 2 ** min(self.failures - 1, 32)))

    def succeeded(self) -> None:
        self.failures = 0
