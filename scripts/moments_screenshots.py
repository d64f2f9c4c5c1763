"""Screenshots of the table's moments, to be looked at as a player would (issue 41).

The big take and the stack before it, the Colour Roulette's reveal, a swap (a Seven), a
pass (a Zero), a knock-out, the round won, the match won and the end screens, at 2, 4 and
6 seats, on a desktop (1280x800) and a phone (390x844), in English and Norwegian.

How: the engine plays a round with a policy that seeks these moments (stack when it can,
prefer Draw cards, Roulettes, Sevens and Zeros) and searches seeds until one round holds
them. ``nomercy serve`` (a subprocess with a fresh SQLite file and its test options) deals
the same round to a room of N people; the script plays every seat over WebSockets, and
before each moment opens two pages at the table (seat 0 at one size, seat 1 at the other),
so each page sees the moment fresh and nothing else still in flight. Each picture is
``OUT/{N}p-{moment}-{lang}-{size}.png``.

    .venv/bin/python scripts/moments_screenshots.py                  # all: 3 x 2 x 2 x 8 moments
    .venv/bin/python scripts/moments_screenshots.py --seats 4 --lang nb --out /tmp/shots

Needs the server and dev extras (FastAPI, Playwright) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from nomercy.actions import Action, Play
from nomercy.events import Drew
from nomercy.match import Match
from nomercy.rules import Rules

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
}
# One long name (as long as a nickname may be), to see callouts that name it.
NAMES = ["Ann", "Bjørn", "Wilhelmina Wolfgangsdott", "Dagny", "Eve", "Fredrik"]
# The moments of one round (in round mode), in the order they are looked for.
ROUND_MOMENTS = ("stack", "roulette", "swap", "pass", "ko", "win")
DRAW_CARDS = ("+2", "+4", "+6", "+10")


# -- the engine's side: a round that holds the moments ---------------------------------------


@dataclass
class Plan:
    """A round the server will deal for ``seed``: every move in order, and where each moment
    starts (the move before which the pages open) and ends (its last move)."""

    players: int
    seed: int
    rules: dict[str, Any]
    mode: str
    moves: list[tuple[int, str]] = field(default_factory=list)
    moments: dict[str, tuple[int, int]] = field(default_factory=dict)


def colour_of(hand: list[Any]) -> str:
    counts = {c: sum(1 for card in hand if card.code[0] == c) for c in "RYGB"}
    return max("RYGB", key=lambda c: (counts[c], -"RYGB".index(c)))


def choose(match: Match, wanted: set[str]) -> Action:
    """The policy: stack when one can; else the card the wanted moments need; name the
    colour one holds most of (a Roulette's victim names the one that turns up most)."""
    state = match.state
    seat = state.current_player
    assert seat is not None
    legal = list(state.legal_actions())
    if state.decision.label == "roulette":

        def turned(a: Action) -> int:
            probe = state.clone()
            events = probe.apply(a, seat)
            drawn = sum(e.count for e in events if isinstance(e, Drew) and e.reason == "roulette")
            return drawn if probe.outcome is None else -1

        return max(legal, key=turned)
    if state.decision.label == "choose_color":
        mine = colour_of(list(state.hands[seat]))
        return next((a for a in legal if str(a) == f"color {mine}"), legal[0])
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        for kind in ("take", "play", "pass", "draw"):
            found = [a for a in legal if a.kind == kind]
            if found:
                return found[0]
        return legal[0]

    def rank(a: Play) -> tuple[int, ...]:
        code = a.card.code
        want = 0
        if state.pending_total and any(code.endswith(d) for d in DRAW_CARDS):
            want = 5
        elif "roulette" in wanted and code == "WCR":
            want = 4
        elif ("swap" in wanted and code[1:] == "7" and a.target is not None) or (
            "pass" in wanted and code[1:] == "0"
        ):
            want = 3
        elif ({"stack", "ko"} & wanted) and any(code.endswith(d) for d in DRAW_CARDS):
            want = 2
        colour = a.color is None or a.color.letter == colour_of(list(state.hands[seat]))
        return (want, int(bool(a.uno)), int(colour), -int(code.startswith("W")))

    return max(plays, key=rank)


def simulate(players: int, seed: int, rules: dict[str, Any], mode: str, wanted: set[str]) -> Plan:
    """Play the round with the policy; note where each wanted moment begins and ends."""
    match = Match(players, Rules.from_dict(rules), seed)
    plan = Plan(players, seed, rules, mode)
    chain_start = 0
    seen: set[str] = set()
    while not match.round_over and len(plan.moves) < 1500:
        state = match.state
        seat = state.current_player
        assert seat is not None
        action = choose(match, wanted - seen)
        before = state.pending_total
        events = match.apply(action, seat)
        index = len(plan.moves)
        plan.moves.append((seat, str(action)))
        if not before and match.state.pending_total:
            chain_start = index
        found: list[tuple[str, int]] = []
        for e in events:
            stacked = index > chain_start + 1  # two Draw cards at least, then the take
            if isinstance(e, Drew) and e.reason in ("stack", "penalty") and e.count >= 10 and stacked:
                found.append(("stack", chain_start))
            elif isinstance(e, Drew) and e.reason == "roulette" and e.count >= 3:
                found.append(("roulette", index - 1))
            elif e.type == "hands_swapped":
                found.append(("swap", index))
            elif e.type == "hands_passed":
                found.append(("pass", index))
            elif e.type == "knocked_out":
                found.append(("ko", index))
            elif e.type == "round_over":
                found.append(("win" if mode == "round" else "match", index))
        for kind, start in found:
            if kind in wanted and kind not in seen:
                seen.add(kind)
                plan.moments[kind] = (start, index)
    return plan


def plans_for(players: int, budget: int = 4000) -> list[Plan]:
    """Rounds that together hold every moment of ROUND_MOMENTS, and a match won in one round.
    Greedy: the seed whose round holds the most moments still missing, until none is."""
    missing = set(ROUND_MOMENTS)
    out: list[Plan] = []
    rules: dict[str, Any] = {}
    while missing:
        best: Plan | None = None
        for seed in range(budget):
            plan = simulate(players, seed, rules, "round", missing)
            got = set(plan.moments) & missing
            if best is None or len(got) > len(set(best.moments) & missing):
                best = plan
            if got == missing:
                break
        assert best is not None
        got = set(best.moments) & missing
        if not got:
            print(f"{players} seats: no round holds {sorted(missing)}", file=sys.stderr)
            break
        # The pages need only the moments still missing; the round is played to the last.
        best.moments = {k: v for k, v in best.moments.items() if k in missing}
        out.append(best)
        missing -= got
    match = simulate(players, 1, {"target_score": 1}, "match", {"match"})
    out.append(match)
    return out


# -- the server's side -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving() -> Iterator[str]:
    """``nomercy serve`` on a free loopback port with a fresh SQLite file and test options."""
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        env = {**os.environ, "NOMERCY_TEST_OPTIONS": "1", "NOMERCY_BOT_DELAY": "5"}
        cmd = [sys.executable, "-m", "nomercy", "serve", "--port", str(port), "--log-level", "warning",
               "--database-url", f"sqlite:///{folder}/rooms.sqlite3"]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env)  # noqa: S603 (our own interpreter and module)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                        break
                time.sleep(0.1)
            else:
                raise SystemExit("the server did not start")
            yield base
        finally:
            proc.terminate()
            proc.wait(10)


class Seat:
    """One seat's WebSocket: the latest state it was sent, and a way to act."""

    def __init__(self, base: str, code: str, token: str) -> None:
        self.conn = connect(base.replace("http", "ws", 1) + "/ws", open_timeout=10)
        self.state: dict[str, Any] | None = None
        self.sent = 0.0
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.conn.send(json.dumps({"type": "hello", "room": code, "token": token}))

    def _read(self) -> None:
        with contextlib.suppress(Exception):
            for text in self.conn:
                msg = json.loads(text)
                if msg["type"] == "error":
                    print(f"refused: {msg}", file=sys.stderr)
                if msg["type"] == "state":
                    with self.cond:
                        self.state = msg
                        self.cond.notify_all()

    def act(self, action: str, after: int) -> int:
        """Send ``action`` once this seat has seen a state newer than ``after``; the version."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.state is not None and self.state["version"] > after, 10):
                raise SystemExit(f"no state after version {after}")
            assert self.state is not None
            version = int(self.state["version"])
            legal = (self.state["view"] or {}).get("legal_actions", [])
        if action not in legal:
            raise SystemExit(f"the server's round differs from the engine's: {action!r} not in {legal}")
        # A connection may send 8 messages a second (the server's token bucket): keep below.
        time.sleep(max(0.0, self.sent + 0.15 - time.monotonic()))
        self.sent = time.monotonic()
        self.conn.send(json.dumps({"type": "action", "action": action, "version": version}))
        return version


def room(base: str, plan: Plan) -> tuple[str, list[str]]:
    """A started room of ``plan.players`` people, dealt ``plan.seed``."""
    body = {"nickname": NAMES[0], "seats": plan.players, "bots": 0, "seed": plan.seed, "rules": plan.rules,
            "turn_seconds": 0, "mode": plan.mode}  # fmt: skip
    host = httpx.post(f"{base}/api/rooms", json=body, timeout=10).json()
    url = f"{base}/api/rooms/{host['code']}"
    joined = [
        httpx.post(url + "/join", json={"nickname": n}, timeout=10).json() for n in NAMES[1 : plan.players]
    ]
    tokens = [host["token"], *(j["token"] for j in joined)]
    start = httpx.post(url + "/start", headers={"Authorization": f"Bearer {host['token']}"}, timeout=10)
    start.raise_for_status()
    return host["code"], tokens


# -- the pages ---------------------------------------------------------------------------------


def open_seat(browser: Any, base: str, code: str, token: str, seat: int, size: str, lang: str) -> Any:
    # bypass_csp: the waits below are strings evaluated in the page, which its policy forbids.
    page = browser.new_context(bypass_csp=True, **SIZES[size]).new_page()
    page.add_init_script(f"localStorage.setItem('nomercy:lang', {json.dumps(lang)})")
    page.goto(base + "/")
    page.wait_for_selector("html[data-ready]", state="attached")
    seat_key = [f"nomercy:seat:{code}", json.dumps({"seat": seat, "token": token})]
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", seat_key)
    page.goto(f"{base}/join/{code}")
    page.wait_for_selector("#screen-table:not([hidden]) #top-card")
    page.wait_for_function("!document.querySelector('.ghost')", timeout=15_000)
    return page


# What each moment waits for on the page, and how long after it shows the picture is taken.
WAIT = {
    "take": ("#moment.bigtake:not([hidden])", 350),
    "roulette": (".roulette-row", 1500),
    "swap": (".announce.swap", 350),
    "pass": (".announce.swap", 350),
    "ko": ("#moment.ko:not([hidden])", 350),
    "win": ("#moment.win:not([hidden])", 700),
    "match": ("#moment.match:not([hidden])", 1500),
}


def shoot(page: Any, out: Path, name: str) -> None:
    path = out / f"{name}.png"
    page.screenshot(path=str(path))
    print(path)


ORDER = ("stack", "roulette", "swap", "pass", "ko", "win", "match")


def run(browser: Any, base: str, plan: Plan, lang: str, out: Path) -> None:
    """Play the plan's round in a room; the pages open before each moment (unless one is
    still under way) and photograph it, then the end screen."""
    code, tokens = room(base, plan)
    seats = [Seat(base, code, t) for t in tokens]
    sizes = ("desktop", "phone") if lang == "en" else ("phone", "desktop")
    opens: set[int] = set()
    under_way = -1
    for start, end in sorted(plan.moments.values()):
        if start > under_way:
            opens.add(start)
        under_way = max(under_way, end)
    ends: dict[int, list[str]] = {}
    for kind in ORDER:
        if kind in plan.moments:
            ends.setdefault(plan.moments[kind][1], []).append(kind)
    version = -1
    pages: list[Any] = []
    for index, (seat, action) in enumerate(plan.moves):
        if index in opens:
            for p in pages:
                p.context.close()
            pages = [open_seat(browser, base, code, tokens[k], k, sizes[k], lang) for k in (0, 1)]
            pages.sort(key=lambda p: size_of(p) != "desktop")  # the quicker picture first
        if "stack" in ends.get(index, []):
            # The stack's counter before its take: who faces it, and its total (once its
            # badges have flown to their seats).
            for p in pages:
                p.wait_for_function(f"nomercy.store.get().version > {version}", timeout=10_000)
                p.wait_for_function("!document.querySelector('.ghost')", timeout=10_000)
            for p in pages:
                shoot(p, out, f"{plan.players}p-stack-{lang}-{size_of(p)}")
        version = seats[seat].act(action, version)
        for kind in ends.get(index, []):
            name = "take" if kind == "stack" else kind
            selector, settle = WAIT[name]
            for p in pages:
                p.wait_for_selector(selector, timeout=15_000)
            pages[0].wait_for_timeout(settle)
            for p in pages:
                shoot(p, out, f"{plan.players}p-{name}-{lang}-{size_of(p)}")
            if kind in ("swap", "pass"):
                # After the flight: the callout and the marked seats.
                pages[0].wait_for_timeout(700)
                for p in pages:
                    shoot(p, out, f"{plan.players}p-{kind}-after-{lang}-{size_of(p)}")
            if kind in ("win", "match"):
                for p in pages:
                    p.wait_for_selector("#end:not([hidden])", timeout=20_000)
                pages[0].wait_for_timeout(600)
                for p in pages:
                    shoot(p, out, f"{plan.players}p-end-{kind}-{lang}-{size_of(p)}")
    for p in pages:
        p.context.close()
    for s in seats:
        s.conn.close()


def size_of(page: Any) -> str:
    return "phone" if page.viewport_size["width"] < 600 else "desktop"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--lang", nargs="+", default=["en", "nb"])
    parser.add_argument("--out", type=Path, default=Path("artifacts/moments"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with serving() as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=ARGS)
        for n in args.seats:
            plans = plans_for(n)
            for plan in plans:
                moments = ", ".join(sorted(plan.moments))
                print(f"{n} seats: seed {plan.seed}, {len(plan.moves)} moves: {moments}", file=sys.stderr)
            for lang in args.lang:
                for plan in plans:
                    run(browser, base, plan, lang, args.out)
        browser.close()


if __name__ == "__main__":
    main()
