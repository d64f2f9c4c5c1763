"""Group commit of the action log: every room's entries that arrive during a commit share the next."""

from __future__ import annotations

import asyncio

from nomercy.server.base.metrics import Metrics
from nomercy.server.rooms.ports import LogStorage
from nomercy.server.rooms.storage import Entry


class LogWriter:
    """Group commit: log entries of all rooms that arrive while a commit runs share the next.

    Each caller awaits its own entry's commit. The commit runs in a worker thread, so the
    event loop (every other room, every connection) never waits for the disk. One failing
    entry (a duplicate key) is retried alone so that it fails only its own caller.
    """

    def __init__(self, storage: LogStorage, metrics: Metrics) -> None:
        self.storage = storage
        self.metrics = metrics
        self._pending: list[tuple[Entry, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None

    async def append(self, entry: Entry) -> None:
        """Commit ``(room_id, seq, seat, action, status, epoch)``; raises what the commit raised."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((entry, future))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            entries = [entry for entry, _ in batch]
            try:
                with self.metrics.storage_write("log"):
                    await asyncio.to_thread(self.storage.append_many, entries)
            except Exception:
                for entry, future in batch:
                    try:
                        with self.metrics.storage_write("log"):
                            await asyncio.to_thread(self.storage.append_many, [entry])
                    except Exception as exc:
                        if not future.done():
                            future.set_exception(exc)
                    else:
                        if not future.done():
                            future.set_result(None)
                continue
            for _, future in batch:
                if not future.done():
                    future.set_result(None)
