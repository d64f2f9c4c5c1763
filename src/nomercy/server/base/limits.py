"""Rate limits: token buckets per connection and per client address.

A bucket holds up to ``burst`` tokens and refills at ``rate`` per second; each message
takes one. Buckets keyed by address live in a bounded :class:`KeyedLimiter` so a flood
of addresses cannot grow memory without bound.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class TokenBucket:
    """``allow()`` is True while tokens remain; refills continuously."""

    __slots__ = ("_clock", "_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def allow(self, cost: float = 1.0) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False

    def peek(self) -> bool:
        """Would one token be available now (without taking it)?"""
        now = self._clock()
        return min(self.burst, self._tokens + (now - self._last) * self.rate) >= 1.0


class KeyedLimiter:
    """One bucket per key (a client address), the least recently used forgotten first."""

    def __init__(
        self, rate: float, burst: float, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, key: str) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self._clock)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def allow(self, key: str) -> bool:
        return self._bucket(key).allow()

    def blocked(self, key: str) -> bool:
        """True when ``key`` has no token left (checked before an attempt, charged after)."""
        return not self._bucket(key).peek()

    def charge(self, key: str) -> None:
        self._bucket(key).allow()


def per_minute(count: int, clock: Callable[[], float] = time.monotonic) -> KeyedLimiter:
    """``count`` per minute with a burst of ``count``."""
    return KeyedLimiter(count / 60.0, count, clock=clock)


class Slots:
    """Work running at once: at most ``total`` in all and ``per_key`` for one key (an address).

    ``take`` never waits: work that finds no slot is refused at once (a queue of uploads
    would hold their memory while they wait). Every ``take`` that succeeded is paired with
    one ``release``.
    """

    def __init__(self, total: int, per_key: int) -> None:
        self.total = total
        self.per_key = per_key
        self._running: dict[str, int] = {}
        self._count = 0

    def take(self, key: str) -> bool:
        held = self._running.get(key, 0)
        if self._count >= self.total or held >= self.per_key:
            return False
        self._running[key] = held + 1
        self._count += 1
        return True

    def release(self, key: str) -> None:
        held = self._running.get(key, 0)
        if held <= 0:
            raise ValueError(f"no slot held by {key!r}")
        if held == 1:
            del self._running[key]  # an address that is done leaves nothing behind
        else:
            self._running[key] = held - 1
        self._count -= 1

    @property
    def running(self) -> int:
        return self._count
