"""The expert's reviews and the coach's hints, computed off the event loop in worker processes.

A review of a round takes seconds (native playouts) to a minute (Python); a hint a fraction
of that. Neither may slow the rooms in play, so both run in pools of *processes* (a thread
would hold the interpreter's lock against the event loop), started with ``spawn`` (never a
fork of a process with threads and open database connections). Review workers are
scheduled as idle work (Linux's ``SCHED_IDLE``; elsewhere ``nice``), so the rooms' own work
always comes first; the coach's worker, which a player waits for, is only ``nice``.

The queue is bounded (:class:`ReviewQueue`): at most ``review_queue`` reviews waiting or
running, ``reviews_per_address`` of one address, ``reviews_per_room`` of one room; beyond
that a request is refused with ``busy`` (HTTP 429), never queued. A finished review is
stored (:class:`~nomercy.server.games.GameStore`) and never computed again. Workers report
progress through a queue that a thread of the server reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from nomercy.engine import new_game
from nomercy.record import GameRecord
from nomercy.server.games import Game, GameStore
from nomercy.server.protocol import ErrorCode, ProtocolError
from nomercy.server.settings import Settings

log = logging.getLogger("nomercy.server")

#: Set in each worker process: where it reports progress.
_progress: Any = None


def _start_worker(progress: Any, niceness: int, idle: bool) -> None:
    """A review worker runs only on CPU time the server leaves (``idle``: Linux's idle
    scheduling class where it exists); otherwise, and for the coach (a player waits for
    its answer), at the lower priority ``niceness``."""
    global _progress
    _progress = progress
    if idle:
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            return
        except (OSError, AttributeError):
            pass
    with contextlib.suppress(OSError, AttributeError):
        os.nice(niceness)


def review_job(game_id: str, record: dict[str, Any], worlds: int, native: bool) -> str:
    """In a worker: the ``nomercy.review`` JSON of a kept round."""
    from nomercy.bots.review import review

    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if _progress is not None and (now - last[0] >= 0.25 or done == total):
            last[0] = now
            _progress.put((game_id, done / max(1, total)))

    if _progress is not None:
        _progress.put((game_id, 0.0))
    result = review(
        GameRecord.from_dict(record), worlds=worlds, native=None if native else False, progress=report
    )
    return json.dumps(result.to_dict())


def hint_job(record: dict[str, Any], seed: int, worlds: int, native: bool) -> tuple[str, float, float] | None:
    """In a worker: the coach's pick for the deciding seat of a round in play (from that
    seat's view only), its win chance and standard error; None when the round is over."""
    from nomercy.bots.review import suggest

    rec = GameRecord.from_dict(record)
    start = new_game(rec.players, rec.rules, rec.seed, rec.dealer, rec.sitting_out)
    hint = suggest(start, rec.actions, seed=seed, worlds=worlds, native=None if native else False)
    return None if hint is None else (str(hint.action), hint.win, hint.stderr)


def busy(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BUSY, f"busy, try again in a moment: {message}")


@dataclass
class Job:
    """A review waiting or running."""

    game_id: str
    address: str
    room: str
    status: str = "queued"
    progress: float = 0.0
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class ReviewQueue:
    """Bounded reviews and hints in worker processes (see the module's docstring)."""

    def __init__(self, settings: Settings, store: GameStore) -> None:
        self.settings = settings
        self.store = store
        ctx = multiprocessing.get_context("spawn")
        self.progress_queue: Any = ctx.Queue()
        self.reviews = ProcessPoolExecutor(
            max(1, settings.review_workers),
            mp_context=ctx,
            initializer=_start_worker,
            initargs=(self.progress_queue, settings.review_niceness, settings.review_idle),
        )
        self.coach = ProcessPoolExecutor(
            1, mp_context=ctx, initializer=_start_worker, initargs=(None, settings.review_niceness, False)
        )
        self.jobs: dict[str, Job] = {}
        #: Reviews that failed (in memory: asking again tries again).
        self.failed: dict[str, str] = {}
        #: Hints being computed, by (room code, seat): one at a time per seat.
        self.hinting: set[tuple[str, int]] = set()
        self._reader = threading.Thread(target=self._read_progress, name="review-progress", daemon=True)
        self._reader.start()

    def _read_progress(self) -> None:
        while True:
            try:
                item = self.progress_queue.get()
            except (EOFError, OSError, ValueError):  # the queue was closed: the server stops
                return
            if item is None:
                return
            game_id, share = item
            job = self.jobs.get(game_id)
            if job is not None:
                job.status = "running"
                job.progress = max(job.progress, float(share))

    def close(self) -> None:
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
        for pool in (self.reviews, self.coach):
            # A review in progress would hold the shutdown for a minute: its worker is stopped.
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        with contextlib.suppress(Exception):
            self.progress_queue.put(None)
            self.progress_queue.close()

    # -- reviews -------------------------------------------------------------------------

    async def status(self, game_id: str) -> dict[str, Any]:
        job = self.jobs.get(game_id)
        if job is not None:
            return {"status": job.status, "progress": round(job.progress, 3), "review": None}
        stored = await asyncio.to_thread(self.store.review, game_id)
        if stored is not None:
            return {"status": "done", "progress": 1.0, "review": json.loads(stored)}
        if game_id in self.failed:
            return {"status": "failed", "progress": 0.0, "review": None, "message": self.failed[game_id]}
        return {"status": "none", "progress": 0.0, "review": None}

    def _admit(self, address: str, room: str) -> None:
        s = self.settings
        if len(self.jobs) >= s.review_queue:
            raise busy(f"{s.review_queue} reviews are already waiting or running")
        if sum(1 for j in self.jobs.values() if j.address == address) >= s.reviews_per_address:
            raise busy(f"your address has {s.reviews_per_address} reviews waiting or running")
        if sum(1 for j in self.jobs.values() if j.room == room) >= s.reviews_per_room:
            raise busy(f"this room has {s.reviews_per_room} reviews waiting or running")

    async def request(self, game: Game, address: str) -> dict[str, Any]:
        """Queue a review of ``game`` (once); its status. Raises ``busy`` past the bounds."""
        current = await self.status(game.id)
        if current["status"] in ("queued", "running", "done"):
            return {"status": current["status"], "progress": current["progress"]}
        self._admit(address, game.room_code)
        self.failed.pop(game.id, None)
        job = Job(game.id, address, game.room_code)
        self.jobs[game.id] = job
        job.task = asyncio.get_running_loop().create_task(self._run(job, game))
        return {"status": job.status, "progress": job.progress}

    async def _run(self, job: Job, game: Game) -> None:
        loop = asyncio.get_running_loop()
        s = self.settings
        try:
            text = await loop.run_in_executor(
                self.reviews, review_job, game.id, game.record, s.review_worlds, s.review_native
            )
            await asyncio.to_thread(self.store.store_review, game.id, text)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("the review of game %s failed: %s", game.id, exc, exc_info=True)
            self.failed[game.id] = f"the review could not be made: {exc}"
        finally:
            self.jobs.pop(job.game_id, None)

    # -- hints ---------------------------------------------------------------------------

    async def hint(
        self, room: str, seat: int, record: dict[str, Any], seed: int
    ) -> tuple[str, float, float] | None:
        """The coach's pick for ``seat``, deciding now in the round ``record`` describes."""
        key = (room, seat)
        if key in self.hinting:
            raise busy("your last hint is still being worked out")
        if len(self.hinting) >= self.settings.review_queue:
            raise busy("the coach is answering many players")
        self.hinting.add(key)
        try:
            s = self.settings
            return await asyncio.get_running_loop().run_in_executor(
                self.coach, hint_job, record, seed, s.hint_worlds, s.review_native
            )
        finally:
            self.hinting.discard(key)
