"""Passkeys named by their owner (issue 41: two passkeys looked the same on the account
page): a name given when a passkey is added, a rename on the account page, both within a
nickname's bounds (``names.clean_nickname``), read back in the account's passkeys; only
the account's own passkeys, only when signed in."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("webauthn")

from .softkey import SoftKey
from .test_accounts import client, signup


def add_named(http: Any, key: SoftKey, name: str | None) -> Any:
    body = http.post("/api/account/passkeys/options").json()
    answer: dict[str, Any] = {"ceremony": body["ceremony"], "credential": key.create(body["options"])}
    if name is not None:
        answer["name"] = name
    return http.post("/api/account/passkeys/verify", json=answer)


def names(r: Any) -> list[str | None]:
    return [p["name"] for p in r.json()["account"]["passkeys"]]


def test_a_passkey_is_named_when_added_and_renamed_within_a_nicknames_bounds(start_server: Any) -> None:
    server = start_server()
    phone, laptop, spare = SoftKey(server.url), SoftKey(server.url), SoftKey(server.url)
    with client(server) as http:
        r = signup(http, phone, "Nora")
        assert r.status_code == 200, r.text
        assert names(r) == [None]  # the first one, from sign-up: the page numbers it
        r = add_named(http, laptop, "  Laptop   at\u00a0work ")
        assert r.status_code == 200, r.text
        assert names(r) == [None, "Laptop at work"]  # spaces folded as in a nickname
        first, second = (p["id"] for p in r.json()["account"]["passkeys"])

        r = http.post("/api/account/passkeys/rename", json={"id": first, "name": "Phone"})
        assert r.status_code == 200, r.text
        assert names(r) == ["Phone", "Laptop at work"]
        assert names(http.get("/api/account")) == ["Phone", "Laptop at work"]  # stored
        r = http.post("/api/account/passkeys/rename", json={"id": second, "name": ""})
        assert names(r) == ["Phone", None]  # an empty name takes it away

        for bad in ("x" * 25, "Bad\u202ename", "\u200b\u200b"):
            r = http.post("/api/account/passkeys/rename", json={"id": first, "name": bad})
            assert r.status_code == 400 and r.json()["detail"]["message"].startswith("passkey name:"), bad
        r = add_named(http, spare, "y" * 25)
        assert r.status_code == 400  # refused before the passkey is kept
        assert len(http.get("/api/account").json()["account"]["passkeys"]) == 2
        r = http.post("/api/account/passkeys/rename", json={"id": "not-mine", "name": "Mine"})
        assert r.status_code == 404

    with client(server) as other:
        assert signup(other, SoftKey(server.url), "Olav").status_code == 200
        r = other.post("/api/account/passkeys/rename", json={"id": first, "name": "Taken"})
        assert r.status_code == 404  # another account's passkey is not found, nor renamed
    with client(server) as guest:
        r = guest.post("/api/account/passkeys/rename", json={"id": first, "name": "Taken"})
        assert r.status_code == 401
