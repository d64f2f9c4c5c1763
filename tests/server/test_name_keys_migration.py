"""Migration 0008: accounts made before names were compared by their TR39 skeleton get the
new key, oldest first; look-alikes the old keys let through are kept apart, the older one
keeping the name (``docs/ratings.md``, Fair play: Names). On SQLite and PostgreSQL."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

pytest.importorskip("icu")

from sqlalchemy import create_engine, select, text

from nomercy.server.base import schema
from nomercy.server.base.names import name_key
from nomercy.server.players.accounts import AccountStore, NameTaken, accounts

from .conftest import DATABASES, fresh_database

#: (id, name, the key an earlier release stored, made at): the look-alike list of earlier
#: releases did not know the invisible mark U+034F nor Cyrillic letters.
OLD = [
    ("a-paloma", "Paloma", "paloma", 100.0),
    ("b-ann", "Ann", "ann", 110.0),
    ("c-paloma-mark", "Pal\u034foma", "pal\u034foma", 120.0),
    ("d-ann-cyrillic", "\u0410nn", "\u0430nn", 130.0),
    # An old key that is another account's new one: the rekeying must not trip on it.
    ("e-zed", "Zed", name_key("Ann") + "x", 140.0),
    ("f-annx", "Annx", "zed", 150.0),
]


@pytest.mark.parametrize("db", DATABASES)
def test_old_name_keys_are_recomputed_oldest_first_and_look_alikes_kept_apart(
    db: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = create_engine(fresh_database(db, tmp_path))
    try:
        schema.upgrade(engine, "0007")
        with engine.begin() as conn:
            for n, (account_id, name, key, at) in enumerate(OLD):
                conn.execute(
                    text(
                        "INSERT INTO nomercy_accounts (id, name, name_key, created_at, user_handle)"
                        " VALUES (:id, :name, :key, :at, :handle)"
                    ),
                    {"id": account_id, "name": name, "key": key, "at": at, "handle": bytes([n]) * 32},
                )
        with caplog.at_level(logging.INFO, logger="nomercy.server.base.migrations"):
            schema.upgrade(engine, "0008")
        with engine.connect() as conn:
            keys = {r.id: r.name_key for r in conn.execute(select(accounts.c.id, accounts.c.name_key))}
        # Every account is still there; the older of each look-alike pair has the name's key.
        assert len(keys) == len(OLD)
        assert keys["a-paloma"] == name_key("Paloma") and keys["b-ann"] == name_key("Ann")
        assert keys["e-zed"] == name_key("Zed") and keys["f-annx"] == name_key("Annx")
        # The newer look-alikes keep a key of their own, which no name has.
        for newer in ("c-paloma-mark", "d-ann-cyrillic"):
            assert keys[newer].endswith("\t" + newer) and keys[newer] not in {
                name_key(n) for _, n, _, _ in OLD
            }
        # No third look-alike registers now, under either spelling.
        people = AccountStore(engine)
        for name in ("Paloma", "Pal\u034foma", "\u0410nn", "ANN"):
            with pytest.raises(NameTaken):
                people.create(name)
        assert people.create("Paula").name == "Paula"
        said = caplog.text
        assert "c-paloma-mark" in said and "a-paloma" in said and "d-ann-cyrillic" in said
        assert "2 look-alikes kept apart" in said
    finally:
        engine.dispose()
