"""The accounts' store and the schema that holds them: migrations 0004-0006 up and down,
names that only one account may have, sessions that end, and the seats and kept games an
account played (on SQLite, and on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, select

from nomercy.server import schema
from nomercy.server.accounts import SESSION_SECONDS, AccountStore, NameTaken
from nomercy.server.games import GameStore, Kept, game_seats
from nomercy.server.storage import Storage, StoredSeat

from .conftest import DATABASES, fresh_database


@pytest.mark.parametrize("db", DATABASES)
def test_migrations_0004_to_0006_up_and_down(db: str, tmp_path: Path) -> None:
    engine = create_engine(fresh_database(db, tmp_path))
    added = {"nomercy_accounts", "nomercy_passkeys", "nomercy_sessions", "nomercy_ratings"}
    added |= {"nomercy_rating_changes", "nomercy_daily_results"}
    try:
        assert schema.upgrade(engine, "0003")[1] == "0003"
        assert not added & set(inspect(engine).get_table_names())
        assert schema.upgrade(engine)[1] == schema.head()
        assert added <= set(inspect(engine).get_table_names())
        assert "account_id" in {c["name"] for c in inspect(engine).get_columns("nomercy_seats")}
        assert schema.downgrade(engine, "0003")[1] == "0003"
        assert not added & set(inspect(engine).get_table_names())
        assert "account_id" not in {c["name"] for c in inspect(engine).get_columns("nomercy_game_seats")}
        assert schema.upgrade(engine)[1] == schema.head()
    finally:
        engine.dispose()


@pytest.mark.parametrize("db", DATABASES)
def test_names_sessions_and_what_an_account_played(db: str, tmp_path: Path) -> None:
    storage = Storage(fresh_database(db, tmp_path))
    try:
        store = AccountStore(storage.engine)
        ada = store.create("Ada")
        with pytest.raises(NameTaken):
            store.create("ADA")  # a name a person could not tell from Ada's is hers
        assert store.by_name("ada") == ada and store.get(ada.id) == ada
        token = store.open_session(ada.id, now=1000.0)
        assert store.session_account(token, now=1001.0) == ada
        assert store.session_account(token, now=1000.0 + SESSION_SECONDS + 1) is None  # expired
        assert store.session_account("not-a-session", now=1001.0) is None
        store.close_session(token)
        assert store.session_account(token, now=1001.0) is None

        room_id = storage.create_room(
            "ABCDE",
            {},
            [StoredSeat(0, "human", "Ada", "h" * 64, True, ada.id), StoredSeat(1, "bot", "B", None, False)],
        )
        stored = storage.load_room(room_id)
        assert stored is not None
        assert [s.account_id for s in stored.seats] == [ada.id, None]

        games = GameStore(storage.engine)
        seen: list[str] = []
        games.on_keep.append(lambda conn, game_id, kept: seen.append(game_id))
        kept = Kept(room_id, "ABCDE", 5, 1, "players", {}, {}, {0: "h" * 64}, 0, {0: ada.id})
        game_id = games.keep(kept)
        assert games.keep(kept) == game_id and seen == [game_id]  # kept once: the hooks ran once
        with storage.engine.connect() as conn:
            row = conn.execute(select(game_seats).where(game_seats.c.game_id == game_id)).one()
        assert row.account_id == ada.id

        removed: list[str] = []
        store.on_delete.append(lambda conn, account_id: removed.append(account_id))
        token = store.open_session(ada.id)
        assert store.delete(ada.id) and removed == [ada.id]
        assert store.get(ada.id) is None and store.session_account(token) is None
        assert not store.delete(ada.id)
        with storage.engine.connect() as conn:  # the game stays, no longer linked to her
            row = conn.execute(select(game_seats).where(game_seats.c.game_id == game_id)).one()
        assert row.account_id is None and row.token_hash == "h" * 64
        assert storage.load_room(room_id).seats[0].account_id is None  # type: ignore[union-attr]
    finally:
        storage.close()


def test_a_ceremony_answers_once_and_not_after_it_expires(tmp_path: Path) -> None:
    from nomercy.server.accounts import CEREMONY_SECONDS, Ceremony

    storage = Storage(fresh_database("sqlite", tmp_path))
    try:
        store = AccountStore(storage.engine)
        late = store.start_ceremony(Ceremony("signin", b"c" * 32), now=1000.0)
        assert store.take_ceremony(late, "signin", now=1000.0 + CEREMONY_SECONDS + 1) is None
        kept = store.start_ceremony(Ceremony("signup", b"d" * 32, name="Ada"), now=1000.0)
        assert store.take_ceremony(kept, "signin", now=1001.0) is None  # another purpose
        found = store.take_ceremony(kept, "signup", now=1001.0)
        assert found is not None and found.challenge == b"d" * 32 and found.name == "Ada"
        assert store.take_ceremony(kept, "signup", now=1001.0) is None  # used up
        ada = store.create("Ada")
        adding = store.start_ceremony(Ceremony("add", b"e" * 32, account_id=ada.id))
        store.delete(ada.id)
        assert store.take_ceremony(adding, "add") is None  # gone with its account
    finally:
        storage.engine.dispose()
