"""Smaller leaks, each performed as the attack: a spectator collecting the ids of a room's
kept games, a refusal that hands out a room's join code, and asking whether names exist
without limit. On SQLite, and on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from patience import WAIT_SECONDS, scaled

from .conftest import DATABASES, create_room, fresh_database, hello, start_room
from .test_game import play_humans
from .test_kept_games import QUICK


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def played(server: Any, seed: int, **body: Any) -> dict[str, Any]:
    """A room of a person and a bot, its round played to the end; the room as made."""
    made = create_room(server, seats=2, bots=1, bot="heuristic", seed=seed, **body)
    start_room(server, made["code"], made["token"])
    ws = hello(server, made["code"], made["token"])
    try:
        play_humans({0: ws}, random.Random(seed))
    finally:
        ws.close()
    return made


def listed(server: Any, made: dict[str, Any]) -> list[dict[str, Any]]:
    """The room's games as its player lists them, once the round is kept (off the loop)."""
    until = time.monotonic() + WAIT_SECONDS
    while True:
        r = httpx.get(
            f"{server.url}/api/rooms/{made['code']}/games", headers=bearer(made["token"]), timeout=10
        )
        assert r.status_code == 200, r.text
        games: list[dict[str, Any]] = r.json()["games"]
        if games or time.monotonic() > until:
            assert games, "the round was not kept"
            return games
        time.sleep(0.1)


@pytest.mark.parametrize("db", DATABASES)
def test_only_players_list_a_rooms_games(db: str, start_server: Any, tmp_path: Path) -> None:
    """The attack: a spectator (who knows the code) lists the room's games to collect the
    ids of games kept for anyone with the link. Only the room's players may list them."""
    server = start_server(fresh_database(db, tmp_path), **QUICK, NOMERCY_JOIN_FAILURES_PER_MINUTE="3")
    made = played(server, 61, replays="link")
    games = listed(server, made)
    assert games[0]["access"] == "link" and games[0]["id"]
    other = played(server, 62)  # another room's player is no player of this one
    url = f"{server.url}/api/rooms/{made['code']}/games"
    for headers in ({}, bearer("x" * 32), bearer(other["token"]), {"Authorization": "Basic abc"}):
        r = httpx.get(url, headers=headers, timeout=10)
        assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden", r.text
        assert games[0]["id"] not in r.text
    # Unknown codes are guesses: past the address's limit even a real room answers 429.
    for _ in range(3):
        assert httpx.get(f"{server.url}/api/rooms/ZZZZZZ/games", timeout=10).status_code == 404
    blocked = httpx.get(url, headers=bearer(made["token"]), timeout=10)
    assert blocked.status_code == 429 and blocked.json()["detail"]["code"] == "rate_limited"


def test_a_players_only_refusal_names_no_room(start_server: Any) -> None:
    """The attack: open a players-only game's link (shared on a page) without a seat token,
    to learn the join code of the room it was played in from the 403."""
    server = start_server(**QUICK)
    made = played(server, 63)  # players only (the default)
    (game,) = listed(server, made)
    for path in ("", "/record", "/review"):
        r = httpx.get(f"{server.url}/api/games/{game['id']}{path}", timeout=10)
        assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden", r.text
        assert made["code"] not in r.text and "room" not in r.json()["detail"]
    # Its player still opens it with the seat token.
    assert httpx.get(
        f"{server.url}/api/games/{game['id']}", headers=bearer(made["token"]), timeout=10
    ).is_success


def test_asking_whether_names_exist_is_limited(start_server: Any) -> None:
    """The attack: ask ``/api/players/{name}`` for name after name to learn which accounts
    exist. A name that finds nobody counts against the address's limit on sign-ups and
    sign-ins, as sign-up's "name taken" does (``docs/accounts.md``)."""
    server = start_server(NOMERCY_ACCOUNT_ATTEMPTS_PER_MINUTE="3")
    for n in range(3):
        r = httpx.get(f"{server.url}/api/players/Nobody{n}", timeout=scaled(10))
        assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found", r.text
    r = httpx.get(f"{server.url}/api/players/Nobody9", timeout=scaled(10))
    assert r.status_code == 429 and r.json()["detail"]["code"] == "rate_limited", r.text
    assert "wait a minute" in r.json()["detail"]["message"]
