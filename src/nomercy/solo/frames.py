"""A kept round as the replay view shows it, built in the page: the answer of the
server's ``POST /api/records/replay`` (``docs/protocol.md``, "Replaying a file"), its
frames made by the server's own :func:`nomercy.server.games.frames.replay_frames`.
"""

from __future__ import annotations

from typing import Any

from nomercy.record import GameRecord
from nomercy.server.games.frames import RecordRefused, replay_frames, result_of

__all__ = ["RecordRefused", "replay_body"]


def replay_body(record: GameRecord) -> dict[str, Any]:
    """The replay of a record file, as ``POST /api/records/replay`` answers it."""
    replayed = replay_frames(record)
    return {
        "id": None,
        "room": None,
        "round": None,
        "finished_at": None,
        "access": None,
        "preset": None,
        "mode": "round",
        "rules": record.rules.to_dict(),
        "players": [{"seat": s, "name": f"P{s}", "bot": None} for s in range(record.players)],
        "result": result_of(replayed.state),
        "hints": [{"seat": seat, "step": step} for seat, step in record.hints],
        "record": record.to_dict(),
        "frames": replayed.frames,
    }
