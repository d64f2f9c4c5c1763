"""The questions other packages ask the rooms' storage port, answered alike by the database
store and the in-memory one: a join code's room id (an expired lobby's too), whether a token
or an account holds a seat, and whether a rated room is still in play. Kept games and rated
rounds ask these instead of reading the rooms' tables themselves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nomercy.server.base.tables import token_hash
from nomercy.server.rooms.memstore import MemoryStorage
from nomercy.server.rooms.ports import RoomStorage
from nomercy.server.rooms.storage import Storage, StoredSeat


@pytest.fixture(params=["database", "memory"])
def store(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[RoomStorage]:
    if request.param == "memory":
        yield MemoryStorage()
        return
    made = Storage(sqlite_url)
    yield made
    made.close()


def _seats() -> list[StoredSeat]:
    return [
        StoredSeat(0, "human", "Ann", token_hash("t-ann"), True, "acc-ann"),
        StoredSeat(1, "human", "Bo", token_hash("t-bo"), False, None),
        StoredSeat(2, "bot", None, None, False, None),
    ]


def test_a_code_finds_its_room_even_an_expired_lobby(store: RoomStorage) -> None:
    rid = store.create_room("ABCDEF", {"preset": "no_mercy"}, _seats())
    assert store.id_of("ABCDEF") == rid
    store.set_status(rid, "expired")
    assert store.id_of("ABCDEF") == rid  # its kept games outlive it
    assert store.room_id("ABCDEF") is None  # but it never opens again
    assert store.id_of("ZZZZZZ") is None


def test_who_holds_a_seat(store: RoomStorage) -> None:
    rid = store.create_room("ABCDEF", {}, _seats())
    other = store.create_room("GHIJKL", {}, [StoredSeat(0, "human", "Cy", token_hash("t-cy"), True, None)])
    assert store.seated_in(rid, token_hash("t-bo"), None)
    assert store.seated_in(rid, None, "acc-ann")
    assert store.seated_in(rid, token_hash("wrong"), "acc-ann")  # either proves a seat
    assert not store.seated_in(rid, token_hash("t-cy"), None)  # a seat of another room
    assert store.seated_in(other, token_hash("t-cy"), None)
    assert not store.seated_in(rid, None, None)


def test_a_rated_room_in_play(store: RoomStorage) -> None:
    rated = store.create_room("RATEDA", {"rated": True}, _seats())
    casual = store.create_room("CASUAL", {}, _seats())
    assert not store.rated_in_play("RATEDA")  # a lobby is not in play
    store.set_status(rated, "playing")
    store.set_status(casual, "playing")
    assert store.rated_in_play("RATEDA")
    assert not store.rated_in_play("CASUAL")
    store.set_status(rated, "finished")
    assert not store.rated_in_play("RATEDA")
    assert not store.rated_in_play("NOSUCH")
