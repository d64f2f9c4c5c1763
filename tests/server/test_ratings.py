"""Rated rooms, ratings and leaderboards: which rooms may be rated (each refusal), who may
sit at one, the order of a round (winner, the players still in tied, the knocked-out last
in reverse order: E1, E3, M1), one identity per bot level, a round rated once and in the
transaction that keeps it, the leaderboards (minimum games, order, pages, uncertainty) and
an account's deletion. On SQLite, and on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Connection, create_engine, insert, select

from nomercy.bots.levels import LEVELS
from nomercy.rules import PRESETS
from nomercy.server.base.protocol import CreateRoom, ErrorCode, ProtocolError
from nomercy.server.base.tables import Kept, games
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import SESSION_COOKIE, AccountStore
from nomercy.server.players.ratings import (
    ANCHORS,
    MODEL,
    RATED_DEFAULT_LEVEL,
    RATED_DEFAULT_TURN_SECONDS,
    REFUSALS,
    Ratings,
    check_rated_room,
    check_rated_seat,
    conservative,
    forget_account,
    places,
    player_of_account,
    player_of_bot,
    rate,
    rating_changes,
    ratings,
    round_order,
)
from nomercy.server.rooms.storage import Storage, StoredSeat

from .conftest import (
    DATABASES,
    ServerProcess,
    fresh_database,
    hello,
    start_room,
)
from .test_game import play_humans

RATED: dict[str, Any] = {"rated": True, "preset": "no_mercy", "turn_seconds": 30, "bot": "casual"}


# -- rated rooms ---------------------------------------------------------------------------


def refusal(body: dict[str, Any], account: str | None = "acc") -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        check_rated_room(CreateRoom(nickname="Ada", **body), account)
    return caught.value


def reason(body: dict[str, Any], account: str | None = "acc") -> str:
    """The condition a refusal names for the client (``detail.rated``)."""
    said = getattr(refusal(body, account), "extra", {}).get("rated")
    assert said in REFUSALS
    return str(said)


def test_a_rated_room_plays_a_preset_as_it_is_with_a_timer_and_bots_at_a_level() -> None:
    check_rated_room(CreateRoom(nickname="Ada", **RATED), "acc")  # accepted
    check_rated_room(CreateRoom(nickname="Ada", **{**RATED, "preset": "classic", "bot": "expert"}), "acc")
    # Overrides equal to the preset's own values change nothing: still rated.
    check_rated_room(CreateRoom(nickname="Ada", **{**RATED, "rules": {"mercy_limit": 25}}), "acc")
    check_rated_room(CreateRoom(nickname="Ada", seats=3), None)  # an unrated room: no checks here

    guest = refusal(RATED, account=None)
    assert guest.code == ErrorCode.FORBIDDEN and "sign in" in guest.message
    seeded = refusal({**RATED, "seed": 7})
    assert seeded.code == ErrorCode.FORBIDDEN and "seed" in seeded.message
    house = refusal({**RATED, "rules": {"mercy_limit": 30, "seven_zero": False}})
    assert house.code == ErrorCode.INVALID_RULES
    assert (
        "no house rules" in house.message and "mercy_limit" in house.message and "seven_zero" in house.message
    )
    assert refusal({**RATED, "rules": {"mercy_limit": -3}}).code == ErrorCode.INVALID_RULES
    assert "deck" in refusal({**RATED, "rules": {"deck": {"R1": 10**9}}}).message  # never built
    assert refusal({**RATED, "preset": "nope"}).code == ErrorCode.INVALID_RULES
    assert "coach" in refusal({**RATED, "coach": True}).message
    assert "turn timer" in refusal({**RATED, "turn_seconds": 0}).message
    assert "turn timer" in refusal({k: v for k, v in RATED.items() if k != "turn_seconds"}).message
    for engine in ("random", "heuristic", "stacker", "careful"):
        message = refusal({**RATED, "bot": engine}).message
        assert "beginner, casual, strong, expert" in message and engine in message
    said = [
        reason(RATED, account=None),
        reason({**RATED, "seed": 7}),
        reason({**RATED, "rules": {"seven_zero": False}}),
        reason({**RATED, "coach": True}),
        reason({**RATED, "turn_seconds": 0}),
        reason({**RATED, "bot": "random"}),
    ]
    assert said == ["sign_in", "seed", "house_rules", "coach", "timer", "bot_level"]


def test_only_signed_in_players_take_a_seat_at_a_rated_table() -> None:
    check_rated_seat({"rated": True}, "acc")
    check_rated_seat({"rated": False}, None)
    check_rated_seat({}, None)
    with pytest.raises(ProtocolError) as caught:
        check_rated_seat({"rated": True}, None)
    assert caught.value.code == ErrorCode.FORBIDDEN and "sign in" in caught.value.message
    assert "spectator" in caught.value.message and getattr(caught.value, "extra", {}) == {
        "rated": "sign_in_seat"
    }


# -- the order and the model ---------------------------------------------------------------


def test_the_order_of_a_round_winner_then_those_still_in_then_the_knocked_out() -> None:
    # E1 seat 2 went out; M1 seat 0 was knocked out first, then seat 3; E3 scores nobody
    # else, so seats 1 and 4 (still in) tie.
    order = round_order({"winner": 2, "knocked_out": [0, 3]}, [0, 1, 2, 3, 4])
    assert order is not None and places(order) == {2: 1, 1: 2, 4: 2, 3: 4, 0: 5}  # ties share a place
    assert order[3] < order[0] and order[1] == order[4] < order[3]
    assert round_order({"winner": 1, "knocked_out": []}, [0, 1]) == {0: 2, 1: 1}
    # M4: the last one standing wins; everyone else was knocked out, in order.
    last = round_order({"winner": 0, "knocked_out": [2, 1]}, [0, 1, 2])
    assert last is not None and places(last) == {0: 1, 1: 2, 2: 3}
    assert round_order({"winner": None, "knocked_out": []}, [0, 1]) is None


def test_a_rating_moves_with_the_order_and_ties_move_alike() -> None:
    order = round_order({"winner": 0, "knocked_out": [3]}, [0, 1, 2, 3])
    assert order is not None
    entrants = [(0, "account:a"), (1, "account:b"), (2, "account:c"), (3, "account:d")]
    changes = {c.player: c for c in rate(entrants, order, {})}
    a, b, c, d = (changes[f"account:{x}"] for x in "abcd")
    assert a.won and a.place == 1 and b.place == c.place == 2 and d.place == 4
    assert a.mu > b.mu > d.mu and a.mu > MODEL.mu > d.mu
    assert b.mu == pytest.approx(c.mu) and b.sigma == pytest.approx(c.sigma)  # a tie is a tie
    assert all(x.sigma < MODEL.sigma for x in (a, b, c, d))  # a game teaches something of each


def test_bots_of_one_level_are_one_identity_anchored_at_its_ladder_rating() -> None:
    order = {0: 1, 1: 2, 2: 3}  # the person won; two casual bots behind
    prior = {"bot:casual": (30.0, 2.0), "account:a": (25.0, 8.0)}  # a stored bot rating is ignored
    entrants = [(0, "account:a"), (1, "bot:casual"), (2, "bot:casual")]
    changes = {c.player: c for c in rate(entrants, order, prior)}
    assert set(changes) == {"account:a", "bot:casual"}
    bot, person = changes["bot:casual"], changes["account:a"]
    anchored = ANCHORS["casual"]
    teams = MODEL.rate(
        [[MODEL.rating(25.0, 8.0)], [MODEL.rating(*anchored)], [MODEL.rating(*anchored)]],
        ranks=[1.0, 2.0, 3.0],
    )
    assert (bot.mu, bot.sigma) == (bot.mu_before, bot.sigma_before) == anchored  # it never moves
    assert bot.place == 2 and not bot.won
    assert person.mu == pytest.approx(teams[0][0].mu) and person.sigma == pytest.approx(teams[0][0].sigma)


# -- rated rounds in the keeping transaction -----------------------------------------------


def _room(storage: Storage, accounts: list[str], bots: int, rated: bool = True, level: str = "casual") -> int:
    seats = [StoredSeat(i, "human", f"P{i}", f"{i}" * 64, i == 0, a) for i, a in enumerate(accounts)]
    seats += [StoredSeat(len(accounts) + j, "bot", f"Bot {j}", None, False) for j in range(bots)]
    config = {"preset": "no_mercy", "bot": level, "rated": rated, "turn_seconds": 30}
    return storage.create_room(f"R{random.randrange(10**6):06d}", config, seats)


def _kept(room_id: int, accounts: list[str], bots: int, result: dict[str, Any], seq: int = 10) -> Kept:
    n = len(accounts) + bots
    players = [{"seat": s, "name": f"P{s}", "bot": s >= len(accounts)} for s in range(n)]
    info = {"preset": "no_mercy", "mode": "round", "players": players, "result": result}
    tokens = {s: f"{s}" * 64 for s in range(len(accounts))}
    return Kept(
        room_id, "ROOM", seq, 1, "players", info, {"sitting_out": []}, tokens, 0, dict(enumerate(accounts))
    )


def _ratings(conn: Connection) -> dict[str, Any]:
    return {r.player: r for r in conn.execute(select(ratings)).all()}


def test_a_rated_round_is_rated_once_with_its_record(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(), store, people)
    room = _room(storage, [ada.id, bo.id], bots=2, level="strong")
    kept = _kept(room, [ada.id, bo.id], 2, {"winner": 1, "knocked_out": [0], "points": [0, 300, 0, 0]})
    game_id = store.keep(kept)
    assert store.keep(kept) == game_id  # kept again (a retry, a restart): rated once
    with storage.engine.connect() as conn:
        now = _ratings(conn)
        changes = conn.execute(select(rating_changes).order_by(rating_changes.c.place)).all()
        finished = conn.execute(select(games.c.finished_at)).scalar_one()
    assert set(now) == {player_of_account(ada.id), player_of_account(bo.id), player_of_bot("strong")}
    assert all(r.games == 1 and r.preset == "no_mercy" for r in now.values())
    assert now[player_of_account(bo.id)].wins == 1 and now[player_of_account(ada.id)].wins == 0
    assert [(c.player, c.place) for c in changes] == [
        (player_of_account(bo.id), 1),
        (player_of_bot("strong"), 2),  # both bot seats still in: one identity, place 2
        (player_of_account(ada.id), 4),  # knocked out (M1): last of the four seats
    ]
    assert all(c.game_id == game_id and c.at == finished for c in changes)
    persons = [c for c in changes if c.player.startswith("account:")]
    assert all(c.mu_before == MODEL.mu and c.sigma_before == MODEL.sigma for c in persons)
    bot = next(c for c in changes if c.player == player_of_bot("strong"))
    assert (bot.mu_before, bot.sigma_before, bot.mu, bot.sigma) == (*ANCHORS["strong"], *ANCHORS["strong"])

    # A second round at the same table starts from the ratings the first one left.
    store.keep(_kept(room, [ada.id, bo.id], 2, {"winner": 0, "knocked_out": []}, seq=20))
    with storage.engine.connect() as conn:
        again = _ratings(conn)
        ada_changes = conn.execute(
            select(rating_changes)
            .where(rating_changes.c.player == player_of_account(ada.id))
            .order_by(rating_changes.c.at, rating_changes.c.mu_before)
        ).all()
    assert again[player_of_account(ada.id)].games == 2 and again[player_of_account(ada.id)].wins == 1
    assert len(ada_changes) == 2 and ada_changes[1].mu_before == pytest.approx(
        now[player_of_account(ada.id)].mu
    )


def test_unrated_rooms_and_guests_are_not_rated(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(), store, people)
    unrated = _room(storage, [ada.id], bots=1, rated=False)
    store.keep(_kept(unrated, [ada.id], 1, {"winner": 0, "knocked_out": []}))
    # A seat whose account is gone (unlinked) is left out; the others keep their order.
    room = _room(storage, [ada.id, bo.id], bots=1)
    kept = _kept(room, [ada.id, bo.id], 1, {"winner": 1, "knocked_out": [0]})
    kept = replace(kept, accounts={0: ada.id})  # Bo's account was deleted during the round
    store.keep(kept)
    with storage.engine.connect() as conn:
        now = _ratings(conn)
        places = {c.player: c.place for c in conn.execute(select(rating_changes)).all()}
    assert places == {player_of_bot("casual"): 2, player_of_account(ada.id): 3}  # the round's places
    assert set(now) == set(places) and {r.wins for r in now.values()} == {0}  # Bo won


def test_a_failing_rating_rolls_the_kept_round_back(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada = people.create("Ada")
    store = GameStore(storage.engine)
    Ratings.install(_settings(), store, people)

    def broken(conn: Connection, game_id: str, kept: Kept) -> None:
        raise RuntimeError("the disk is full")

    store.on_keep.append(broken)
    room = _room(storage, [ada.id], bots=1)
    kept = _kept(room, [ada.id], 1, {"winner": 0, "knocked_out": []})
    with pytest.raises(RuntimeError):
        store.keep(kept)
    with storage.engine.connect() as conn:
        assert conn.execute(select(games)).all() == []
        assert conn.execute(select(ratings)).all() == []
        assert conn.execute(select(rating_changes)).all() == []
    store.on_keep.remove(broken)
    store.keep(kept)  # the retry keeps and rates it, once
    with storage.engine.connect() as conn:
        assert len(conn.execute(select(games)).all()) == 1
        assert {r.games for r in _ratings(conn).values()} == {1}


def test_deleting_an_account_deletes_its_ratings_and_their_history(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(), store, people)
    room = _room(storage, [ada.id, bo.id], bots=1)
    store.keep(_kept(room, [ada.id, bo.id], 1, {"winner": 0, "knocked_out": []}))
    store.keep(_kept(room, [bo.id], 1, {"winner": 0, "knocked_out": []}, seq=20))  # Bo and the bot only
    assert people.delete(ada.id)
    with storage.engine.connect() as conn:
        # The game with Ada is voided for everyone (what it gave Bo goes too); Bo's other stays.
        assert set(_ratings(conn)) == {player_of_account(bo.id), player_of_bot("casual")}
        assert {c.player for c in conn.execute(select(rating_changes)).all()} == {
            player_of_account(bo.id),
            player_of_bot("casual"),
        }
        assert _ratings(conn)[player_of_account(bo.id)].games == 1
        assert len(conn.execute(select(games)).all()) == 2  # the games stay
    with storage.engine.begin() as conn:
        forget_account(conn, "nobody")  # nothing to forget: no error


# -- leaderboards --------------------------------------------------------------------------


def _settings(min_games: int = 5) -> Any:
    from nomercy.server.base.settings import Settings

    return Settings(leaderboard_min_games=min_games)


def seed_board(conn: Connection, rows: list[tuple[str, str, float, float, int, int]]) -> None:
    conn.execute(
        insert(ratings),
        [
            {"player": p, "preset": preset, "mu": mu, "sigma": s, "games": g, "wins": w, "updated_at": 1.0}
            for p, preset, mu, s, g, w in rows
        ],
    )


def test_the_leaderboard_ranks_by_mu_minus_three_sigma_past_a_minimum_of_games(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    names = ["Ada", "Bo", "Cy", "Di", "Ed"]
    ids = {n: people.create(n).id for n in names}
    with storage.engine.begin() as conn:
        seed_board(
            conn,
            [
                (player_of_account(ids["Ada"]), "no_mercy", 30.0, 1.0, 40, 25),  # 27
                (player_of_account(ids["Bo"]), "no_mercy", 35.0, 4.0, 6, 5),  # 23: higher mu, less sure
                (player_of_account(ids["Cy"]), "no_mercy", 40.0, 6.0, 4, 4),  # too few games
                (player_of_account(ids["Di"]), "no_mercy", 20.0, 1.0, 30, 6),  # 17
                (player_of_account(ids["Ed"]), "classic", 50.0, 1.0, 30, 30),  # another preset
                (player_of_bot("expert"), "no_mercy", 28.0, 0.5, 300, 200),  # 26.5
                (player_of_account("gone"), "no_mercy", 45.0, 1.0, 99, 99),  # no such account
            ],
        )
    board = Ratings(storage.engine, 5, clock=lambda: 2.0)  # everyone played a moment ago
    first = board.board("no_mercy", 1, 2)
    assert (first["total"], first["page"], first["pages"], first["per_page"]) == (4, 1, 2, 2)
    assert first["min_games"] == 5
    ada, bot = first["entries"]
    assert (ada["rank"], ada["name"], ada["kind"], ada["profile"]) == (1, "Ada", "account", "/u/Ada")
    assert (ada["mu"], ada["sigma"], ada["rating"]) == (30.0, 1.0, conservative(30.0, 1.0))
    assert (ada["games"], ada["wins"], ada["win_rate"]) == (40, 25, 0.625)
    assert (bot["rank"], bot["kind"], bot["level"], bot["name"]) == (2, "bot", "expert", "Bot: expert")
    assert "profile" not in bot
    second = board.board("no_mercy", 2, 2)
    assert [(e["rank"], e["name"]) for e in second["entries"]] == [(3, "Bo"), (4, "Di")]
    assert board.board("no_mercy", 3, 2)["entries"] == []
    everyone = Ratings(storage.engine, 1, clock=lambda: 2.0)
    assert [e["name"] for e in everyone.board("no_mercy", 1, 10)["entries"]] == [
        "Ada", "Bot: expert", "Bo", "Cy", "Di",
    ]  # fmt: skip
    empty = board.board("rlcard", 1, 25)
    assert (empty["total"], empty["pages"], empty["entries"]) == (0, 1, [])
    listed = {b["preset"]: b["players"] for b in board.boards()}
    assert listed == {**dict.fromkeys(PRESETS, 0), "no_mercy": 4, "classic": 1}


# -- over HTTP: a real server --------------------------------------------------------------


def signed_in(server: ServerProcess, name: str) -> httpx.Client:
    engine = create_engine(server.database_url)
    try:
        store = AccountStore(engine)
        account = store.create(name)
        token = store.open_session(account.id)
    finally:
        engine.dispose()
    return httpx.Client(base_url=server.url, cookies={SESSION_COOKIE: token}, timeout=10)


def test_rated_rooms_over_http(start_server: Any) -> None:
    server = start_server(NOMERCY_LEADERBOARD_MIN_GAMES="1")
    guest = httpx.Client(base_url=server.url, timeout=10)
    r = guest.post("/api/rooms", json={"nickname": "Gus", **RATED})
    assert r.status_code == 403 and "sign in" in r.json()["detail"]["message"]
    assert r.json()["detail"]["rated"] == "sign_in"  # the client says it in its own words
    ada = signed_in(server, "Ada")
    policy = guest.get("/api/rated").json()
    assert policy == {
        "signed_in": False,
        "levels": list(LEVELS),
        "default_level": RATED_DEFAULT_LEVEL,
        "default_turn_seconds": RATED_DEFAULT_TURN_SECONDS,
        "min_games": 1,
    }
    assert ada.get("/api/rated").json()["signed_in"] is True
    # The defaults it offers make a rated room the server accepts (rated.js's ratedPolicy).
    offered = {"bot": policy["default_level"], "turn_seconds": policy["default_turn_seconds"]}
    r = ada.post("/api/rooms", json={"nickname": "x", **RATED, **offered, "seats": 2, "bots": 1})
    assert r.status_code == 200, r.text
    r = ada.post("/api/rooms", json={"nickname": "x", **RATED, "coach": True})
    assert r.status_code == 400 and "coach" in r.json()["detail"]["message"]
    r = ada.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 3, "bots": 1})
    assert r.status_code == 200, r.text
    made = r.json()
    assert made["room"]["rated"] is True
    r = guest.post(f"/api/rooms/{made['code']}/join", json={"nickname": "Gus"})
    assert r.status_code == 403 and "sign in to take a seat" in r.json()["detail"]["message"]
    r = signed_in(server, "Bo").post(f"/api/rooms/{made['code']}/join", json={"nickname": "ignored"})
    assert r.status_code == 200 and r.json()["seat"] == 1
    unrated = guest.post("/api/rooms", json={"nickname": "Gus"}).json()
    assert unrated["room"]["rated"] is False

    assert guest.get("/api/leaderboards/nope").status_code == 404
    assert guest.get("/api/leaderboards/no_mercy?per_page=1000").status_code == 422
    assert guest.get("/api/leaderboards/no_mercy?page=0").status_code == 422
    listed = guest.get("/api/leaderboards").json()
    assert listed["min_games"] == 1 and [b["preset"] for b in listed["boards"]] == list(PRESETS)


@pytest.mark.parametrize("db", DATABASES)
def test_a_rated_round_played_to_its_end_rates_its_players(db: str, start_server: Any) -> None:
    server = (
        start_server(fresh_database(db, Path()), NOMERCY_LEADERBOARD_MIN_GAMES="1")
        if db == "postgresql"
        else start_server(NOMERCY_LEADERBOARD_MIN_GAMES="1")
    )
    ada = signed_in(server, "Ada")
    made = ada.post(
        "/api/rooms", json={"nickname": "x", **RATED, "seats": 2, "bots": 1, "bot": "beginner"}
    ).json()
    start_room(server, made["code"], made["token"])
    ws = hello(server, made["code"], made["token"])
    play_humans({0: ws}, random.Random(3))
    deadline = time.monotonic() + 15
    while True:
        board = ada.get("/api/leaderboards/no_mercy").json()
        if board["total"] == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    ws.close()
    assert board["total"] == 2, board
    by_kind = {e["kind"]: e for e in board["entries"]}
    person, bot = by_kind["account"], by_kind["bot"]
    assert person["name"] == "Ada" and bot["level"] == "beginner"
    assert person["games"] == bot["games"] == 1 and person["wins"] + bot["wins"] == 1
    assert (bot["mu"], bot["sigma"]) == ANCHORS["beginner"]  # anchored: rated games never move it
    assert (person["mu"] > MODEL.mu) if person["wins"] else (person["mu"] < MODEL.mu)
    assert person["sigma"] < MODEL.sigma
