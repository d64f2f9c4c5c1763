"""Profiles (``GET /api/players/{name}``): rounds played and won per preset from the kept
games an account's seats played, its ratings and their history in order, the recent games
a page at a time, and the privacy rule for replay links (a stranger gets them for ``link``
games only; the signed-in owner for every game, and opens its players-only games), on
SQLite and on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import insert
from sqlalchemy.engine import Engine

from nomercy.server.base.tables import Kept, reviews
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import SESSION_COOKIE, AccountStore
from nomercy.server.players.profiles import Profiles
from nomercy.server.players.ratings import player_of_account, rating_changes, ratings
from nomercy.server.rooms.storage import Storage

from .conftest import DATABASES, ServerProcess, fresh_database

TOKEN = "t" * 64
#: A round's record as far as profiles read it (only ``sitting_out``).
RECORD: dict[str, Any] = {"sitting_out": []}


def keep(
    store: GameStore,
    room: int,
    at: float,
    accounts: dict[int, str],
    *,
    preset: str = "no_mercy",
    winner: int | None = 0,
    access: str = "players",
    seats: int = 3,
    mode: str = "round",
    match_winner: int | None = None,
    sitting_out: tuple[int, ...] = (),
    daily: str | None = None,
) -> str:
    """Keep a round of ``seats`` players (the seats in ``accounts`` people, the rest bots)."""
    result: dict[str, Any] = {"winner": winner, "reason": "out", "points": [0] * seats, "knocked_out": []}
    if mode == "match":
        result["match_winner"] = match_winner
    info = {
        "preset": preset,
        "mode": mode,
        "rules": {},
        "players": [{"seat": s, "name": f"P{s}", "bot": s not in accounts} for s in range(seats)],
        "result": result,
    }
    if daily is not None:  # as kept.py writes a daily deal's round
        info["daily"] = {"day": daily, "preset": preset, "rated": True}
    kept = Kept(
        room_id=room,
        room_code="ABCDEF",
        seq=1,
        round=1,
        access=access,
        info=info,
        record={**RECORD, "sitting_out": list(sitting_out)},
        tokens={s: f"{room:02d}{s}".ljust(64, "h") for s in accounts},
        start_seq=0,
        accounts=accounts,
    )
    return store.keep(kept, now=at)


def rate(
    engine: Engine, game_id: str, account_id: str, preset: str, at: float, mu: float, sigma: float
) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(rating_changes).values(
                game_id=game_id,
                player=player_of_account(account_id),
                preset=preset,
                place=1,
                mu_before=25.0,
                sigma_before=8.333,
                mu=mu,
                sigma=sigma,
                at=at,
            )
        )


def test_rounds_played_and_won_per_preset_ratings_and_their_history(storage: Storage) -> None:
    accounts = AccountStore(storage.engine)
    store = GameStore(storage.engine)
    ada, bob = accounts.create("Ada"), accounts.create("Bob")
    keep(store, 1, 100.0, {0: ada.id})  # won (E1: seat 0 went out first)
    keep(store, 2, 200.0, {0: ada.id, 1: bob.id}, winner=1)  # lost to Bob
    keep(store, 3, 300.0, {2: ada.id}, preset="classic", winner=2)  # won, from seat 2
    keep(store, 4, 400.0, {0: ada.id}, winner=None)  # a round without a winner: played, not won
    # A match: Ada wins its last round and the match; then, knocked out (E4 off), she sits
    # a round of another match out, which she did not play.
    keep(store, 5, 500.0, {1: ada.id}, mode="match", winner=1, match_winner=1)
    keep(store, 6, 600.0, {0: ada.id}, mode="match", winner=1, sitting_out=(0,))
    keep(store, 7, 700.0, {0: bob.id})  # Bob's alone

    profiles = Profiles(storage.engine, accounts)
    found = profiles.profile("ADA", None, 1, 20)  # names by their key: "ADA" is Ada
    assert found is not None and found["name"] == "Ada" and found["since"] == ada.created_at
    assert found["presets"] == [
        {"preset": "no_mercy", "games": 4, "wins": 2, "win_rate": 0.5, "rating": None},
        {"preset": "classic", "games": 1, "wins": 1, "win_rate": 1.0, "rating": None},
    ]
    items = found["games"]["items"]
    assert [g["finished_at"] for g in items] == [500.0, 400.0, 300.0, 200.0, 100.0]  # newest first
    assert [g["won"] for g in items] == [True, False, True, False, True]
    assert items[0]["match_won"] is True and items[1]["match_won"] is None
    assert [g["players"] for g in items] == [3] * 5 and items[2]["seat"] == 2
    assert found["history"] == {} and found["games"]["total"] == 5

    # A page at a time: the second page of two starts where the first ended.
    second = profiles.profile("Ada", None, 2, 2)
    assert second is not None and [g["finished_at"] for g in second["games"]["items"]] == [300.0, 200.0]
    assert second["games"]["pages"] == 3 and second["games"]["total"] == 5

    # Ratings: the one now, and the history oldest first whatever order it was written in.
    with storage.engine.begin() as conn:
        conn.execute(
            insert(ratings).values(
                player=player_of_account(ada.id), preset="no_mercy", mu=28.0, sigma=6.0, games=3, wins=2,
                updated_at=400.0,
            )
        )  # fmt: skip
    assert all(g["id"] is None for g in items)  # players-only games, seen by nobody in particular
    owned = profiles.profile("Ada", ada, 1, 20)
    assert owned is not None and owned["me"]
    ids = {g["finished_at"]: g["id"] for g in owned["games"]["items"]}
    rate(storage.engine, str(ids[400.0]), ada.id, "no_mercy", 400.0, 28.0, 6.0)
    rate(storage.engine, str(ids[100.0]), ada.id, "no_mercy", 100.0, 27.0, 7.5)
    rate(storage.engine, str(ids[200.0]), ada.id, "no_mercy", 200.0, 26.0, 7.0)
    rated = profiles.profile("Ada", None, 1, 20)
    assert rated is not None
    assert rated["presets"][0]["rating"] == {
        "rating": 10.0, "mu": 28.0, "sigma": 6.0, "games": 3, "wins": 2,
        "provisional": True, "games_to_settle": 2,  # 3 of the boards' 5 rated games
    }  # fmt: skip
    history = rated["history"]["no_mercy"]
    assert [p["at"] for p in history] == [100.0, 200.0, 400.0]
    assert [p["mu"] for p in history] == [27.0, 26.0, 28.0]
    assert history[0]["rating"] == pytest.approx(27.0 - 22.5)

    # A deleted account's profile is gone (its games stay, no longer linked to anyone).
    assert accounts.delete(ada.id)
    assert profiles.profile("Ada", None, 1, 20) is None
    assert store.get(str(ids[100.0])) is not None


def test_a_daily_deal_links_for_nobody_until_its_day_is_over_then_for_everyone(storage: Storage) -> None:
    accounts = AccountStore(storage.engine)
    ada = accounts.create("Ada")
    keep(GameStore(storage.engine), 1, 100.0, {0: ada.id}, daily="2026-06-01")
    profiles = Profiles(storage.engine, accounts)
    for viewer in (ada, None):  # on the day: not even its player's link (the deal is everyone's)
        found = profiles.profile("Ada", viewer, 1, 20, day="2026-06-01")
        assert found is not None
        (game,) = found["games"]["items"]
        assert (game["daily"], game["id"], game["replay"]) == ("2026-06-01", None, None)
    later = profiles.profile("Ada", None, 1, 20, day="2026-06-02")  # the day after: anyone's
    assert later is not None and later["games"]["items"][0]["replay"] is not None
    assert later["presets"][0]["games"] == 1


def test_a_name_no_account_has_is_unknown(storage: Storage) -> None:
    profiles = Profiles(storage.engine, AccountStore(storage.engine))
    assert profiles.profile("Nobody", None, 1, 20) is None
    assert profiles.profile("x" * 65, None, 1, 20) is None


# -- over HTTP -----------------------------------------------------------------------------


@pytest.fixture(params=DATABASES)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[ServerProcess, Storage]]:
    url = fresh_database(request.param, tmp_path)
    seeded = Storage(url)  # the schema, before the server opens the database
    server = ServerProcess(url, log=tmp_path / "server.log").start()
    yield server, seeded
    server.stop()
    seeded.close()


def test_replay_links_for_the_owner_and_for_strangers(served: tuple[ServerProcess, Storage]) -> None:
    server, storage = served
    accounts = AccountStore(storage.engine)
    store = GameStore(storage.engine)
    ada, eve = accounts.create("Ada"), accounts.create("Eve")
    private = keep(store, 1, 100.0, {0: ada.id}, access="players")
    shared = keep(store, 2, 200.0, {0: ada.id}, access="link")
    with storage.engine.begin() as conn:
        conn.execute(insert(reviews).values(game_id=private, review="{}", at=150.0))
        conn.execute(insert(reviews).values(game_id=shared, review="{}", at=250.0))

    def profile(cookie: str | None) -> dict[str, Any]:
        cookies = {SESSION_COOKIE: cookie} if cookie else None
        r = httpx.get(f"{server.url}/api/players/ada", cookies=cookies, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    # A stranger (a guest, or another account) sees both rounds, but the players-only one
    # without its id or links: the profile is no way around who may open a game.
    for cookie in (None, accounts.open_session(eve.id)):
        seen = profile(cookie)
        assert seen["me"] is False
        link_game, players_game = seen["games"]["items"]
        assert link_game["id"] == shared and link_game["replay"] == f"/g/{shared}"
        assert link_game["review"] == f"/g/{shared}#review"
        assert players_game["access"] == "players" and players_game["finished_at"] == 100.0
        assert (players_game["id"], players_game["replay"], players_game["review"]) == (None, None, None)
        assert private not in str(seen)
        r = httpx.get(f"{server.url}/api/games/{private}/record", cookies=cookie and {SESSION_COOKIE: cookie})
        assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden"

    # The owner, signed in, gets every link and opens her players-only game with her
    # session alone (on a device that never held the seat's token).
    token = accounts.open_session(ada.id)
    mine = profile(token)
    assert mine["me"] is True
    assert [(g["id"], g["review"]) for g in mine["games"]["items"]] == [
        (shared, f"/g/{shared}#review"),
        (private, f"/g/{private}#review"),
    ]
    r = httpx.get(f"{server.url}/api/games/{private}/record", cookies={SESSION_COOKIE: token}, timeout=10)
    assert r.status_code == 200 and r.json() == RECORD

    # Unknown names, and a deleted account's, are 404 in the API's error shape.
    for name in ("nobody", "x" * 80):
        r = httpx.get(f"{server.url}/api/players/{name}", timeout=10)
        assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"
    assert accounts.delete(ada.id)
    r = httpx.get(f"{server.url}/api/players/Ada", cookies={SESSION_COOKIE: token}, timeout=10)
    assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"
    r = httpx.get(f"{server.url}/api/games/{private}/record", cookies={SESSION_COOKIE: token}, timeout=10)
    assert r.status_code == 403  # her session went with her account

    r = httpx.get(f"{server.url}/api/players/Eve", params={"per_page": 500}, timeout=10)
    assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_message"
