"""Every kind of bad message is refused with its error code, and changes nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from nomercy.match import Match
from nomercy.rules import Rules

from .conftest import WS, ServerProcess, create_room, hello, join_room, start_room
from .truth import stored_room


def two_humans(server: ServerProcess, **body: Any) -> tuple[str, dict[int, WS], dict[int, str]]:
    """A started table of two humans and no bot: nothing moves unless a test sends it."""
    host = create_room(server, nickname="Ann", seats=2, bots=0, seed=body.pop("seed", 99), **body)
    code = host["code"]
    guest = join_room(server, code, "Bob")
    clients = {0: hello(server, code, host["token"]), 1: hello(server, code, guest["token"])}
    start_room(server, code, host["token"])
    for ws in clients.values():
        ws.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    return code, clients, {0: host["token"], 1: guest["token"]}


def refused(ws: WS, message: dict[str, Any] | str, code: str) -> dict[str, Any]:
    start = ws.mark()
    ws.send(message)
    error = ws.error(start)
    assert error["code"] == code, error
    return error


def test_malformed_and_oversized_messages_are_refused_with_codes(server: ServerProcess) -> None:
    code, clients, _ = two_humans(server)
    ws = clients[0]
    before = len(stored_room(server.database_url, code).log)
    refused(ws, "this is not json", "bad_json")
    refused(ws, "[1, 2, 3]", "bad_json")
    refused(ws, {"type": "fly"}, "bad_message")
    refused(ws, {"type": "action", "action": "draw"}, "bad_message")  # no version
    refused(ws, {"type": "action", "action": "draw", "version": -1}, "bad_message")
    refused(ws, {"type": "action", "action": "draw", "version": 0, "cheat": True}, "bad_message")
    refused(ws, {"type": "action", "action": "x" * 41, "version": 0}, "bad_message")
    refused(ws, {"type": "chat", "text": "   "}, "bad_message")
    refused(ws, {"type": "chat", "text": "bell\x07"}, "bad_message")
    refused(ws, {"type": "react", "reaction": "rickroll"}, "bad_message")
    refused(ws, {"type": "ping", "pad": "x" * 5000}, "too_large")
    refused(ws, {"type": "action", "action": "hop 3", "version": 0}, "invalid_action")
    refused(ws, {"type": "hello", "room": code, "token": None}, "already_joined")
    # The connection is still usable, and nothing reached the game.
    start = ws.mark()
    ws.send({"type": "ping"})
    ws.wait(lambda m: m["type"] == "pong", start=start)
    assert len(stored_room(server.database_url, code).log) == before


def test_out_of_turn_stale_replayed_and_illegal_actions_change_nothing(server: ServerProcess) -> None:
    code, clients, _ = two_humans(server)
    view = clients[0].latest_state()["view"]
    version = clients[0].latest_state()["version"]
    current = view["current_player"]
    other = 1 - current
    me, them = clients[current], clients[other]
    legal = me.latest_state()["view"]["legal_actions"]
    mark_them = them.mark()

    refused(them, {"type": "action", "action": "draw", "version": version}, "not_your_turn")
    refused(me, {"type": "action", "action": legal[0], "version": version + 1}, "stale")
    refused(me, {"type": "action", "action": "take", "version": version}, "illegal_action")
    refused(me, {"type": "action", "action": "catch 1", "version": version}, "too_late")
    # Nothing was broadcast: no state message reached the other player.
    time.sleep(0.2)
    assert not [m for m in them.received[mark_them:] if m["type"] == "state"]
    assert len(stored_room(server.database_url, code).log) == 0

    # A legal action applies once; the same message sent again is dropped as stale.
    message = {"type": "action", "action": legal[0], "version": version, "id": "a1"}
    start = me.mark()
    me.send(message)
    me.wait(lambda m: m["type"] == "state" and m["version"] == version + 1, start=start)
    error = refused(me, message, "stale")
    assert error["ref"] == "a1" and error["version"] == version + 1
    assert len(stored_room(server.database_url, code).log) == 1


def test_spectators_and_players_before_the_start_cannot_act(server: ServerProcess) -> None:
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    code = host["code"]
    ann = hello(server, code, host["token"])
    refused(ann, {"type": "action", "action": "draw", "version": 0}, "not_started")
    start_room(server, code, host["token"])
    watcher = hello(server, code, None)
    version = watcher.latest_state()["version"]
    refused(watcher, {"type": "action", "action": "draw", "version": version}, "forbidden")
    refused(watcher, {"type": "chat", "text": "hi"}, "forbidden")


def test_hello_with_a_wrong_token_or_code_is_refused(server: ServerProcess) -> None:
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    ws = WS(server.ws_url)
    refused(ws, {"type": "action", "action": "draw", "version": 0}, "hello_first")
    refused(ws, {"type": "hello", "room": host["code"], "token": "x" * 32}, "unauthorized")
    other = create_room(server, nickname="Eve", seats=2, bots=1)
    refused(ws, {"type": "hello", "room": host["code"], "token": other["token"]}, "unauthorized")
    code = "ZZZZZZ" if host["code"] != "ZZZZZZ" else "YYYYYY"
    refused(ws, {"type": "hello", "room": code, "token": None}, "not_found")
    refused(ws, {"type": "hello", "room": "bad!", "token": None}, "bad_message")
    refused(ws, {"type": "hello", "room": host["code"], "token": None, "protocol": 99}, "bad_message")
    # Never seated: no welcome arrived.
    assert not [m for m in ws.received if m["type"] in ("welcome", "state")]
    ws.close()


def test_reconnect_with_the_token_lands_in_the_same_seat(server: ServerProcess) -> None:
    code, clients, tokens = two_humans(server)
    before = clients[1].latest_state()
    clients[1].close()
    again = hello(server, code, tokens[1])
    welcome = again.wait(lambda m: m["type"] == "welcome")
    assert welcome["seat"] == 1
    snap = again.latest_state()
    assert snap["snapshot"] and snap["view"] == before["view"] and snap["version"] == before["version"]
    # The game log came with the snapshot, redacted for this seat.
    assert snap["events"] and snap["events"][0]["type"] == "started"


def test_bad_origin_is_refused_at_the_handshake(server: ServerProcess) -> None:
    with pytest.raises(InvalidStatus) as info:
        connect(server.ws_url, additional_headers={"Origin": "https://evil.example"}, open_timeout=5)
    assert info.value.response.status_code == 403
    same = WS(server.ws_url, origin=server.url)
    same.send({"type": "ping"})
    same.wait(lambda m: m["type"] == "pong")
    same.close()


def test_host_removes_a_player_and_a_bot_takes_the_seat(server: ServerProcess) -> None:
    code, clients, tokens = two_humans(server)
    r = httpx.post(
        f"{server.url}/api/rooms/{code}/kick",
        json={"seat": 0},
        headers={"Authorization": f"Bearer {tokens[1]}"},
    )
    assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden"
    r = httpx.post(
        f"{server.url}/api/rooms/{code}/kick",
        json={"seat": 1},
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["seats"][1]["kind"] == "bot"
    clients[1].wait(lambda m: m["type"] == "kicked")
    clients[1].wait_closed()
    ws = WS(server.ws_url)
    refused(ws, {"type": "hello", "room": code, "token": tokens[1]}, "unauthorized")
    # The bot now plays seat 1: the game moves on without Bob.
    state = clients[0].latest_state()
    if state["view"]["current_player"] == 0:
        legal = state["view"]["legal_actions"]
        clients[0].send({"type": "action", "action": legal[0], "version": state["version"]})
    clients[0].wait(
        lambda m: m["type"] == "state" and any(e.get("seat") == 1 for e in m["events"]), timeout=10
    )


def test_uno_call_and_catch_race_the_server_clock_decides(server: ServerProcess) -> None:
    """U1/U2: the call and the catch are sent for the same version; exactly one wins."""
    rules = {"hand_size": 2}
    for seed in range(2000):
        state = Match(2, Rules(hand_size=2), seed).state
        plays = [a for a in state.legal_actions() if a.kind == "play" and a.card.is_number and not a.uno]
        if plays:
            break
    code, clients, _ = two_humans(server, seed=seed, rules=rules)
    first = state.current_player
    me, them = clients[first], clients[1 - first]
    version = me.latest_state()["version"]
    me.send({"type": "action", "action": str(plays[0]), "version": version})
    opened = them.wait(lambda m: m["type"] == "state" and m["version"] == version + 1)
    assert f"catch {first}" in opened["view"]["legal_actions"]
    start_me, start_them = me.mark(), them.mark()
    them.send({"type": "action", "action": f"catch {first}", "version": version + 1, "id": "c"})
    me.send({"type": "action", "action": "uno", "version": version + 1, "id": "u"})
    winner_state = them.wait(lambda m: m["type"] == "state" and m["version"] == version + 2, start=start_them)
    kinds = [e["type"] for e in winner_state["events"]]
    assert kinds in (["caught", "drew"], ["uno"]), kinds
    loser, start = (me, start_me) if kinds[0] == "caught" else (them, start_them)
    error = loser.error(start)
    assert error["code"] == "too_late" and error["ref"] in ("u", "c")
    assert len(stored_room(server.database_url, code).log) == 2


def test_rate_limits_on_messages_rooms_and_code_guessing(start_server: Any) -> None:
    server = start_server(
        NOMERCY_MESSAGE_RATE="1", NOMERCY_MESSAGE_BURST="5", NOMERCY_ROOMS_PER_MINUTE="3",
        NOMERCY_JOIN_FAILURES_PER_MINUTE="4",
    )  # fmt: skip
    ws = WS(server.ws_url)
    codes = []
    for _ in range(8):
        start = ws.mark()
        ws.send({"type": "ping"})
        codes.append(ws.wait(lambda m: m["type"] in ("pong", "error"), start=start).get("code"))
    assert codes[:5] == [None] * 5 and "rate_limited" in codes[5:]

    statuses = [
        httpx.post(server.url + "/api/rooms", json={"nickname": "A", "seats": 2, "bots": 1}).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]

    guesses = [httpx.get(f"{server.url}/api/rooms/ZZZZZ{c}").status_code for c in "23456"]
    assert guesses[:4] == [404] * 4 and guesses[4] == 429
    # The guessing limit also covers WebSocket hellos from the same address.
    other = WS(server.ws_url)
    other.send(json.dumps({"type": "hello", "room": "ZZZZZ7", "token": None}))
    assert other.error(0)["code"] == "rate_limited"


def test_chat_is_relayed_verbatim_and_rate_limited(server: ServerProcess) -> None:
    _code, clients, _ = two_humans(server)
    text = "<img src=x onerror=alert(1)> & hi"
    clients[0].send({"type": "chat", "text": text})
    got = clients[1].wait(lambda m: m["type"] == "chat")
    assert got["text"] == text and got["seat"] == 0 and got["nickname"] == "Ann"
    clients[0].send({"type": "react", "reaction": "gg"})
    assert clients[1].wait(lambda m: m["type"] == "reaction")["reaction"] == "gg"
    codes = []
    for i in range(8):
        start = clients[0].mark()
        clients[0].send({"type": "chat", "text": f"spam {i}"})
        time.sleep(0.02)
        codes.extend(m.get("code") for m in clients[0].received[start:] if m["type"] == "error")
    assert "rate_limited" in codes


def test_http_api_refusals(server: ServerProcess) -> None:
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "A", "seats": 2, "bots": 2})
    assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_request"
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "A", "rules": {"mercy_limit": 3}})
    assert r.status_code == 400 and r.json()["detail"]["code"] == "invalid_rules"
    assert "mercy_limit" in r.json()["detail"]["message"]
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "A", "rules": {"deck": {"R7": 10**9}}})
    assert r.status_code == 400 and r.json()["detail"]["code"] == "invalid_rules"
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "A", "rules": {"no_such": 1}})
    assert r.json()["detail"]["code"] == "invalid_rules"
    r = httpx.post(server.url + "/api/rooms", json={"nickname": ""})
    assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_message"
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "A", "bot": "godlike"})
    assert r.json()["detail"]["code"] == "bad_request"
    host = create_room(server, seats=2, bots=0)
    join_room(server, host["code"], "B")
    r = httpx.post(f"{server.url}/api/rooms/{host['code']}/join", json={"nickname": "C"})
    assert r.status_code == 409 and r.json()["detail"]["code"] == "room_full"
    r = httpx.post(f"{server.url}/api/rooms/{host['code']}/start", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    opts = httpx.get(server.url + "/api/options").json()
    assert "random" in opts["bots"] and {r["name"] for r in opts["rules"]} >= {"stacking", "mercy_limit"}
