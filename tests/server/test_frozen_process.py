"""A frozen process lets its players go: they play on with the other process, in bounded time.

A process stopped with SIGSTOP (or a stalled machine) still completes TCP handshakes, so
nginx cannot tell it from a live one by connecting. The deployed site
(deploy/nginx/nomercy.conf) takes silence for freezing instead: the server pings every
WebSocket every 2 s, nginx closes a socket silent for 6 s, and sends a new socket whose
upgrade is unanswered for 6 s to the next process, which takes the room once its lease
expires. Both processes and nginx are real; the clients only ever talk to nginx.
"""

from __future__ import annotations

import random
import signal
import time

import needs
from patience import scaled

from .cluster import Nginx, Serve
from .test_cluster import a_table, check_against_the_log, cluster, owner_pid, play

pytestmark = [needs.POSTGRES, needs.NGINX]

__all__ = ["cluster"]  # the fixture, shared with test_cluster (two processes behind nginx)

#: From the freeze to the room playing on elsewhere: nginx's 6 s of silence on the open
#: socket, 6 s more for the new socket's unanswered upgrade, the lease (3 s here) meanwhile,
#: and the client's reconnection (18 s measured at load average 8); the margin is for a
#: busy machine. Before the proxy told silence from life, it was an hour.
BOUND = 40.0


def test_the_players_of_a_frozen_process_play_on_with_the_other_one(
    cluster: tuple[Nginx, list[Serve]],
) -> None:
    proxy, servers = cluster
    code, players = a_table(proxy, seed=21)
    rng = random.Random(8)
    assert not play(players, 3, rng)
    victim = next(s for s in servers if s.proc.pid == owner_pid(code))
    other = next(s for s in servers if s is not victim)
    before = players[0].ensure().latest_state()["version"]
    first_sockets = [p.ws for p in players]

    victim.proc.send_signal(signal.SIGSTOP)
    t0 = time.monotonic()
    play(players, 1, rng, timeout=scaled(120))  # the first action acknowledged after the freeze
    took = time.monotonic() - t0

    assert all(ws is not None and ws.closed for ws in first_sockets), "the proxy let the frozen sockets go"
    assert players[0].ensure().latest_state()["version"] > before
    assert owner_pid(code) == other.proc.pid, "the other process runs the room"
    assert took < scaled(BOUND), f"the players waited {took:.1f} s for the frozen process"
    play(players, 5, rng)
    check_against_the_log(code, players)
