"""The accounts' store and the schema that holds them: migrations 0004-0006 and 0009 up and
down, names that only one account may have, sessions that end (with the passkey that opened
them, one by one or all at once, when they expire), credential ids held once, and the seats
and kept games an account played (on SQLite, and on PostgreSQL where ``NOMERCY_TEST_POSTGRES_URL`` is set)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, select, text

from nomercy.server.base import schema
from nomercy.server.base.tables import Kept, game_seats
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import (
    CONFIRM_SECONDS,
    SESSION_SECONDS,
    AccountStore,
    NameTaken,
    Passkey,
    PasskeyTaken,
    handle_of,
    sessions,
)
from nomercy.server.rooms.storage import Storage, StoredSeat

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
    from nomercy.server.players.accounts import CEREMONY_SECONDS, Ceremony

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


def _key(credential_id: str) -> Passkey:
    return Passkey(credential_id, b"public key", 0, ["internal"], 1000.0)


@pytest.mark.parametrize("db", DATABASES)
def test_migration_0009_keeps_the_sessions_open(db: str, tmp_path: Path) -> None:
    """0009 adds which passkey opened a session, when it was last seen and confirmed; a
    session opened before it stays open (none of them known: never confirmed), and a
    downgrade keeps it too."""
    url = fresh_database(db, tmp_path)
    engine = create_engine(url)
    try:
        assert schema.upgrade(engine, "0008")[1] == "0008"
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO nomercy_accounts (id, name, name_key, created_at, user_handle)"
                    " VALUES ('a1', 'Ada', 'ada', 1.0, :handle)"
                ),
                {"handle": b"h" * 32},
            )
            conn.execute(
                text(
                    "INSERT INTO nomercy_sessions (id_hash, account_id, created_at, expires_at)"
                    " VALUES (:digest, 'a1', 1.0, 1e12)"
                ),
                {"digest": hashlib.sha256(b"old-token").hexdigest()},
            )
        assert schema.upgrade(engine)[1] == schema.head()
        columns = {c["name"] for c in inspect(engine).get_columns("nomercy_sessions")}
        assert {"credential_id", "last_seen_at", "confirmed_at"} <= columns
        store = AccountStore(engine)
        old = store.session("old-token", now=2.0)
        assert old is not None and old.credential_id is None and not old.fresh(2.0)
        assert schema.downgrade(engine, "0008")[1] == "0008"
        columns = {c["name"] for c in inspect(engine).get_columns("nomercy_sessions")}
        assert not {"credential_id", "last_seen_at", "confirmed_at"} & columns
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM nomercy_sessions")).scalar_one() == 1
        assert schema.upgrade(engine)[1] == schema.head()
    finally:
        engine.dispose()


@pytest.mark.parametrize("db", DATABASES)
def test_sessions_know_their_passkey_and_end_with_it(db: str, tmp_path: Path) -> None:
    storage = Storage(fresh_database(db, tmp_path))
    try:
        store = AccountStore(storage.engine)
        ada = store.create("Ada", passkey=_key("laptop"))
        store.add_passkey(ada.id, _key("phone"))
        at_home = store.open_session(ada.id, now=1000.0, credential_id="laptop")
        on_phone = store.open_session(ada.id, now=1000.0, credential_id="phone")
        phone = store.session(on_phone, now=1001.0)
        assert phone is not None and phone.credential_id == "phone" and phone.fresh(1001.0)
        assert not phone.fresh(1000.0 + CONFIRM_SECONDS + 1)  # a sign-in confirms for minutes
        store.confirm_session(on_phone, now=5000.0)
        phone = store.session(on_phone, now=5001.0)
        assert phone is not None and phone.fresh(5001.0) and phone.last_seen_at == 5001.0
        assert store.remove_passkey(ada.id, "phone")
        assert store.session_account(on_phone, now=5002.0) is None  # went with its passkey
        assert store.session_account(at_home, now=5002.0) == ada
    finally:
        storage.close()


@pytest.mark.parametrize("db", DATABASES)
def test_sessions_are_listed_ended_and_pruned(db: str, tmp_path: Path) -> None:
    storage = Storage(fresh_database(db, tmp_path))
    try:
        store = AccountStore(storage.engine)
        ada, bo = store.create("Ada"), store.create("Bo")
        old = store.open_session(ada.id, now=1000.0)
        new = store.open_session(ada.id, now=2000.0, credential_id="k")
        theirs = store.open_session(bo.id, now=2000.0)
        listed = store.sessions_of(ada.id, now=2001.0)
        assert [s.id for s in listed] == [handle_of(new), handle_of(old)]  # newest first
        assert all(len(s.id) == 24 for s in listed)
        assert not store.end_session(ada.id, handle_of(theirs))  # not hers to end
        assert store.end_session(ada.id, handle_of(old))
        assert store.session_account(old, now=2001.0) is None
        assert store.end_sessions(ada.id) == 1 and store.sessions_of(ada.id, now=2001.0) == []
        assert store.session_account(theirs, now=2001.0) == bo
        # An expired session is pruned when a new one opens (of any account).
        later = 2000.0 + SESSION_SECONDS + 1
        store.open_session(ada.id, now=later)
        with storage.engine.connect() as conn:
            digests = conn.execute(select(sessions.c.id_hash)).scalars().all()
        assert hashlib.sha256(theirs.encode()).hexdigest() not in digests and len(digests) == 1
    finally:
        storage.close()


@pytest.mark.parametrize("db", DATABASES)
def test_a_credential_id_is_one_passkeys(db: str, tmp_path: Path) -> None:
    """A credential id registered already is :class:`PasskeyTaken`, never "name taken" at
    sign-up (the name stays free), and adding it again changes nothing."""
    storage = Storage(fresh_database(db, tmp_path))
    try:
        store = AccountStore(storage.engine)
        ada = store.create("Ada", passkey=_key("same"))
        with pytest.raises(PasskeyTaken):
            store.create("Bo", passkey=_key("same"))
        assert store.name_free("Bo")
        with pytest.raises(PasskeyTaken):
            store.add_passkey(ada.id, _key("same"))
        assert [p.id for p in store.passkeys_of(ada.id)] == ["same"]
    finally:
        storage.close()
