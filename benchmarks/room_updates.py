"""What a crowd of spectators costs the server: room updates, CPU, and /healthz meanwhile.

Starts ``nomercy serve`` as a subprocess on 127.0.0.1 (a fresh SQLite file), creates one
room with a seated player, then opens ``--spectators`` WebSockets to it (``--batch`` at a
time), waits until the player's room message counts them all, and closes them again.
Every join or leave changes the room's spectator count; sent naively, each change goes to
every connection (the square of the crowd). Prints the server's CPU seconds (from
/proc), the ``room`` messages the player and all spectators received, the slowest
/healthz answer during the storm, sockets refused, and the command that reproduces it.

Bounded: ``--spectators`` sockets, ``--timeout`` seconds, loopback only. The caps on
spectators and sockets per address are lifted for the run (all sockets come from one
address).

    .venv/bin/python benchmarks/room_updates.py --spectators 500
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def watcher(
    url: str, code: str, counts: list[int], opened: asyncio.Event, leave: asyncio.Event
) -> None:
    """One spectator: hello, count room messages until told to leave."""
    try:
        async with websockets.connect(url, max_size=2**22, open_timeout=60) as ws:
            await ws.send(json.dumps({"type": "hello", "room": code, "token": None}))
            first = json.loads(await ws.recv())
            if first["type"] != "welcome":
                counts[1] += 1
                return
            opened.set()
            received = 0

            async def drain() -> None:
                nonlocal received
                async for raw in ws:
                    if json.loads(raw)["type"] == "room":
                        received += 1

            task = asyncio.create_task(drain())
            await leave.wait()
            task.cancel()
            counts[0] += received
    except Exception:
        counts[1] += 1


async def storm(base: str, n: int, batch: int, timeout: float) -> dict[str, float]:
    ws_url = base.replace("http", "ws", 1) + "/ws"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        host = (await http.post("/api/rooms", json={"nickname": "P0", "seats": 2, "bots": 1})).json()
        async with websockets.connect(ws_url, max_size=2**22) as player:
            await player.send(json.dumps({"type": "hello", "room": host["code"], "token": host["token"]}))
            player_rooms = 0
            last_count = -1

            async def read_player() -> None:
                nonlocal player_rooms, last_count
                async for raw in player:
                    msg = json.loads(raw)
                    if msg["type"] == "room":
                        player_rooms += 1
                        last_count = msg["room"]["spectators"]
                    elif msg["type"] == "welcome":
                        last_count = msg["room"]["spectators"]

            reader = asyncio.create_task(read_player())
            slowest = 0.0
            stop_probe = asyncio.Event()

            async def probe() -> None:
                nonlocal slowest
                while not stop_probe.is_set():
                    t = time.monotonic()
                    await http.get("/healthz")
                    slowest = max(slowest, time.monotonic() - t)
                    await asyncio.sleep(0.1)

            prober = asyncio.create_task(probe())
            counts = [0, 0]  # room messages received by spectators, refused sockets
            leave = asyncio.Event()
            tasks = []
            deadline = time.monotonic() + timeout
            for start in range(0, n, batch):
                opened = [asyncio.Event() for _ in range(min(batch, n - start))]
                tasks += [
                    asyncio.create_task(watcher(ws_url, host["code"], counts, e, leave)) for e in opened
                ]
                await asyncio.sleep(0.01)
            while last_count < n - counts[1] and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            joined = last_count
            leave.set()
            await asyncio.gather(*tasks)
            while last_count > 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            stop_probe.set()
            await prober
            reader.cancel()
    return {
        "joined": joined,
        "refused": counts[1],
        "player_room_messages": player_rooms,
        "spectator_room_messages": counts[0],
        "slowest_healthz_s": slowest,
        "timed_out": float(time.monotonic() >= deadline),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spectators", type=int, default=500)
    parser.add_argument("--batch", type=int, default=50, help="sockets opened at once")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    if not 1 <= args.spectators <= 5000:
        parser.error("--spectators must be 1 to 5000")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "NOMERCY_DATABASE_URL": f"sqlite:///{folder}/rooms.sqlite3",
            "NOMERCY_MAX_SPECTATORS": str(args.spectators + 10),
            "NOMERCY_MAX_SOCKETS_PER_ADDRESS": str(args.spectators + 10),
        }
        cmd = [
            sys.executable, "-m", "uvicorn", "--factory", "nomercy.server.http.app:create_app",
            "--host", "127.0.0.1", "--port", str(port), "--log-level", "error", "--no-proxy-headers",
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
            cpu0, t0 = cpu_seconds(proc.pid), time.monotonic()
            result = asyncio.run(storm(f"http://127.0.0.1:{port}", args.spectators, args.batch, args.timeout))
            cpu, wall = cpu_seconds(proc.pid) - cpu0, time.monotonic() - t0
        finally:
            proc.terminate()
            proc.wait(10)
    n = args.spectators
    print(f"spectator storm: {n} spectators join one room, then leave ({wall:.1f} s wall)")
    print(f"  server CPU             {cpu:.2f} s")
    print(f"  joined / refused       {result['joined']:.0f} / {result['refused']:.0f}")
    print(f"  room messages, player  {result['player_room_messages']:.0f}  (one per change would be {2 * n})")
    print(
        f"  room messages, crowd   {result['spectator_room_messages']:.0f}  (one per change to all: ~{n * n})"
    )
    print(f"  slowest /healthz       {result['slowest_healthz_s'] * 1000:.0f} ms")
    if result["timed_out"]:
        print("  (timed out before the crowd settled)")
    print("reproduce: python " + shlex.join(["benchmarks/room_updates.py", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
