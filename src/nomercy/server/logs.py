"""The server's logs: text or JSON lines, each line with its room and seat, never a token.

``--log-format json`` (``NOMERCY_LOG_FORMAT=json``) writes one JSON object per line to
stderr: ``ts``, ``level``, ``logger``, ``message``, ``room``, ``seat`` (when the line
comes from a room's connection, request or driver) and ``exc`` (a traceback). uvicorn's
own lines (``uvicorn.error``, ``uvicorn.access``) go through the same formatter.

The room and the seat come from context variables set where a connection joins a room,
where a request finds one and in each room's driver task. Seat tokens never enter a log
line: nothing logs them, and :func:`redact` scrubs anything shaped like one (a ``token``
field, a ``Bearer`` header) from every message and traceback, in case a future line
would.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
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
        room, seat = room_var.get(), seat_var.get()
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
        room = room_var.get()
        if room is not None:
            text += f" [room {room} seat {seat_var.get()}]"
        return redact(text)


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
