"""The functions the page's Web Worker calls through Pyodide: JSON text in, JSON text out.

One table per worker (a module global): :func:`start` deals a new one, :func:`load`
resumes a saved one; :func:`receive` takes a client message of ``docs/protocol.md``;
:func:`due` says when to call :func:`advance` (the bots and the next round); every
function that answers messages returns a JSON list of the server's messages for the
person's seat. :func:`kept` hands over the finished rounds' records, :func:`replay`
builds a record's replay as ``POST /api/records/replay`` answers it.
"""

from __future__ import annotations

import json
from typing import Any

from nomercy.errors import NoMercyError
from nomercy.record import GameRecord
from nomercy.solo.frames import RecordRefused, replay_body
from nomercy.solo.table import SoloError, SoloTable

__all__ = ["advance", "due", "kept", "load", "receive", "replay", "save", "start"]

_table: list[SoloTable] = []


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def _error(exc: SoloError) -> str:
    return _dumps(
        [{"type": "error", "code": exc.code, "message": exc.message, "ref": exc.ref, "version": None}]
    )


def _current() -> SoloTable:
    if not _table:
        raise SoloError("not_started", "no table: start one first")
    return _table[0]


def start(config_json: str) -> str:
    """A new table from its config (``name``, ``lang``, ``bots``, ``preset``, ``rules``,
    ``mode``, ``seed``); the welcome, the state snapshot and the chat history."""
    try:
        table = SoloTable(json.loads(config_json))
    except SoloError as exc:
        return _error(exc)
    except ValueError as exc:
        return _error(SoloError("bad_json", f"the config is not JSON: {exc}"))
    _table[:] = [table]
    return _dumps(table.hello())


def receive(msg_json: str) -> str:
    """A client message (``action``, ``hint``, ``rematch``, ``chat``, ``react``, ``ping``, ``hello``)."""
    try:
        message = json.loads(msg_json)
    except ValueError:
        return _error(SoloError("bad_json", "not JSON"))
    try:
        return _dumps(_current().receive(message))
    except SoloError as exc:
        return _error(exc)


def due() -> float:
    """Seconds until :func:`advance` has something to do (0: now); -1 while the person decides."""
    return _table[0].due() if _table else -1.0


def advance() -> str:
    """What is due now: a bot's move or reaction, or the next round of a match."""
    return _dumps(_table[0].advance() if _table else [])


def save() -> str:
    """The whole table as JSON, for :func:`load` after the tab was closed ("" without one)."""
    return _table[0].save() if _table else ""


def load(saved: str) -> str:
    """Resume a saved table; answered as a reconnect's ``hello`` is."""
    try:
        table = SoloTable.load(saved)
    except SoloError as exc:
        return _error(exc)
    _table[:] = [table]
    return _dumps(table.hello())


def kept() -> str:
    """The finished rounds not taken yet, each a record as ``GET /api/games/{id}/record`` sends it."""
    return _dumps(_table[0].kept() if _table else [])


def replay(record_json: str) -> str:
    """A record's replay (frames and result); a refusal as ``{"detail": {code, message, step, ...}}``."""
    try:
        record = GameRecord.from_json(record_json)
        return _dumps(replay_body(record))
    except NoMercyError as exc:
        detail: dict[str, Any] = {
            "code": "bad_record",
            "message": str(exc),
            "step": "load",
            "detail": str(exc),
        }
    except RecordRefused as exc:
        detail = {"code": "bad_record", "message": str(exc), "step": exc.step, "detail": exc.detail}
        if exc.at is not None:
            detail["index"], detail["seat"] = exc.at
    return _dumps({"detail": detail})
