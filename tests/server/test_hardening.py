"""Crowds and bad actors, each as it was reproduced against the earlier server:

spectator storms (capped, and room updates coalesced), sockets per address, sockets that
never say hello, chunked bodies over the limit, deeply nested JSON, loose coercion, one
address filling the server with rooms, idle lobbies and finished rooms kept for hours.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from typing import Any

import httpx

from .conftest import WS, ServerProcess, create_room, hello, start_room
from .truth import stored_room


def test_spectators_are_capped_per_room(start_server: Any) -> None:
    server = start_server(NOMERCY_MAX_SPECTATORS="3")
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    watchers = [hello(server, host["code"], None) for _ in range(3)]
    late = WS(server.ws_url)
    late.send({"type": "hello", "room": host["code"], "token": None})
    assert late.error(0)["code"] == "room_full"
    late.wait_closed()
    # The players' seats are not part of the gallery.
    player = hello(server, host["code"], host["token"])
    assert player.wait(lambda m: m["type"] == "welcome")["room"]["spectators"] == 3
    watchers[0].close()
    again = WS(server.ws_url)
    again.send({"type": "hello", "room": host["code"], "token": None})
    again.wait(lambda m: m["type"] == "welcome", timeout=10)


def test_a_join_storm_sends_coalesced_room_updates(start_server: Any) -> None:
    """40 spectators arrive: the player gets a handful of room messages, not one per arrival
    (which every connection would get: the square of the crowd)."""
    crowd = 40
    server = start_server(
        NOMERCY_MAX_SPECTATORS="100", NOMERCY_MAX_SOCKETS_PER_ADDRESS="100", NOMERCY_ROOM_UPDATE_DELAY="0.5"
    )
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    player = hello(server, host["code"], host["token"])
    start = player.mark()
    watchers = [hello(server, host["code"], None) for _ in range(crowd)]
    last = player.wait(lambda m: m["type"] == "room" and m["room"]["spectators"] == crowd, start=start)
    updates = [m for m in player.received[start:] if m["type"] == "room"]
    assert len(updates) <= crowd // 4, len(updates)
    assert last["room"]["spectators"] == crowd
    # Leaving is coalesced the same way, and the count settles at the truth.
    start = player.mark()
    for ws in watchers:
        ws.close()
    player.wait(lambda m: m["type"] == "room" and m["room"]["spectators"] == 0, start=start)
    assert len([m for m in player.received[start:] if m["type"] == "room"]) <= crowd // 4


def test_sockets_per_address_are_capped_and_seated_players_do_not_count(start_server: Any) -> None:
    server = start_server(NOMERCY_MAX_SOCKETS_PER_ADDRESS="3", NOMERCY_HELLO_TIMEOUT="30")
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    idle = [WS(server.ws_url) for _ in range(3)]
    for ws in idle:  # each one is accepted and answers
        start = ws.mark()
        ws.send({"type": "ping"})
        ws.wait(lambda m: m["type"] == "pong", start=start)
    refused = WS(server.ws_url)
    assert refused.error(0)["code"] == "rate_limited"
    refused.wait_closed()
    # One of them proves a seat: it stops counting, so there is room for another socket.
    idle[0].send({"type": "hello", "room": host["code"], "token": host["token"]})
    idle[0].wait(lambda m: m["type"] == "welcome")
    fresh = WS(server.ws_url)
    fresh.send({"type": "ping"})
    fresh.wait(lambda m: m["type"] == "pong")
    # Closing frees the count too.
    for ws in idle[1:]:
        ws.close()
    deadline = time.monotonic() + 10
    while True:
        probe = WS(server.ws_url)
        probe.send({"type": "ping"})
        first = probe.wait(lambda m: m["type"] in ("pong", "error"))
        if first["type"] == "pong":
            break
        assert time.monotonic() < deadline, "closed sockets still counted"
        time.sleep(0.1)


def test_a_socket_that_does_not_say_hello_is_closed(start_server: Any) -> None:
    server = start_server(NOMERCY_HELLO_TIMEOUT="0.5")
    silent = WS(server.ws_url)
    silent.send({"type": "ping"})  # pings do not count as hello
    error = silent.error(0, timeout=10)
    assert error["code"] == "hello_first" and "hello within" in error["message"]
    silent.wait_closed(timeout=10)
    # One that says hello in time stays.
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    player = hello(server, host["code"], host["token"])
    time.sleep(1.0)
    start = player.mark()
    player.send({"type": "ping"})
    player.wait(lambda m: m["type"] == "pong", start=start)


def test_a_chunked_body_over_the_limit_is_refused_before_it_is_all_read(server: ServerProcess) -> None:
    """The body has no Content-Length; the server answers 413 while the client is still
    sending, having read a bounded part of it."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(
        b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"  # 16 KiB of JSON whitespace per chunk
    sent, limit = 0, 64 * 1024 * 1024
    sock.setblocking(False)
    answer = b""
    while sent < limit:
        readable, writable, _ = select.select([sock], [sock], [], 5)
        if readable:
            answer = sock.recv(65536)
            break
        if writable:
            try:
                sent += sock.send(chunk)
            except BlockingIOError:
                pass
            except ConnectionResetError:
                # The server answered and closed while this was still sending (its close
                # with unread data resets the connection): the answer may already wait in
                # the receive buffer.
                with contextlib.suppress(OSError):
                    answer = sock.recv(65536)
                break
        elif not readable:
            break  # the server stopped reading and has not answered: fails below
    sock.setblocking(True)
    sock.settimeout(10)
    with contextlib.suppress(OSError):
        while answer and not answer.endswith(b"}"):  # the JSON body may come in its own segment
            more = sock.recv(65536)
            if not more:
                break
            answer += more
    sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), (answer[:100], sent)
    # (The server closes with the rest unread, so a reset may beat the body: the error body
    # is checked with a declared length below.)
    assert b"}" not in answer or b'"too_large"' in answer
    assert sent < 8 * 1024 * 1024, f"the client sent {sent} bytes before the refusal"
    declared = httpx.post(
        server.url + "/api/rooms", content=b" " * 20_000, headers={"Content-Type": "application/json"}
    )
    assert declared.status_code == 413 and declared.json()["detail"]["code"] == "too_large"


def test_deeply_nested_json_is_refused_with_bad_json(server: ServerProcess) -> None:
    nested = "[" * 1500 + "]" * 1500
    ws = WS(server.ws_url)
    ws.send('{"type": "ping", "x": ' + nested + "}")
    error = ws.error(0)
    assert error["code"] == "bad_json" and "nested" in error["message"]
    ws.send({"type": "ping"})  # the connection is still fine
    ws.wait(lambda m: m["type"] == "pong")
    r = httpx.post(
        server.url + "/api/rooms",
        content='{"nickname": "A", "rules": {"x": ' + "[" * 3000 + "]" * 3000 + "}}",
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_json"
    # Brackets inside strings are text, not nesting.
    start = ws.mark()
    ws.send({"type": "chat", "text": "[[[[" * 40})
    assert ws.error(start)["code"] == "hello_first"


def test_loose_coercion_is_refused(server: ServerProcess) -> None:
    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=3)
    ann = hello(server, host["code"], host["token"])
    start_room(server, host["code"], host["token"])
    ann.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    for bad in ({"version": "0"}, {"version": True}, {"version": 0.0}):
        start = ann.mark()
        ann.send({"type": "action", "action": "draw", **bad})
        assert ann.error(start)["code"] == "bad_message", bad
    for ready in ("yes", 1):  # the table's messages are as strict as the game's
        start = ann.mark()
        ann.send({"type": "rematch", "ready": ready})
        assert ann.error(start)["code"] == "bad_message", ready
    ws = WS(server.ws_url)
    ws.send({"type": "hello", "room": host["code"], "token": None, "protocol": "1"})
    assert ws.error(0)["code"] == "bad_message"
    for body in (
        {"nickname": "A", "seats": "3"},
        {"nickname": "A", "seats": 3, "bots": True},
        {"nickname": 7},
    ):
        r = httpx.post(server.url + "/api/rooms", json=body)
        assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_message", (body, r.text)
    assert not [seat for seat, _ in stored_room(server.database_url, host["code"]).log if seat == 0]


def test_rooms_per_address_are_capped(start_server: Any) -> None:
    server = start_server(NOMERCY_MAX_ROOMS_PER_ADDRESS="2", NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1")
    body = {"nickname": "A", "seats": 2, "bots": 1}
    mine = {"X-Forwarded-For": "10.0.0.1"}
    codes = [httpx.post(server.url + "/api/rooms", json=body, headers=mine) for _ in range(3)]
    assert [r.status_code for r in codes] == [200, 200, 429]
    assert codes[2].json()["detail"]["code"] == "rate_limited"
    other = httpx.post(server.url + "/api/rooms", json=body, headers={"X-Forwarded-For": "10.0.0.2"})
    assert other.status_code == 200


def test_idle_lobbies_expire_for_good(start_server: Any, sqlite_url: str) -> None:
    env = {"NOMERCY_LOBBY_IDLE_SECONDS": "0.5", "NOMERCY_SWEEP_SECONDS": "0.1"}
    server = start_server(sqlite_url, **env)
    idle = create_room(server, nickname="Ann", seats=2, bots=0)
    watched = create_room(server, nickname="Bob", seats=2, bots=0)
    keeper = hello(server, watched["code"], watched["token"])
    deadline = time.monotonic() + 15
    while httpx.get(f"{server.url}/api/rooms/{idle['code']}").status_code != 404:
        assert time.monotonic() < deadline, "the idle lobby is still open"
        time.sleep(0.2)
    assert stored_room(server.database_url, idle["code"]).status == "expired"
    # A lobby with someone in it stays; a restart does not bring the expired one back.
    assert httpx.get(f"{server.url}/api/rooms/{watched['code']}").status_code == 200
    keeper.close()
    server.stop()
    again = start_server(sqlite_url, NOMERCY_LOBBY_IDLE_SECONDS="600")
    assert httpx.get(f"{again.url}/api/rooms/{idle['code']}").status_code == 404
    assert httpx.get(f"{again.url}/api/rooms/{watched['code']}").status_code == 200


def test_finished_rooms_are_reclaimed(start_server: Any) -> None:
    server = start_server(
        NOMERCY_FINISHED_ROOM_SECONDS="0.5", NOMERCY_SWEEP_SECONDS="0.1", NOMERCY_GRACE_SECONDS="0.05"
    )
    # The host never connects: after the grace period a stand-in plays the seat, bots the rest.
    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=11)
    start_room(server, host["code"], host["token"])
    watcher = hello(server, host["code"], None)
    watcher.wait(lambda m: m["type"] == "room" and m["room"]["status"] == "finished", timeout=60)
    watcher.wait_closed(timeout=15)
    assert httpx.get(f"{server.url}/api/rooms/{host['code']}").status_code == 404
    assert stored_room(server.database_url, host["code"]).status == "finished"


def test_room_messages_keep_their_order_with_state(server: ServerProcess) -> None:
    """A coalesced room update is flushed before the next state, so a client never sees the
    game start (a state with a view) while its room still says lobby."""
    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=8)
    ann = hello(server, host["code"], host["token"])
    start_room(server, host["code"], host["token"])
    first_view = ann.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    index = ann.received.index(first_view)
    rooms = [m for m in ann.received[:index] if m["type"] in ("room", "welcome")]
    assert rooms[-1]["room"]["status"] == "playing"


def test_a_seat_over_its_connection_limit_loses_its_oldest_never_the_newcomer(start_server: Any) -> None:
    server = start_server(NOMERCY_MAX_CONNECTIONS_PER_SEAT="2")
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    first, second = hello(server, host["code"], host["token"]), hello(server, host["code"], host["token"])
    third = hello(server, host["code"], host["token"])  # a reconnect always gets in...
    assert third.wait(lambda m: m["type"] == "welcome")["seat"] == 0
    first.wait_closed()  # ...and the oldest connection of the seat makes room
    for ws in (second, third):
        start = ws.mark()
        ws.send({"type": "ping"})
        ws.wait(lambda m: m["type"] == "pong", start=start)
