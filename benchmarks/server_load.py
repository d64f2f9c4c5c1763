"""Load benchmark of ``nomercy serve``: many tables of WebSocket players on loopback.

Starts the server as a subprocess on 127.0.0.1 (a fresh SQLite file unless
``--database-url`` is given), then runs ``--rooms`` tables of ``--players`` seats. Every
seat is a real WebSocket client that plays a random legal action as soon as it is its
turn (and calls its own Uno), so the server sees the full path: parse, check, commit to
storage, broadcast each seat's own view. A table whose match ends starts a new room.

Bounded: it stops after ``--seconds`` and never leaves loopback. Prints actions per
second (applied, as acknowledged by the next state message), latency from sending an
action to receiving the state that includes it (p50, p99), refusals by code, and the
command that reproduces the run.

    .venv/bin/python benchmarks/server_load.py --rooms 50 --players 4 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx
import websockets


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    rooms: int = 0
    rounds: int = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, database_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "NOMERCY_DATABASE_URL": database_url,
        "NOMERCY_MESSAGE_RATE": "1000",
        "NOMERCY_MESSAGE_BURST": "1000",
        "NOMERCY_ROOMS_PER_MINUTE": "100000",
        "NOMERCY_BETWEEN_ROUNDS": "0",
        "NOMERCY_REACTION_DELAY": "0.2",
        "NOMERCY_MAX_ROOMS": "100000",
        "NOMERCY_MAX_ROOMS_PER_ADDRESS": "100000",  # every table comes from loopback
        "NOMERCY_MAX_SOCKETS_PER_ADDRESS": "100000",
    }
    cmd = [
        sys.executable, "-m", "uvicorn", "--factory", "nomercy.server.app:create_app", "--host", "127.0.0.1",
        "--port", str(port), "--log-level", "warning", "--timeout-graceful-shutdown", "1",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


async def seat_client(
    url: str, code: str, token: str, seat: int, stats: Stats, stop: float, rng: random.Random
) -> None:
    """One player: act on every turn, time each action until the state that includes it."""
    async with websockets.connect(url, max_size=2**20) as ws:
        await ws.send(json.dumps({"type": "hello", "room": code, "token": token}))
        sent: dict[int, float] = {}
        while time.monotonic() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.01, stop - time.monotonic()))
            except TimeoutError:
                return
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "error":
                stats.refusals[msg["code"]] += 1
                continue
            if kind == "room" and msg["room"]["status"] == "finished":
                return
            if kind != "state" or msg["view"] is None:
                continue
            version = msg["version"]
            now = time.monotonic()
            for v in [v for v in sent if v < version]:
                stats.latencies.append(now - sent.pop(v))
            view = msg["view"]
            if view["outcome"] is not None:
                if seat == 0:
                    stats.rounds += 1
                continue
            legal = view["legal_actions"]
            if "uno" in legal:
                action = "uno"
            elif view["current_player"] == seat:
                action = rng.choice([a for a in legal if not a.startswith("catch")])
            else:
                continue
            sent[version] = time.monotonic()
            await ws.send(json.dumps({"type": "action", "action": action, "version": version}))


async def table(base: str, players: int, stats: Stats, stop: float, rng: random.Random) -> None:
    """Rooms one after another until the time is up."""
    ws_url = base.replace("http", "ws", 1) + "/ws"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < stop:
            try:
                r = await http.post(
                    "/api/rooms", json={"nickname": "P0", "seats": players, "bots": 0, "mode": "match"}
                )
                r.raise_for_status()
                host = r.json()
                tokens = [host["token"]]
                for i in range(1, players):
                    j = await http.post(f"/api/rooms/{host['code']}/join", json={"nickname": f"P{i}"})
                    j.raise_for_status()
                    tokens.append(j.json()["token"])
                stats.rooms += 1
                clients = [
                    asyncio.create_task(seat_client(ws_url, host["code"], t, i, stats, stop, rng))
                    for i, t in enumerate(tokens)
                ]
                await asyncio.sleep(0.2)  # let everyone say hello before the deal
                s = await http.post(
                    f"/api/rooms/{host['code']}/start", headers={"Authorization": f"Bearer {tokens[0]}"}
                )
                s.raise_for_status()
                await asyncio.gather(*clients)
            except Exception as exc:  # counted, never fatal: a benchmark reports errors
                stats.failures[type(exc).__name__] += 1
                await asyncio.sleep(0.5)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=50, help="tables played at the same time")
    parser.add_argument("--players", type=int, default=4, help="seats per table, all WebSocket clients")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to measure")
    parser.add_argument("--database-url", default=None, help="default: a new SQLite file in a temp folder")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.rooms <= 500 or not 2 <= args.players <= 6 or not 1 <= args.seconds <= 600:
        parser.error("bounded on purpose: 1-500 rooms, 2-6 players, 1-600 seconds")

    folder = tempfile.mkdtemp(prefix="nomercy-load-")
    database_url = args.database_url or f"sqlite:///{folder}/rooms.sqlite3"
    port = free_port()
    proc = start_server(port, database_url)
    stats = Stats()
    rng = random.Random(args.seed)
    try:
        start = time.monotonic()
        stop = start + args.seconds

        async def run() -> None:
            await asyncio.gather(
                *(
                    table(f"http://127.0.0.1:{port}", args.players, stats, stop, rng)
                    for _ in range(args.rooms)
                )
            )

        asyncio.run(run())
        elapsed = time.monotonic() - start
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()

    n = len(stats.latencies)
    print(f"server load: {args.rooms} rooms x {args.players} WebSocket players, {elapsed:.1f} s, "
          f"storage {database_url.split(':', 1)[0]}")  # fmt: skip
    print(f"  actions applied      {n}  ({n / elapsed:.0f} actions/s)")
    print(
        f"  latency p50          {statistics.median(stats.latencies) * 1000:.1f} ms"
        if n
        else "  latency: none"
    )
    print(f"  latency p99          {percentile(stats.latencies, 0.99) * 1000:.1f} ms" if n else "")
    print(f"  rooms / rounds       {stats.rooms} / {stats.rounds}")
    print(
        f"  refusals             {dict(stats.refusals) or 'none'}  (stale/too_late: races with other seats)"
    )
    print(f"  client errors        {dict(stats.failures) or 'none'}")
    print(f"  cores                {os.cpu_count()} (server and clients share them)")
    cmd = ["python", "benchmarks/server_load.py", "--rooms", str(args.rooms), "--players", str(args.players),
           "--seconds", str(args.seconds)]  # fmt: skip
    if args.database_url:
        cmd += ["--database-url", "DATABASE_URL"]
    print("reproduce: " + shlex.join(cmd))


if __name__ == "__main__":
    main()
