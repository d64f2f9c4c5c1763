"""Fair play, rated rounds as played (``docs/ratings.md``, "Rated rounds as played"): each
test performs an attack on a rated table and checks that it fails. A person who never
connects gets no rated round (it is aborted unrated); a seat a stand-in played is its
person's forfeit, ranked last; nobody is removed from a rated round; no coach and no review
while a rated room plays; a spectator sees no hand; a turn timer within 10 to 120 seconds.
On SQLite, and on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ErrorCode
from nomercy.server.base.settings import Settings
from nomercy.server.games.kept import forfeits_of
from nomercy.server.players.accounts import accounts
from nomercy.server.players.fairplay import allow, fairplay
from nomercy.server.players.ratings import RATED_TURN_SECONDS, places, rating_changes, ratings, round_order
from nomercy.server.rooms.manager import RoomManager
from nomercy.server.rooms.memstore import MemorySocial, MemoryStorage
from nomercy.server.rooms.room import Client
from nomercy.server.rooms.timers import RoomDriver

from .conftest import DATABASES, POSTGRES_URL, ServerProcess, hello, reset_postgres
from .test_game import play_humans
from .test_ratings import signed_in

RATED: dict[str, Any] = {"rated": True, "preset": "no_mercy", "turn_seconds": 30, "bot": "expert"}


def serve(db: str, start_server: Callable[..., ServerProcess], **env: str) -> ServerProcess:
    """A server on ``db`` (PostgreSQL: the shared database, emptied first)."""
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        return start_server(POSTGRES_URL, **env)
    return start_server(**env)


def rows(server: ServerProcess, table: Any) -> list[Any]:
    engine = create_engine(server.database_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(select(table)).all())
    finally:
        engine.dispose()


def flags(server: ServerProcess, kind: str) -> list[dict[str, Any]]:
    return [
        {"room": r.room, "accounts": json.loads(r.accounts), "detail": json.loads(r.detail)}
        for r in rows(server, fairplay)
        if r.kind == kind
    ]


def wait_for(check: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


#: The account id of each signed-in client the tests made (:func:`person`).
IDS: dict[int, str] = {}


def account_id(client: httpx.Client) -> str:
    return IDS[id(client)]


def person(server: ServerProcess, name: str) -> httpx.Client:
    """A signed-in client; :func:`account_id` gives its account's id."""
    client = signed_in(server, name)
    engine = create_engine(server.database_url)
    try:
        with engine.connect() as conn:
            IDS[id(client)] = str(
                conn.execute(select(accounts.c.id).where(accounts.c.name == name)).scalar_one()
            )
    finally:
        engine.dispose()
    return client


def friends(server: ServerProcess, *clients: httpx.Client) -> None:
    """An operator allows these accounts to share an address (the tests' one, 127.0.0.1),
    so that the address rule of fair play leaves their rounds rated."""
    engine = create_engine(server.database_url)
    try:
        with engine.begin() as conn:
            ids = [account_id(c) for c in clients]
            for i, a in enumerate(ids):
                for b in ids[i + 1 :]:
                    allow(conn, a, b, "one test machine", time.time())
    finally:
        engine.dispose()


def start(client: httpx.Client, made: dict[str, Any]) -> None:
    r = client.post(f"/api/rooms/{made['code']}/start", headers={"Authorization": f"Bearer {made['token']}"})
    assert r.status_code == 200, r.text


# -- only a person playing earns a rating ----------------------------------------------------


@pytest.mark.parametrize("db", DATABASES)
def test_an_account_that_never_connects_gets_no_rated_round(db: str, start_server: Any) -> None:
    """The attack: join a rated room at the expert level, start it, never open a connection,
    and let the stand-in win. The round waits for the person, then is aborted unrated."""
    server = serve(db, start_server, NOMERCY_RATED_CONNECT_SECONDS="1.5", NOMERCY_GRACE_SECONDS="0.1")
    ada = person(server, "Ada")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 2}).json()
    start(ada, made)  # and never connects
    watcher = hello(server, made["code"], None)
    info = watcher.wait(lambda m: m["type"] == "room" and m["room"]["status"] == "playing")["room"]
    assert info["waiting"] == [0] and info["aborted"] is False
    aborted = watcher.wait(lambda m: m["type"] == "room" and m["room"]["aborted"])["room"]
    assert aborted["status"] == "finished" and aborted["waiting"] == []
    assert watcher.latest_state()["version"] == 0  # the bots never moved: nothing was played
    watcher.close()
    assert rows(server, ratings) == [] and rows(server, rating_changes) == []
    (flag,) = wait_for(lambda: flags(server, "abort"))
    assert flag["room"] == made["code"] and flag["accounts"] == [account_id(ada)]
    assert flag["detail"]["absent"] == [account_id(ada)] and flag["detail"]["seconds"] == 1.5


@pytest.mark.parametrize("db", DATABASES)
def test_the_room_says_how_long_it_waits_and_who_never_connected(db: str, start_server: Any) -> None:
    """What the client shows of a wait and of its abort: the seconds left to connect, then
    the seats whose persons never did (``RoomInfo.waiting_seconds``, ``never_connected``)."""
    server = serve(db, start_server, NOMERCY_RATED_CONNECT_SECONDS="2")
    ada = person(server, "Ada")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 2}).json()
    start(ada, made)
    watcher = hello(server, made["code"], None)
    info = watcher.wait(lambda m: m["type"] == "room" and m["room"]["status"] == "playing")["room"]
    assert info["waiting"] == [0] and 0 < info["waiting_seconds"] <= 2
    assert info["never_connected"] == []
    aborted = watcher.wait(lambda m: m["type"] == "room" and m["room"]["aborted"])["room"]
    watcher.close()
    assert aborted["never_connected"] == [0] and aborted["waiting_seconds"] is None


@pytest.mark.parametrize("db", DATABASES)
def test_a_person_at_an_aborted_round_is_offered_no_move(db: str, start_server: Any) -> None:
    """Ada connects, Bo never does: once the round is aborted, Ada's table must not go on
    offering the moves it offered nobody while it waited (the server refuses them)."""
    server = serve(db, start_server, NOMERCY_RATED_CONNECT_SECONDS="1.5")
    ada, bo = person(server, "Ada"), person(server, "Bo")
    friends(server, ada, bo)
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 1}).json()
    bo.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"})
    host = hello(server, made["code"], made["token"])
    start(ada, made)
    host.wait(lambda m: m["type"] == "room" and m["room"]["aborted"])
    told = host.wait(
        lambda m: (
            m["type"] == "state"
            and m["decisions"]
            and m["decisions"]["prompt"]["key"] == "prompt.rated_aborted"
        )
    )
    host.close()
    assert (told["decisions"]["deciding"], told["decisions"]["choices"]) == (False, [])


@pytest.mark.parametrize("db", DATABASES)
def test_a_rated_round_rebuilt_before_it_began_waits_again(db: str, start_server: Any) -> None:
    """The attack: start a rated round, have the server restart before anyone connects
    (the wait lived in memory), and let the stand-ins play it. Rebuilt, the round waits
    again for every person, and is aborted unrated when one never comes."""
    env = {"NOMERCY_RATED_CONNECT_SECONDS": "2", "NOMERCY_GRACE_SECONDS": "0.1"}
    first = serve(db, start_server, **env)
    ada = person(first, "Ada")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 2}).json()
    start(ada, made)  # and never connects
    first.kill()
    second = start_server(first.database_url, **env)
    watcher = hello(second, made["code"], None)
    info = watcher.wait(lambda m: m["type"] == "welcome")["room"]
    assert info["status"] == "playing" and info["waiting"] == [0] and info["waiting_seconds"] > 0
    aborted = watcher.wait(lambda m: m["type"] == "room" and m["room"]["aborted"])["room"]
    assert aborted["status"] == "finished" and aborted["never_connected"] == [0]
    assert watcher.latest_state()["version"] == 0  # no stand-in played a card
    watcher.close()
    late = hello(second, made["code"], None)  # the room is over: no turn clock runs
    assert late.latest_state()["deadline"] is None
    late.close()
    assert rows(second, ratings) == [] and rows(second, rating_changes) == []
    assert [f["room"] for f in wait_for(lambda: flags(second, "abort"))] == [made["code"]]


@pytest.mark.parametrize("db", DATABASES)
def test_a_rated_round_rebuilt_once_begun_does_not_wait(db: str, start_server: Any) -> None:
    """Only a round with no action yet waits again after a rebuild: one already played on
    continues (its absent persons get the stand-in's forfeit, as before the restart)."""
    env = {"NOMERCY_RATED_CONNECT_SECONDS": "30"}
    first = serve(db, start_server, **env)
    ada = person(first, "Ada")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 2, "bots": 1}).json()
    host = hello(first, made["code"], made["token"])
    start(ada, made)
    state = host.wait(lambda m: m["type"] == "state" and m["view"] is not None)
    if state["version"] == 0 and state["view"]["current_player"] == 0:  # Ada begins: one move
        host.send({"type": "action", "action": state["view"]["legal_actions"][0], "version": 0})
    host.wait(lambda m: m["type"] == "state" and m["version"] > 0)
    first.kill()
    host.wait_closed()
    second = start_server(first.database_url, **env)
    watcher = hello(second, made["code"], None)
    info = watcher.wait(lambda m: m["type"] == "welcome")["room"]
    watcher.close()
    assert info["status"] in ("playing", "finished") and info["waiting"] == []


@pytest.mark.parametrize("db", DATABASES)
def test_players_are_told_when_their_rated_room_stops_being_rated(db: str, start_server: Any) -> None:
    """Two accounts seated from one address: the room's rounds are not rated, and every
    player at the table is told why (``RoomInfo.unrated_reason``); an operator's allow
    makes it rated again at the next connection's check."""
    server = serve(db, start_server)
    ada, bo = person(server, "Ada"), person(server, "Bo")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 1}).json()
    joined = bo.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"}).json()
    host = hello(server, made["code"], made["token"])
    first = host.wait(lambda m: m["type"] == "welcome")["room"]
    assert first["rated"] is True and first["unrated_reason"] is None  # one account: nothing shared
    guest = hello(server, made["code"], joined["token"])
    told = host.wait(lambda m: m["type"] == "room" and m["room"]["unrated_reason"] == "address")
    assert told["room"]["rated"] is True  # still a rated room; its rounds are not rated now
    guest.close()
    friends(server, ada, bo)
    mark = host.mark()
    again = hello(server, made["code"], joined["token"])
    host.wait(lambda m: m["type"] == "room" and m["room"]["unrated_reason"] is None, start=mark)
    again.close()
    host.close()


@pytest.mark.parametrize("db", DATABASES)
def test_a_rated_round_begins_when_everyone_has_connected(db: str, start_server: Any) -> None:
    """Nothing moves (no action, no bot) before the last person connects; then it is played."""
    server = serve(db, start_server, NOMERCY_RATED_CONNECT_SECONDS="30")
    ada, bo = person(server, "Ada"), person(server, "Bo")
    friends(server, ada, bo)
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 1}).json()
    joined = bo.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"}).json()
    host = hello(server, made["code"], made["token"])
    start(ada, made)
    host.wait(lambda m: m["type"] == "room" and m["room"]["waiting"] == [1])
    # Nobody is offered a move while the round waits: the table would offer what is refused.
    told = host.wait(lambda m: m["type"] == "state" and m["view"] is not None)["decisions"]
    assert (told["deciding"], told["choices"], told["prompt"]["key"]) == (False, [], "prompt.rated_waiting")
    mark = host.mark()
    host.send({"type": "action", "action": "draw", "version": 0})
    refused = host.error(mark)
    assert refused["code"] == ErrorCode.NOT_STARTED and "waiting for Bo" in refused["message"]
    mark = host.mark()
    guest = hello(server, made["code"], joined["token"])
    begun = host.wait(
        lambda m: m["type"] == "room" and m["room"]["status"] == "playing" and not m["room"]["waiting"]
    )
    assert begun["room"]["aborted"] is False
    # Once it begins, each seat is told its decisions again: the current player's are open.
    fresh = host.wait(
        lambda m: (
            m["type"] == "state"
            and m["decisions"]
            and m["decisions"]["prompt"]["key"] != "prompt.rated_waiting"
        ),
        start=mark,
    )
    assert fresh["decisions"]["deciding"] == (fresh["view"]["current_player"] == 0)
    play_humans({0: host, 1: guest}, random.Random(5))
    board = wait_for(lambda: len(rows(server, rating_changes)) == 3)
    host.close()
    guest.close()
    assert board, "the round played once everyone was there is rated"
    assert flags(server, "abort") == []


@pytest.mark.parametrize("db", DATABASES)
def test_a_seat_played_by_a_stand_in_is_a_forfeit_ranked_last(db: str, start_server: Any) -> None:
    """The attack: leave a rated round and let the stand-in bot play on. The seat is the
    person's forfeit: last of the round, below every other seat, and logged."""
    server = serve(db, start_server, NOMERCY_GRACE_SECONDS="0.2")
    ada, bo = person(server, "Ada"), person(server, "Bo")
    friends(server, ada, bo)
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 1}).json()
    joined = bo.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"}).json()
    host = hello(server, made["code"], made["token"])
    guest = hello(server, made["code"], joined["token"])
    start(ada, made)
    host.wait(lambda m: m["type"] == "room" and m["room"]["status"] == "playing" and not m["room"]["waiting"])
    guest.close()  # Bo leaves; after the grace period the stand-in plays Bo's seat
    host.wait(lambda m: m["type"] == "room" and m["room"]["seats"][1]["standin"])
    play_humans({0: host}, random.Random(11))
    changes = wait_for(lambda: len(rows(server, rating_changes)) == 3 and rows(server, rating_changes))
    host.close()
    assert changes, "the round was rated"
    place = {c.player: c.place for c in changes}
    bo_id = account_id(bo)
    assert place[f"account:{bo_id}"] == 3 and sorted(place.values())[-1] == 3  # last, whoever won
    assert sum(1 for p in place.values() if p == 3) == 1  # alone at the bottom
    after = {c.player: c for c in changes}[f"account:{bo_id}"]
    assert after.mu < after.mu_before  # the stand-in's play earned Bo nothing
    (flag,) = wait_for(lambda: flags(server, "forfeit"))
    assert flag["accounts"] == [bo_id] and flag["detail"]["seat"] == 1 and flag["detail"]["why"] == "grace"


def test_a_forfeit_is_last_even_when_its_stand_in_won() -> None:
    """The order of a round with forfeits: a won seat that was a stand-in's is last, tied
    with any other forfeit, below the knocked-out (M1); nobody else moves up past a rule."""
    order = round_order({"winner": 1, "knocked_out": [3]}, [0, 1, 2, 3, 4], forfeits=[1, 4])
    assert order is not None
    assert places(order) == {0: 1, 2: 1, 3: 3, 1: 4, 4: 4}
    assert order[1] != 1  # the forfeit's win is no win
    assert round_order({"winner": 0, "knocked_out": []}, [0, 1]) == {0: 1, 1: 2}  # no forfeit: as before


def test_a_turn_timer_running_out_again_and_again_forfeits_the_round() -> None:
    """The attack: sit at a rated table and let the turn timer play every turn. After
    ``rated_timeouts`` runs in a row a stand-in plays the seat, and the round is a forfeit;
    a move of the person's own ends a run (an unrated table counts nothing). The deal is
    seeded: the first seed whose round lasts past four timeouts of one seat is played (a
    deal may end early; the test then tries the next seed, it never skips)."""

    async def attempt(seed: int) -> bool:
        """False when this seed's round ended before the third timeout in a row."""
        storage = MemoryStorage()
        settings = Settings(rated_timeouts=3, rated_connect_seconds=60)
        m = RoomManager(settings, storage, MemorySocial(storage))
        req = P.CreateRoom(nickname="Ann", seats=2, **RATED)
        room, token = await m.create(req, account_id="a")
        room.config["seed"] = seed  # a rated room refuses a chosen seed: set on the room itself
        _, _, other = await m.join(room.code, "Bo", account_id="b")
        for seat in (0, 1):
            m.connect(room, Client(seat, settings, "10.0.0.1"))
        await m.start(room, token)
        assert room.waiting_since is None and room.match is not None
        driver = RoomDriver(m, room)

        async def time_out() -> int:
            seat = room.match.state.current  # type: ignore[union-attr]
            assert seat is not None
            await driver._idle(seat, room.version)()
            return seat

        async def others_play(first: int) -> None:
            while room.match.state.current != first and not room.match.round_over:  # type: ignore[union-attr]
                current = room.match.state.current  # type: ignore[union-attr]
                assert current is not None
                legal = room.match.state.legal_actions(current)  # type: ignore[union-attr]
                await m.act(room, current, str(legal[0]), room.version)

        first = await time_out()
        await others_play(first)  # the other person plays on their own
        if room.match.round_over:
            return False
        assert room.seats[first].timeouts == 1
        seat = room.match.state.current
        assert seat == first
        action = room.match.state.legal_actions(seat)[0]
        await m.act(room, seat, str(action), room.version)  # their own move: the run ends
        assert room.seats[first].timeouts == 0 and room.seats[first].forfeit is None
        for _ in range(3):
            await others_play(first)
            if room.match.round_over:
                return False
            await time_out()
        assert room.seats[first].standin and room.seats[first].forfeit == "timeouts"
        kept = forfeits_of(room)
        assert kept == {"forfeits": [first], "forfeit_reasons": {str(first): "timeouts"}}
        assert other
        return True

    async def go() -> None:
        for seed in range(50):
            if await attempt(seed):
                return
        raise AssertionError("no deal of 50 lasted past four timeouts")

    asyncio.run(go())


@pytest.mark.parametrize("db", DATABASES)
def test_the_host_cannot_remove_a_player_from_a_rated_round(db: str, start_server: Any) -> None:
    """The attack: remove the opponent mid-round, so that the seat is not rated. Refused;
    in the lobby (no round yet) a removal is still allowed."""
    server = serve(db, start_server)
    ada, bo, cy = person(server, "Ada"), person(server, "Bo"), person(server, "Cy")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3}).json()
    auth = {"Authorization": f"Bearer {made['token']}"}
    bo.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"})
    r = ada.post(f"/api/rooms/{made['code']}/kick", json={"seat": 1}, headers=auth)
    assert r.status_code == 200, r.text  # the lobby: no round to spoil
    cy.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"})
    start(ada, made)
    r = ada.post(f"/api/rooms/{made['code']}/kick", json={"seat": 1}, headers=auth)
    assert r.status_code == 403 and r.json()["detail"]["rated"] == "no_removal"
    seats = ada.get(f"/api/rooms/{made['code']}").json()["seats"]
    assert seats[1]["kind"] == "human" and seats[1]["nickname"] == "Cy"


# -- no help in rated play -------------------------------------------------------------------


@pytest.mark.parametrize("db", DATABASES)
def test_the_coach_refuses_a_hint_at_a_rated_table_of_bots(db: str, start_server: Any) -> None:
    """The attack: ask the coach every turn at a rated table whose other seats are bots (the
    client shows no Hint button there; the server refuses what is sent anyway)."""
    server = serve(db, start_server)
    ada = person(server, "Ada")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 2, "bots": 1}).json()
    ws = hello(server, made["code"], made["token"])
    start(ada, made)
    state = ws.wait(
        lambda m: m["type"] == "state" and m["view"] is not None and m["view"]["current_player"] == 0
    )
    assert state["version"] >= 0
    mark = ws.mark()
    ws.send({"type": "hint"})
    refused = ws.error(mark)
    ws.close()
    assert refused["code"] == ErrorCode.HINT_NOT_ALLOWED and "rated" in refused["message"]
    assert not any(m["type"] == "hint" for m in ws.received)


@pytest.mark.parametrize("db", DATABASES)
def test_no_review_of_a_rated_room_while_it_plays(db: str, start_server: Any) -> None:
    """The attack: in a rated match, have the expert review round 1 while round 2 is played."""
    server = serve(db, start_server, NOMERCY_BETWEEN_ROUNDS="30")
    ada = person(server, "Ada")
    made = ada.post(
        "/api/rooms", json={"nickname": "x", **RATED, "mode": "match", "seats": 2, "bots": 1}
    ).json()
    ws = hello(server, made["code"], made["token"])
    start(ada, made)
    play_humans({0: ws}, random.Random(2))
    games = wait_for(lambda: ada.get(f"/api/rooms/{made['code']}/games").json()["games"])
    ws.close()
    auth = {"Authorization": f"Bearer {made['token']}"}
    for ask in (ada.post, ada.get):
        r = ask(f"/api/games/{games[0]['id']}/review", headers=auth)
        assert r.status_code == 403 and r.json()["detail"]["rated"] == "no_review", r.text


@pytest.mark.parametrize("db", DATABASES)
def test_a_spectator_of_a_rated_table_sees_no_hand(db: str, start_server: Any) -> None:
    """The attack: watch a rated table from a second browser to see the others' cards. A
    spectator gets what every player sees of the table, no card of any hand, while it plays."""
    server = serve(db, start_server)
    ada = person(server, "Ada")
    made = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 2}).json()
    host = hello(server, made["code"], made["token"])
    watcher = hello(server, made["code"], None)
    start(ada, made)
    play_humans({0: host}, random.Random(8))
    host.close()
    watcher.close()
    states = [m for m in watcher.received if m["type"] == "state" and m["view"] is not None]
    assert states, "the spectator saw the game"
    playing = [m for m in states if m["view"]["outcome"] is None]
    assert playing and all(m["view"]["hand"] == [] and m["reveal"] is None for m in playing)
    drawn = [e for m in states for e in m["events"] if e["type"] == "drew" and e["reason"] != "roulette"]
    assert drawn and all(e["cards"] is None for e in drawn)


# -- timers within bounds --------------------------------------------------------------------


@pytest.mark.parametrize("db", DATABASES)
def test_a_rated_turn_timer_outside_its_bounds_is_refused(db: str, start_server: Any) -> None:
    """The attack: a one-second timer (a person answering in 1.2 s is played into a loss)."""
    server = serve(db, start_server)
    ada = person(server, "Ada")
    low, high = RATED_TURN_SECONDS
    assert (low, high) == (10, 120)
    for seconds in (1, low - 1, high + 1, 600):
        r = ada.post("/api/rooms", json={"nickname": "x", **RATED, "turn_seconds": seconds})
        assert r.status_code == 400, r.text
        detail = r.json()["detail"]
        assert (detail["rated"], detail["min"], detail["max"]) == ("timer_bounds", low, high)
        assert f"{low} to {high} seconds" in detail["message"]
    for seconds in (low, high):
        r = ada.post("/api/rooms", json={"nickname": "x", **RATED, "turn_seconds": seconds})
        assert r.status_code == 200 and r.json()["room"]["turn_seconds"] == seconds
    unrated = ada.post("/api/rooms", json={"nickname": "x", "turn_seconds": 1})
    assert unrated.status_code == 200  # an unrated table keeps any timer the server allows


def test_the_timer_bounds_are_said_in_each_language() -> None:
    """The refusal's reason is in the player's language, with the bounds filled in."""
    root = Path(__file__).parents[2] / "src" / "nomercy" / "i18n" / "catalogs"
    for lang in ("en", "nb"):
        text = json.loads((root / lang / "web.json").read_text())["rating.refused.timer_bounds"]
        assert "{min}" in text and "{max}" in text
