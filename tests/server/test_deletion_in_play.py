"""Deleting an account while its game is in play leaves nothing of it behind (issue 40).

The process running the room still holds the person's name and account in memory when
the deletion commits (the person's own request, or ``nomercy accounts remove`` from
another process). The round kept afterwards must look like the games the deletion
anonymised ("Player N", no account), no rating is written for the deleted account, and
the chat, in the room as played and in storage, loses the name.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from nomercy.server.base.tables import Kept, chat, game_seats, games, seats
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import FORMER_PLAYER, SESSION_COOKIE, AccountStore, vetted
from nomercy.server.players.ratings import Ratings, player_of_account, rating_changes, ratings
from nomercy.server.players.store import account_store
from nomercy.server.rooms.social import ChatLine, SocialStore
from nomercy.server.rooms.storage import Storage, StoredSeat
from patience import WAIT_SECONDS

from .conftest import DATABASES, WS, fresh_database, hello

RATED: dict[str, Any] = {"preset": "no_mercy", "bot": "casual", "rated": True, "turn_seconds": 30}


def test_a_round_kept_after_its_players_deletion_is_kept_nameless_and_unrated(storage: Storage) -> None:
    """The live process keeps the round with the name and account it had in memory."""
    people = account_store(storage.engine)
    ada, bo = people.create("Ada"), people.create("Bo")
    store = GameStore(storage.engine)
    Ratings.install(_settings(), store, people)
    store.vet.append(vetted)  # as the server wires it
    room = storage.create_room(
        "DELADA",
        RATED,
        [
            StoredSeat(0, "human", "Ada", "a" * 64, True, ada.id),
            StoredSeat(1, "human", "Bo", "b" * 64, False, bo.id),
            StoredSeat(2, "bot", "Bot", None, False),
        ],
    )
    social = SocialStore(storage)
    social.add_chat(room, ChatLine(0, "Ada", "good luck"))
    social.add_chat(room, ChatLine(1, "Bo", "thanks"))
    assert people.delete(ada.id)
    players = [{"seat": 0, "name": "Ada", "bot": False}, {"seat": 1, "name": "Bo", "bot": False}]
    players.append({"seat": 2, "name": "Bot", "bot": True})
    info = {
        "preset": "no_mercy",
        "mode": "round",
        "players": players,
        "result": {"winner": 0, "knocked_out": []},
    }
    tokens, accounts = {0: "a" * 64, 1: "b" * 64}, {0: ada.id, 1: bo.id}  # as the live room had them
    kept = Kept(room, "DELADA", 30, 1, "players", info, {"sitting_out": []}, tokens, 0, accounts)
    game_id = store.keep(kept)
    with storage.engine.connect() as conn:
        shown = conn.execute(select(games.c.info).where(games.c.id == game_id)).scalar_one()
        linked = dict(conn.execute(select(game_seats.c.seat, game_seats.c.account_id)).all())
        rated = {r.player for r in conn.execute(select(ratings)).all()}
        changed = {r.player for r in conn.execute(select(rating_changes)).all()}
        lines = conn.execute(select(chat.c.seat, chat.c.nickname).order_by(chat.c.id)).all()
        stored = dict(
            conn.execute(select(seats.c.seat, seats.c.nickname).where(seats.c.room_id == room)).all()
        )
    assert "Ada" not in shown and FORMER_PLAYER.format(n=1) in shown
    assert linked == {0: None, 1: bo.id}
    assert player_of_account(ada.id) not in rated | changed, "a rating written for a deleted account"
    assert player_of_account(bo.id) in rated  # the others' round still counts
    assert [tuple(r) for r in lines] == [(0, "Player 1"), (1, "Bo")]
    assert stored[0] is None and stored[1] == "Bo"


def _settings() -> Any:
    from nomercy.server.base.settings import Settings

    return Settings(leaderboard_min_games=1)


def _signed_in(url: str, database_url: str, name: str) -> tuple[httpx.Client, str]:
    engine = create_engine(database_url)
    try:
        store = AccountStore(engine)
        account = store.create(name)
        token = store.open_session(account.id)
    finally:
        engine.dispose()
    return httpx.Client(base_url=url, cookies={SESSION_COOKIE: token}, timeout=10), account.id


def _wait(check: Any, what: str) -> Any:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.parametrize("db", DATABASES)
def test_removing_an_account_during_its_game(db: str, start_server: Any, tmp_path: Path) -> None:
    """``nomercy accounts remove`` from another process: the server learns it at its sweep."""
    url = fresh_database(db, tmp_path)
    server = start_server(url, NOMERCY_SWEEP_SECONDS="0.2", NOMERCY_GRACE_SECONDS="0.05")
    client, ada = _signed_in(server.url, url, "Ada")
    made = client.post(
        "/api/rooms", json={"nickname": "Ada", "seats": 2, "bots": 1, "rules": {"hand_size": 3}}
    )
    assert made.status_code == 200, made.text
    code, token = made.json()["code"], made.json()["token"]
    ws: WS = hello(server, code, token)  # Ada at the table: her turns wait for her
    ws.send({"type": "chat", "text": "hello from Ada"})
    ws.wait(lambda m: m["type"] == "chat" and m["nickname"] == "Ada")
    started = client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
    assert started.status_code == 200, started.text
    ws.wait(lambda m: m["type"] == "state" and m["view"] is not None)

    mark = ws.mark()
    cli = [sys.executable, "-m", "nomercy.cli", "accounts", "remove", "Ada", "--yes", "--database-url", url]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=WAIT_SECONDS)
    assert done.returncode == 0, done.stderr
    # The table as played: the seat loses its name, the chat lines are signed "Player 1".
    history = ws.wait(
        lambda m: (
            m["type"] == "chat_history" and any(c.get("text") == "hello from Ada" for c in m["messages"])
        ),
        start=mark,
    )
    assert [c["nickname"] for c in history["messages"] if c.get("text") == "hello from Ada"] == ["Player 1"]
    info = ws.wait(lambda m: m["type"] == "room" and m["room"]["seats"][0]["nickname"] is None, start=mark)
    assert "Ada" not in str(info["room"])
    ws.close()  # gone: a stand-in plays the seat to the round's end, and the round is kept

    engine = create_engine(url)
    try:

        def kept() -> Any:
            with engine.connect() as conn:
                return conn.execute(select(games.c.id, games.c.info)).first()

        game = _wait(kept, "the round was never kept")
        with engine.connect() as conn:
            linked = conn.execute(
                select(game_seats.c.account_id).where(game_seats.c.game_id == game.id)
            ).all()
            lines = conn.execute(select(chat.c.nickname)).scalars().all()
            rated = conn.execute(select(ratings.c.player)).scalars().all()
    finally:
        engine.dispose()
    assert "Ada" not in game.info and FORMER_PLAYER.format(n=1) in game.info
    assert ada not in {a for (a,) in linked}
    assert lines == ["Player 1"]
    assert player_of_account(ada) not in rated
