"""Liveness and readiness, for a load balancer or an orchestrator.

- ``GET /livez``: the process and its event loop answer (200 always; a hung loop answers
  nothing, which is the signal).
- ``GET /readyz``: 200 when the process can take rooms: the database answers within
  :data:`DB_TIMEOUT` seconds, the process is not shutting down and (several processes)
  it renewed its leases recently; 503 with the reason otherwise.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import text

from nomercy.server.rooms.storage import Storage

#: Seconds the database may take to answer ``SELECT 1`` before the process is not ready.
DB_TIMEOUT = 2.0


def _ping(storage: Storage) -> None:
    with storage.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


async def readiness(storage: Storage, draining: bool, cluster: Any) -> tuple[bool, str]:
    """``(ready, reason)``."""
    if draining:
        return False, "shutting down"
    try:
        await asyncio.wait_for(asyncio.to_thread(_ping, storage), DB_TIMEOUT)
    except Exception as exc:
        return False, f"database unreachable: {type(exc).__name__}"
    if cluster is not None and not cluster.ready():
        return False, "room leases not renewed"
    return True, "ok"
