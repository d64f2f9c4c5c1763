"""What holds the event loop up: its lag, and the garbage collector's pauses.

Every player's latency passes through the one event loop, so a stall anywhere (a slow
callback, a full garbage collection over a large heap) is a stall for every table. The
lag is measured the plain way: a task asks to wake every ``interval`` seconds and records
how late it woke. The collector's pauses are timed through ``gc.callbacks``. Both are
histograms on ``/metrics`` (``nomercy_event_loop_lag_seconds``,
``nomercy_gc_pause_seconds{generation}``), read by ``benchmarks/server_load.py``.

:func:`freeze_start_up` moves what start-up made (about 140,000 objects: modules, the app,
caches, none of them ever garbage) out of the collector's view (``gc.freeze``). A full
collection walked all of them, some 50 ms with every table waiting, each time the heap
grew by a quarter; after the freeze it walks only the rooms.
"""

from __future__ import annotations

import asyncio
import gc
from time import perf_counter
from typing import Any

from prometheus_client import CollectorRegistry, Histogram

__all__ = ["LoopWatch", "freeze_start_up"]

_LAG = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def freeze_start_up() -> None:
    """Collect once, then keep everything alive now out of later collections."""
    gc.collect()
    gc.freeze()


class LoopWatch:
    """The loop's lag and the collector's pauses, as histograms in ``registry``."""

    def __init__(self, registry: CollectorRegistry, interval: float = 0.05) -> None:
        self.interval = interval
        self.lag = Histogram(
            "nomercy_event_loop_lag_seconds",
            "How late the event loop ran a task due now (every stall delays every table)",
            buckets=_LAG,
            registry=registry,
        )
        self.gc_pause = Histogram(
            "nomercy_gc_pause_seconds",
            "Garbage collections, by generation, and how long each held the process",
            ["generation"],
            buckets=_LAG,
            registry=registry,
        )
        for generation in ("0", "1", "2"):
            self.gc_pause.labels(generation)
        self._task: asyncio.Task[None] | None = None
        self._gc_started = 0.0

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = perf_counter()
        else:
            self.gc_pause.labels(str(info.get("generation", 2))).observe(perf_counter() - self._gc_started)

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            self.lag.observe(max(0.0, loop.time() - due))

    def start(self) -> None:
        """Begin (in the running loop); :meth:`stop` undoes it."""
        gc.callbacks.append(self._on_gc)
        self._task = asyncio.get_running_loop().create_task(self._watch())

    def stop(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._task is not None:
            self._task.cancel()
            self._task = None
