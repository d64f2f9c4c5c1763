"""Where the games run: this process, local worker processes, or a Ray cluster.

A backend plays chunks of game indexes of a :class:`Job` (a simulation's
:class:`~nomercy.sim.spec.RunSpec`, a tournament's
:class:`~nomercy.sim.tournament.TournamentSpec`) and yields each chunk's results as it
finishes, in any order; :func:`execute` puts them back in game order. Because every game
is seeded from ``(run seed, index)``, the results are the same whatever the backend, the
worker count or the chunk size.

Stopping: on ``KeyboardInterrupt`` (Ctrl-C) :func:`execute` stops handing out work, keeps
every chunk that finished and reports the run as interrupted. Local workers ignore SIGINT
themselves, so a Ctrl-C reaches only the parent, which shuts them down in order.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.context
import os
import signal
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from nomercy.extras import require

__all__ = [
    "Backend",
    "InProcess",
    "Job",
    "LocalProcesses",
    "RayBackend",
    "RunResult",
    "cannot_reach_message",
    "chunk_ranges",
    "default_workers",
    "execute",
    "make_backend",
    "ray_token_source",
    "use_ray_token",
]

Chunk = tuple[int, int]
R = TypeVar("R")


class Job(Protocol[R]):
    """``games`` seeded games, any chunk of which plays anywhere to the same results.

    A job is sent to worker processes and Ray tasks, so it must pickle (a frozen
    dataclass of plain values does).
    """

    @property
    def games(self) -> int: ...

    def play_chunk(self, start: int, stop: int) -> list[R]:
        """The results of games ``start`` (inclusive) to ``stop`` (exclusive), in order."""
        ...


def play_chunk(job: Job[R], start: int, stop: int) -> list[R]:
    """What a worker runs: a module-level function, so that it pickles by name."""
    return job.play_chunk(start, stop)


def default_workers() -> int:
    """The cores this process may use (the default ``--workers``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def chunk_ranges(games: int, workers: int, size: int | None = None) -> list[Chunk]:
    """Split ``range(games)`` into chunks: about 8 per worker, 1 to 1000 games each.

    Small enough for a smooth progress bar and a quick Ctrl-C, large enough that handing
    a chunk to another process costs little next to playing it.
    """
    if size is None:
        size = min(1000, max(1, math.ceil(games / (max(1, workers) * 8))))
    return [(start, min(start + size, games)) for start in range(0, games, size)]


class Backend(Protocol):
    """Plays chunks and yields ``(chunk, results)`` as each finishes, in any order."""

    name: str
    workers: int

    def imap(self, job: Job[R], chunks: list[Chunk]) -> Generator[tuple[Chunk, list[R]], None, None]: ...


@dataclass
class InProcess:
    """Plays every chunk here, one after another (``--workers 1``)."""

    name: str = "in-process"
    workers: int = 1

    def imap(self, job: Job[R], chunks: list[Chunk]) -> Generator[tuple[Chunk, list[R]], None, None]:
        for chunk in chunks:
            yield chunk, job.play_chunk(*chunk)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_context(native: bool = False) -> multiprocessing.context.BaseContext:
    """``forkserver`` with the simulator preloaded where the OS has it, else ``spawn``.

    Both start workers from a clean process (safe beside the progress bar's thread); the
    fork server imports nomercy once and forks each worker from it, so starting K workers
    costs one import instead of K. For a native run (``native``) it also loads the native
    engine's compiled kernels (:mod:`nomercy.sim.native_preload`: about a second of CPU
    that no worker then pays), which a Python run does not need. The fork server starts
    once per process, with the modules of its first run.
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        modules = ["nomercy.sim.runner", "nomercy.sim.tournament"]
        context.set_forkserver_preload([*modules, "nomercy.sim.native_preload"] if native else modules)
        return context
    return multiprocessing.get_context("spawn")


@dataclass
class LocalProcesses:
    """A :class:`~concurrent.futures.ProcessPoolExecutor` of ``workers`` processes.

    Workers start from a clean process (:func:`_start_context`). At most ``2 * workers``
    chunks are in flight, so memory stays bounded on long runs.
    """

    workers: int = field(default_factory=default_workers)
    name: str = "processes"

    def imap(self, job: Job[R], chunks: list[Chunk]) -> Generator[tuple[Chunk, list[R]], None, None]:
        native = getattr(job, "engine", "python") == "native"
        pool = ProcessPoolExecutor(
            self.workers, mp_context=_start_context(native), initializer=_ignore_sigint
        )
        todo = iter(chunks)
        running: dict[Future[list[R]], Chunk] = {}
        try:
            for chunk in todo:
                running[pool.submit(play_chunk, job, chunk[0], chunk[1])] = chunk
                if len(running) >= 2 * self.workers:
                    break
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    chunk = running.pop(future)
                    for more in todo:
                        running[pool.submit(play_chunk, job, more[0], more[1])] = more
                        break
                    yield chunk, future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class RayBackend:
    """Ray tasks, one per chunk. ``address`` is passed to :func:`ray.init`.

    ``"local"`` starts a private Ray on this machine with ``workers`` CPUs; any other
    address (``"auto"``, ``"ray://head:10001"``, ``"10.0.0.5:6379"``) joins that cluster,
    which then decides how many tasks run at once, and ships this ``nomercy`` package to
    the cluster's workers (``runtime_env.py_modules``), so they need not install it.
    Joining presents this machine's Ray token when it has one (:func:`use_ray_token`).
    """

    address: str = "local"
    workers: int = field(default_factory=default_workers)
    name: str = "ray"

    def imap(self, job: Job[R], chunks: list[Chunk]) -> Generator[tuple[Chunk, list[R]], None, None]:
        ray = _import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            token: str | None = None
            if self.address == "local":  # a private Ray on the loopback interface only
                options.update(num_cpus=self.workers, _node_ip_address="127.0.0.1")
            else:
                import nomercy

                options["runtime_env"] = {"py_modules": [str(Path(nomercy.__file__).parent)]}
                token = use_ray_token()
            try:
                ray.init(address=self.address, **options)
            except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as exc:
                raise RuntimeError(cannot_reach_message(self.address, exc, token)) from None
        task = ray.remote(play_chunk).options(num_cpus=1, max_retries=2)
        capacity = max(self.workers, int(ray.cluster_resources().get("CPU", self.workers)))
        todo = iter(chunks)
        running: dict[Any, Chunk] = {}
        try:
            for chunk in todo:
                running[task.remote(job, *chunk)] = chunk
                if len(running) >= 2 * capacity:
                    break
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    chunk = running.pop(ref)
                    for more in todo:
                        running[task.remote(job, *more)] = more
                        break
                    yield chunk, ray.get(ref)
        finally:
            for ref in running:
                ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()


def _import_ray() -> Any:
    return require("ray", "ray", "the Ray backend")


#: Ray's own variables for token authentication (Ray 2.5x and later).
RAY_AUTH_MODE = "RAY_AUTH_MODE"
RAY_AUTH_TOKEN = "RAY_AUTH_TOKEN"  # noqa: S105 - a variable's name, not a token
RAY_AUTH_TOKEN_PATH = "RAY_AUTH_TOKEN_PATH"  # noqa: S105 - a variable's name


def ray_token_source() -> str | None:
    """Where Ray would read this driver's token from, in Ray's order; None if nowhere."""
    if os.environ.get(RAY_AUTH_TOKEN, "").strip():
        return RAY_AUTH_TOKEN
    path = os.environ.get(RAY_AUTH_TOKEN_PATH)
    if path:
        return path if Path(path).is_file() else None
    default = Path.home() / ".ray" / "auth_token"
    return "~/.ray/auth_token" if default.is_file() else None


def use_ray_token() -> str | None:
    """Turn on Ray's token authentication for this driver when a token is at hand.

    ``ray start --head`` turns token authentication on whenever the machine has a token
    (``~/.ray/auth_token``, which any local ``ray.init()`` creates, ``RAY_AUTH_TOKEN`` or
    ``RAY_AUTH_TOKEN_PATH``), but ``ray.init(address=...)`` with an explicit address does
    not, so a driver following docs/scale.md was refused until its user also set
    ``RAY_AUTH_MODE=token``. Here the driver does what ``ray start`` did: with
    ``RAY_AUTH_MODE`` unset and a token found, it presents the token (through Ray's own
    switch, which also refreshes Ray's cached configuration). An explicit
    ``RAY_AUTH_MODE`` (``token`` or ``disabled``) is always respected. Returns where the
    token comes from, or None when the driver presents none.
    """
    mode = os.environ.get(RAY_AUTH_MODE)
    if mode is not None:
        return ray_token_source() if mode.strip().lower() == "token" else None
    source = ray_token_source()
    if source is None:
        return None
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication
        return None
    return source if maybe_enable_token_auth_if_token_available(warn_if_disabled=False) else None


def cannot_reach_message(address: str, exc: BaseException, token: str | None) -> str:
    """The error for a Ray that would not start or let us in, with what to do about it."""
    text = str(exc).strip()
    message = (
        f"cannot start or reach Ray at {address!r}: {text.splitlines()[0] if text else type(exc).__name__}"
    )
    if address == "local":
        return message
    copy = (
        "print the cluster's token with 'ray get-auth-token' on the head node and save it here "
        "as ~/.ray/auth_token (or set RAY_AUTH_TOKEN)"
    )
    found = ray_token_source()
    mode = os.environ.get(RAY_AUTH_MODE, "").strip().lower()
    if token is not None:
        hint = (
            f"This driver presented the Ray token from {token}; if the cluster refused it "
            f"(InvalidAuthToken), the cluster has another token: {copy}."
        )
    elif mode == "disabled":
        hint = (
            "RAY_AUTH_MODE=disabled: this driver presented no token, and a cluster with token "
            f"authentication refuses it. Unset RAY_AUTH_MODE, and {copy}."
        )
    elif found is not None:
        hint = f"A Ray token is at {found} but was not presented: set RAY_AUTH_MODE=token."
    else:
        hint = (
            "No Ray token was found here (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token). "
            "If the cluster uses token authentication (recent Ray turns it on when the head has "
            f"a token), {copy}."
        )
    return f"{message}\n{hint} Check also the address: the head's GCS address, as 'ray start' printed it."


def make_backend(workers: int | None = None, ray: str | None = None) -> Backend:
    """The backend for ``--workers K`` / ``--ray [ADDRESS]`` (``ray="local"``: a local Ray)."""
    count = default_workers() if workers is None else workers
    if count < 1:
        raise ValueError(f"--workers must be at least 1, got {count}")
    if ray is not None:
        return RayBackend(address=ray, workers=count)
    if count == 1:
        return InProcess()
    return LocalProcesses(workers=count)


@dataclass
class RunResult(Generic[R]):
    """What a run produced: results (``rows``) in game order, and whether it was cut short."""

    rows: list[R]
    interrupted: bool
    requested: int
    played: int

    @property
    def complete(self) -> bool:
        return not self.interrupted and self.played == self.requested


def execute(
    job: Job[R],
    backend: Backend,
    *,
    on_rows: Callable[[list[R]], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
    chunk_size: int | None = None,
    keep: bool = True,
) -> RunResult[R]:
    """Play ``job`` on ``backend``; hand results to ``on_rows`` in game order as they line up.

    ``on_progress(n)`` is told each finished chunk's game count. ``keep=False`` does not
    hold the rows in memory (for runs streamed to a file through ``on_rows``). Ctrl-C stops
    the run; every finished chunk is still handed over (in game order, gaps possible).
    """
    chunks = chunk_ranges(job.games, backend.workers, chunk_size)
    waiting: dict[int, list[R]] = {}
    kept: list[R] = []
    next_start = 0
    interrupted = False
    played = 0

    def emit(rows: list[R]) -> None:
        nonlocal played
        played += len(rows)
        if on_rows is not None:
            on_rows(rows)
        if keep:
            kept.extend(rows)

    try:
        with closing(backend.imap(job, chunks)) as results:  # closing shuts the workers down
            for (start, stop), rows in results:
                waiting[start] = rows
                if on_progress is not None:
                    on_progress(stop - start)
                while next_start in waiting:
                    ready = waiting.pop(next_start)
                    next_start += len(ready)
                    emit(ready)
    except KeyboardInterrupt:
        interrupted = True
    for start in sorted(waiting):
        emit(waiting.pop(start))
    return RunResult(kept, interrupted, job.games, played)
