"""Kept games over a real server: every finished round kept, who may open it, its replay's
frames, the record file, replaying an uploaded file, "my games", reviews in a bounded queue
(429 past the bounds), the coach's hint and who may ask for it, retention, migration 0003.
On SQLite, and the keeping and reading on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, delete, inspect

from nomercy.decisions import decisions
from nomercy.record import GameRecord, replay
from nomercy.server.base import schema
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import Kept, game_seats, games
from nomercy.server.games.reviews import Job, ReviewQueue
from nomercy.server.games.store import GameStore
from nomercy.views import player_view

from .conftest import (
    DATABASES,
    POSTGRES_URL,
    WS,
    ServerProcess,
    create_room,
    hello,
    join_room,
    reset_postgres,
    start_room,
)
from .test_game import play_humans

#: Small reviews and hints (Python playouts): the tests check behaviour, not strength. The
#: review workers merely nice (not idle-class): a busy test machine would starve them.
QUICK = {
    "NOMERCY_REVIEW_WORLDS": "4",
    "NOMERCY_HINT_WORLDS": "4",
    "NOMERCY_REVIEW_NATIVE": "0",
    "NOMERCY_REVIEW_IDLE": "0",
}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def finished_round(server: ServerProcess, seed: int, **body: Any) -> tuple[dict[str, Any], WS]:
    """A two-seat room (a person and a bot) played to its end by the person; its game id."""
    made = create_room(server, seats=2, bots=1, bot="heuristic", seed=seed, **body)
    start_room(server, made["code"], made["token"])
    ws = hello(server, made["code"], made["token"])
    play_humans({0: ws}, random.Random(seed))
    return made, ws


def kept_games(
    server: ServerProcess, code: str, token: str, count: int = 1, timeout: float = 15.0
) -> list[dict[str, Any]]:
    """The room's games once ``count`` are kept (keeping runs off the event loop), as one
    of its players lists them (with ``token``, a seat token of the room)."""
    deadline = time.monotonic() + timeout
    while True:
        r = httpx.get(f"{server.url}/api/rooms/{code}/games", headers=bearer(token), timeout=10)
        assert r.status_code == 200, r.text
        games: list[dict[str, Any]] = r.json()["games"]
        if len(games) >= count or time.monotonic() > deadline:
            assert len(games) >= count, f"{len(games)} game(s) kept, {count} expected"
            return games
        time.sleep(0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The module's one server (quick reviews and hints)."""
    folder = tmp_path_factory.mktemp("kept")
    srv = ServerProcess(f"sqlite:///{folder / 'rooms.sqlite3'}", QUICK, log=folder / "server.log").start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("db", DATABASES)
def test_a_finished_round_is_kept_and_replays_with_every_hand(db: str, start_server: Any) -> None:
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        server = start_server(POSTGRES_URL, **QUICK)
    else:
        server = start_server(**QUICK)
    made, ws = finished_round(server, 11)
    final = ws.latest_state()
    (listed,) = kept_games(server, made["code"], made["token"])
    assert listed["round"] == 1 and listed["access"] == "players"
    assert listed["result"]["winner"] == final["view"]["outcome"]["winner"]
    game = httpx.get(
        f"{server.url}/api/games/{listed['id']}", headers=bearer(made["token"]), timeout=10
    ).json()
    assert game["id"] == listed["id"] and game["room"] == made["code"]
    assert [p["bot"] for p in game["players"]] == [False, True] and game["players"][0]["name"] == "Host"
    record = GameRecord.from_dict(game["record"])
    assert len(game["frames"]) == len(record.actions) + 1
    first, last = game["frames"][0], game["frames"][-1]
    assert first["action"] is None and first["events"][0]["type"] == "started"
    # The end's table shows every hand, as the end screen revealed them.
    assert last["table"]["hands"] == final["reveal"]
    assert last["table"]["outcome"]["winner"] == game["result"]["winner"]
    # Each frame is the engine's state after that many actions, every hand shown.
    for n in (1, len(record.actions) // 2):
        state = replay(record, n)
        assert game["frames"][n]["table"]["hands"] == [[c.code for c in h] for h in state.hands]
        assert game["frames"][n]["action"] == str(record.actions[n - 1][1])
    lines = [e["line"] for f in game["frames"] for e in f["events"] if e["line"] is not None]
    assert lines and all(set(line) >= {"key", "params"} for line in lines)
    # The record as a download.
    r = httpx.get(f"{server.url}/api/games/{listed['id']}/record", headers=bearer(made["token"]), timeout=10)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert r.json() == game["record"]


def test_who_may_open_a_game_is_the_rooms_setting(server: ServerProcess) -> None:
    url = server.url
    made, _ = finished_round(server, 12)  # default: the players only
    (game,) = kept_games(server, made["code"], made["token"])
    for headers in ({}, bearer("x" * 32), {"Authorization": "Basic abc"}):
        r = httpx.get(f"{url}/api/games/{game['id']}", headers=headers, timeout=10)
        assert r.status_code == 403, r.text
        assert r.json()["detail"]["code"] == "forbidden" and "room" not in r.json()["detail"]
        assert made["code"] not in r.text  # the refusal hands out no join code
        assert (
            httpx.get(f"{url}/api/games/{game['id']}/record", headers=headers, timeout=10).status_code == 403
        )
        assert (
            httpx.get(f"{url}/api/games/{game['id']}/review", headers=headers, timeout=10).status_code == 403
        )
    assert (
        httpx.get(f"{url}/api/games/{game['id']}", headers=bearer(made["token"]), timeout=10).status_code
        == 200
    )
    # "link": anyone with the link.
    open_made, _ = finished_round(server, 13, replays="link")
    (open_game,) = kept_games(server, open_made["code"], open_made["token"])
    assert open_game["access"] == "link"
    assert httpx.get(f"{url}/api/games/{open_game['id']}", timeout=10).status_code == 200
    # A setting that is neither is refused at creation.
    r = httpx.post(f"{url}/api/rooms", json={"nickname": "Ann", "replays": "everyone"}, timeout=10)
    assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_message"


def test_unknown_ids_are_a_plain_404_and_the_page_route_serves_the_client(server: ServerProcess) -> None:
    url = server.url
    bodies = set()
    for game_id in ("A" * 22, "short", "x" * 40, "a.b.c.d.e.f.g.h.i", "ZZZZZZZZZZZZZZZZZZZZZZ"):
        for path in ("", "/record", "/review"):
            r = httpx.get(f"{url}/api/games/{game_id}{path}", timeout=10)
            assert r.status_code == 404, (game_id, path, r.text)
            bodies.add(r.text)
    assert len(bodies) == 1 and json.loads(bodies.pop())["detail"]["code"] == "not_found"  # all alike
    assert httpx.post(f"{url}/api/games/{'A' * 22}/review", timeout=10).status_code == 404
    r = httpx.get(f"{url}/g/{'A' * 22}", timeout=10)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert httpx.get(f"{url}/api/rooms/ZZZZZZ/games", timeout=10).status_code == 404
    assert httpx.get(f"{url}/api/rooms/bad/games", timeout=10).status_code == 404


def test_my_games_from_the_seat_tokens_a_browser_keeps(server: ServerProcess) -> None:
    url = server.url
    made, _ = finished_round(server, 14)
    (game,) = kept_games(server, made["code"], made["token"])
    r = httpx.post(f"{url}/api/games/mine", json={"tokens": ["y" * 30, made["token"]]}, timeout=10)
    assert r.status_code == 200, r.text
    mine = [g for g in r.json()["games"] if g["id"] == game["id"]]
    assert mine and mine[0]["seat"] == 0 and mine[0]["room"] == made["code"]
    assert httpx.post(f"{url}/api/games/mine", json={"tokens": ["y" * 30]}, timeout=10).json() == {
        "games": []
    }
    for bad in (
        {"tokens": []},
        {"tokens": [1234567890123456789]},
        {"tokens": ["x"]},
        {},
        {"tokens": ["y" * 30] * 51},
    ):
        r = httpx.post(f"{url}/api/games/mine", json=bad, timeout=10)
        assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_message", bad


def test_an_uploaded_record_replays_or_names_the_step_that_fails(server: ServerProcess) -> None:
    url = server.url + "/api/records/replay"
    record, state = GameRecord.start(3, seed=5)
    rng = random.Random(5)
    while state.outcome is None:
        seat = state.current
        assert seat is not None
        action = rng.choice(state.legal_actions(seat))
        state.apply(action, seat)
        record.add(seat, action)
    good = record.to_json().encode()
    r = httpx.post(url, content=good, timeout=30)
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["frames"]) == len(record.actions) + 1 and body["result"]["winner"] == state.outcome.winner
    assert body["frames"][-1]["table"]["hands"] == [[c.code for c in h] for h in state.hands]

    def refused(content: bytes, status: int, step: str) -> str:
        r = httpx.post(url, content=content, timeout=30)
        assert r.status_code == status, r.text
        detail = r.json()["detail"]
        assert detail["step"] == step, detail
        return str(detail["detail"])

    refused(b"\xff\xfe not text", 400, "read")
    refused(b"", 400, "read")
    refused(b"{not json", 400, "parse")
    refused(b'{"format": "something else"}', 400, "load")
    refused(json.dumps({**record.to_dict(), "actions": [[0, "fly away"]]}).encode(), 400, "load")
    bad = record.to_dict()
    bad["actions"] = [bad["actions"][0], bad["actions"][0], *bad["actions"][1:]]
    assert "action 1" in refused(json.dumps(bad).encode(), 400, "replay")
    # The refused action's place, as numbers a client words in its reader's language.
    r = httpx.post(url, content=json.dumps(bad).encode(), timeout=30)
    assert {k: r.json()["detail"][k] for k in ("index", "seat")} == {"index": 1, "seat": bad["actions"][1][0]}
    assert "index" not in httpx.post(url, content=b"{not json", timeout=30).json()["detail"]
    # Over the size limit (256 KiB): refused while it arrives.
    refused(b" " * 300_000 + good, 413, "read")
    deep = b"[" * 5000 + b"]" * 5000
    refused(deep, 400, "parse")


def test_a_review_is_queued_computed_once_and_stored(server: ServerProcess) -> None:
    url = server.url
    made, _ = finished_round(server, 15, replays="link")
    (game,) = kept_games(server, made["code"], made["token"])
    assert httpx.get(f"{url}/api/games/{game['id']}/review", timeout=10).json()["status"] == "none"
    r = httpx.post(f"{url}/api/games/{game['id']}/review", timeout=10)
    assert r.status_code == 202 and r.json()["status"] in ("queued", "running", "done")
    deadline = time.monotonic() + 120
    seen = set()
    while True:
        status = httpx.get(f"{url}/api/games/{game['id']}/review", timeout=10).json()
        seen.add(status["status"])
        assert 0.0 <= status["progress"] <= 1.0
        if status["status"] == "done" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status["status"] == "done", status
    review = status["review"]
    assert review["format"] == "nomercy.review" and review["format_version"] == 1
    assert review["settings"]["worlds"] == 4
    # Each decision names the action chosen and the expert's choice in words: the labels the
    # deciding seat's choices had just before it (as state.decisions.choices carry them).
    record = GameRecord.from_dict(httpx.get(f"{url}/api/games/{game['id']}/record", timeout=10).json())
    assert review["decisions"]
    for d in review["decisions"]:
        before = decisions(player_view(replay(record, d["index"]), d["seat"]))
        words = {str(c.action): c.label.to_dict() for c in before.choices}
        assert d["chosen_label"] == words[d["chosen"]] and d["best_label"] == words[d["best"]], d
        assert set(d["chosen_label"]) == {"key", "params"} and d["chosen_label"]["key"].startswith("choice.")
    # Stored: asking again answers at once with the same review.
    again = httpx.post(f"{url}/api/games/{game['id']}/review", timeout=10)
    assert again.status_code == 202 and again.json() == {"status": "done", "progress": 1.0}
    assert httpx.get(f"{url}/api/games/{game['id']}/review", timeout=10).json()["review"] == review


def test_review_requests_past_the_bounds_get_busy(start_server: Any) -> None:
    server = start_server(
        NOMERCY_REVIEW_WORLDS="2000",  # slow on purpose: the first ones are still running
        NOMERCY_REVIEW_NATIVE="0",
        NOMERCY_REVIEW_QUEUE="2",
        NOMERCY_REVIEWS_PER_ADDRESS="1",
        NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1",
    )
    ids = []
    for seed in (21, 22, 23):
        made, ws = finished_round(server, seed, replays="link")
        ws.close()
        ids.append(kept_games(server, made["code"], made["token"])[0]["id"])

    def ask(game_id: str, address: str) -> httpx.Response:
        return httpx.post(
            f"{server.url}/api/games/{game_id}/review", headers={"X-Forwarded-For": address}, timeout=10
        )

    assert ask(ids[0], "10.0.0.1").status_code == 202
    per_address = ask(ids[1], "10.0.0.1")
    assert per_address.status_code == 429 and per_address.json()["detail"]["code"] == "busy"
    assert "try again" in per_address.json()["detail"]["message"] and per_address.headers["retry-after"]
    assert ask(ids[0], "10.0.0.9").status_code == 202  # the same review again: no new request
    assert ask(ids[1], "10.0.0.2").status_code == 202
    full = ask(ids[2], "10.0.0.3")
    assert full.status_code == 429 and "reviews are already waiting" in full.json()["detail"]["message"]
    # The rooms in play are not held up meanwhile.
    made = create_room(server, seats=2, bots=1, seed=30)
    start_room(server, made["code"], made["token"])
    began = time.monotonic()
    ws = hello(server, made["code"], made["token"])
    assert time.monotonic() - began < 5


def test_the_bound_per_room() -> None:
    queue = ReviewQueue(
        Settings(reviews_per_room=1, reviews_per_address=5), GameStore(create_engine("sqlite://"))
    )
    try:
        queue.jobs["a"] = Job("a", "10.0.0.1", "ROOM22")
        with pytest.raises(Exception, match="this room has 1 review"):
            queue._admit("10.0.0.2", "ROOM22")
        queue._admit("10.0.0.2", "ROOM33")
    finally:
        queue.close()


def test_the_coach_answers_at_a_table_of_bots_and_the_record_says_so(server: ServerProcess) -> None:
    made = create_room(server, seats=2, bots=1, bot="heuristic", seed=40, replays="link")
    start_room(server, made["code"], made["token"])
    ws = hello(server, made["code"], made["token"])
    deadline = time.monotonic() + 30
    while ws.latest_state()["view"]["current_player"] != 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    state = ws.latest_state()
    mark = ws.mark()
    ws.send({"type": "hint"})
    hint = ws.wait(lambda m: m["type"] in ("hint", "error"), 60, mark)
    assert hint["type"] == "hint", hint
    choices = [c["action"] for c in state["decisions"]["choices"]]
    assert hint["decision"]["action"] in choices and hint["version"] == state["version"]
    assert 0.0 <= hint["win"] <= 1.0 and hint["margin"] >= 0.0
    step = state["view"]["step"]
    play_humans({0: ws}, random.Random(40))
    (game,) = kept_games(server, made["code"], made["token"])
    body = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).json()
    # The hint was given before the seat's action at that step: the record and the replay say so.
    assert body["hints"] == [{"seat": 0, "step": step}]
    assert body["record"]["hints"] == [[0, step]]
    hinted = [n for n, f in enumerate(body["frames"]) if f["hint"]]
    assert hinted == [step + 1] and body["frames"][step + 1]["seat"] == 0


def test_the_coach_is_refused_where_it_could_spoil_a_game_between_people(server: ServerProcess) -> None:
    made = create_room(server, seats=2, seed=41)
    other = join_room(server, made["code"], "Bea")
    start_room(server, made["code"], made["token"])
    host = hello(server, made["code"], made["token"])
    guest = hello(server, made["code"], other["token"])
    watcher = hello(server, made["code"], None)
    for ws in (host, guest, watcher):
        mark = ws.mark()
        ws.send({"type": "hint"})
        assert ws.error(mark)["code"] == "hint_not_allowed"
    # The host allowed the coach: the one deciding gets a hint, the other is told to wait.
    made = create_room(server, seats=2, seed=42, coach=True)
    other = join_room(server, made["code"], "Bea")
    start_room(server, made["code"], made["token"])
    players = {
        0: hello(server, made["code"], made["token"]),
        1: hello(server, made["code"], other["token"]),
    }
    current = players[0].latest_state()["view"]["current_player"]
    mark = players[1 - current].mark()
    players[1 - current].send({"type": "hint"})
    assert players[1 - current].error(mark)["code"] == "not_your_turn"
    mark = players[current].mark()
    players[current].send({"type": "hint"})
    assert players[current].wait(lambda m: m["type"] in ("hint", "error"), 60, mark)["type"] == "hint"


def _kept(room_id: int, seq: int, tokens: dict[int, str]) -> Kept:
    record, _ = GameRecord.start(2, seed=seq)
    return Kept(room_id, "ABCDEF", seq, 1, "players", {"result": None}, record.to_dict(), tokens, 0)


def test_retention_prunes_old_games_their_seats_and_reviews(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    engine = create_engine(url)
    schema.upgrade(engine)
    store = GameStore(engine)
    now = time.time()
    old = store.keep(_kept(1, 5, {0: "a" * 64}), now=now - 100 * 86400)
    new = store.keep(_kept(1, 9, {0: "a" * 64}), now=now - 10 * 86400)
    assert store.keep(_kept(1, 9, {0: "a" * 64})) == new  # kept once
    store.store_review(old, "{}")
    assert store.prune(now - 90 * 86400) == 1
    assert store.get(old) is None and store.review(old) is None and store.get(new) is not None
    assert [g.id for g, _ in store.mine(["a" * 64])] == [new]
    engine.dispose()
    # The command: the operator's setting, or --days.
    env = {**os.environ, "NOMERCY_DATABASE_URL": url, "NOMERCY_KEEP_GAMES_DAYS": "30"}
    run = [sys.executable, "-m", "nomercy", "db", "prune-games"]
    out = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "pruned 0 game(s)" in out.stdout, out.stderr
    out = subprocess.run([*run, "--days", "5"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "pruned 1 game(s)" in out.stdout, out.stderr


def test_the_sweep_prunes_games_past_the_retention(start_server: Any) -> None:
    server = start_server(NOMERCY_KEEP_GAMES_DAYS="0.00002", NOMERCY_SWEEP_SECONDS="0.5", **QUICK)  # ~1.7 s
    made, _ = finished_round(server, 50, replays="link")
    (game,) = kept_games(server, made["code"], made["token"])
    deadline = time.monotonic() + 20
    while httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).status_code != 404:
        assert time.monotonic() < deadline, "the game was never pruned"
        time.sleep(0.3)


@pytest.mark.parametrize("db", DATABASES)
def test_migration_0003_up_and_down(db: str, tmp_path: Path) -> None:
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        url = POSTGRES_URL
    else:
        url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    engine = create_engine(url)
    tables = {"nomercy_games", "nomercy_game_seats", "nomercy_reviews", "nomercy_hints"}
    try:
        assert schema.upgrade(engine, "0002")[1] == "0002"
        assert not tables & set(inspect(engine).get_table_names())
        assert schema.upgrade(engine, "0003")[1] == "0003"
        assert tables <= set(inspect(engine).get_table_names())
        GameStore(engine).keep(_kept(1, 1, {}))
        assert schema.downgrade(engine, "0002") == ("0003", "0002")
        assert not tables & set(inspect(engine).get_table_names())
        assert schema.upgrade(engine, "0003")[1] == "0003"
    finally:
        engine.dispose()


def test_a_match_keeps_its_rounds_with_the_scores(server: ServerProcess) -> None:
    made, ws = finished_round(server, 60, mode="match", rules={"target_score": 1}, replays="link")
    (game,) = kept_games(server, made["code"], made["token"])
    result = game["result"]
    assert result["match_winner"] == result["winner"] and result["scores"] == result["points"]
    body = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).json()
    assert body["mode"] == "match" and body["round"] == 1
    assert ws.latest_state()["view"]["outcome"]["winner"] == result["winner"]


def test_a_round_not_yet_kept_when_the_server_stopped_is_kept_at_the_next_start(start_server: Any) -> None:
    server = start_server(**QUICK)
    made, ws = finished_round(server, 70, replays="link")
    (game,) = kept_games(server, made["code"], made["token"])
    ws.close()
    server.stop()
    engine = create_engine(server.database_url)
    with engine.begin() as conn:  # as if the process had died before the write
        conn.execute(delete(game_seats))
        conn.execute(delete(games))
    engine.dispose()
    again = start_server(**QUICK)
    (kept,) = kept_games(again, made["code"], made["token"])
    assert kept["id"] != game["id"] and kept["result"] == game["result"]
    again.stop()
    third = start_server(**QUICK)  # kept once: a further start keeps nothing more
    time.sleep(1.0)
    assert [g["id"] for g in kept_games(third, made["code"], made["token"])] == [kept["id"]]
