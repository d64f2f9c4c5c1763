"""The uvicorn server of ``nomercy serve``: a graceful shutdown that hands the rooms over first.

On SIGTERM (or Ctrl-C) uvicorn stops listening and closes every connection, then runs the
application's shutdown. Here the application is told *first*: readiness turns false and
(several processes) every room is handed over, its lease released, so the clients that
reconnect through the proxy find another process already able to take their room.
"""

from __future__ import annotations

import socket
from typing import Any

import uvicorn


class Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.nomercy_app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:  # stop listening first: reconnections go to another process
            server.close()
        begin = getattr(self.nomercy_app.state, "begin_shutdown", None)
        if begin is not None:
            await begin()
        await super().shutdown(sockets)
