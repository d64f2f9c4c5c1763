"""Migration 0010: passkeys get a name their owner gives them (issue 41: two passkeys looked
the same on the account page). Up from 0009 a passkey keeps everything it had, with no
name; a name given then is read back; down to 0009 the name goes and the passkey stays,
and up again it has none. On SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("icu")

from sqlalchemy import create_engine, inspect, text

from nomercy.server.base import schema
from nomercy.server.players.accounts import AccountStore

from .conftest import DATABASES, fresh_database


def passkey_columns(engine: object) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns("nomercy_passkeys")}  # type: ignore[arg-type]


@pytest.mark.parametrize("db", DATABASES)
def test_passkey_names_upgrade_and_downgrade_keeping_the_passkeys(db: str, tmp_path: Path) -> None:
    engine = create_engine(fresh_database(db, tmp_path))
    try:
        schema.upgrade(engine, "0009")
        assert "name" not in passkey_columns(engine)
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO nomercy_accounts (id, name, name_key, created_at, user_handle)"
                    " VALUES ('acc', 'Ann', 'ann', 1.0, :handle)"
                ),
                {"handle": b"h" * 32},
            )
            conn.execute(
                text(
                    "INSERT INTO nomercy_passkeys (id, account_id, public_key, sign_count, transports,"
                    " created_at, last_used_at) VALUES ('cred', 'acc', :key, 3, '[\"usb\"]', 2.0, NULL)"
                ),
                {"key": b"k" * 16},
            )
        schema.upgrade(engine, "0010")
        people = AccountStore(engine)
        (old,) = people.passkeys_of("acc")
        assert (old.id, old.public_key, old.sign_count, old.transports, old.name) == (
            "cred", b"k" * 16, 3, ["usb"], None,
        )  # fmt: skip
        assert people.rename_passkey("acc", "cred", "Yubikey blue")
        assert not people.rename_passkey("someone-else", "cred", "Mine now")  # only the owner's
        assert people.passkeys_of("acc")[0].name == "Yubikey blue"

        schema.downgrade(engine, "0009")
        assert "name" not in passkey_columns(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT id, sign_count FROM nomercy_passkeys")).all() == [("cred", 3)]
        schema.upgrade(engine)
        assert "name" in passkey_columns(engine)
        assert AccountStore(engine).passkeys_of("acc")[0].name is None
    finally:
        engine.dispose()
