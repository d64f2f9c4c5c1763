"""``GET /metrics``: the server's numbers in the Prometheus text format (``prometheus-client``).

Each application has its own registry (several apps in one test process never mix).
Counters and histograms are updated where things happen (a few calls in
:mod:`~nomercy.server.rooms.manager`, :mod:`~nomercy.server.http.ws` and :mod:`~nomercy.server.http.app`);
the gauges are read from the rooms in memory at scrape time, so they are never stale.

==========================================  ==============================================
``nomercy_rooms{status}``                   rooms this process runs: lobby/playing/finished
``nomercy_connected_players``               WebSocket connections seated at a table
``nomercy_spectators``                      WebSocket connections watching
``nomercy_actions_applied_total{by}``       actions applied, by who decided: ``human``
                                            (the turn timer too) or ``bot`` (stand-ins too)
``nomercy_action_seconds``                  histogram: an action's check, commit and
                                            broadcast, lock wait included
``nomercy_refusals_total{code}``            refused messages and requests by error code
``nomercy_rate_limit_hits_total{where}``    refusals by a rate limit (``websocket``/``http``)
``nomercy_storage_write_seconds{what}``     histogram: commits of the action log (``log``,
                                            group commits) and of the lobby (``lobby``)
``nomercy_storage_write_failures_total``    commits that failed, by ``what``
``nomercy_room_moves_total{event}``         several processes: rooms ``taken`` (opened or
                                            adopted), ``handed_over``, ``lost``
``nomercy_event_loop_lag_seconds``          histogram: how late the event loop woke a task
                                            due now (:mod:`~nomercy.server.http.loopwatch`)
``nomercy_gc_pause_seconds{generation}``    histogram: garbage collections and their pauses
==========================================  ==============================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from time import perf_counter
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class _Rooms(Collector):
    """Gauges read from the rooms in memory when scraped."""

    def __init__(self, rooms: Callable[[], Iterable[Any]]) -> None:
        self.rooms = rooms

    def collect(self) -> Iterator[GaugeMetricFamily]:
        by_status = {"lobby": 0, "playing": 0, "finished": 0}
        players = spectators = 0
        for room in list(self.rooms()):
            by_status[room.status] = by_status.get(room.status, 0) + 1
            for client in list(room.clients):
                if client.seat is None:
                    spectators += 1
                else:
                    players += 1
        status = GaugeMetricFamily("nomercy_rooms", "Rooms this process runs, by status", labels=["status"])
        for name, count in by_status.items():
            status.add_metric([name], count)
        yield status
        yield GaugeMetricFamily(
            "nomercy_connected_players", "WebSocket connections seated at a table", value=players
        )
        yield GaugeMetricFamily(
            "nomercy_spectators", "WebSocket connections watching a table", value=spectators
        )


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions = Counter("nomercy_actions_applied", "Actions applied to games", ["by"], registry=r)
        self.action_seconds = Histogram(
            "nomercy_action_seconds",
            "Time to check, commit and broadcast an action (waiting for the room's lock included)",
            buckets=_FAST,
            registry=r,
        )
        self.refusals = Counter(
            "nomercy_refusals", "Client messages and requests refused, by error code", ["code"], registry=r
        )
        self.rate_limited = Counter(
            "nomercy_rate_limit_hits", "Messages and requests refused by a rate limit", ["where"], registry=r
        )
        self.storage_seconds = Histogram(
            "nomercy_storage_write_seconds", "Storage commits", ["what"], buckets=_FAST, registry=r
        )
        self.storage_failures = Counter(
            "nomercy_storage_write_failures", "Storage commits that failed", ["what"], registry=r
        )
        self.room_moves = Counter(
            "nomercy_room_moves",
            "Rooms taken over, handed over or lost (several processes)",
            ["event"],
            registry=r,
        )
        for event in ("taken", "handed_over", "lost"):
            self.room_moves.labels(event)
        for what in ("log", "lobby"):  # present from the start, at zero
            self.storage_failures.labels(what)
        for where in ("websocket", "http"):
            self.rate_limited.labels(where)

    def watch(self, rooms: Callable[[], Iterable[Any]]) -> None:
        """Report the gauges of the rooms that ``rooms()`` returns."""
        self.registry.register(_Rooms(rooms))

    def refused(self, code: str, where: str) -> None:
        self.refusals.labels(code).inc()
        if code == "rate_limited":
            self.rate_limited.labels(where).inc()

    @contextmanager
    def storage_write(self, what: str) -> Iterator[None]:
        """Time a commit; count it as failed if it raises."""
        start = perf_counter()
        try:
            yield
        except BaseException:
            self.storage_failures.labels(what).inc()
            raise
        finally:
            self.storage_seconds.labels(what).observe(perf_counter() - start)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
