"""Failover benchmark: how long until a room continues after a process or the database goes.

Two ``nomercy serve`` processes on one PostgreSQL behind Debian's nginx running
``deploy/nginx/nomercy.conf`` (plain HTTP, the upstream of several processes: each room
routed by its join code). ``--tables`` two-player tables are played by WebSocket clients
through nginx (the player to move plays a random legal action ``--think`` seconds after
seeing the table; a client reconnects by itself, and waits while the room is paused, as
the browser does). Then, one after another:

1. **kill**: the process running most rooms is SIGKILLed (then started again);
2. **restart, then kill**: one process is stopped (SIGTERM: its rooms move to the other)
   and started again, and a few seconds later the other is SIGKILLed (each a line);
3. **database restart**: PostgreSQL goes away and comes back: each process reaches it
   through a loopback forwarder, cut (every session ends) and refusing for ``--outage``
   seconds; with ``--pgdata``, a real ``pg_ctl restart -m fast`` instead (away as long as
   the restart takes).

Printed for each: the time from the event (for the database, from its return) until each
affected room's next acknowledged action, median and worst over the rooms, the
``room_moving`` errors the clients received, and how many rooms changed hands; then how
often nginx found no live upstream (its error log) over the whole run.
``--upstream "max_fails=1 fail_timeout=2s"`` runs nginx with the upstream options the
deployment guide used to give, for comparison. Bounded: at most 20 tables, and every wait
has a deadline; it never leaves loopback.

    .venv/bin/python benchmarks/failover.py --database-url postgresql+psycopg://... --tables 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.nginxconf import site_config  # noqa: E402 (the very site the tests run)
from tests.server.tcpproxy import Forwarder  # noqa: E402

#: Long matches: no knock-outs (M1), so a two-player match lasts several rounds.
RULES = {"draw_when_playable": True, "draw_rule": "one", "stacking": False, "mercy_limit": None}

NGINX_CONF = """
{user}
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/site.conf;
}}
"""


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args!r} exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


class Process:
    """One ``nomercy serve``; started again on the same port after a stop."""

    def __init__(self, database_url: str, lease: float, folder: str) -> None:
        self.database_url, self.lease, self.folder = database_url, lease, folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "NOMERCY_LEASE_SECONDS": str(self.lease),
            "NOMERCY_BETWEEN_ROUNDS": "0.5",
            "NOMERCY_MESSAGE_RATE": "1000",
            "NOMERCY_MESSAGE_BURST": "1000",
            "NOMERCY_ROOMS_PER_MINUTE": "100000",
            "NOMERCY_MAX_ROOMS_PER_ADDRESS": "100000",
            "NOMERCY_MAX_SOCKETS_PER_ADDRESS": "100000",
        }
        cmd = [
            sys.executable, "-m", "nomercy.cli", "serve", "--port", str(self.port),
            "--database-url", self.database_url, "--log-level", "info",
            "--forwarded-allow-ips", "127.0.0.1",
        ]  # fmt: skip
        log = open(os.path.join(self.folder, f"serve-{self.port}.log"), "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        wait_ready(f"http://127.0.0.1:{self.port}/readyz", self.proc)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def terminate(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@dataclass
class Table:
    code: str
    tokens: list[str]
    #: (monotonic time, version): every time the table reached a newer version.
    progress: list[tuple[float, int]] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    def saw(self, version: int) -> None:
        if not self.progress or version > self.progress[-1][1]:
            self.progress.append((time.monotonic(), version))

    def continued_after(self, t0: float) -> float | None:
        """Seconds from ``t0`` until the table's next new version (None: not yet)."""
        before = max((v for t, v in self.progress if t <= t0), default=-1)
        return next((t - t0 for t, v in self.progress if t > t0 and v > before), None)


async def seat(
    front: str, table: Table, seat_no: int, think: float, stop: asyncio.Event, rng: random.Random
) -> None:
    """A player through nginx: reconnects by itself, waits while paused, plays on its turn."""
    url = f"ws://{front}/ws?room={table.code}"
    while not stop.is_set():
        try:
            async with websockets.connect(url, open_timeout=3, max_size=2**20) as ws:
                await ws.send(
                    json.dumps({"type": "hello", "room": table.code, "token": table.tokens[seat_no]})
                )
                last: dict[str, Any] | None = None
                paused = False
                sent = -1
                while not stop.is_set():
                    try:
                        raw = await asyncio.wait_for(ws.recv(), timeout=max(think, 0.05) * 4 + 0.5)
                    except TimeoutError:
                        raw = None  # nothing new: look at the table again (a refusal may be pending)
                        sent = -1
                    if raw is not None:
                        msg = json.loads(raw)
                        kind = msg["type"]
                        if kind == "error":
                            table.errors[msg["code"]] += 1
                            sent = -1
                            continue
                        if kind == "paused":
                            paused = True
                        elif kind == "resumed":
                            paused, sent = False, -1
                        elif kind == "state" and msg["view"] is not None:
                            last = msg
                            table.saw(msg["version"])
                    if last is None or paused or last["view"]["outcome"] is not None:
                        continue
                    view = last["view"]
                    if view["current_player"] != seat_no or sent == last["version"]:
                        continue
                    legal = [a for a in view["legal_actions"] if a != "uno" and not a.startswith("catch")]
                    legal = legal or view["legal_actions"]
                    if not legal:
                        continue
                    await asyncio.sleep(think)
                    sent = last["version"]
                    await ws.send(
                        json.dumps({"type": "action", "action": rng.choice(legal), "version": sent})
                    )
        except (OSError, websockets.WebSocketException, TimeoutError):
            pass
        except Exception as exc:  # counted and printed: a client that stopped would skew the figures
            table.errors[f"client {type(exc).__name__}"] += 1
        await asyncio.sleep(0.1)


def owners(database_url: str, codes: list[str]) -> dict[str, tuple[int, int]]:
    """Join code -> (pid of the lease's owner, epoch)."""
    from sqlalchemy import create_engine, select

    from nomercy.server.base.tables import rooms
    from nomercy.server.rooms.leases import leases

    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(rooms.c.code, leases.c.owner, leases.c.epoch)
                .select_from(rooms.join(leases, leases.c.room_id == rooms.c.id))
                .where(rooms.c.code.in_(codes))
            ).all()
    finally:
        engine.dispose()
    return {r.code: (int(r.owner.split(":")[1]) if r.owner else 0, int(r.epoch)) for r in rows}


def summary(
    name: str,
    tables: list[Table],
    t0: float,
    before: dict[str, tuple[int, int]],
    after: dict[str, tuple[int, int]],
    errors0: dict[str, int],
) -> str:
    waits = [t.continued_after(t0) for t in tables]
    done = [w for w in waits if w is not None]
    moving = sum(t.errors["room_moving"] for t in tables) - sum(errors0.values())
    moved = sum(1 for t in tables if before.get(t.code, (0, 0))[1] != after.get(t.code, (0, 0))[1])
    crashes = sum(n for t in tables for k, n in t.errors.items() if k.startswith("client "))
    if crashes:
        name += f" ({crashes} client failures)"
    if not waits:
        return f"  {name:<26} no room ran there"
    if not done:
        return f"  {name:<26} no room continued"
    return (
        f"  {name:<26} {len(done)}/{len(waits)} rooms continued: median {statistics.median(done):.2f} s, "
        f"worst {max(done):.2f} s; room_moving errors {moving}; rooms that changed hands {moved}"
    )


async def wait_all_continue(tables: list[Table], t0: float, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and any(t.continued_after(t0) is None for t in tables):
        await asyncio.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database-url", required=True, help="postgresql+psycopg://... (its tables are used)"
    )
    parser.add_argument("--tables", type=int, default=6, help="two-player tables played through nginx")
    parser.add_argument("--think", type=float, default=0.05, help="seconds a player waits before acting")
    parser.add_argument("--lease-seconds", type=float, default=10.0, help="the processes' --lease-seconds")
    parser.add_argument("--outage", type=float, default=5.0, help="seconds the database is away")
    parser.add_argument("--pgdata", default=None, help="restart the real PostgreSQL of this data folder")
    parser.add_argument("--upstream", default="max_fails=0", help="options of each nginx upstream server")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not args.database_url.startswith("postgresql"):
        parser.error("several processes share a PostgreSQL: give --database-url postgresql+psycopg://...")
    if not 1 <= args.tables <= 20 or not 0 <= args.think <= 2 or not 1 <= args.outage <= 60:
        parser.error("bounded on purpose: 1-20 tables, 0-2 s think, 1-60 s outage")
    if not 1 <= args.lease_seconds <= 60:
        parser.error("bounded on purpose: 1-60 lease seconds")
    folder = tempfile.mkdtemp(prefix="nomercy-failover-")
    port = int(re.search(r":(\d+)/", args.database_url).group(1))  # type: ignore[union-attr]
    forwarders = [] if args.pgdata else [Forwarder(port) for _ in range(2)]
    urls = (
        [args.database_url] * 2
        if args.pgdata
        else [args.database_url.replace(f":{port}/", f":{f.port}/") for f in forwarders]
    )
    processes = [Process(url, args.lease_seconds, folder) for url in urls]
    nginx: subprocess.Popen[bytes] | None = None
    lines: list[str] = []
    try:
        for p in processes:
            p.start()
        front_port = free_port()
        site = site_config([p.port for p in processes], front_port, free_port())
        for p in processes:
            line = rf"(server 127\.0\.0\.1:{p.port}) max_fails=0;"
            site, count = re.subn(line, rf"\1 {args.upstream};", site)
            assert count == 1, "the site's upstream servers were not found"
        Path(folder, "site.conf").write_text(site)
        conf = NGINX_CONF.format(user="user root;" if os.geteuid() == 0 else "", dir=folder)
        Path(folder, "nginx.conf").write_text(conf)
        nginx_bin = shutil.which("nginx") or "/usr/sbin/nginx"
        nginx = subprocess.Popen(
            [nginx_bin, "-p", folder, "-c", f"{folder}/nginx.conf", "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        front = f"127.0.0.1:{front_port}"
        wait_ready(f"http://{front}/healthz", nginx)
        lines = asyncio.run(scenarios(args, front, processes, forwarders, port))
    finally:
        if nginx is not None:
            nginx.send_signal(signal.SIGQUIT)
            nginx.wait(10)
        for p in processes:
            p.terminate()
        for f in forwarders:
            f.stop()
    database = "pg_ctl restart" if args.pgdata else f"away {args.outage:g} s (sessions cut)"
    print(
        f"failover: {args.tables} two-player tables through nginx ({args.upstream}), 2 processes on "
        f"PostgreSQL, lease {args.lease_seconds:g} s, database {database}; time until a room's next action"
    )
    for line in lines:
        print(line)
    refused = Path(folder, "error.log").read_text().count("no live upstreams")
    print(f'  {"nginx":<26} answered "no live upstreams" (502) {refused} times')
    print(f"  {'cores':<26} {os.cpu_count()} (servers, nginx, PostgreSQL and clients share them)")
    cmd = ["python", "benchmarks/failover.py", "--database-url", "DATABASE_URL", "--tables", str(args.tables),
           "--think", str(args.think), "--lease-seconds", str(args.lease_seconds),
           "--outage", str(args.outage)]  # fmt: skip
    if args.pgdata:
        cmd += ["--pgdata", "PGDATA"]
    if args.upstream != "max_fails=0":
        cmd += ["--upstream", args.upstream]
    print("reproduce: " + shlex.join(cmd))


async def scenarios(
    args: argparse.Namespace, front: str, processes: list[Process], forwarders: list[Forwarder], port: int
) -> list[str]:
    rng = random.Random(args.seed)
    http = httpx.AsyncClient(base_url=f"http://{front}", timeout=10)
    tables: list[Table] = []
    for _ in range(args.tables):
        host = (
            await http.post(
                "/api/rooms", json={"nickname": "Ann", "seats": 2, "mode": "match", "rules": RULES}
            )
        ).json()
        guest = (await http.post(f"/api/rooms/{host['code']}/join", json={"nickname": "Bob"})).json()
        tables.append(Table(host["code"], [host["token"], guest["token"]]))
    stop = asyncio.Event()
    clients = [
        asyncio.create_task(seat(front, t, s, args.think, stop, random.Random(rng.random())))
        for t in tables
        for s in range(2)
    ]
    await asyncio.sleep(1.0)
    for t in tables:
        r = await http.post(f"/api/rooms/{t.code}/start", headers={"Authorization": f"Bearer {t.tokens[0]}"})
        assert r.status_code == 200, r.text
    await asyncio.sleep(3.0)
    codes = [t.code for t in tables]
    out = []

    def errors_now() -> dict[str, int]:
        return {t.code: t.errors["room_moving"] for t in tables}

    # 1. kill the process running most rooms
    before = await asyncio.to_thread(owners, args.database_url, codes)
    pids = Counter(pid for pid, _ in before.values())
    victim = next(p for p in processes if p.pid == pids.most_common(1)[0][0])
    hit = [t for t in tables if before[t.code][0] == victim.pid]
    e0 = {c: n for c, n in errors_now().items() if c in {t.code for t in hit}}
    t0 = time.monotonic()
    victim.kill()
    await wait_all_continue(hit, t0, 60)
    after = await asyncio.to_thread(owners, args.database_url, codes)
    out.append(summary("kill", hit, t0, before, after, e0))
    await asyncio.to_thread(victim.start)
    await asyncio.sleep(3.0)

    # 2. restart one process, then kill the other
    # The process running most rooms restarts (they move to the other), then the other dies.
    before = await asyncio.to_thread(owners, args.database_url, codes)
    pids = Counter(pid for pid, _ in before.values())
    first = next((p for p in processes if p.pid == pids.most_common(1)[0][0]), processes[0])
    second = next(p for p in processes if p is not first)
    hit = [t for t in tables if before[t.code][0] == first.pid]
    e0 = {c: n for c, n in errors_now().items() if c in {t.code for t in hit}}
    t0 = time.monotonic()
    await asyncio.to_thread(first.terminate)
    await asyncio.sleep(1.0)
    await asyncio.to_thread(first.start)
    await wait_all_continue(hit, t0, 60)
    after = await asyncio.to_thread(owners, args.database_url, codes)
    out.append(summary("restart (SIGTERM)", hit, t0, before, after, e0))
    await asyncio.sleep(3.0)
    before = await asyncio.to_thread(owners, args.database_url, codes)
    hit = [t for t in tables if before[t.code][0] == second.pid]
    e0 = {c: n for c, n in errors_now().items() if c in {t.code for t in hit}}
    t0 = time.monotonic()
    second.kill()
    await wait_all_continue(hit, t0, 60)
    after = await asyncio.to_thread(owners, args.database_url, codes)
    out.append(summary("... then kill the other", hit, t0, before, after, e0))
    await asyncio.to_thread(second.start)
    await asyncio.sleep(3.0)

    # 3. the database restarts
    before = await asyncio.to_thread(owners, args.database_url, codes)
    e0 = errors_now()
    if args.pgdata:
        await asyncio.to_thread(pg_restart, args.pgdata)
    else:
        for f in forwarders:
            f.stop()
        await asyncio.sleep(args.outage)
        for i, f in enumerate(forwarders):
            forwarders[i] = Forwarder(port, f.port)
    t0 = time.monotonic()
    await wait_all_continue(tables, t0, 60)
    await asyncio.sleep(3.0)  # a room moved late would show here
    after = await asyncio.to_thread(owners, args.database_url, codes)
    out.append(summary("database restart", tables, t0, before, after, e0))

    stop.set()
    for c in clients:
        c.cancel()
    await asyncio.gather(*clients, return_exceptions=True)
    await http.aclose()
    return out


def pg_restart(pgdata: str) -> None:
    """``pg_ctl restart`` (fast: sessions are ended), as the data folder's owner."""
    bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    cmd = [str(bindir / "pg_ctl"), "-D", pgdata, "-m", "fast", "-w", "restart"]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)


if __name__ == "__main__":
    main()
