"""Does the server stay responsive while record files are replayed at the limit?

Starts ``nomercy serve`` on a fresh SQLite file on 127.0.0.1, measures ``/healthz`` idle,
then has ``--clients`` client addresses (127.0.0.1, 127.0.0.2, ...: one replay at a time
each, as the server allows) upload the costliest record the server accepts, back to back,
for ``--seconds``, while ``/healthz`` is probed every ``--probe-ms``. The per-address rate
is raised for the run (``NOMERCY_REPLAYS_PER_MINUTE``) so that the process-wide bound on
replays at once (``NOMERCY_REPLAYS_AT_ONCE``) is what holds: the server runs that many
replays all the time, as it would under uploads from many addresses.

The record: a classic round of random play at ``--seats`` seats, cut where the budget of
moves times seats (``NOMERCY_REPLAY_SEAT_STEPS``) ends, or at 5,000 moves. Random players
hold big hands, so each frame is large: a real round costs far less.

Prints ``/healthz`` p50/p99/max idle and under load, the uploads replayed and refused
(by code), the answer sizes, and the command that reproduces the run. Bounded: it stops
after ``--seconds`` and never leaves loopback.

    .venv/bin/python benchmarks/upload_health.py --seconds 20
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import random
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any

import httpx

from nomercy.record import GameRecord
from nomercy.rules import PRESETS
from nomercy.server.base.settings import Settings
from nomercy.server.games.replays import MAX_ACTIONS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def costliest_record(seats: int, budget: int, seed: int) -> GameRecord:
    """The longest record (up to what the budget allows) among a few seeded random rounds."""
    most = min(MAX_ACTIONS, budget // seats)
    best: GameRecord | None = None
    for s in range(seed, seed + 40):
        rules = PRESETS["classic"]
        rules = dataclasses.replace(rules, max_players=max(seats, rules.max_players))  # as a room allows
        record, state = GameRecord.start(seats, rules=rules, seed=s)
        rng = random.Random(s)
        while state.outcome is None and len(record.actions) < most:
            seat = state.current
            assert seat is not None
            action = rng.choice(state.legal_actions(seat))
            state.apply(action, seat)
            record.add(seat, action)
        if best is None or len(record.actions) > len(best.actions):
            best = record
        if len(best.actions) >= most:
            break
    assert best is not None
    return best


def start_server(port: int, folder: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable, "-m", "nomercy", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--database-url", f"sqlite:///{folder}/rooms.sqlite3", "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env={**os.environ, **env})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"nomercy serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("nomercy serve did not answer")


def probe(url: str, stop: threading.Event, every: float, out: list[float]) -> None:
    with httpx.Client(timeout=30, trust_env=False) as client:
        while not stop.is_set():
            start = time.perf_counter()
            client.get(url).raise_for_status()
            out.append(time.perf_counter() - start)
            stop.wait(max(0.0, every - (time.perf_counter() - start)))


def upload(
    url: str, body: bytes, source: str, stop: threading.Event, codes: Counter[str], sizes: list[int]
) -> None:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=60, trust_env=False) as client:
        while not stop.is_set():
            with client.stream("POST", url, content=body, headers={"Accept-Encoding": "gzip"}) as r:
                raw = b"".join(r.iter_raw())  # as it came: the client need not unpack it
            if r.status_code == 200:
                codes["replayed"] += 1
                sizes.append(len(raw))
            else:
                code = json.loads(raw)["detail"]["code"]
                codes[f"{r.status_code} {code}"] += 1
                stop.wait(0.05)


def uploaders(url: str, body: bytes, clients: int, seconds: float, results: Any) -> None:
    """In a process of its own (so that the prober's timing never waits for these threads):
    ``clients`` addresses upload for ``seconds``, then the counts go back on ``results``."""
    codes: Counter[str] = Counter()
    sizes: list[int] = []
    stop = threading.Event()
    threads = [
        threading.Thread(target=upload, args=(url, body, f"127.0.0.{i + 1}", stop, codes, sizes))
        for i in range(clients)
    ]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    results.put((dict(codes), sizes))


def quantiles(samples: list[float]) -> str:
    if len(samples) < 2:
        return "too few samples"
    cuts = statistics.quantiles(samples, n=100)
    return (
        f"p50 {cuts[49] * 1000:6.1f} ms   p99 {cuts[98] * 1000:6.1f} ms   max {max(samples) * 1000:6.1f} ms"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the uploads run")
    parser.add_argument("--clients", type=int, default=4, help="client addresses uploading at once")
    parser.add_argument("--seats", type=int, default=4, help="seats of the uploaded record")
    parser.add_argument("--probe-ms", type=float, default=20.0, help="pause between /healthz probes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 200 or args.seconds <= 0 or not 2 <= args.seats <= 10:
        parser.error("--clients 1..200, --seconds > 0, --seats 2..10")

    settings = Settings.from_env()
    record = costliest_record(args.seats, settings.replay_seat_steps, args.seed)
    body = record.to_json().encode()
    print(
        f"record: classic, {record.players} seats, {len(record.actions)} moves "
        f"({len(record.actions) * record.players} of {settings.replay_seat_steps} moves x seats), "
        f"{len(body) / 1024:.0f} KiB"
    )
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        proc = start_server(port, folder, {"NOMERCY_REPLAYS_PER_MINUTE": "100000"})
        try:
            base = f"http://127.0.0.1:{port}"
            idle: list[float] = []
            stop = threading.Event()
            prober = threading.Thread(
                target=probe, args=(base + "/healthz", stop, args.probe_ms / 1000, idle)
            )
            prober.start()
            time.sleep(min(10.0, args.seconds))
            stop.set()
            prober.join()

            loaded: list[float] = []
            ctx = multiprocessing.get_context("spawn")
            results = ctx.Queue()
            url = base + "/api/records/replay"
            crowd = ctx.Process(target=uploaders, args=(url, body, args.clients, args.seconds + 0.5, results))
            crowd.start()
            time.sleep(0.5)  # the first replays are under way
            stop = threading.Event()
            prober = threading.Thread(
                target=probe, args=(base + "/healthz", stop, args.probe_ms / 1000, loaded)
            )
            prober.start()
            time.sleep(args.seconds)
            stop.set()
            prober.join()
            got, sizes = results.get(timeout=120)
            codes = Counter(got)
            crowd.join(30)
        finally:
            proc.terminate()
            proc.wait(30)

    print(f"replays at once: {settings.replays_at_once} in all, {settings.replays_per_address} per address")
    print(f"/healthz idle:         {quantiles(idle)}   ({len(idle)} probes)")
    print(f"/healthz under load:   {quantiles(loaded)}   ({len(loaded)} probes)")
    print("uploads: " + ", ".join(f"{k} {v}" for k, v in sorted(codes.items())))
    if sizes:
        print(f"answer (gzip): {statistics.mean(sizes) / 1024:.0f} KiB each")
    command = ["python", "benchmarks/upload_health.py", "--seconds", f"{args.seconds:g}",
               "--clients", str(args.clients), "--seats", str(args.seats),
               "--probe-ms", f"{args.probe_ms:g}", "--seed", str(args.seed)]  # fmt: skip
    print("reproduce: " + shlex.join(command))


if __name__ == "__main__":
    main()
