"""What players see of a rated game (:mod:`nomercy.server.players.standings`): the change of the round
that just ended, per seat; each rated game's change on a profile; a player's own rank on a
board, or how many games their provisional rating still needs. On SQLite, and on
PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import insert, select

from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import AccountStore
from nomercy.server.players.profiles import Profiles
from nomercy.server.players.ratings import (
    MODEL,
    Ratings,
    conservative,
    player_of_account,
    player_of_bot,
    ratings,
    settled,
    settling,
)
from nomercy.server.players.standings import BOARD_PAGE, round_changes, standing
from nomercy.server.rooms.storage import Storage

from .test_ratings import _kept, _room, _settings, signed_in

START = conservative(MODEL.mu, MODEL.sigma)


def _rating(storage: Storage, account_id: str) -> Any:
    with storage.engine.connect() as conn:
        return conn.execute(select(ratings).where(ratings.c.player == player_of_account(account_id))).one()


def test_the_end_screen_gets_each_seats_change_once_the_round_is_kept(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(3), store, people)
    room = _room(storage, [ada.id, bo.id], bots=0)
    # Not kept yet: the client asks again.
    assert round_changes(storage.engine, room, 10, 3) == {"kept": False, "changes": []}
    store.keep(_kept(room, [ada.id, bo.id], 0, {"winner": 1, "knocked_out": [], "points": [0, 50]}, seq=10))
    shown = round_changes(storage.engine, room, 10, 3)
    assert shown["kept"] is True
    by_seat = {c["seat"]: c for c in shown["changes"]}
    assert set(by_seat) == {0, 1}
    bo_now = _rating(storage, bo.id)
    won = by_seat[1]
    assert won["place"] == 1 and by_seat[0]["place"] == 2
    assert won["before"] == pytest.approx(START, abs=0.01)
    assert won["after"] == pytest.approx(conservative(bo_now.mu, bo_now.sigma), abs=0.01)
    assert won["delta"] == pytest.approx(won["after"] - won["before"], abs=0.011)
    assert won["delta"] > 0
    # One rated game of three: provisional, two to go.
    assert (won["provisional"], won["games_to_settle"]) == (True, 2)

    # Two more rounds: the third settles the rating, and each round's changes stay its own.
    store.keep(_kept(room, [ada.id, bo.id], 0, {"winner": 0, "knocked_out": []}, seq=20))
    store.keep(_kept(room, [ada.id, bo.id], 0, {"winner": 0, "knocked_out": []}, seq=30))
    third = {c["seat"]: c for c in round_changes(storage.engine, room, 30, 3)["changes"]}
    assert (third[0]["provisional"], third[0]["games_to_settle"]) == (False, 0)
    second = {c["seat"]: c for c in round_changes(storage.engine, room, 20, 3)["changes"]}
    assert second[0]["games_to_settle"] == 1
    assert second[0]["after"] == pytest.approx(third[0]["before"], abs=0.01)
    assert {c["seat"]: c for c in round_changes(storage.engine, room, 10, 3)["changes"]} == by_seat


def test_a_kept_round_of_an_unrated_room_changes_nothing(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(), store, people)
    room = _room(storage, [ada.id, bo.id], bots=0, rated=False)
    store.keep(_kept(room, [ada.id, bo.id], 0, {"winner": 0, "knocked_out": []}, seq=7))
    assert round_changes(storage.engine, room, 7, 5) == {"kept": True, "changes": []}


def test_the_profile_shows_each_rated_games_change_and_nothing_on_the_others(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(2), store, people)
    rated = _room(storage, [ada.id, bo.id], bots=0)
    plain = _room(storage, [ada.id, bo.id], bots=0, rated=False)
    store.keep(_kept(rated, [ada.id, bo.id], 0, {"winner": 0, "knocked_out": []}, seq=10), now=100.0)
    store.keep(_kept(plain, [ada.id, bo.id], 0, {"winner": 0, "knocked_out": []}, seq=10), now=200.0)
    store.keep(_kept(rated, [ada.id, bo.id], 0, {"winner": 1, "knocked_out": []}, seq=20), now=300.0)
    page = Profiles(storage.engine, people, 2).profile("Ada", None, 1, 10)
    assert page is not None
    items = page["games"]["items"]  # newest first
    assert [i["rating"] is None for i in items] == [False, True, False]
    latest, first = items[0]["rating"], items[2]["rating"]
    assert first["before"] == pytest.approx(START, abs=0.01) and first["delta"] > 0
    assert (first["provisional"], first["games_to_settle"]) == (True, 1)
    assert (latest["provisional"], latest["games_to_settle"]) == (False, 0)
    assert latest["before"] == pytest.approx(first["after"], abs=0.01)
    now = _rating(storage, ada.id)
    assert latest["after"] == pytest.approx(conservative(now.mu, now.sigma), abs=0.01)
    assert latest["place"] == 2 and first["place"] == 1


def test_a_players_own_rank_or_the_games_their_provisional_rating_needs(storage: Storage) -> None:
    people = AccountStore(storage.engine)
    ids = {n: people.create(n).id for n in ("Ada", "Bo", "Cy", "Di")}
    rows = [
        ("Ada", 30.0, 1.0, 40),  # 27: first
        ("Bo", 26.0, 1.0, 12),  # 23: third
        ("Cy", 28.0, 1.0, 9),  # 25: second
        ("Di", 40.0, 5.0, 2),  # too few games: provisional, off the board
    ]
    with storage.engine.begin() as conn:
        conn.execute(
            insert(ratings),
            [
                {
                    "player": player_of_account(ids[n]),
                    "preset": "no_mercy",
                    "mu": mu,
                    "sigma": s,
                    "games": g,
                    "wins": 0,
                    "updated_at": 1.0,
                }
                for n, mu, s, g in rows
            ],
        )
    board = Ratings(storage.engine, 5, clock=lambda: 2.0).board("no_mercy", 1, BOARD_PAGE)["entries"]
    for name in ("Ada", "Bo", "Cy"):
        mine = standing(storage.engine, "no_mercy", ids[name], 5)
        listed = next(e for e in board if e["player"] == mine["player"])
        assert (mine["rank"], mine["page"], mine["provisional"]) == (listed["rank"], 1, False)
        assert mine["rating"] == listed["rating"]
    di = standing(storage.engine, "no_mercy", ids["Di"], 5)
    assert (di["rank"], di["page"], di["provisional"], di["games_to_settle"], di["games"]) == (
        None,
        None,
        True,
        3,
        2,
    )
    # Away longer than the board's window (its last rated game before ``active_since``): off
    # the board, though settled.
    away = standing(storage.engine, "no_mercy", ids["Ada"], 5, active_since=10.0)
    assert (away["rated"], away["rank"], away["provisional"], away["games_to_settle"]) == (
        True,
        None,
        False,
        0,
    )
    fresh = standing(storage.engine, "classic", ids["Ada"], 5)
    assert (fresh["rated"], fresh["rank"], fresh["games_to_settle"]) == (False, None, 5)


def test_the_routes_over_http(start_server: Any) -> None:
    server = start_server(NOMERCY_LEADERBOARD_MIN_GAMES="2")
    guest = httpx.Client(base_url=server.url, timeout=10)
    assert guest.get("/api/leaderboards/no_mercy/me").json() == {"signed_in": False}
    assert guest.get("/api/leaderboards/nope/me").status_code == 404
    ada = signed_in(server, "Ada")
    mine = ada.get("/api/leaderboards/no_mercy/me").json()
    assert (mine["signed_in"], mine["rated"], mine["rank"], mine["games_to_settle"]) == (True, False, None, 2)
    assert guest.get("/api/rooms/ZZZZZZ/ratings?seq=1").status_code == 404
    assert guest.get("/api/rooms/ZZZZZZ/ratings").status_code == 422  # the round's version is asked for
    made = ada.post(
        "/api/rooms",
        json={"nickname": "x", "rated": True, "preset": "no_mercy", "turn_seconds": 30, "bot": "casual"},
    ).json()
    got = guest.get(f"/api/rooms/{made['code']}/ratings?seq=0").json()
    assert got == {"kept": False, "changes": []}


def test_a_bot_levels_seat_is_never_provisional_at_the_end_of_a_rated_round(storage: Storage) -> None:
    """One rule for provisional (``ratings.settling``): a bot level is anchored at its
    ladder rating, so its seats on the end screen are never provisional, however few rated
    games the level has played; the person's rating, one game old, is."""
    people = AccountStore(storage.engine)
    ada = people.create("Ada")
    store = GameStore(storage.engine)
    Ratings.install(_settings(3), store, people)
    room = _room(storage, [ada.id], bots=2)
    store.keep(_kept(room, [ada.id], 2, {"winner": 1, "knocked_out": [], "points": [0, 50, 0]}, seq=10))
    by_seat = {c["seat"]: c for c in round_changes(storage.engine, room, 10, 3)["changes"]}
    assert set(by_seat) == {0, 1, 2}
    assert (by_seat[0]["provisional"], by_seat[0]["games_to_settle"]) == (True, 2)
    for seat in (1, 2):
        assert by_seat[seat]["bot"] is True
        assert (by_seat[seat]["provisional"], by_seat[seat]["games_to_settle"]) == (False, 0)


def test_provisional_has_one_rule_for_rows_and_boards(storage: Storage) -> None:
    """``settling`` (every rating row sent) and ``settled`` (the boards' query) say the same
    of each rating: an account settles at ``min_games`` rated games, a bot level is anchored
    and always settled."""
    assert settling(player_of_account("a"), 2, 3) == {"provisional": True, "games_to_settle": 1}
    assert settling(player_of_bot("casual"), 0, 3) == {"provisional": False, "games_to_settle": 0}
    players = [player_of_account(f"a{n}") for n in range(5)] + [player_of_bot("casual")]
    with storage.engine.begin() as conn:
        for n, player in enumerate(players):
            row = {"player": player, "preset": "no_mercy", "mu": MODEL.mu, "sigma": MODEL.sigma}
            conn.execute(insert(ratings).values(**row, games=n % 5, wins=0, updated_at=0.0))
        found = {r.player: bool(r.ok) for r in conn.execute(select(ratings.c.player, settled(3).label("ok")))}
        games = {r.player: int(r.games) for r in conn.execute(select(ratings))}
    assert found == {p: not settling(p, games[p], 3)["provisional"] for p in players}
    assert [found[p] for p in players] == [False, False, False, True, True, True]
