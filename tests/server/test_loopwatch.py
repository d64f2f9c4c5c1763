"""What holds the event loop up, on ``/metrics``: its lag and the collector's pauses.

A stall of the one event loop is a stall for every table, so an operator sees it as a
histogram; start-up's objects are frozen out of the collector's walks.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("prometheus_client")

from prometheus_client import CollectorRegistry

from nomercy.server.http.loopwatch import LoopWatch, freeze_start_up


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float:
    value = registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def test_a_blocked_loop_is_measured_as_lag() -> None:
    registry = CollectorRegistry()
    watch = LoopWatch(registry, interval=0.01)

    async def block() -> None:
        watch.start()
        try:
            await asyncio.sleep(0.05)  # a few wake-ups on time
            time.sleep(0.2)  # noqa: ASYNC251 - on purpose: a callback that holds the loop
            await asyncio.sleep(0.05)
        finally:
            watch.stop()

    asyncio.run(block())
    count = sample(registry, "nomercy_event_loop_lag_seconds_count")
    under_100ms = sample(registry, "nomercy_event_loop_lag_seconds_bucket", le="0.1")
    assert count >= 3
    assert count - under_100ms >= 1  # the held wake-up was late by more than 100 ms
    assert sample(registry, "nomercy_event_loop_lag_seconds_sum") >= 0.15


def test_collections_are_timed_by_generation_and_the_hook_goes_with_stop() -> None:
    registry = CollectorRegistry()
    watch = LoopWatch(registry)

    async def collect() -> None:
        watch.start()
        try:
            gc.collect(0)
            gc.collect(2)
        finally:
            watch.stop()

    asyncio.run(collect())
    assert sample(registry, "nomercy_gc_pause_seconds_count", generation="0") >= 1
    assert sample(registry, "nomercy_gc_pause_seconds_count", generation="2") >= 1
    before = sample(registry, "nomercy_gc_pause_seconds_count", generation="2")
    gc.collect(2)  # stopped: no longer counted
    assert sample(registry, "nomercy_gc_pause_seconds_count", generation="2") == before


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_start_up_is_frozen_out_of_later_collections(unfrozen: None) -> None:
    kept = [[i] for i in range(1000)]  # alive at start-up, as the app's objects are
    freeze_start_up()
    assert gc.get_freeze_count() >= len(kept)


def test_the_server_reports_both_on_metrics(unfrozen: None, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from nomercy.server.base.settings import Settings
    from nomercy.server.http.app import create_app

    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'rooms.sqlite3'}"))
    with TestClient(app) as client:
        assert gc.get_freeze_count() > 0  # start-up's objects are out of the collector's walks
        gc.collect(0)
        text = client.get("/metrics").text
    assert "nomercy_event_loop_lag_seconds_bucket" in text
    assert 'nomercy_gc_pause_seconds_count{generation="0"}' in text
