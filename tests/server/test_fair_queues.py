"""Fair queues (issue 40): a few addresses cannot fill the review queue for everyone, the
workers take reviews by turns of address, and the coach's hints have bounds of their own
(per seat, per address, in all, per minute) checked before any work is done.

The queue's work is replaced by a stand-in that waits for the test (no worker process):
these tests are about who is let in and in what order, not about reviews.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import create_engine

from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.settings import Settings
from nomercy.server.games import reviews
from nomercy.server.games.reviews import ReviewQueue
from nomercy.server.games.store import Game, GameStore
from patience import WAIT_SECONDS


def game(n: int) -> Game:
    return Game(f"game{n:012d}", n, f"ROOM{n:02d}", 1, 0.0, "link", {}, {})


class Held(ReviewQueue):
    """A queue whose reviews wait until the test lets them end; it notes the order they start."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, GameStore(create_engine("sqlite://")))
        self.started: list[str] = []
        self.release: dict[str, asyncio.Event] = {}
        self.stored: list[str] = []
        self.store.store_review = lambda game_id, text: self.stored.append(game_id)  # type: ignore[method-assign]
        self.store.review = lambda game_id: None  # type: ignore[method-assign]

    async def _compute(self, game: Game) -> str:
        self.started.append(game.id)
        await self.release.setdefault(game.id, asyncio.Event()).wait()
        return "{}"


async def settle(condition: Any) -> None:
    """Let the event loop (and the storage threads) run until ``condition()`` holds."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "the queue did not get there"
        await asyncio.sleep(0.005)


def test_a_few_addresses_cannot_fill_the_review_queue_for_everyone() -> None:
    """The attack: four addresses ask for two reviews each and fill the queue of 8 for
    minutes. Now an address's second review is taken only while a quarter of the queue
    stays free, so others still get in; the global capacity is unchanged."""

    async def run() -> None:
        queue = Held(Settings(review_queue=8, reviews_per_address=2, reviews_per_room=8, review_workers=1))
        try:
            addresses = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]
            for i, address in enumerate(addresses):
                await queue.request(game(i), address)
            taken, refused = [], []
            for i, address in enumerate(addresses):
                try:
                    await queue.request(game(10 + i), address)
                    taken.append(address)
                except ProtocolError as exc:
                    assert exc.code == ErrorCode.BUSY  # HTTP 429 with Retry-After
                    assert "kept for other players" in exc.message
                    refused.append(address)
            assert len(taken) == 2 and len(refused) == 2 and len(queue.jobs) == 6
            # Two newcomers still get in; the queue is then full for everyone, as before.
            await queue.request(game(20), "10.0.0.5")
            await queue.request(game(21), "10.0.0.6")
            assert len(queue.jobs) == queue.settings.review_queue
            with pytest.raises(ProtocolError, match="8 reviews are already waiting"):
                await queue.request(game(22), "10.0.0.7")
        finally:
            queue.close()

    asyncio.run(run())


def test_workers_take_reviews_by_turns_of_address() -> None:
    """An address with two reviews waiting does not hold a later address's one behind both:
    the worker takes a, then b's, then a's second."""

    async def run() -> None:
        queue = Held(Settings(review_queue=8, reviews_per_address=3, reviews_per_room=8, review_workers=1))
        try:
            await queue.request(game(1), "10.0.0.1")
            await queue.request(game(2), "10.0.0.1")
            await queue.request(game(3), "10.0.0.2")
            await settle(lambda: queue.started == [game(1).id])
            for n in (1, 3, 2):
                await settle(lambda n=n: queue.started[-1] == game(n).id)
                queue.release.setdefault(game(n).id, asyncio.Event()).set()
            await settle(lambda: not queue.jobs)
            assert queue.started == [game(1).id, game(3).id, game(2).id]
            assert queue.stored == queue.started and queue._running == 0
        finally:
            queue.close()

    asyncio.run(run())


def test_a_waiting_review_that_is_cancelled_gives_its_turn_away() -> None:
    async def run() -> None:
        queue = Held(Settings(review_queue=8, reviews_per_address=3, reviews_per_room=8, review_workers=1))
        try:
            await queue.request(game(1), "10.0.0.1")
            await queue.request(game(2), "10.0.0.2")
            await settle(lambda: queue.started == [game(1).id])
            waiting = queue.jobs[game(2).id].task
            assert waiting is not None
            waiting.cancel()
            await settle(lambda: game(2).id not in queue.jobs)
            await queue.request(game(3), "10.0.0.3")
            queue.release.setdefault(game(1).id, asyncio.Event()).set()
            await settle(lambda: queue.started == [game(1).id, game(3).id])
            assert queue._running == 1
        finally:
            queue.close()

    asyncio.run(run())


def test_hints_are_bounded_per_seat_per_address_in_all_and_per_minute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attack: a flood of hint requests. Each is refused before its record is even
    built once its seat, its address or the coach has its share, or the address has asked
    too often; the coach's worker meanwhile runs in the idle class like the reviews'."""
    gate = threading.Event()

    def slow_hint(record: dict[str, Any], seed: int, worlds: int, native: bool) -> tuple[str, float, float]:
        gate.wait(30)
        return ("d", 0.5, 0.01)

    monkeypatch.setattr(reviews, "hint_job", slow_hint)
    built: list[int] = []

    def record(n: int) -> Any:
        return lambda: built.append(n) or {}

    async def run() -> None:
        settings = Settings(hint_queue=2, hints_per_address=1, hints_per_minute=3)
        queue = ReviewQueue(settings, GameStore(create_engine("sqlite://")))
        pool = ThreadPoolExecutor(4)
        monkeypatch.setattr(queue, "_coach_pool", lambda: pool)
        try:
            first = asyncio.ensure_future(queue.hint("ROOM01", 0, record(1), 1, "10.0.0.1"))
            await settle(lambda: len(queue.hinting) == 1)
            refusals = []
            for args in (
                ("ROOM01", 0, record(2), 1, "10.0.0.9"),  # the same seat
                ("ROOM02", 0, record(3), 1, "10.0.0.1"),  # the same address
            ):
                with pytest.raises(ProtocolError) as refused:
                    await queue.hint(*args)
                refusals.append(refused.value)
            second = asyncio.ensure_future(queue.hint("ROOM03", 0, record(4), 1, "10.0.0.2"))
            await settle(lambda: len(queue.hinting) == 2)
            with pytest.raises(ProtocolError) as full:
                await queue.hint("ROOM04", 0, record(5), 1, "10.0.0.3")
            refusals.append(full.value)
            assert all(r.code == ErrorCode.BUSY for r in refusals)
            assert "many players" in full.value.message
            assert built == [1, 4]  # refused hints built nothing
            gate.set()
            assert await first == ("d", 0.5, 0.01) and await second == ("d", 0.5, 0.01)
            assert not queue.hinting
            # Per minute: 10.0.0.2 asked once; two more, then refused.
            for n in (6, 7):
                assert await queue.hint(f"ROOM1{n}", 0, record(n), 1, "10.0.0.2") is not None
            with pytest.raises(ProtocolError) as rate:
                await queue.hint("ROOM18", 0, record(8), 1, "10.0.0.2")
            assert rate.value.code == ErrorCode.RATE_LIMITED and 8 not in built
        finally:
            gate.set()
            pool.shutdown(wait=True)
            queue.close()

    asyncio.run(run())


def test_the_coachs_worker_is_idle_class_like_the_reviews(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach's pool starts its worker with the same scheduling as the review pool's."""
    seen: list[tuple[Any, ...]] = []

    class Pool:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen.append(kwargs["initargs"])

    monkeypatch.setattr(reviews, "ProcessPoolExecutor", Pool)
    queue = ReviewQueue(Settings(review_idle=True, review_niceness=19), GameStore(create_engine("sqlite://")))
    queue._coach_pool()
    assert seen == [(None, 19, True)]
    queue._coach = None


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle scheduling class")
def test_a_review_worker_is_idle_from_its_start_not_only_after_its_imports() -> None:
    """Issue 40: a worker's interpreter start and imports (half a second of CPU or more, as the
    first review is asked for) ran at full priority until its initializer moved it to the idle
    class; the server moves it there right after starting it."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        future = pool.submit(os.getpid)
        reviews._idle_from_the_start(pool, 19, True)
        pids = [p.pid for p in pool._processes.values()]
        assert pids and all(os.sched_getscheduler(pid) == os.SCHED_IDLE for pid in pids if pid)
        assert future.result(timeout=WAIT_SECONDS) in pids


@pytest.mark.parametrize("share", [0.25, 0.5, 1.0])
def test_a_review_worker_rests_so_that_it_uses_its_share_of_a_core(share: float) -> None:
    """Issue 40: the idle class alone let a busy review worker slow the rooms; the worker
    rests after each action it reviews, in proportion to the CPU the action used."""
    clock = {"cpu": 0.0, "wall": 0.0}

    def cpu() -> float:
        return clock["cpu"]

    def rest(seconds: float) -> None:
        clock["wall"] += seconds

    pacer = reviews.Pacer(share, cpu=cpu, rest=rest)
    for used in (0.01, 0.2, 0.05, 0.0, 0.3):  # each action's CPU, as a review's vary
        clock["cpu"] += used
        clock["wall"] += used
        pacer.step()
    assert clock["cpu"] / clock["wall"] == pytest.approx(share)
