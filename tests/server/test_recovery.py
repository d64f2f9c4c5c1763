"""Restart recovery: SIGKILL the server mid-game, start it again on the same database.

Every room comes back from ``(rules, seed, log)`` with the same state, the same seats
(tokens still valid) and the same future draws. Runs on SQLite and, where
``NOMERCY_TEST_POSTGRES_URL`` is set (CI sets it), on a real PostgreSQL.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from nomercy.views import player_view

from .conftest import DATABASES, POSTGRES_URL, WS, create_room, hello, join_room, reset_postgres, start_room
from .truth import truth


def act(ws: WS, action: str, version: int) -> dict[str, Any]:
    start = ws.mark()
    ws.send({"type": "action", "action": action, "version": version})
    return ws.wait(lambda m: m["type"] == "state" and m["version"] == version + 1, start=start)


@pytest.mark.parametrize("db", DATABASES)
def test_sigkill_and_restart_continue_with_the_same_state_and_draws(
    db: str, start_server: Any, sqlite_url: str
) -> None:
    url = sqlite_url
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        url = POSTGRES_URL
    first = start_server(url)
    rules = {"draw_when_playable": True, "draw_rule": "one", "stacking": False}
    host = create_room(first, nickname="Ann", seats=2, bots=0, rules=rules)  # no seed: the server's own
    code = host["code"]
    guest = join_room(first, code, "Bob")
    lobby_only = create_room(first, nickname="Cy", seats=3, bots=1)
    tokens = {0: host["token"], 1: guest["token"]}
    clients = {0: hello(first, code, tokens[0]), 1: hello(first, code, tokens[1])}
    start_room(first, code, tokens[0])
    rng = random.Random(3)
    for _ in range(12):
        state = clients[0].wait(lambda m: m["type"] == "state" and m["view"] is not None)
        state = clients[0].latest_state()
        view = state["view"]
        if view["outcome"] is not None:
            break
        seat = view["current_player"]
        mine = clients[seat].wait(
            lambda m, v=state["version"]: m["type"] == "state" and m["version"] == v and m["view"]
        )
        legal = [a for a in mine["view"]["legal_actions"] if a not in ("uno",)]
        act(clients[seat], rng.choice(legal), state["version"])
        for ws in clients.values():
            ws.wait(lambda m, v=state["version"]: m["type"] == "state" and m["version"] == v + 1)
    before = {seat: ws.latest_state() for seat, ws in clients.items()}
    t1 = truth(url, code)
    assert len(t1.room.log) == before[0]["version"] > 0

    first.kill()
    for ws in clients.values():
        ws.wait_closed()
    second = start_server(url)

    again = {seat: hello(second, code, tokens[seat]) for seat in (0, 1)}
    for seat, ws in again.items():
        snap = ws.latest_state()
        assert snap["snapshot"] and snap["version"] == before[seat]["version"]
        assert snap["view"] == before[seat]["view"], f"seat {seat} sees another table after the restart"
    lobby = hello(second, lobby_only["code"], lobby_only["token"])
    assert lobby.wait(lambda m: m["type"] == "welcome")["room"]["status"] == "lobby"

    # The same future draws: the next card drawn is the one the killed server had on top.
    state = again[0].latest_state()
    seat = state["view"]["current_player"]
    pile_before = t1.states[-1].draw_pile
    if state["view"]["decision"] == "play" and "draw" in again[seat].latest_state()["view"]["legal_actions"]:
        after = act(again[seat], "draw", state["version"])
        drew = [e for e in after["events"] if e["type"] == "drew"]
        assert drew and drew[0]["cards"] == [pile_before[-1].code]
    t2 = truth(url, code)
    assert t2.states[len(t1.room.log)].to_dict() == t1.states[-1].to_dict()
    assert t2.states[-1].seed == t1.states[-1].seed


def test_a_match_restarts_between_and_after_rounds(start_server: Any, sqlite_url: str) -> None:
    """E4: the log holds a marker where the match dealt its next round; replay honours it."""
    import time

    from nomercy.server.rooms.storage import NEXT_ROUND

    from .truth import stored_room

    first = start_server(sqlite_url, NOMERCY_GRACE_SECONDS="0.05")
    host = create_room(first, nickname="Ann", seats=2, bots=1, mode="match", seed=4, rules={"hand_size": 3})
    code = host["code"]
    start_room(first, code, host["token"])  # nobody connected: after the grace a bot plays Ann's seat
    deadline = time.monotonic() + 60
    while NEXT_ROUND not in [a for _, a in stored_room(sqlite_url, code).log]:
        assert time.monotonic() < deadline, "the match never reached a second round"
        time.sleep(0.2)
    first.kill()
    t = truth(sqlite_url, code)
    second = start_server(sqlite_url, NOMERCY_GRACE_SECONDS="60")
    ws = hello(second, code, host["token"])
    snap = ws.latest_state()
    room = ws.wait(lambda m: m["type"] == "welcome")["room"]
    after = truth(sqlite_url, code)  # the bot may already have moved again
    assert snap["version"] >= len(t.room.log)
    assert after.room.log[: len(t.room.log)] == t.room.log
    assert after.states[len(t.room.log)].to_dict() == t.states[-1].to_dict()
    assert snap["view"] == player_view(after.states[snap["version"]], 0).to_dict()
    assert room["round"] >= 2 and room["mode"] == "match" and sum(room["scores"]) > 0
