"""The expert's reviews and the coach's hints, computed off the event loop in worker processes.

A review of a round takes seconds (native playouts) to a minute (Python); a hint a fraction
of that. Neither may slow the rooms in play, so both run in pools of *processes* (a thread
would hold the interpreter's lock against the event loop), started with ``spawn`` (never a
fork of a process with threads and open database connections). Review workers are
scheduled as idle work (Linux's ``SCHED_IDLE``; elsewhere ``nice``) from the moment they
start, their interpreter's start included, so the rooms' own work always comes first; the
coach's worker, which a player waits for, is only ``nice``.

The queue is bounded (:class:`ReviewQueue`): at most ``review_queue`` reviews waiting or
running, ``reviews_per_address`` of one address, ``reviews_per_room`` of one room; beyond
that a request is refused with ``busy`` (HTTP 429), never queued. It is fair between
addresses: an address's first review is taken while the queue has room, a further one only
while a quarter of the queue stays free for addresses with none (so a few addresses cannot
fill it for minutes), and the workers take the waiting reviews by turns of address, not in
the order they came. A finished review is stored (:class:`~nomercy.server.games.store.GameStore`)
and never computed again. Workers report progress through a queue that a thread of the
server reads.

Hints have the same kind of bounds: one at a time per seat, ``hints_per_address`` per
address and ``hint_queue`` in all at once, ``hints_per_minute`` per address; the coach's
worker runs in the idle class like the reviews' (a flood of hints must not slow the rooms).
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
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from nomercy.engine import new_game
from nomercy.record import GameRecord
from nomercy.server.base.limits import per_minute
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.settings import Settings
from nomercy.server.games.store import Game, GameStore

log = logging.getLogger("nomercy.server")

#: Set in each worker process: where it reports progress.
_progress: Any = None


def _start_worker(progress: Any, niceness: int, idle: bool) -> None:
    """A worker (reviews and the coach alike) runs only on CPU time the server leaves
    (``idle``: Linux's idle scheduling class where it exists); otherwise at the lower
    priority ``niceness``."""
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


def _idle_from_the_start(pool: ProcessPoolExecutor, niceness: int, idle: bool) -> None:
    """From the server, right after the pool started its workers: each in the idle class (or
    ``nice``) from its first instructions on. The worker's own :func:`_start_worker` runs only
    once its interpreter has started and imported the server's modules (the pickled
    initializer lives here), half a second of CPU or more that would otherwise compete with the
    rooms at full priority, at the moment the first review is asked for."""
    for process in list(getattr(pool, "_processes", {}).values()):
        pid = process.pid
        if pid is None:
            continue
        if idle:
            try:
                os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
                continue
            except (OSError, AttributeError):
                pass
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, pid, niceness)


class Pacer:
    """Keeps a worker's CPU to ``share`` of its time: after each step it rests in proportion
    to the CPU the step used (a step: one action of the round reviewed).

    The idle scheduling class is not enough on a small shared machine: with a review worker
    busy on one of two cores, the rooms' actions on the other were measured 50% slower,
    though the worker ran only on time the server left (docs/deploy.md, "Kept games")."""

    def __init__(
        self,
        share: float,
        cpu: Callable[[], float] = time.process_time,
        rest: Callable[[float], None] = time.sleep,
    ) -> None:
        self.share = min(1.0, max(0.01, share))
        self.cpu, self.rest = cpu, rest
        self.mark = cpu()

    def step(self) -> None:
        if self.share < 1.0:
            used = self.cpu() - self.mark
            self.rest(used * (1.0 - self.share) / self.share)
        self.mark = self.cpu()


def review_job(
    game_id: str, record: dict[str, Any], worlds: int, native: bool, cpu_share: float = 1.0
) -> str:
    """In a worker: the ``nomercy.review`` JSON of a kept round, using at most ``cpu_share``
    of a core."""
    from nomercy.bots.review import review

    last = [0.0]
    pacer = Pacer(cpu_share)

    def report(done: int, total: int) -> None:
        pacer.step()
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
    #: Set when a worker's turn comes to this review (``ReviewQueue._dispatch``).
    turn: asyncio.Future[None] | None = field(default=None, repr=False)


class ReviewQueue:
    """Bounded reviews and hints in worker processes (see the module's docstring)."""

    def __init__(self, settings: Settings, store: GameStore) -> None:
        self.settings = settings
        self.store = store
        self.jobs: dict[str, Job] = {}
        #: Reviews that failed (in memory: asking again tries again).
        self.failed: dict[str, str] = {}
        #: Hints being computed, by (room code, seat): one at a time per seat; their addresses.
        self.hinting: dict[tuple[str, int], str] = {}
        self.hint_rate = per_minute(settings.hints_per_minute)
        #: Reviews waiting for a worker, in the order they came; how many run; and, per
        #: address, the dispatch that last served it (the next turn goes to the longest unserved).
        self._waiting: list[Job] = []
        self._running = 0
        self._served: dict[str, int] = {}
        self._dispatched = 0
        # The pools, the progress queue and its reader start with the first review or hint:
        # a server nobody asks starts no process.
        self._reviews: ProcessPoolExecutor | None = None
        self._coach: ProcessPoolExecutor | None = None
        self._progress: Any = None
        self._reader: threading.Thread | None = None

    def _review_pool(self) -> ProcessPoolExecutor:
        if self._reviews is None:
            ctx = multiprocessing.get_context("spawn")
            self._progress = ctx.Queue()
            self._reader = threading.Thread(target=self._read_progress, name="review-progress", daemon=True)
            self._reader.start()
            s = self.settings
            self._reviews = ProcessPoolExecutor(
                max(1, s.review_workers),
                mp_context=ctx,
                initializer=_start_worker,
                initargs=(self._progress, s.review_niceness, s.review_idle),
            )
        return self._reviews

    def _coach_pool(self) -> ProcessPoolExecutor:
        if self._coach is None:
            self._coach = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(None, self.settings.review_niceness, self.settings.review_idle),
            )
        return self._coach

    def _read_progress(self) -> None:
        while True:
            try:
                item = self._progress.get()
            except (EOFError, OSError, ValueError, TypeError):  # the queue went away: stopping
                return
            if item is None:
                return
            game_id, share = item
            job = self.jobs.get(game_id)
            if job is not None:
                job.status = "running"
                job.progress = max(job.progress, float(share))

    def close(self) -> None:
        """Stop the workers (a review in progress would hold the shutdown for a minute)."""
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
        for pool in (self._reviews, self._coach):
            if pool is None:
                continue
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
            with contextlib.suppress(Exception):  # the workers are gone: this returns at once
                pool.shutdown(wait=True, cancel_futures=True)
        self._reviews = self._coach = None
        if self._progress is not None:
            with contextlib.suppress(Exception):
                self._progress.put(None)  # the reader ends, then the queue closes
                if self._reader is not None:
                    self._reader.join(2.0)
                self._progress.close()
                self._progress.join_thread()
            self._progress = self._reader = None  # its locks are released with it

    # -- reviews -------------------------------------------------------------------------

    async def status(self, game_id: str) -> dict[str, Any]:
        job = self.jobs.get(game_id)
        if job is not None:
            return {"status": job.status, "progress": round(job.progress, 3), "review": None}
        stored = await asyncio.to_thread(self._stored_review, game_id)  # parsed off the event loop
        if stored is not None:
            return {"status": "done", "progress": 1.0, "review": stored}
        if game_id in self.failed:
            return {"status": "failed", "progress": 0.0, "review": None, "message": self.failed[game_id]}
        return {"status": "none", "progress": 0.0, "review": None}

    def _stored_review(self, game_id: str) -> Any:
        text = self.store.review(game_id)
        return None if text is None else json.loads(text)

    def _admit(self, address: str, room: str) -> None:
        """Refuse (``busy``) past the bounds; an address's share shrinks as the queue fills."""
        s = self.settings
        if len(self.jobs) >= s.review_queue:
            raise busy(f"{s.review_queue} reviews are already waiting or running")
        mine = sum(1 for j in self.jobs.values() if j.address == address)
        if mine >= s.reviews_per_address:
            raise busy(f"your address has {s.reviews_per_address} reviews waiting or running")
        if mine and len(self.jobs) >= s.review_queue - self.kept_free():
            raise busy(
                "your address has a review waiting or running, and the rest of the queue is "
                "kept for other players' games: ask again when yours is done"
            )
        if sum(1 for j in self.jobs.values() if j.room == room) >= s.reviews_per_room:
            raise busy(f"this room has {s.reviews_per_room} reviews waiting or running")

    def kept_free(self) -> int:
        """Places of the queue kept for addresses with no review in it (a quarter, at least one)."""
        return max(1, self.settings.review_queue // 4)

    def _dispatch(self) -> None:
        """Give free workers to waiting reviews, by turns of address: the address served
        longest ago goes first, then the review that came first."""
        while self._waiting and self._running < max(1, self.settings.review_workers):
            job = min(
                self._waiting,
                key=lambda j: (self._served.get(j.address, -1), self._waiting.index(j)),
            )
            self._waiting.remove(job)
            self._dispatched += 1
            self._served[job.address] = self._dispatched
            self._running += 1
            if job.turn is not None and not job.turn.done():
                job.turn.set_result(None)

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
        job.task.add_done_callback(lambda _: self._forget(job))
        return {"status": job.status, "progress": job.progress}

    def _forget(self, job: Job) -> None:
        """A review's task ended, even cancelled before it began: it holds no place."""
        if self.jobs.get(job.game_id) is job:
            del self.jobs[job.game_id]
        if job in self._waiting:
            self._waiting.remove(job)
            self._dispatch()

    async def _run(self, job: Job, game: Game) -> None:
        job.turn = asyncio.get_running_loop().create_future()
        self._waiting.append(job)
        self._dispatch()
        started = False
        try:
            await job.turn
            started = True
            text = await self._compute(game)
            await asyncio.to_thread(self.store.store_review, game.id, text)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("the review of game %s failed: %s", game.id, exc, exc_info=True)
            self.failed[game.id] = f"the review could not be made: {exc}"
        finally:
            self.jobs.pop(job.game_id, None)
            if job in self._waiting:
                self._waiting.remove(job)
            if started or (job.turn.done() and not job.turn.cancelled()):
                self._running -= 1
            self._dispatch()

    async def _compute(self, game: Game) -> str:
        """The review's JSON, worked out in a review worker."""
        s = self.settings
        pool = self._review_pool()
        future = asyncio.get_running_loop().run_in_executor(
            pool, review_job, game.id, game.record, s.review_worlds, s.review_native, s.review_cpu_share
        )
        _idle_from_the_start(pool, s.review_niceness, s.review_idle)  # the first submit starts them
        return await future

    # -- hints ---------------------------------------------------------------------------

    def _admit_hint(self, key: tuple[str, int], address: str) -> None:
        """Refuse (``busy``, ``rate_limited``) a hint past its bounds, before any work."""
        s = self.settings
        if key in self.hinting:
            raise busy("your last hint is still being worked out")
        if sum(1 for a in self.hinting.values() if a == address) >= s.hints_per_address:
            raise busy("the coach is still answering another hint from your address")
        if len(self.hinting) >= s.hint_queue:
            raise busy("the coach is answering many players")
        if not self.hint_rate.allow(address):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many hints from your address: wait a minute")

    async def hint(
        self,
        room: str,
        seat: int,
        record: dict[str, Any] | Callable[[], dict[str, Any]],
        seed: int,
        address: str = "",
    ) -> tuple[str, float, float] | None:
        """The coach's pick for ``seat``, deciding now in the round ``record`` describes
        (or returns: the record is only built once the hint is let in)."""
        key = (room, seat)
        self._admit_hint(key, address)
        self.hinting[key] = address
        try:
            s = self.settings
            payload = record() if callable(record) else record
            pool = self._coach_pool()
            future = asyncio.get_running_loop().run_in_executor(
                pool, hint_job, payload, seed, s.hint_worlds, s.review_native
            )
            _idle_from_the_start(pool, s.review_niceness, s.review_idle)
            return await future
        finally:
            self.hinting.pop(key, None)
