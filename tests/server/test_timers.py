"""The turn timer, the reconnect grace period and the stand-in bot, the CLI command."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from nomercy.server.rooms.timers import idle_action
from nomercy.state import Decision
from nomercy.views import player_view
from patience import answers, wait_until_ready

from .conftest import create_room, free_port, hello, join_room, start_room
from .truth import truth


def test_turn_timer_acts_for_an_idle_player(start_server: Any) -> None:
    server = start_server()
    host = create_room(server, nickname="Ann", seats=2, bots=0, seed=11, turn_seconds=1)
    code = host["code"]
    guest = join_room(server, code, "Bob")
    ann, bob = hello(server, code, host["token"]), hello(server, code, guest["token"])
    start_room(server, code, host["token"])
    state = ann.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    assert 0 < state["deadline"] <= 1
    idle = state["view"]["current_player"]
    # Nobody acts: within a few seconds the server has acted for the idle player.
    moved = ann.wait(lambda m: m["type"] == "state" and m["version"] == 1, timeout=15)
    t = truth(server.database_url, code)
    seat, text = t.room.log[0]
    assert seat == idle
    assert text == str(idle_action(player_view(t.states[0], idle)))
    assert moved["events"]
    bob.close()


def test_idle_action_takes_or_draws_first() -> None:
    from nomercy import Match, Rules

    state = Match(2, Rules(draw_when_playable=True), 1).state
    assert str(idle_action(player_view(state, state.current_player))) == "draw"
    assert state.decision is Decision.PLAY


def test_grace_period_then_a_stand_in_plays_until_the_human_returns(start_server: Any) -> None:
    server = start_server(NOMERCY_GRACE_SECONDS="0.5")
    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=5)
    code = host["code"]
    ann = hello(server, code, host["token"])
    start_room(server, code, host["token"])
    ann.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    ann.close()
    deadline = time.monotonic() + 20
    while 0 not in {seat for seat, _ in truth(server.database_url, code).room.log}:
        assert time.monotonic() < deadline, "nobody played the absent human's seat"
        time.sleep(0.2)
    watcher = hello(server, code, None)
    room = watcher.wait(lambda m: m["type"] == "welcome")["room"]
    assert room["seats"][0]["standin"] or room["status"] == "finished"
    back = hello(server, code, host["token"])
    info = back.wait(lambda m: m["type"] == "room" and not m["room"]["seats"][0]["standin"])
    assert info["room"]["seats"][0]["connected"]


def test_nomercy_serve_starts_and_serves_the_client(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nomercy.cli", "serve", "--port", str(port),
         "--database-url", f"sqlite:///{tmp_path / 'db.sqlite3'}", "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_until_ready(proc, answers(f"http://127.0.0.1:{port}/"), "nomercy serve")
        r = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert r.status_code == 200 and "<html" in r.text.lower()
        assert "default-src 'self'" in r.headers["content-security-policy"]
        invite = httpx.get(f"http://127.0.0.1:{port}/join/ABCDEF")
        # The same page; only its link preview names the invite (og:url, absolute).
        assert invite.status_code == 200
        assert invite.text == r.text.replace(f'127.0.0.1:{port}/">', f'127.0.0.1:{port}/join/ABCDEF">')
        # Script and style are linked with a digest of the files served, so a browser that
        # kept an earlier release's copy fetches the new one.
        for name in ("js/main.js", "style.css"):
            link = re.search(rf'"/static/{re.escape(name)}\?v=([0-9a-f]{{12}})"', r.text)
            assert link, f"{name} is not linked with its digest"
            served = httpx.get(f"http://127.0.0.1:{port}/static/{name}?v={link[1]}")
            assert served.status_code == 200
            assert hashlib.sha256(served.content).hexdigest()[:12] == link[1]
    finally:
        proc.terminate()
        proc.wait(10)
