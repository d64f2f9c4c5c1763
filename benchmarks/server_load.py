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

``--processes 2`` runs two server processes on one PostgreSQL (``--database-url``) behind
Debian's nginx, which routes each room to one process by hashing its join code
(docs/deploy.md, "Several processes"); ``--proxy`` puts nginx in front of one process too,
for a like-for-like comparison.

Also printed: the servers' own time per action (``nomercy_action_seconds`` from each
process's ``/metrics``: check, commit, apply, broadcast), and the engine's share of the
action pipeline measured in this process on the same random games both ways: the action
tried on a clone and then applied a second time to the live match (as the server did
before), against the clone kept as the live state after the write (as it does now).

``--pace S`` plays at a person's pace: each seat thinks 0.5 to 1.5 times S seconds before
its action (Uno at once), so many tables load the server as many people would. Printed
for every run: the server's CPU, and from its ``/metrics`` the event loop's lag (wake-ups
late by over 50 and 100 ms) and the garbage collector's pauses by generation: what
stalls every table at once.

    .venv/bin/python benchmarks/server_load.py --rooms 200 --players 4 --seconds 300 --pace 2

``--spectators N`` adds a spectator storm: a third of the way in, N WebSocket spectators
join the running tables (round-robin) within a second or two and watch for
``--storm-seconds``. Printed: how many got in, the server processes' CPU seconds during
the storm against the same time just before it, and the players' action latency during
the storm against before it.

    .venv/bin/python benchmarks/server_load.py --rooms 50 --players 4 --seconds 20
    .venv/bin/python benchmarks/server_load.py --processes 2 --database-url postgresql+psycopg://...
``--hints N`` adds, from the middle of the run on, N people at tables of bots (where the
coach helps) who ask for a hint at every decision and again at once when refused: a flood
of hints. Printed: hints answered and refused (by code), and the players' action latency
during the flood against the same time just before.

    .venv/bin/python benchmarks/server_load.py --rooms 20 --seconds 40 --hints 40

``--reviews N`` asks for reviews of the kept games (every finished round is one) from the
middle of the run on, keeping up to N requests waiting or running (the server's queue
refuses more with ``busy``); printed: the players' action latency while reviews run
against the same time just before, and how many reviews were asked, refused and done.

    .venv/bin/python benchmarks/server_load.py --rooms 20 --spectators 1000 --storm-seconds 8
    .venv/bin/python benchmarks/server_load.py --rooms 20 --seconds 40 --reviews 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    #: (monotonic time of the acknowledgement, latency), to split around the storm.
    timed: list[tuple[float, float]] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    rooms: int = 0
    rounds: int = 0
    #: Join codes of the tables being played (spectators pick from them).
    live: list[str] = field(default_factory=list)
    watching: int = 0
    storm_refused: Counter[str] = field(default_factory=Counter)
    storm_failed: Counter[str] = field(default_factory=Counter)
    #: Reviews: games asked for, refusals (429 busy), reviews done.
    reviews_asked: set[str] = field(default_factory=set)
    reviews_busy: int = 0
    reviews_done: int = 0
    #: Every room's join code (their kept games are listed by room, to its players).
    codes: list[str] = field(default_factory=list)
    #: A seat token of each room (only a room's players may list its kept games).
    tokens: dict[str, str] = field(default_factory=dict)
    #: Hints: answered, refused by code, and the time each answer took.
    hints: list[float] = field(default_factory=list)
    hints_refused: Counter[str] = field(default_factory=Counter)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, database_url: str, reviews: int = 0, hints: int = 0) -> subprocess.Popen[bytes]:
    """One ``nomercy serve`` process (through uvicorn's factory) on 127.0.0.1:port."""
    env = {
        **os.environ,
        # Every hint comes from loopback too: the process-wide bound (hint_queue) is what holds.
        "NOMERCY_HINTS_PER_ADDRESS": str(max(1, hints)),
        "NOMERCY_HINTS_PER_MINUTE": str(max(30, hints * 600)),
        # Every review comes from loopback: the address may have as many as the run asks.
        "NOMERCY_REVIEWS_PER_ADDRESS": str(max(2, reviews)),
        "NOMERCY_REVIEWS_PER_ROOM": str(max(2, reviews)),
        "NOMERCY_DATABASE_URL": database_url,
        "NOMERCY_MESSAGE_RATE": "1000",
        "NOMERCY_MESSAGE_BURST": "1000",
        "NOMERCY_ROOMS_PER_MINUTE": "100000",
        "NOMERCY_BETWEEN_ROUNDS": "0",
        "NOMERCY_REACTION_DELAY": "0.2",
        "NOMERCY_MAX_ROOMS": "100000",
        "NOMERCY_MAX_ROOMS_PER_ADDRESS": "100000",  # every table comes from loopback
        "NOMERCY_MAX_SOCKETS_PER_ADDRESS": "100000",
        "NOMERCY_LOG_LEVEL": "warning",
    }
    cmd = [
        sys.executable, "-m", "uvicorn", "--factory", "nomercy.server.http.app:create_app",
        "--host", "127.0.0.1",
        "--port", str(port), "--log-level", "warning", "--timeout-graceful-shutdown", "1",
        "--no-proxy-headers",  # as docs/deploy.md says: the app reads forwarding headers itself
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env)
    wait_up(f"http://127.0.0.1:{port}/readyz", proc)
    return proc


def wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args!r} exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{url} did not answer")


#: nginx in front of the processes, routing each room by its join code with the upstream of
#: deploy/nginx/nomercy.conf (plain HTTP here, no TLS: the figures are the server's).
NGINX_CONF = """
worker_processes 1;
worker_rlimit_nofile 16384;
pid {dir}/nginx.pid;
error_log {dir}/error.log error;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    map $uri $nomercy_room_in_path {{ ~^/api/rooms/(?<code>[^/]+) $code; default ""; }}
    map $http_upgrade $connection_upgrade {{ default upgrade; "" close; }}
    upstream nomercy {{
        hash $arg_room$nomercy_room_in_path consistent;
        {servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://nomercy;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


def start_nginx(port: int, backends: list[int], folder: str) -> subprocess.Popen[bytes]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    servers = " ".join(f"server 127.0.0.1:{p};" for p in backends)
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = os.path.join(folder, "nginx.conf")
    with open(conf, "w") as f:
        f.write(user + NGINX_CONF.format(dir=folder, port=port, servers=servers))
    proc = subprocess.Popen([nginx, "-p", folder, "-c", conf, "-g", "daemon off;"])
    wait_up(f"http://127.0.0.1:{port}/readyz", proc)
    return proc


def server_action_seconds(ports: list[int]) -> tuple[float, int]:
    """Sum and count of ``nomercy_action_seconds`` over the processes (their own timing)."""
    count, _, total = server_histogram(ports, "nomercy_action_seconds").get("", (0, {}, 0.0))
    return total, count


def server_histogram(ports: list[int], name: str) -> dict[str, tuple[int, dict[float, int], float]]:
    """A histogram from each process's ``/metrics``, summed: label -> (count, buckets, sum)."""
    out: dict[str, tuple[int, dict[float, int], float]] = {}
    for port in ports:
        try:
            text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        except httpx.HTTPError:
            continue
        for line in text.splitlines():
            if not line.startswith(name + "_"):
                continue
            head, value = line.rsplit(" ", 1)
            labels = dict(
                kv.split("=", 1) for kv in head.partition("{")[2].rstrip("}").split(",") if "=" in kv
            )
            key = ",".join(f"{k}={v.strip(chr(34))}" for k, v in labels.items() if k != "le")
            count, buckets, total = out.get(key, (0, {}, 0.0))
            if head.startswith(name + "_bucket"):
                le = float(labels["le"].strip('"'))
                buckets[le] = buckets.get(le, 0) + int(float(value))
            elif head.startswith(name + "_count"):
                count += int(float(value))
            elif head.startswith(name + "_sum"):
                total += float(value)
            out[key] = (count, buckets, total)
    return out


def stalls(ports: list[int]) -> list[str]:
    """Lines on what held the event loop: its lag and the collector's pauses."""
    lines = []
    lag = server_histogram(ports, "nomercy_event_loop_lag_seconds").get("")
    if lag and lag[0]:
        count, buckets, _ = lag
        over = {b: count - n for b, n in buckets.items()}
        worst = min((b for b, n in buckets.items() if n == count), default=float("inf"))
        lines.append(f"  loop lag             {count} wake-ups: {over.get(0.05, 0)} over 50 ms, "
                     f"{over.get(0.1, 0)} over 100 ms, worst under {worst * 1000:g} ms")  # fmt: skip
    for key, (count, buckets, total) in sorted(server_histogram(ports, "nomercy_gc_pause_seconds").items()):
        if count:
            worst = min((b for b, n in buckets.items() if n == count), default=float("inf"))
            lines.append(f"  gc {key:<16}  {count} collections, {total * 1000:.0f} ms in all, "
                         f"longest under {worst * 1000:g} ms")  # fmt: skip
    return lines


def pipeline_engine_time(games: int = 60, seed: int = 1, repeats: int = 5) -> tuple[float, float, int]:
    """Engine seconds per action of the action pipeline, (applied twice, trial kept, actions).

    The same random games (two to four players, the No Mercy rules, every legal action of
    the player to move) are replayed both ways; the best of ``repeats`` runs counts.
    """
    from nomercy.match import Match
    from nomercy.server.base.protocol import build_rules
    from nomercy.views import player_view

    rules = build_rules("no_mercy", {})
    rng = random.Random(seed)
    logs: list[tuple[int, int, list[tuple[int, Any]]]] = []
    for g in range(games):
        players, game_seed = 2 + g % 3, rng.randrange(2**62)
        match, log = Match(players, rules, game_seed), []
        while not match.round_over and len(log) < 3000:
            seat = match.state.current
            assert seat is not None
            legal = [a for a in player_view(match.state, seat).legal_actions if not a.out_of_turn]
            action = rng.choice(legal)
            match.apply(action, seat)
            log.append((seat, action))
        logs.append((players, game_seed, log))

    def run(players: int, game_seed: int, log: list[tuple[int, Any]], keep: bool) -> float:
        match, spent = Match(players, rules, game_seed), 0.0
        for seat, action in log:
            began = time.perf_counter()
            trial = match.state.clone()
            trial.apply(action, seat)
            if keep:
                match.adopt(trial, action, seat)
            else:
                match.apply(action, seat)
            spent += time.perf_counter() - began
        return spent

    # Each game both ways in turn, its best of ``repeats`` each: a busy machine's noise
    # lands on both alike and mostly drops out.
    twice = kept = 0.0
    for players, game_seed, log in logs:
        twice += min(run(players, game_seed, log, False) for _ in range(repeats))
        kept += min(run(players, game_seed, log, True) for _ in range(repeats))
    actions = sum(len(log) for _, _, log in logs)
    return twice / actions, kept / actions, actions


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes and their children (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    family = set(pids)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) in family:
                family.add(int(entry))
    total = 0
    for pid in family:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


async def seat_client(
    url: str,
    code: str,
    token: str,
    seat: int,
    stats: Stats,
    stop: float,
    rng: random.Random,
    pace: float = 0.0,
) -> None:
    """One player: act on every turn, time each action until the state that includes it.

    ``pace`` > 0 thinks like a person first: a turn's action after 0.5 to 1.5 times
    ``pace`` seconds (Uno is called at once); 0 acts at machine speed."""
    async with websockets.connect(f"{url}?room={code}", max_size=2**20) as ws:
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
                latency = now - sent.pop(v)
                stats.latencies.append(latency)
                stats.timed.append((now, latency))
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
            if pace > 0 and action != "uno":
                await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
            sent[version] = time.monotonic()
            await ws.send(json.dumps({"type": "action", "action": action, "version": version}))


async def table(
    base: str,
    players: int,
    stats: Stats,
    stop: float,
    rng: random.Random,
    link: bool = False,
    pace: float = 0.0,
) -> None:
    """Rooms one after another until the time is up."""
    ws_url = base.replace("http", "ws", 1) + "/ws"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < stop:
            try:
                r = await http.post(
                    "/api/rooms",
                    json={"nickname": "P0", "seats": players, "bots": 0, "mode": "match"}
                    | ({"replays": "link"} if link else {}),
                )
                r.raise_for_status()
                host = r.json()
                tokens = [host["token"]]
                for i in range(1, players):
                    j = await http.post(f"/api/rooms/{host['code']}/join", json={"nickname": f"P{i}"})
                    j.raise_for_status()
                    tokens.append(j.json()["token"])
                stats.rooms += 1
                stats.live.append(host["code"])
                stats.codes.append(host["code"])
                stats.tokens[host["code"]] = host["token"]
                clients = [
                    asyncio.create_task(seat_client(ws_url, host["code"], t, i, stats, stop, rng, pace))
                    for i, t in enumerate(tokens)
                ]
                await asyncio.sleep(0.2)  # let everyone say hello before the deal
                s = await http.post(
                    f"/api/rooms/{host['code']}/start", headers={"Authorization": f"Bearer {tokens[0]}"}
                )
                s.raise_for_status()
                await asyncio.gather(*clients)
                stats.live.remove(host["code"])
            except Exception as exc:  # counted, never fatal: a benchmark reports errors
                stats.failures[type(exc).__name__] += 1
                await asyncio.sleep(0.5)


async def spectator(url: str, code: str, stats: Stats, until: float) -> None:
    """One spectator: hello, then read (and drop) every message until the storm ends."""
    try:
        async with websockets.connect(f"{url}?room={code}", max_size=2**20, open_timeout=20) as ws:
            await ws.send(json.dumps({"type": "hello", "room": code, "token": None}))
            first = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if first["type"] == "error":
                stats.storm_refused[first["code"]] += 1
                return
            stats.watching += 1
            while (left := until - time.monotonic()) > 0:
                try:
                    await asyncio.wait_for(ws.recv(), left)
                except TimeoutError:
                    break
    except Exception as exc:  # counted: a dropped or refused socket is a result
        stats.storm_failed[type(exc).__name__] += 1


async def storm(ws_url: str, count: int, stats: Stats, start: float, until: float) -> None:
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    codes = list(stats.live) or ["ZZZZZZ"]
    await asyncio.gather(*(spectator(ws_url, codes[i % len(codes)], stats, until) for i in range(count)))


async def reviewer(base: str, most: int, stats: Stats, start: float, stop: float) -> None:
    """From ``start``: keep up to ``most`` reviews of kept games asked for and not done."""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    pending: set[str] = set()
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < stop:
            for game_id in list(pending):
                r = await http.get(f"/api/games/{game_id}/review")
                if r.status_code == 200 and r.json()["status"] in ("done", "failed"):
                    pending.discard(game_id)
                    stats.reviews_done += r.json()["status"] == "done"
            for code in list(stats.codes):
                if len(pending) >= most:
                    break
                r = await http.get(
                    f"/api/rooms/{code}/games", headers={"Authorization": f"Bearer {stats.tokens[code]}"}
                )
                for game in r.json().get("games", []) if r.status_code == 200 else []:
                    if game["id"] in stats.reviews_asked or len(pending) >= most:
                        continue
                    a = await http.post(f"/api/games/{game['id']}/review")
                    if a.status_code == 429:
                        stats.reviews_busy += 1
                        break
                    stats.reviews_asked.add(game["id"])
                    pending.add(game["id"])
            await asyncio.sleep(0.5)


async def hint_asker(base: str, stats: Stats, start: float, stop: float, rng: random.Random) -> None:
    """From ``start``: one person at a table of bots (where the coach helps) who asks for a
    hint at every decision, again as soon as one is answered or refused."""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    ws_url = base.replace("http", "ws", 1) + "/ws"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < stop:
            try:
                r = await http.post(
                    "/api/rooms", json={"nickname": "H", "seats": 4, "bots": 3, "bot": "random"}
                )
                r.raise_for_status()
                host = r.json()
                async with websockets.connect(f"{ws_url}?room={host['code']}", max_size=2**22) as ws:
                    await ws.send(json.dumps({"type": "hello", "room": host["code"], "token": host["token"]}))
                    s = await http.post(
                        f"/api/rooms/{host['code']}/start",
                        headers={"Authorization": f"Bearer {host['token']}"},
                    )
                    s.raise_for_status()
                    await ask_hints(ws, stats, stop, rng)
            except Exception as exc:  # counted, never fatal
                stats.failures[f"hints: {type(exc).__name__}"] += 1
                await asyncio.sleep(0.5)


async def ask_hints(ws: Any, stats: Stats, stop: float, rng: random.Random) -> None:
    """At each of this seat's decisions: hints until one is answered (or time is up), then
    a random legal action; a round that ends ends the table."""
    asked_at: float | None = None
    view: dict[str, Any] | None = None
    version = -1
    while time.monotonic() < stop:
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout=max(0.01, stop - time.monotonic()))
        except TimeoutError:
            return
        msg = json.loads(raw)
        if msg["type"] == "state" and msg["view"] is not None:
            view, version = msg["view"], msg["version"]
            if view["outcome"] is not None:
                return
            if view["current_player"] == 0 and asked_at is None:
                asked_at = time.monotonic()
                await ws.send(json.dumps({"type": "hint"}))
        elif msg["type"] == "hint" and view is not None:
            stats.hints.append(time.monotonic() - (asked_at or time.monotonic()))
            asked_at = None
            legal = [a for a in view["legal_actions"] if not a.startswith("catch")]
            await ws.send(json.dumps({"type": "action", "action": rng.choice(legal), "version": version}))
        elif msg["type"] == "error" and asked_at is not None:
            stats.hints_refused[msg["code"]] += 1
            asked_at = None
            if view is not None and view["current_player"] == 0:
                await asyncio.sleep(0.05)
                asked_at = time.monotonic()
                await ws.send(json.dumps({"type": "hint"}))  # ask again: the flood


def window(stats: Stats, start: float, end: float) -> list[float]:
    return [latency for at, latency in stats.timed if start <= at < end]


def ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q) * 1000:.1f} ms" if values else "-"


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
    parser.add_argument("--processes", type=int, default=1, help="server processes (2+: PostgreSQL, nginx)")
    parser.add_argument("--proxy", action="store_true", help="nginx in front even of one process")
    parser.add_argument("--spectators", type=int, default=0, help="spectator storm: sockets opened")
    parser.add_argument("--storm-seconds", type=float, default=8.0, help="how long the spectators watch")
    parser.add_argument(
        "--reviews", type=int, default=0, help="reviews kept asked for from mid-run (0: none)"
    )
    parser.add_argument(
        "--hints",
        type=int,
        default=0,
        help="people asking the coach at every decision, from mid-run (0: none)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="a person's think time per action in seconds (0: machine speed)",
    )
    args = parser.parse_args()
    if not 1 <= args.rooms <= 500 or not 2 <= args.players <= 6 or not 1 <= args.seconds <= 600:
        parser.error("bounded on purpose: 1-500 rooms, 2-6 players, 1-600 seconds")
    if not 1 <= args.processes <= 4 or not 0 <= args.spectators <= 2000 or not 1 <= args.storm_seconds <= 60:
        parser.error("bounded on purpose: 1-4 processes, 0-2000 spectators, 1-60 storm seconds")
    if not 0 <= args.pace <= 30:
        parser.error("bounded on purpose: 0-30 seconds of think time")
    if not 0 <= args.hints <= 200:
        parser.error("bounded on purpose: 0-200 hint askers")
    if not 0 <= args.reviews <= 64:
        parser.error("bounded on purpose: 0-64 reviews at once")
    if args.processes > 1 and not (args.database_url or "").startswith("postgresql"):
        parser.error("several processes share a PostgreSQL: give --database-url postgresql+psycopg://...")
    proxy = args.proxy or args.processes > 1

    folder = tempfile.mkdtemp(prefix="nomercy-load-")
    database_url = args.database_url or f"sqlite:///{folder}/rooms.sqlite3"
    ports = [free_port() for _ in range(args.processes)]
    procs: list[subprocess.Popen[bytes]] = []
    stats = Stats()
    rng = random.Random(args.seed)
    cpu: dict[str, float] = {}
    try:
        for port in ports:
            procs.append(start_server(port, database_url, args.reviews, args.hints))  # noqa: PERF401 - in procs as it starts, for finally
        base = f"http://127.0.0.1:{ports[0]}"
        if proxy:
            front = free_port()
            procs.append(start_nginx(front, ports, folder))
            base = f"http://127.0.0.1:{front}"
        servers = [p.pid for p in procs[: args.processes]]
        start = time.monotonic()
        stop = start + args.seconds
        storm_start = start + args.seconds / 3
        storm_end = min(stop, storm_start + args.storm_seconds)
        calm_start = max(start, storm_start - (storm_end - storm_start))
        # Reviews: from the middle on (rounds have ended by then); measured from 2 s later
        # (the workers start) against as long just before.
        review_start = start + args.seconds / 2
        review_measured = review_start + 2.0
        review_calm = max(start + args.seconds / 6, review_start - (stop - review_measured))

        async def sample(name: str, at: float) -> None:
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            cpu[name] = cpu_seconds(servers)

        async def run() -> None:
            jobs = [
                table(base, args.players, stats, stop, rng, bool(args.reviews), args.pace)
                for _ in range(args.rooms)
            ]
            if args.reviews:
                jobs.append(reviewer(base, args.reviews, stats, review_start, stop))
            jobs += [hint_asker(base, stats, review_start, stop, rng) for _ in range(args.hints)]
            if args.spectators:
                ws_url = base.replace("http", "ws", 1) + "/ws"
                jobs.append(storm(ws_url, args.spectators, stats, storm_start, storm_end))
                jobs += [
                    sample(n, t)
                    for n, t in (("calm", calm_start), ("storm", storm_start), ("end", storm_end))
                ]
            await asyncio.gather(*jobs)

        asyncio.run(run())
        elapsed = time.monotonic() - start
        action_sum, action_count = server_action_seconds(ports)
        held = stalls(ports)
        used = cpu_seconds(servers)
    finally:
        for proc in reversed(procs):
            proc.send_signal(signal.SIGTERM if proc in procs[: args.processes] else signal.SIGQUIT)
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()

    n = len(stats.latencies)
    shape = f"{args.processes} process{'es' if args.processes > 1 else ''}" + (
        " behind nginx" if proxy else ""
    )
    print(f"server load: {args.rooms} rooms x {args.players} WebSocket players, {elapsed:.1f} s, {shape}, "
          f"storage {database_url.split(':', 1)[0].split('+')[0]}")  # fmt: skip
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
    if args.spectators:
        calm = window(stats, calm_start, storm_start)
        during = window(stats, storm_start, storm_end)
        span = storm_end - storm_start
        refused, failed = dict(stats.storm_refused) or "none", dict(stats.storm_failed) or "none"
        print(f"  spectator storm      {args.spectators} sockets for {span:.1f} s: {stats.watching} watched, "
              f"refused {refused}, failed {failed}")  # fmt: skip
        if {"calm", "storm", "end"} <= set(cpu):
            print(f"  server CPU           {cpu['end'] - cpu['storm']:.1f} s during the storm, "
                  f"{cpu['storm'] - cpu['calm']:.1f} s in as long just before")  # fmt: skip
        rate_in, rate_before = len(during) / span, len(calm) / max(1e-9, storm_start - calm_start)
        print(
            f"  players in the storm {rate_in:.0f} actions/s, p50 {ms(during, 0.5)}, p99 {ms(during, 0.99)}"
        )
        print(
            f"  players just before  {rate_before:.0f} actions/s, p50 {ms(calm, 0.5)}, p99 {ms(calm, 0.99)}"
        )
    print(f"  server CPU           {used:.1f} s over the run ({used / elapsed:.2f} cores)")
    for line in held:
        print(line)
    if action_count:
        print(f"  server per action    {action_sum / action_count * 1e6:.0f} us mean over {action_count} "
              "(nomercy_action_seconds: check, commit, apply, broadcast)")  # fmt: skip
    from nomercy.match import Match

    if not hasattr(Match, "adopt"):  # a nomercy from before the trial state was kept
        print("  engine per action    (this nomercy applies each action twice: no Match.adopt to compare)")
        twice = kept = 0.0
    else:
        twice, kept, replayed = pipeline_engine_time(seed=args.seed)
    if twice:
        less = (1 - kept / twice) * 100
        print(f"  engine per action    applied twice {twice * 1e6:.1f} us, trial kept {kept * 1e6:.1f} us "
              f"({less:.0f}% less; {replayed} actions of 60 random games, in process)")  # fmt: skip
    if args.reviews:
        calm = window(stats, review_calm, review_start)
        during = window(stats, review_measured, stop)
        p50_calm, p50_during = percentile(calm, 0.5), percentile(during, 0.5)
        print(f"  reviews              {len(stats.reviews_asked)} asked, {stats.reviews_busy} refused busy, "
              f"{stats.reviews_done} done (up to {args.reviews} at once)")  # fmt: skip
        print(f"  players with reviews {len(during) / max(1e-9, stop - review_measured):.0f} actions/s, "
              f"p50 {ms(during, 0.5)}, p99 {ms(during, 0.99)}")  # fmt: skip
        print(f"  players just before  {len(calm) / max(1e-9, review_start - review_calm):.0f} actions/s, "
              f"p50 {ms(calm, 0.5)}, p99 {ms(calm, 0.99)}")  # fmt: skip
        if calm and during:
            print(f"  p50 with reviews     {p50_during / p50_calm * 100 - 100:+.0f}% against just before")
    if args.hints:
        calm = window(stats, review_calm, review_start)
        during = window(stats, review_measured, stop)
        answered = sorted(stats.hints)
        print(f"  hints                {len(answered)} answered (p50 {ms(answered, 0.5)}), refused "
              f"{dict(stats.hints_refused) or 'none'}, {args.hints} asking at every decision")  # fmt: skip
        print(f"  players in the flood {len(during) / max(1e-9, stop - review_measured):.0f} actions/s, "
              f"p50 {ms(during, 0.5)}, p99 {ms(during, 0.99)}")  # fmt: skip
        print(f"  players just before  {len(calm) / max(1e-9, review_start - review_calm):.0f} actions/s, "
              f"p50 {ms(calm, 0.5)}, p99 {ms(calm, 0.99)}")  # fmt: skip
    print(f"  cores                {os.cpu_count()} (server and clients share them)")
    cmd = ["python", "benchmarks/server_load.py", "--rooms", str(args.rooms), "--players", str(args.players),
           "--seconds", str(args.seconds)]  # fmt: skip
    if args.processes > 1:
        cmd += ["--processes", str(args.processes)]
    elif args.proxy:
        cmd += ["--proxy"]
    if args.spectators:
        cmd += ["--spectators", str(args.spectators), "--storm-seconds", str(args.storm_seconds)]
    if args.reviews:
        cmd += ["--reviews", str(args.reviews)]
    if args.hints:
        cmd += ["--hints", str(args.hints)]
    if args.pace:
        cmd += ["--pace", str(args.pace)]
    if args.database_url:
        cmd += ["--database-url", "DATABASE_URL"]
    print("reproduce: " + shlex.join(cmd))


if __name__ == "__main__":
    main()
