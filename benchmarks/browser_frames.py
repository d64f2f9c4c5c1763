"""Frame times of the browser client in Chromium with its CPU slowed down 4x.

Three moments with the most motion: a big draw (a Wild Draw 10 taken: ten cards fly one by
one, the stack counter, the "+10" moment with its shake), a hand swap (a Seven: cards
cross between the seats) and a Colour Roulette (W4: its cards turned face up one by one,
then flying to the victim). Each is played for real against ``nomercy serve`` (a subprocess on
127.0.0.1 with a fresh SQLite file), with Chromium's CPU throttled through the DevTools
protocol (``Emulation.setCPUThrottlingRate``), and the page records the time of every
animation frame for 2.5 s from the move. Printed: frames, median and 95th-percentile
frame time, the longest frame, and the dropped frames (a frame that took n vsync
intervals of 16.7 ms drops n - 1).

    .venv/bin/python benchmarks/browser_frames.py                 # 4x slower CPU, 3 runs each
    .venv/bin/python benchmarks/browser_frames.py --throttle 1 --runs 5
    .venv/bin/python benchmarks/browser_frames.py --chromium /usr/bin/chromium --size phone

Needs the server and dev extras (FastAPI, Playwright) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx

from nomercy.match import Match
from nomercy.rules import Rules

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
}
MOMENTS = ("big draw", "swap", "roulette")
VSYNC_MS = 1000 / 60
RECORD = """(ms) => new Promise((done) => {
  const times = [];
  const start = performance.now();
  const step = (t) => { times.push(t); if (t - start < ms) requestAnimationFrame(step); else done(times); };
  requestAnimationFrame(step);
})"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, folder: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "NOMERCY_DATABASE_URL": f"sqlite:///{folder}/rooms.sqlite3",
        "NOMERCY_TEST_OPTIONS": "1",
        "NOMERCY_BOT_DELAY": "5",
        "NOMERCY_LOG_LEVEL": "warning",
    }
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "nomercy.server.http.app:create_app",
        "--host",
        "127.0.0.1",
    ]
    proc = subprocess.Popen([*cmd, "--port", str(port), "--log-level", "warning"], env=env)
    for _ in range(100):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def seed_for(card: str, players: int, rules: dict[str, Any], opponent_takes: bool) -> tuple[int, str]:
    """A seed where seat 0 starts holding ``card`` (and, for a Draw card, seat 1 must take)."""
    for seed in range(20_000):
        state = Match(players, Rules.from_dict(rules), seed).state
        if state.current_player != 0:
            continue
        plays = [
            a for a in state.legal_actions() if a.kind == "play" and not a.uno and a.card.code.endswith(card)
        ]
        plays = [a for a in plays if a.color is None or a.color.letter == "R"]
        if not plays:
            continue
        if opponent_takes:
            probe = state.clone()
            probe.apply(plays[0], 0)
            if [str(a) for a in probe.legal_actions()] != ["take"]:
                continue
        return seed, plays[0].card.code
    raise SystemExit(f"no seed deals {card}")


def roulette_seed() -> tuple[int, str]:
    """A seed where seat 0 starts with a Roulette, and a colour for seat 1 to name that turns
    up at least four cards (the longest reveal such a seed gives)."""
    for seed in range(50_000):
        state = Match(2, Rules(), seed).state
        if state.current_player != 0:
            continue
        play = next(
            (a for a in state.legal_actions() if a.kind == "play" and a.card.code == "WCR" and not a.uno),
            None,
        )
        if play is None:
            continue
        state.apply(play, 0)
        if state.current_player != 1 or state.decision.label != "roulette":
            continue
        best = ("", 0)
        for action in state.legal_actions():
            probe = state.clone()
            events = probe.apply(action, 1)
            drawn = sum(e.count for e in events if e.type == "drew" and e.reason == "roulette")
            if probe.outcome is None and drawn > best[1]:
                best = (str(action).split()[-1], drawn)
        if best[1] >= 4:
            return seed, best[0]
    raise SystemExit("no seed deals a Roulette")


def room(base: str, seed: int, rules: dict[str, Any]) -> tuple[str, list[str]]:
    host = httpx.post(f"{base}/api/rooms", json={"nickname": "Ann", "seats": 2, "bots": 0, "seed": seed,
                                                 "rules": rules, "turn_seconds": 0}).json()  # fmt: skip
    guest = httpx.post(f"{base}/api/rooms/{host['code']}/join", json={"nickname": "Bob"}).json()
    httpx.post(f"{base}/api/rooms/{host['code']}/start", headers={"Authorization": f"Bearer {host['token']}"})
    return host["code"], [host["token"], guest["token"]]


def open_seat(browser: Any, base: str, code: str, token: str, seat: int, size: str) -> Any:
    page = browser.new_context(**SIZES[size]).new_page()
    page.goto(base + "/")
    page.wait_for_selector("html[data-ready]", state="attached")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{code}", json.dumps({"seat": seat, "token": token})],
    )
    page.goto(f"{base}/join/{code}")
    page.wait_for_selector("#hand .card")
    return page


def frames(times: list[float]) -> dict[str, float]:
    gaps = [b - a for a, b in itertools.pairwise(times)]
    dropped = sum(max(0, round(g / VSYNC_MS) - 1) for g in gaps)
    return {
        "frames": len(gaps),
        "median_ms": statistics.median(gaps),
        "p95_ms": sorted(gaps)[int(0.95 * (len(gaps) - 1))],
        "max_ms": max(gaps),
        "dropped": dropped,
    }


def measure(browser: Any, base: str, kind: str, size: str, throttle: float) -> dict[str, float]:
    colour = ""
    if kind == "big draw":
        rules: dict[str, Any] = {"mercy_limit": None}
        seed, card = seed_for("W+10", 2, rules, opponent_takes=True)
    elif kind == "roulette":
        rules = {}
        seed, colour = roulette_seed()
        card = "WCR"
    else:
        rules = {}
        seed, card = seed_for("7", 2, rules, opponent_takes=False)
    code, tokens = room(base, seed, rules)
    ann = open_seat(browser, base, code, tokens[0], 0, size)
    bob = open_seat(browser, base, code, tokens[1], 1, size)
    watched = bob
    if kind == "big draw":
        ann.locator(f"#hand .card.playable[data-code='{card}']").first.click()
        ann.click("#prompt-choices button[value='R']")
        bob.wait_for_selector("#take-btn:not([hidden])")
        bob.wait_for_timeout(800)
    elif kind == "roulette":
        ann.locator("#hand .card.playable[data-code='WCR']").first.click()
        bob.wait_for_selector("#prompt[open]")
        bob.wait_for_timeout(800)
    cdp = watched.context.new_cdp_session(watched)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    recording = watched.evaluate_handle(RECORD, 2500)
    if kind == "big draw":
        bob.click("#take-btn")
    elif kind == "roulette":
        bob.click(f"#prompt-choices button.c-{colour}")
    else:
        ann.locator(f"#hand .card.playable[data-code='{card}']").first.click()
    times = recording.json_value()
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    ann.context.close()
    bob.context.close()
    return frames(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--throttle", type=float, default=4.0, help="CPU slow-down factor (DevTools)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", choices=sorted(SIZES), default="desktop")
    parser.add_argument("--moments", nargs="+", choices=MOMENTS, default=list(MOMENTS))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(port, folder)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=ARGS, headless=True)
                what = f"CPU {args.throttle:g}x slower, {args.size}, {args.runs} runs each"
                print(f"frame times, Chromium, {what}")
                print(f"{'moment':<10} {'frames':>6} {'median':>8} {'p95':>8} {'max':>8} {'dropped':>8}")
                for kind in args.moments:
                    for _ in range(args.runs):
                        f = measure(browser, base, kind, args.size, args.throttle)
                        print(f"{kind:<10} {f['frames']:>6} {f['median_ms']:>6.1f}ms {f['p95_ms']:>6.1f}ms "
                              f"{f['max_ms']:>6.1f}ms {f['dropped']:>8}")  # fmt: skip
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    print(f"command: .venv/bin/python benchmarks/browser_frames.py --throttle {args.throttle:g} "
          f"--runs {args.runs} --size {args.size}")  # fmt: skip


if __name__ == "__main__":
    main()
