"""The daily deal: the same cards and the same bots for everyone, the seed kept on the
server until the day is over, one rated attempt per account, guests off the board, results
written with the round, boards, and a past day's games open to all. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from nomercy.server.base.tables import games, rooms
from nomercy.server.players.daily import DailyStore, place_of

from .conftest import DATABASES, POSTGRES_URL, ServerProcess, hello, reset_postgres
from .softkey import SoftKey
from .test_accounts import client, signup
from .test_game import play_humans

DAY = "2026-12-05"
#: Bots catch a missed Uno only after a long pause here: the scripted player always calls
#: first, so two plays of the same moves meet the same answers.
ENV = {"NOMERCY_TEST_OPTIONS": "1", "NOMERCY_DAILY_DAY": DAY, "NOMERCY_REACTION_DELAY": "2.0"}


def start(db: str, start_server: Any, **env: str) -> ServerProcess:
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        return start_server(POSTGRES_URL, **{**ENV, **env})  # type: ignore[no-any-return]
    return start_server(**{**ENV, **env})  # type: ignore[no-any-return]


def play_daily(
    http: httpx.Client, preset: str = "no_mercy", seed: int = 1
) -> tuple[dict[str, Any], list[str]]:
    r = http.post(f"/api/daily/{preset}", json={"nickname": "Guest"})
    assert r.status_code == 200, r.text
    made = r.json()
    ws = hello_daily(http, made)
    play_humans({0: ws}, random.Random(seed))
    return made, ws.raw


def hello_daily(http: httpx.Client, made: dict[str, Any]) -> Any:
    server = ServerProcess.__new__(ServerProcess)
    server.port = int(str(http.base_url).rsplit(":", 1)[1].strip("/"))
    return hello(server, made["code"], made["token"])


def records(url: str) -> dict[str, dict[str, Any]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(games.c.room_code, games.c.record, games.c.info)).all()
        return {r.room_code: {"record": json.loads(r.record), "info": json.loads(r.info)} for r in rows}
    finally:
        engine.dispose()


def wait_kept(url: str, codes: list[str]) -> dict[str, dict[str, Any]]:
    import time

    deadline = time.monotonic() + 20
    while True:
        kept = records(url)
        if all(c in kept for c in codes) or time.monotonic() > deadline:
            assert all(c in kept for c in codes)
            return kept
        time.sleep(0.1)


@pytest.mark.parametrize("db", DATABASES)
def test_everyone_gets_the_same_deal_and_the_same_bots(db: str, start_server: Any) -> None:
    server = start(db, start_server)
    with client(server) as one, client(server) as two:
        first, raw_one = play_daily(one, seed=3)
        second, raw_two = play_daily(two, seed=3)
    kept = wait_kept(server.database_url, [first["code"], second["code"]])
    a, b = kept[first["code"]]["record"], kept[second["code"]]["record"]
    assert a["seed"] == b["seed"] and a["actions"] == b["actions"]  # same cards, same answers
    assert kept[first["code"]]["info"]["daily"]["day"] == DAY
    # The seed reaches no client: not in the room's info, not in a single WebSocket message.
    engine = create_engine(server.database_url)
    try:
        seed = DailyStore(engine).seed(DAY, "no_mercy")
        with engine.connect() as conn:
            dealt = {r.seed for r in conn.execute(select(rooms.c.seed)).all()}
    finally:
        engine.dispose()
    assert dealt == {seed}  # both tables dealt from the day's seed
    info = httpx.get(f"{server.url}/api/rooms/{first['code']}", timeout=10).text
    for secret in (str(seed), str(a["seed"])):  # the match's seed and the round's
        assert secret not in json.dumps(first) and secret not in info
        assert not any(secret in m for m in raw_one + raw_two)


def test_a_daily_game_opens_to_everyone_only_once_the_day_is_over(start_server: Any, tmp_path: Any) -> None:
    server = start("sqlite", start_server)
    with client(server) as http:
        made, _ = play_daily(http)
    kept = wait_kept(server.database_url, [made["code"]])
    assert kept
    bearer = {"Authorization": f"Bearer {made['token']}"}
    listed = httpx.get(f"{server.url}/api/rooms/{made['code']}/games", headers=bearer, timeout=10)
    game_id = listed.json()["games"][0]["id"]
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/record"):
        r = httpx.get(f"{server.url}{path}", headers=bearer, timeout=10)  # not even its player, today
        assert r.status_code == 403 and "when the day is over" in r.json()["detail"]["message"], path
        assert r.json()["detail"]["daily"] == DAY, path  # the page says which day, in its language
    # Rematch and the coach are not part of the daily deal.
    r = httpx.post(f"{server.url}/api/rooms/{made['code']}/rematch", headers=bearer, timeout=10)
    assert r.status_code == 400 and "tomorrow" in r.json()["detail"]["message"]
    server.stop()
    later = start_server(server.database_url, **{**ENV, "NOMERCY_DAILY_DAY": "2026-12-06"})
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/record"):
        assert httpx.get(f"{later.url}{path}", timeout=10).status_code == 200, path  # anyone, no token


@pytest.mark.parametrize("db", DATABASES)
def test_one_rated_attempt_and_guests_off_the_board(db: str, start_server: Any) -> None:
    server = start(db, start_server)
    with client(server) as ada, client(server) as guest:
        assert signup(ada, SoftKey(server.url), "Ada").status_code == 200
        assert ada.get("/api/daily").json()["presets"][0]["mine"] is None
        made, _ = play_daily(ada)
        assert made["rated"] is True and made["room"]["daily_board"] is True
        again = ada.post("/api/daily/no_mercy", json={"nickname": "x"}).json()
        assert again["rated"] is False  # the second attempt is practice
        assert again["room"]["daily_board"] is False  # its table says so (the end screen)
        practice, _ = play_daily(guest)
        assert practice["rated"] is False
        wait_kept(server.database_url, [made["code"], practice["code"]])
        board = ada.get(f"/api/daily/{DAY}/no_mercy").json()
        for _ in range(50):
            if board["total"]:
                break
            import time

            time.sleep(0.1)
            board = ada.get(f"/api/daily/{DAY}/no_mercy").json()
        assert board["total"] == 1 and board["entries"][0]["name"] == "Ada"
        assert "room" not in board["entries"][0]  # nobody else's table to watch
        assert board["entries"][0]["game"] is None  # the replay opens when the day is over
        mine = ada.get("/api/daily").json()["presets"][0]["mine"]
        assert mine["finished"] and mine["turns"] > 0
        # A deleted account's results go with it.
        assert ada.post("/api/account/delete", json={"name": "Ada"}).status_code == 200
        assert guest.get(f"/api/daily/{DAY}/no_mercy").json()["total"] == 0
        assert guest.get("/api/daily/2099-01-01/no_mercy").status_code == 404
        assert guest.get("/api/daily/yesterday/no_mercy").status_code == 400
        assert guest.post("/api/daily/no_such_preset", json={"nickname": "x"}).status_code == 404


def test_the_board_order_and_places(tmp_path: Any) -> None:
    from nomercy.server.players.daily import daily_results
    from nomercy.server.rooms.storage import Storage

    storage = Storage(f"sqlite:///{tmp_path / 'd.sqlite3'}")
    try:
        rows = [  # entrant, won, place, points, turns
            ("a", False, 2, 0, 30),
            ("b", True, 1, 120, 40),
            ("c", True, 1, 120, 25),
            ("d", True, 1, 300, 60),
            ("e", False, 4, 0, 10),
        ]
        with storage.engine.begin() as conn:
            conn.execute(
                daily_results.insert(),
                [
                    {
                        "day": DAY,
                        "preset": "no_mercy",
                        "entrant": f"account:{e}",
                        "game_id": None,
                        "room_id": i,
                        "won": w,
                        "place": p,
                        "points": pts,
                        "turns": t,
                        "started_at": 0.0,
                        "finished_at": 1.0,
                    }
                    for i, (e, w, p, pts, t) in enumerate(rows)
                ],
            )
        store = DailyStore(storage.engine)
        total, board = store.board(DAY, "no_mercy", lambda ids: {i: i.upper() for i in ids}, limit=3)
        # Winners by points scored, then fewest moves; the others by place.
        assert total == 5 and [e["name"] for e in board] == ["D", "C", "B"]
        assert [e["rank"] for e in board] == [1, 2, 3]
        _, rest = store.board(DAY, "no_mercy", lambda ids: {i: i for i in ids}, limit=3, offset=3)
        assert [(e["rank"], e["name"]) for e in rest] == [(4, "a"), (5, "e")]
        with storage.engine.begin() as conn:  # an attempt still being played is not ranked
            conn.execute(
                daily_results.update().where(daily_results.c.entrant == "account:d").values(finished_at=None)
            )
        assert store.board(DAY, "no_mercy", lambda ids: {})[0] == 4
        assert DailyStore(storage.engine).seed(DAY, "no_mercy") == store.seed(DAY, "no_mercy")
        assert store.seed(DAY, "no_mercy") != store.seed("2026-12-06", "no_mercy")
    finally:
        storage.close()
    assert place_of({"winner": 2, "knocked_out": [0]}, 0, 4) == 4
    assert place_of({"winner": 2, "knocked_out": [1, 0]}, 0, 4) == 3
    assert place_of({"winner": 0, "knocked_out": []}, 0, 4) == 1
    assert place_of({"winner": 1, "knocked_out": []}, 0, 4) == 2


@pytest.mark.parametrize("db", DATABASES)
def test_a_pruned_game_leaves_its_result_on_the_board(db: str, tmp_path: Any) -> None:
    """Retention deletes kept games (``--keep-games-days``); a daily result that names one
    must not block it (a foreign key would make every later prune fail): the result stays,
    without its replay."""
    from nomercy.server.games.store import GameStore
    from nomercy.server.players.daily import daily_results
    from nomercy.server.rooms.storage import Storage

    url = f"sqlite:///{tmp_path / 'd.sqlite3'}"
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        url = POSTGRES_URL
    storage = Storage(url)
    try:
        with storage.engine.begin() as conn:
            conn.execute(
                games.insert().values(
                    id="old",
                    room_id=1,
                    room_code="ABCDE",
                    seq=9,
                    round=1,
                    finished_at=100.0,
                    access="players",
                    info="{}",
                    record="{}",
                )
            )
            conn.execute(
                daily_results.insert().values(
                    day=DAY,
                    preset="no_mercy",
                    entrant="account:a",
                    game_id="old",
                    room_id=1,
                    won=True,
                    place=1,
                    points=80,
                    turns=20,
                    started_at=50.0,
                    finished_at=100.0,
                )
            )
        assert GameStore(storage.engine).prune(older_than=200.0) == 1
        total, board = DailyStore(storage.engine).board(DAY, "no_mercy", lambda ids: {"a": "Ada"})
        assert total == 1 and board[0]["name"] == "Ada" and board[0]["won"] is True
        assert board[0]["game"] is None  # the replay is gone with the game
    finally:
        storage.close()


def test_the_daily_table_waits_for_its_player_and_no_stand_in_plays_it(start_server: Any) -> None:
    """A stand-in would be the same seeded bot for everyone: a rated start left at once would
    post that bot's result. The table waits (no turn timer, no stand-in) and the player
    finishes the round when they come back."""
    import time

    server = start("sqlite", start_server, NOMERCY_GRACE_SECONDS="0.2")
    with client(server) as ada:
        assert signup(ada, SoftKey(server.url), "Ada").status_code == 200
        made = ada.post("/api/daily/no_mercy", json={"nickname": "Ada"}).json()
        assert made["rated"] is True
        time.sleep(1.5)  # the grace period many times over, nobody connected
        room = ada.get(f"/api/rooms/{made['code']}").json()
        assert room["status"] == "playing" and room["seats"][0]["standin"] is False
        mine = ada.get("/api/daily").json()["presets"][0]["mine"]
        assert mine["finished"] is False and mine["room"] == made["code"]  # the way back
        ws = hello_daily(ada, made)  # back: the attempt goes on where it waited
        play_humans({0: ws}, random.Random(5))
        deadline = time.monotonic() + 20
        while not ada.get("/api/daily").json()["presets"][0]["mine"]["finished"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)


def test_a_round_held_over_midnight_stays_off_the_board(start_server: Any) -> None:
    """At midnight the day's replays open (every hand, every bot answer), so a rated attempt
    still in play then could be finished knowing the whole deal: it is kept, off the board."""
    server = start("sqlite", start_server)
    with client(server) as ada:
        assert signup(ada, SoftKey(server.url), "Ada").status_code == 200
        made = ada.post("/api/daily/no_mercy", json={"nickname": "Ada"}).json()
        assert made["rated"] is True
        cookies = dict(ada.cookies)
    server.stop()
    later = start_server(server.database_url, **{**ENV, "NOMERCY_DAILY_DAY": "2026-12-06"})
    with client(later) as ada:
        ada.cookies.update(cookies)
        play_humans({0: hello_daily(ada, made)}, random.Random(2))
        kept = wait_kept(later.database_url, [made["code"]])[made["code"]]
        assert kept["info"]["daily"]["day"] == DAY  # the round is kept, as every round
        assert ada.get(f"/api/daily/{DAY}/no_mercy").json()["total"] == 0
    engine = create_engine(later.database_url)
    try:
        assert DailyStore(engine).entry(DAY, "no_mercy", _account(engine, "Ada"))["finished"] is False  # type: ignore[index]
    finally:
        engine.dispose()


def _account(engine: Any, name: str) -> str:
    from nomercy.server.players.accounts import AccountStore

    account = AccountStore(engine).by_name(name)
    assert account is not None
    return account.id
