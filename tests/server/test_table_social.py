"""The server side of the table: nicknames, chat history, removal and its undo,
the rematch, revealed hands, HEAD and the installable app's files.

Each state change goes through the same pipeline and storage as the game, so each test
that stores something also restarts the server (SIGKILL) and looks again.
"""

from __future__ import annotations

import struct
import time
from typing import Any

import httpx
import pytest

from nomercy.server.base.names import clean_nickname, name_key
from nomercy.server.base.tables import rooms
from nomercy.server.rooms.storage import Storage
from patience import scaled

from .conftest import DATABASES, POSTGRES_URL, WS, create_room, hello, join_room, reset_postgres, start_room


def database(db: str) -> str | None:
    """None: the start_server fixture's SQLite file; else a freshly emptied PostgreSQL."""
    if db == "sqlite":
        return None
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    return POSTGRES_URL


FAST_STANDIN = {"NOMERCY_GRACE_SECONDS": "0.05"}


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\uff21\uff4e\uff4e", "Ann"),  # full-width letters
        ("  Bob  ", "Bob"),
        ("\ufb01ona", "fiona"),  # the fi ligature
        ("Botond", "Botond"),  # a name, not a bot
        ("Zoë \U0001f469\u200d\U0001f467", "Zoë \U0001f469\u200d\U0001f467"),  # a joined emoji stays
    ],
)
def test_nicknames_are_nfkc_normalised(raw: str, clean: str) -> None:
    assert clean_nickname(raw) == clean


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("\u200b\u3164\u2800", "no visible characters"),
        ("\u00a0\u200d", "no visible characters"),
        ("\u202eknA", "text-direction"),
        ("Ann\u2066", "text-direction"),
        ("Bot 2 (random)", "bot"),
        ("BOT", "bot"),
        ("\uff42\uff4f\uff54 1", "bot"),  # full-width "bot": NFKC first, then the bot check
        ("x" * 25, "longer than 24"),
    ],
)
def test_nicknames_that_mislead_are_refused_with_a_reason(raw: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        clean_nickname(raw)


def test_runs_of_spaces_inside_a_nickname_become_one() -> None:
    assert clean_nickname("Ana \u3000  Bell") == "Ana Bell"
    with pytest.raises(ValueError, match="control"):
        clean_nickname("Ana\nBell")  # a line break is refused, not collapsed


@pytest.mark.parametrize(
    "other",
    [
        "Ana",
        "ANA",
        "ana",
        "An\u200da",  # zero-width joiner
        "A\u200bna",  # zero-width space
        "An\u00ada",  # soft hyphen
        "\u0410na",  # Cyrillic capital A
        "\u0391n\u0430",  # Greek capital Alpha, Cyrillic small a
        "\uff21\uff4e\uff41",  # full-width
    ],
)
def test_names_a_person_cannot_tell_apart_have_one_key(other: str) -> None:
    assert name_key(other) == name_key("Ana") == "ana"


def test_names_that_differ_to_the_eye_keep_their_own_keys() -> None:
    keys = {name_key(n) for n in ("Ana", "Anna", "\u00c1na", "Ana B", "AnaB", "\u0411ob", "Bob")}
    assert len(keys) == 7
    assert name_key("Ana  \u00a0 B") == name_key("ana b")


def test_a_second_player_with_a_look_alike_name_is_refused(server: Any) -> None:
    """Names at one table are told apart by a person: a join whose name looks like a seated
    player's is refused with name_taken, and the seat stays open for another name."""
    host = create_room(server, nickname="Ana", seats=4)
    code = host["code"]
    for name in ("Ana", "ana", "An\u200da", "\u0410na", " ANA "):
        r = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"nickname": name}, timeout=10)
        assert r.status_code == 409, (name, r.text)
        detail = r.json()["detail"]
        assert detail["code"] == "name_taken" and "Ana already sits" in detail["message"]
    bea = join_room(server, code, "Bea")
    assert bea["seat"] == 1  # the refusals took no seat
    r = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"nickname": "BEA"}, timeout=10)
    assert r.status_code == 409 and "Bea already sits" in r.json()["detail"]["message"]
    assert join_room(server, code, "Anna")["seat"] == 2


def test_http_refuses_a_bad_nickname_and_stores_the_normal_form(server: Any) -> None:
    r = httpx.post(server.url + "/api/rooms", json={"nickname": "\u202eBot"}, timeout=10)
    assert r.status_code == 422 and "text-direction" in r.json()["detail"]["message"]
    host = create_room(server, nickname="\uff21\uff4e\uff4e", seats=3)
    r = httpx.post(f"{server.url}/api/rooms/{host['code']}/join", json={"nickname": "Bot 1"}, timeout=10)
    assert r.status_code == 422 and "bot" in r.json()["detail"]["message"]
    assert host["room"]["seats"][0]["nickname"] == "Ann"


def test_head_the_manifest_and_icons_drawn_by_code(server: Any) -> None:
    """The icons are drawn at their first request: on a busy machine that takes a while."""
    for path in ("/", "/join/ABCDEF"):
        r = httpx.head(server.url + path, timeout=10)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    manifest = httpx.get(server.url + "/manifest.webmanifest", timeout=10).json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        r = httpx.get(server.url + icon["src"], timeout=scaled(120))
        assert r.status_code == 200 and r.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            assert r.content[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", r.content[16:24])
            assert f"{width}x{height}" == icon["sizes"]
    assert httpx.get(server.url + "/icon-64.png", timeout=10).status_code == 404
    page = httpx.get(server.url + "/", timeout=10).text
    for needle in ('rel="manifest"', 'rel="icon"', 'property="og:title"', 'name="description"'):
        assert needle in page
    # Link previews need absolute URLs (Open Graph): built from the request's own host.
    host = server.url.split("//")[1]
    assert f'property="og:image" content="http://{host}/icon-512.png"' in page
    invite = httpx.get(server.url + "/join/ABCDEF", timeout=10).text
    assert f'property="og:url" content="http://{host}/join/ABCDEF"' in invite
    odd = httpx.get(server.url + "/join/%22%3E%3Cscript%3E", timeout=10).text
    assert "<script>" not in odd and f'property="og:url" content="http://{host}/"' in odd


@pytest.mark.parametrize("db", DATABASES)
def test_chat_history_survives_a_reload_and_a_restart(db: str, start_server: Any) -> None:
    first = start_server(database(db))
    host = create_room(first, nickname="Ann", seats=3, bots=1)
    guest = join_room(first, host["code"], "Bob")
    ann = hello(first, host["code"], host["token"])
    ann.wait(lambda m: m["type"] == "chat_history" and m["messages"] == [])
    ann.send({"type": "chat", "text": "hello " + "x" * 150})
    ann.wait(lambda m: m["type"] == "chat")
    bob = hello(first, host["code"], guest["token"])
    got = bob.wait(lambda m: m["type"] == "chat_history")
    assert [(m["nickname"], m["text"][:5]) for m in got["messages"]] == [("Ann", "hello")]
    first.kill()
    second = start_server(first.database_url)
    bob = hello(second, host["code"], guest["token"])
    got = bob.wait(lambda m: m["type"] == "chat_history")
    assert got["messages"][0]["seat"] == 0 and got["messages"][0]["text"].startswith("hello")
    watcher = hello(second, host["code"], None)  # spectators read the chat too
    assert watcher.wait(lambda m: m["type"] == "chat_history")["messages"]


def kick(server: Any, code: str, token: str, seat: int, what: str = "kick") -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/rooms/{code}/{what}",
        json={"seat": seat},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


@pytest.mark.parametrize("db", DATABASES)
def test_a_removed_player_is_let_back_in_by_the_host_even_after_a_restart(db: str, start_server: Any) -> None:
    first = start_server(database(db))
    host = create_room(first, nickname="Ann", seats=3, bots=1, turn_seconds=0)
    code = host["code"]
    guest = join_room(first, code, "Bob")
    bob = hello(first, code, guest["token"])
    start_room(first, code, host["token"])
    assert kick(first, code, host["token"], 1).status_code == 200
    bob.wait(lambda m: m["type"] == "kicked")
    info = httpx.get(f"{first.url}/api/rooms/{code}", timeout=10).json()
    assert info["removed"] == [{"seat": 1, "nickname": "Bob"}] and info["seats"][1]["kind"] == "bot"
    refused = WS(first.ws_url)
    refused.send({"type": "hello", "room": code, "token": guest["token"]})
    assert refused.error(0)["code"] == "unauthorized"
    # Only the host can undo, only for a removed seat.
    assert kick(first, code, guest["token"], 1, "readmit").status_code == 401
    assert kick(first, code, host["token"], 2, "readmit").status_code == 400
    first.kill()
    second = start_server(first.database_url)
    info = httpx.get(f"{second.url}/api/rooms/{code}", timeout=10).json()
    assert info["removed"] == [{"seat": 1, "nickname": "Bob"}]
    r = kick(second, code, host["token"], 1, "readmit")
    assert r.status_code == 200, r.text
    seat = r.json()["seats"][1]
    assert (seat["kind"], seat["nickname"], seat["standin"]) == ("human", "Bob", True)
    assert r.json()["removed"] == []
    back = hello(second, code, guest["token"])  # the old token works again
    welcome = back.wait(lambda m: m["type"] == "welcome")
    assert welcome["seat"] == 1 and not welcome["room"]["seats"][1]["standin"]


def after_id(server: Any, code: str) -> int:
    """The room's database id (the log is kept by id)."""
    from sqlalchemy import select

    storage = Storage(server.database_url)
    with storage.engine.connect() as conn:
        room_id = conn.execute(select(rooms.c.id).where(rooms.c.code == code)).scalar_one()
    storage.close()
    return int(room_id)


def wait_finished(server: Any, code: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10).json()
        if info["status"] == "finished":
            return info  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError("the round did not end")


@pytest.mark.parametrize("db", DATABASES)
def test_rematch_same_table_new_deal_confirmed_by_players_and_replayed_after_restart(
    db: str, start_server: Any
) -> None:
    first = start_server(database(db), **FAST_STANDIN)
    # Stand-in bots play both absent humans, so the round ends by itself.
    host = create_room(first, nickname="Ann", seats=3, bots=1, turn_seconds=0)
    code = host["code"]
    guest = join_room(first, code, "Bob")
    start_room(first, code, host["token"])
    rematch = f"{first.url}/api/rooms/{code}/rematch"
    auth = {"Authorization": f"Bearer {host['token']}"}
    early = httpx.post(rematch, headers=auth, timeout=10)
    assert early.status_code == 400 and "not over" in early.json()["detail"]["message"]
    info = wait_finished(first, code)
    ann = hello(first, code, host["token"])
    bob = hello(first, code, guest["token"])
    over = bob.latest_state()
    hands = over["reveal"]
    assert hands is not None and len(hands) == 3 and hands[1] == over["view"]["hand"]
    last = info["rounds"][-1]
    if last["reason"] == "played_out":
        assert hands[last["winner"]] == []
    # Bob is connected and has not confirmed: the host waits for him.
    r = httpx.post(rematch, headers=auth, timeout=10)
    assert r.status_code == 400 and "Bob" in r.json()["detail"]["message"]
    assert httpx.post(rematch, headers={"Authorization": f"Bearer {guest['token']}"}).status_code == 403
    mark = ann.mark()
    bob.send({"type": "rematch", "ready": True})
    ann.wait(lambda m: m["type"] == "room" and m["room"]["rematch"] == [1], start=mark)
    version = over["version"]
    mark = ann.mark()
    r = httpx.post(rematch, headers=auth, timeout=10)
    assert r.status_code == 200, r.text
    room = r.json()
    assert room["status"] == "playing" and room["rematch"] == [] and room["round"] == 1
    assert [s["kind"] for s in room["seats"]] == ["human", "human", "bot"]
    new = ann.wait(lambda m: m["type"] == "state" and m["version"] == version + 1, start=mark)
    assert new["events"][0]["type"] == "started" and new["reveal"] is None
    assert new["view"]["outcome"] is None and len(new["view"]["hand"]) == 7
    ann.close()
    bob.close()
    # The new game goes on (stand-ins again) and survives a SIGKILL exactly.
    time.sleep(0.5)
    before = httpx.get(f"{first.url}/api/rooms/{code}", timeout=10).json()
    first.kill()
    second = start_server(first.database_url, **FAST_STANDIN)
    after = httpx.get(f"{second.url}/api/rooms/{code}", timeout=10).json()
    # The stand-ins may have finished the round between the look and the kill: the
    # rebuilt room holds at least what was seen. It is the rematch's game (its own
    # round 1, at most one finished round: the first game's round is not in its match).
    assert after["rounds"][: len(before["rounds"])] == before["rounds"] and after["round"] == 1
    assert len(after["rounds"]) == (1 if after["status"] == "finished" else 0)
    wait_finished(second, code)
    log = Storage(first.database_url).log(after_id(second, code))
    assert sum(1 for _, action in log if action.startswith("@rematch ")) == 1
