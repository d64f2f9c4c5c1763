"""Storage against SQLite and a real PostgreSQL (``NOMERCY_TEST_POSTGRES_URL``, set by CI)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.exc import IntegrityError

import needs
from nomercy.server.base.tables import token_hash
from nomercy.server.rooms.storage import NEXT_ROUND, Storage, StoredSeat

from .conftest import POSTGRES_URL, reset_postgres


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=needs.POSTGRES,
        ),
    ]
)
def storage(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[Storage]:
    if request.param == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        s = Storage(POSTGRES_URL)
    else:
        s = Storage(sqlite_url)
    yield s
    s.close()


def test_rooms_seats_and_the_log_round_trip(storage: Storage) -> None:
    token = "secret-token-of-seat-zero"
    seats = [StoredSeat(0, "human", "Ann", token_hash(token), True), StoredSeat(1, "open", None, None, False)]
    room_id = storage.create_room("ABCDEF", {"rules": {"stacking": False}, "mode": "match"}, seats)
    storage.update_seat(room_id, StoredSeat(1, "human", "Bob", token_hash("t2"), False))
    storage.start(room_id, 2**62 + 5, [StoredSeat(0, "human", "Ann", token_hash(token), True),
                                      StoredSeat(1, "human", "Bob", token_hash("t2"), False)])  # fmt: skip
    storage.append(room_id, 0, 1, "play R7")
    storage.append(room_id, 1, 0, "draw")
    storage.append(room_id, 2, -1, NEXT_ROUND, status="playing")
    (room,) = [r for r in storage.load_rooms() if r.code == "ABCDEF"]
    assert room.seed == 2**62 + 5 and room.status == "playing"
    assert room.settings == {"rules": {"stacking": False}, "mode": "match"}
    assert [(s.kind, s.nickname, s.host) for s in room.seats] == [
        ("human", "Ann", True),
        ("human", "Bob", False),
    ]
    assert room.log == [(1, "play R7"), (0, "draw"), (-1, NEXT_ROUND)]
    # Tokens are stored hashed only.
    assert room.seats[0].token_hash == token_hash(token) != token
    assert storage.code_exists("ABCDEF") and not storage.code_exists("ZZZZZZ")


def test_the_log_cannot_fork(storage: Storage) -> None:
    """Two writers of the same version: the second fails, the first stays."""
    room_id = storage.create_room("FORKED", {}, [StoredSeat(0, "human", "A", None, True)])
    storage.append(room_id, 0, 0, "draw")
    with pytest.raises(IntegrityError):
        storage.append(room_id, 0, 0, "take")
    assert storage.log(room_id) == [(0, "draw")]


def test_ci_runs_the_postgresql_tests() -> None:
    """CI starts PostgreSQL (.ci/run); there the PostgreSQL tests must not be skipped."""
    import os

    if os.environ.get("CI") == "true":
        assert POSTGRES_URL, "CI must export NOMERCY_TEST_POSTGRES_URL (see tests/server/postgres.sh)"


def test_last_entry_settles_an_in_doubt_commit(storage: Storage) -> None:
    room_id = storage.create_room("DOUBTS", {}, [StoredSeat(0, "human", "A", None, True)])
    assert storage.last_entry(room_id) is None
    storage.append_many([(room_id, 0, 0, "draw", None, None), (room_id, 1, 0, "play R7", "finished", None)])
    assert storage.last_entry(room_id) == (1, 0, "play R7")
    (room,) = [r for r in storage.load_rooms() if r.code == "DOUBTS"]
    assert room.status == "finished" and room.log == [(0, "draw"), (0, "play R7")]
