"""Names that can be told apart (issue 39, fair play): each attack on names, performed.

A name is compared by its Unicode TR39 confusable skeleton (ICU's, after default-ignorable
code points are removed and the text normalised): invisible marks, a Cyrillic letter in a
bot's name and a guest sitting under an account's name are all refused, and a seat held by
an account carries a mark that only the server sets. Storage is involved (accounts), so the
attacks over HTTP run on SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from nomercy.server.base.names import clean_nickname, name_key
from nomercy.server.rooms.room import bot_name

from .conftest import DATABASES, ServerProcess, create_room, join_room
from .softkey import SoftKey
from .test_accounts import client, server_for, signup

#: Marks that draw nothing: the combining grapheme joiner, an emoji variation selector, a
#: supplementary variation selector, a Mongolian free variation selector.
INVISIBLE = ["\u034f", "\ufe0f", "\U000e0100", "\u180b"]
#: "Bot 1 (beginner)" with a Cyrillic capital Ve for the B: drawn exactly like the bot.
CYRILLIC_BOT = "\u0412ot 1 (beginner)"
#: Every attempt below is a sign-up begun from one address: past the usual limit.
ATTEMPTS = {"NOMERCY_ACCOUNT_ATTEMPTS_PER_MINUTE": "1000"}


def variants(name: str) -> list[str]:
    """``name`` with each invisible mark at its end and inside it."""
    return [name + mark for mark in INVISIBLE] + [name[:3] + mark + name[3:] for mark in INVISIBLE]


@pytest.mark.parametrize("mark", INVISIBLE, ids=[f"U+{ord(m):04X}" for m in INVISIBLE])
def test_an_invisible_mark_does_not_make_a_new_name(mark: str) -> None:
    assert clean_nickname("Paloma" + mark)  # a name a person may type...
    assert name_key("Paloma" + mark) == name_key("Paloma")  # ...but the same name as Paloma
    assert name_key("Pa" + mark + "loma") == name_key("Paloma")


def test_the_skeleton_joins_what_is_drawn_alike_and_only_that() -> None:
    assert name_key("\u0420aloma") == name_key("Paloma")  # Cyrillic Er
    assert name_key("Ian") == name_key("lan")  # capital I and small L
    assert name_key("PALOMA") == name_key("paloma")
    assert len({name_key(n) for n in ("Paloma", "Paola", "Pal\u00f6ma", "Paloma 2")}) == 4


@pytest.mark.parametrize(
    "name",
    [
        CYRILLIC_BOT,
        "\u0392ot 2 (expert)",  # Greek capital Beta
        "B\u043et 3",  # Cyrillic small o
        "B\u034fot 1 (beginner)",  # an invisible mark inside
        "B0t 1",
        "Bot1",
    ],
)
def test_a_look_alike_of_a_bot_name_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="bot"):
        clean_nickname(name)


def test_every_bot_name_form_is_refused_and_a_name_like_botond_is_not() -> None:
    for level in ("beginner", "expert", "Ada, expert"):
        with pytest.raises(ValueError, match="bot"):
            clean_nickname(bot_name(2, level))
    assert clean_nickname("Botond") == "Botond"


# -- over HTTP, on SQLite and PostgreSQL -----------------------------------------------------


def refused(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["detail"]["code"] == code


@pytest.mark.parametrize("db", DATABASES)
def test_a_second_account_with_an_invisible_mark_is_refused(db: str, start_server: Any) -> None:
    """The attack: "Paloma" + U+034F renders as "Paloma" and got an account of its own."""
    server = server_for(db, start_server, **ATTEMPTS)
    with client(server) as http:
        assert signup(http, SoftKey(server.url), "Paloma").status_code == 200
    with client(server) as http:
        for name in [*variants("Paloma"), "\u0420aloma", "PALOMA"]:
            r = http.post("/api/account/signup/options", json={"name": name})
            refused(r, 409, "name_taken")
        assert signup(http, SoftKey(server.url), "Paola").status_code == 200  # another name is free


@pytest.mark.parametrize("db", DATABASES)
def test_a_bot_look_alike_is_refused_everywhere_a_name_is_chosen(db: str, start_server: Any) -> None:
    """The attack: "Bot 1 (beginner)" with a Cyrillic Ve for its B sat beside the real bot."""
    server = server_for(db, start_server, **ATTEMPTS)
    with client(server) as http:
        r = http.post("/api/account/signup/options", json={"name": CYRILLIC_BOT})
        assert r.status_code == 400 and "bot" in r.json()["detail"]["message"]
    r = httpx.post(
        f"{server.url}/api/rooms", json={"nickname": CYRILLIC_BOT, "seats": 2, "bots": 1}, timeout=10
    )
    refused(r, 422, "bad_message")
    room = create_room(server, nickname="Host", seats=3, bots=1, bot="beginner")
    r = httpx.post(f"{server.url}/api/rooms/{room['code']}/join", json={"nickname": CYRILLIC_BOT}, timeout=10)
    refused(r, 422, "bad_message")
    r = httpx.post(f"{server.url}/api/daily/no_mercy", json={"nickname": CYRILLIC_BOT}, timeout=10)
    refused(r, 422, "bad_message")


@pytest.mark.parametrize("db", DATABASES)
def test_a_guest_cannot_take_an_account_name_at_any_table(db: str, start_server: Any) -> None:
    """The attack: a guest took a signed-in player's name at another table."""
    server = server_for(db, start_server, **ATTEMPTS)
    with client(server) as http:
        assert signup(http, SoftKey(server.url), "Paloma").status_code == 200
        # Paloma signed in sits under her name, as always.
        made = http.post("/api/rooms", json={"nickname": "x", "seats": 3, "bots": 1}).json()
        assert made["room"]["seats"][0]["nickname"] == "Paloma"
    other = create_room(server, nickname="Host", seats=3)
    for name in ["Paloma", "paloma", "\u0420aloma", *variants("Paloma")]:
        r = httpx.post(f"{server.url}/api/rooms", json={"nickname": name, "seats": 2}, timeout=10)
        refused(r, 409, "name_taken")
        r = httpx.post(f"{server.url}/api/rooms/{other['code']}/join", json={"nickname": name}, timeout=10)
        refused(r, 409, "name_taken")
        assert "account" in r.json()["detail"]["message"]
    r = httpx.post(f"{server.url}/api/daily/no_mercy", json={"nickname": "Paloma\u034f"}, timeout=10)
    refused(r, 409, "name_taken")
    # The refusals took no seat: a name of nobody's still joins.
    assert join_room(server, other["code"], "Paola")["seat"] == 1


@pytest.mark.parametrize("db", DATABASES)
def test_only_an_account_seat_carries_the_account_mark(db: str, start_server: Any) -> None:
    """At every table a seat held by an account is marked by the server; a guest's is not,
    and a guest cannot ask for the mark."""
    server: ServerProcess = server_for(db, start_server, **ATTEMPTS)
    with client(server) as http:
        assert signup(http, SoftKey(server.url), "Paloma").status_code == 200
        made = http.post("/api/rooms", json={"nickname": "x", "seats": 3, "bots": 1}).json()
    code = made["code"]
    join_room(server, code, "Guest")
    seats = httpx.get(f"{server.url}/api/rooms/{code}", timeout=10).json()["seats"]
    assert [(s["nickname"], s["account"]) for s in seats] == [
        ("Paloma", True),
        ("Guest", False),
        ("Bot 2 (random)", False),
    ]
    # At a guest's table too, a signed-in player who joins is marked.
    table = create_room(server, nickname="Host", seats=3)
    with client(server) as http:
        assert signup(http, SoftKey(server.url), "Quinn").status_code == 200
        r = http.post(f"/api/rooms/{table['code']}/join", json={"nickname": "whatever"})
        assert r.status_code == 200, r.text
    seats = httpx.get(f"{server.url}/api/rooms/{table['code']}", timeout=10).json()["seats"]
    assert [(s["nickname"], s["account"]) for s in seats][:2] == [("Host", False), ("Quinn", True)]
    # The mark is the server's to set: a request that asks for it is refused.
    r = httpx.post(f"{server.url}/api/rooms", json={"nickname": "Rae", "account": True}, timeout=10)
    refused(r, 422, "bad_message")
