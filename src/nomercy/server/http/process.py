"""The uvicorn server of ``nomercy serve``: a graceful shutdown that hands the rooms over first.

On SIGTERM (or Ctrl-C) uvicorn stops listening and closes every connection, then runs the
application's shutdown. Here the application is told *first*: readiness turns false and
(several processes) every room is handed over, its lease released, so the clients that
reconnect through the proxy find another process already able to take their room.

Every step has its own deadline and the whole shutdown a last one, under the systemd unit's
``TimeoutStopSec=20`` (deploy/systemd): what was cut short is logged, and nothing of it is
lost. A room not handed over in time frees its lease as this process exits (its liveness
lock goes with the connection); a round not kept in time is kept by whoever opens its room
next. A stuck database call in a thread would otherwise hold the exit itself (the event
loop's executor waits for its threads), hence the last deadline.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any

import uvicorn

from nomercy.server.http.services import HANDOVER_SECONDS, services_if_started

log = logging.getLogger("nomercy.server")

#: uvicorn's wait for the open connections to close (``timeout_graceful_shutdown``).
CONNECTIONS_SECONDS = 4
#: From the signal to the exit, whatever is still waiting: under ``TimeoutStopSec=20``.
STOP_SECONDS = 15.0


def _exit_at(seconds: float) -> threading.Timer:
    """Exit the process ``seconds`` from now if it has not exited by then (a daemon timer)."""

    def cut_short() -> None:
        log.error(
            "shutdown: still not done after %.0f s (a database call may be stuck): exiting now; "
            "rooms not handed over free up their leases as this process exits",
            seconds,
        )
        logging.shutdown()
        os._exit(1)

    timer = threading.Timer(seconds, cut_short)
    timer.daemon = True
    timer.start()
    return timer


class Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.nomercy_app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        _exit_at(STOP_SECONDS)
        for server in self.servers:  # stop listening first: reconnections go to another process
            server.close()
        made = services_if_started(self.nomercy_app)
        if made is not None:
            await made.drain.begin(HANDOVER_SECONDS)
        await super().shutdown(sockets)
