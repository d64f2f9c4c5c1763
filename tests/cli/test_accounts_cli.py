"""``nomercy accounts``: the operator lists the accounts and removes one with its personal
data (passkeys, sessions), asked to confirm unless ``--yes``; an unknown name or an old
schema is a clear error."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from typer.testing import CliRunner

from nomercy.cli import app
from nomercy.server.players.accounts import AccountStore, Passkey
from nomercy.server.rooms.storage import Storage

runner = CliRunner(env={"COLUMNS": "200"})


def key(n: int, used: float | None = None) -> Passkey:
    return Passkey(f"cred{n}", b"public key", 0, ["internal"], time.time(), used)


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    storage = Storage(url)  # migrated to the newest revision, as by nomercy serve
    store = AccountStore(storage.engine)
    ada = store.create("Ada", now=1_700_000_000.0, passkey=key(1))
    store.add_passkey(ada.id, key(2, used=1_700_086_400.0))
    store.open_session(ada.id)
    store.create("Bo", now=1_700_000_100.0, passkey=key(3))
    storage.engine.dispose()
    return url


def test_list_shows_every_account_with_passkeys_sign_in_and_sessions(url: str) -> None:
    out = runner.invoke(app, ["accounts", "list", "--database-url", url])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    ada = next(line for line in lines if line.startswith("Ada"))
    assert ada.split() == ["Ada", "2023-11-14", "22:13", "2", "2023-11-15", "22:13", "1", "0"]
    bo = next(line for line in lines if line.startswith("Bo"))
    assert bo.split()[3:6] == ["1", "never", "0"]
    assert "2 account(s)" in out.output


def test_remove_asks_then_deletes_the_account_and_its_passkeys_and_sessions(url: str) -> None:
    out = runner.invoke(app, ["accounts", "remove", "ADA", "--database-url", url], input="n\n")
    assert out.exit_code == 1 and "nothing removed" in out.output
    out = runner.invoke(app, ["accounts", "remove", "ADA", "--database-url", url], input="y\n")
    assert out.exit_code == 0, out.output
    assert "removed account 'Ada': 2 passkey(s), 1 open session(s)" in out.output
    storage = Storage(url)
    store = AccountStore(storage.engine)
    try:
        assert (
            store.by_name("Ada") is None and store.passkey("cred1") is None and store.passkey("cred2") is None
        )
        assert [s.account.name for s in store.summaries()] == ["Bo"]
    finally:
        storage.engine.dispose()
    out = runner.invoke(app, ["accounts", "remove", "Ada", "--yes", "--database-url", url])
    assert out.exit_code == 1 and "no account is named 'Ada'" in out.output


def test_remove_deletes_the_ratings_and_daily_results_too(url: str) -> None:
    from sqlalchemy import insert, select

    from nomercy.server.players.daily import daily_results, entrant_of
    from nomercy.server.players.ratings import player_of_account, ratings

    storage = Storage(url)
    ada = AccountStore(storage.engine).by_name("Ada")
    assert ada is not None
    with storage.engine.begin() as conn:
        conn.execute(
            insert(ratings).values(
                player=player_of_account(ada.id),
                preset="no_mercy",
                mu=27.0,
                sigma=3.0,
                games=9,
                wins=5,
                updated_at=1.0,
            )
        )
        conn.execute(
            insert(daily_results).values(
                day="2026-12-05", preset="no_mercy", entrant=entrant_of(ada.id), room_id=1, started_at=1.0
            )
        )
    storage.engine.dispose()
    out = runner.invoke(app, ["accounts", "remove", "Ada", "--yes", "--database-url", url])
    assert out.exit_code == 0, out.output
    storage = Storage(url)
    try:
        with storage.engine.connect() as conn:
            assert (
                conn.execute(select(ratings)).all() == [] and conn.execute(select(daily_results)).all() == []
            )
    finally:
        storage.engine.dispose()


def test_an_old_schema_is_refused_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    from sqlalchemy import create_engine

    from nomercy.server.base import schema

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = create_engine(url)
    schema.upgrade(engine, "0003")
    engine.dispose()
    out = runner.invoke(app, ["accounts", "list", "--database-url", url])
    assert out.exit_code == 1 and "run nomercy db upgrade first" in out.output
