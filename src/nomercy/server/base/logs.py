"""The server's logs: text or JSON lines, each line with its room and seat, never a token.

``--log-format json`` (``NOMERCY_LOG_FORMAT=json``) writes one JSON object per line to
stderr: ``ts``, ``level``, ``logger``, ``message``, ``room``, ``seat`` (when the line
comes from a room's connection, request or driver) and ``exc`` (a traceback). uvicorn's
own lines (``uvicorn.error``, ``uvicorn.access``) go through the same formatter.

The room and the seat come from context variables set where a connection joins a room,
where a request finds one and in each room's driver task; a line about a room written
elsewhere (the leases' renewal task, the sweeper) names it with ``extra={"room": code}``.
Seat tokens never enter a log line: nothing logs them, and :func:`redact` scrubs anything
shaped like one (a ``token`` field, a ``Bearer`` header) from every message and traceback,
in case a future line would.

A failure that repeats every second while a dependency is down (the lease renewal while
the database is away) is logged by a :class:`RepeatedFailure`: the first in full, then a
summary every ``every`` seconds, and one line when it recovers.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

#: The join code of the room this task works for.
room_var: ContextVar[str | None] = ContextVar("nomercy_room", default=None)
#: The seat of this task's connection (None: a spectator, or no seat).
seat_var: ContextVar[int | None] = ContextVar("nomercy_seat", default=None)

_SECRETS = [
    (re.compile(r"""(["']?token["']?\s*[:=]\s*["']?)[A-Za-z0-9_\-]{8,}"""), r"\1[redacted]"),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-.~+/]{8,}=*"), r"\1[redacted]"),
]


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        room, seat = _room_of(record)
        if room is not None:
            line["room"] = room
            line["seat"] = seat
        if record.exc_info:
            line["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(levelname)s:     %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        room, seat = _room_of(record)
        if room is not None:
            text += f" [room {room} seat {seat}]"
        return redact(text)


def _room_of(record: logging.LogRecord) -> tuple[str | None, int | None]:
    """The room (and seat) a line is about: named by the line (``extra``), else the task's."""
    named = getattr(record, "room", None)
    if named is not None:
        return str(named), getattr(record, "seat", None)
    return room_var.get(), seat_var.get()


class RepeatedFailure:
    """A failure that may repeat on every try: logged in full the first time, then as a
    summary at most every ``every`` seconds, and once more when the next try succeeds
    (a database away for a minute is four lines, not sixty tracebacks)."""

    def __init__(
        self,
        logger: logging.Logger,
        what: str,
        every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.what = what
        self.every = every
        self.clock = clock
        self.since: float | None = None
        self.count = 0
        self._said_at = 0.0
        self._said_count = 0

    def failed(self, exc: BaseException) -> None:
        now = self.clock()
        self.count += 1
        if self.since is None:
            self.since = self._said_at = now
            self._said_count = 1
            self.logger.warning("%s failed: %s", self.what, exc)
            return
        if now - self._said_at >= self.every:
            self.logger.warning(
                "%s still failing: %d failures in %.0f s (%d since the last line); the last: %s",
                self.what,
                self.count,
                now - self.since,
                self.count - self._said_count,
                short(exc),
            )
            self._said_at, self._said_count = now, self.count

    def ok(self) -> None:
        if self.since is None:
            return
        self.logger.info(
            "%s recovered after %d failure(s) in %.1f s", self.what, self.count, self.clock() - self.since
        )
        self.since, self.count = None, 0


def short(exc: BaseException, limit: int = 200) -> str:
    """An exception in one line: its type and the first line of its message, cut at ``limit``."""
    first = (str(exc).strip().splitlines() or [""])[0]
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def announce(text: str, log_format: str, level: int = logging.INFO, err: bool = False) -> None:
    """A line for the operator at startup: a log line of ``nomercy.server`` in JSON mode
    (so that every line the process writes is one JSON object), else plain text on stdout
    (``err``: stderr; a warning says so). Call it after :func:`setup`."""
    if log_format == "json":
        logging.getLogger("nomercy.server").log(level, text)
    else:
        prefix = "warning: " if level >= logging.WARNING else ""
        print(prefix + text, file=sys.stderr if err else sys.stdout, flush=True)


def setup(log_format: str, level: str = "info") -> None:
    """Send the ``nomercy`` logger (and, for JSON, uvicorn's) to stderr in ``log_format``."""
    formatter: logging.Formatter = JsonFormatter() if log_format == "json" else TextFormatter()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    names = ["nomercy"] + (["uvicorn", "uvicorn.error", "uvicorn.access"] if log_format == "json" else [])
    for name in names:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
    logging.getLogger("nomercy").setLevel(level.upper())
