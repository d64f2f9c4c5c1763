"""Upgrading from nomercy 0.1.0: the schema is adopted by migrations, every game goes on.

The databases in ``fixtures/`` were written by the 0.1.0 release itself (``make_v010.py``
ran that commit's server from a git worktree): a lobby, a round ten moves in, a match
between rounds and a finished game, with 0.1.0's own replay of each. Each test upgrades a
copy with ``nomercy db upgrade`` and checks that this engine replays every room to exactly
what 0.1.0 had, that the server shows the players the same tables and play goes on; and
that a room this engine cannot continue exactly ends with ``room_retired``, its record
unaltered. On SQLite and, where ``NOMERCY_TEST_POSTGRES_URL`` is set, on PostgreSQL.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, inspect, select, text, update
from sqlalchemy.engine import Engine

import needs
from nomercy import __version__
from nomercy.server.base import schema, upgrades
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import actions, rooms
from nomercy.server.rooms.manager import RoomManager
from nomercy.server.rooms.storage import NEXT_ROUND, Storage, StoredRoom
from nomercy.state import STATE_FORMAT_VERSION
from nomercy.views import player_view

from .conftest import DATABASES, POSTGRES_URL, WS, free_port, hello, reset_postgres, start_room

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "v010.expected.json").read_text(encoding="utf-8"))
ROOMS: dict[str, dict[str, Any]] = EXPECTED["rooms"]


#: Every time 0.1.0 wrote, by table: the columns that move together when the fixture is
#: brought to the day the test runs.
TIMES = {
    "nomercy_rooms": ("created_at", "updated_at"),
    "nomercy_actions": ("at",),
    "nomercy_chat": ("at",),
    "nomercy_leases": ("expires_at", "acquired_at", "requested_at"),
}


def restore(db: str, tmp_path: Path) -> str:
    """A fresh copy of 0.1.0's database, written (as far as its clocks say) just now; its URL."""
    if db == "sqlite":
        shutil.copy(FIXTURES / "v010.sqlite3", tmp_path / "v010.sqlite3")
        url = f"sqlite:///{tmp_path / 'v010.sqlite3'}"
    else:
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        import psycopg

        with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as conn:
            # pg_dump's psql meta-commands (``\restrict``) are for psql, not the server.
            dump = (FIXTURES / "v010.postgres.sql").read_text(encoding="utf-8").splitlines()
            conn.execute("\n".join(line for line in dump if not line.startswith("\\")))  # type: ignore[call-overload]
        url = POSTGRES_URL
    bring_to_now(url)
    return url


def bring_to_now(url: str) -> float:
    """Move every time the fixture holds by one offset, so that its last write was now.

    The server loads only rooms touched within ``idle_room_seconds``: with the times 0.1.0
    wrote, the test would pass on the day the fixture was made and fail from the next. The
    gaps between the times are kept (they are what the server reads); the offset is returned.
    """
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            last = conn.execute(text("SELECT max(updated_at) FROM nomercy_rooms")).scalar_one()
            offset = time.time() - float(last)
            for table, columns in TIMES.items():
                moved = ", ".join(f"{c} = {c} + :offset" for c in columns)
                conn.execute(text(f"UPDATE {table} SET {moved}"), {"offset": offset})  # noqa: S608
    finally:
        engine.dispose()
    return offset


def nomercy(*args: str, url: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nomercy.cli", *args, "--database-url", url],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def describe(engine: Engine) -> dict[str, Any]:
    """Every nomercy table as the database itself reports it (columns, keys, indexes)."""
    seen = inspect(engine)
    out: dict[str, Any] = {}
    for name in sorted(seen.get_table_names()):
        if not name.startswith("nomercy_") or name == schema.VERSION_TABLE:
            continue
        out[name] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"], c.get("default")) for c in seen.get_columns(name)
            ],
            "pk": seen.get_pk_constraint(name)["constrained_columns"],
            "fks": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"]) for f in seen.get_foreign_keys(name)
            ),
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), i["unique"]) for i in seen.get_indexes(name)
            ),
            "unique": sorted(tuple(u["column_names"]) for u in seen.get_unique_constraints(name)),
        }
    return out


def stored(url: str) -> dict[str, StoredRoom]:
    storage = Storage(url)
    try:
        return {r.code: r for r in storage.load_rooms()}
    finally:
        storage.close()


def replay_here(url: str) -> dict[str, Any]:
    """This engine's replay of every stored room: what a restart rebuilds."""
    storage = Storage(url)
    try:
        manager = RoomManager(Settings(), storage)
        return {r.code: manager.rebuild(r) for r in storage.load_rooms()}
    finally:
        storage.close()


def times(url: str) -> list[float]:
    """Every time the fixture holds, in one fixed order."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [
                float(value)
                for table, columns in TIMES.items()
                for column in columns
                for (value,) in conn.execute(text(f"SELECT {column} FROM {table} ORDER BY 1"))  # noqa: S608
                if value is not None
            ]
    finally:
        engine.dispose()


def test_the_fixture_is_brought_to_the_day_the_test_runs_with_its_gaps_kept(tmp_path: Path) -> None:
    """The tests must pass on any date: the rooms load only if touched within hours."""
    shutil.copy(FIXTURES / "v010.sqlite3", tmp_path / "as_written.sqlite3")
    written = times(f"sqlite:///{tmp_path / 'as_written.sqlite3'}")
    url = restore("sqlite", tmp_path)
    moved = times(url)
    offset = moved[0] - written[0]
    assert offset > 0 and len(moved) == len(written)
    assert moved == pytest.approx([t + offset for t in written], abs=1e-3)
    # What the server loads at start-up: every room 0.1.0 left, whatever today's date.
    engine = create_engine(url)
    schema.upgrade(engine, schema.head())
    engine.dispose()
    storage = Storage(url)
    try:
        since = time.time() - Settings().idle_room_seconds
        assert {r.code for r in storage.load_rooms(since=since)} == {r["code"] for r in ROOMS.values()}
    finally:
        storage.close()


@pytest.mark.parametrize("db", DATABASES)
def test_the_first_migration_is_0_1_0s_schema_and_adopts_its_database(db: str, tmp_path: Path) -> None:
    url = restore(db, tmp_path)
    engine = create_engine(url)
    old = describe(engine)
    names = ("rooms", "seats", "actions", "chat", "removed", "leases")
    assert set(old) == {f"nomercy_{name}" for name in names}
    assert schema.current(engine) == schema.UNVERSIONED
    schema.upgrade(engine, "0001")  # adopted: nothing created, nothing changed
    assert schema.current(engine) == "0001"
    assert describe(engine) == old
    engine.dispose()

    fresh_url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        fresh_url = POSTGRES_URL
    fresh = create_engine(fresh_url)
    schema.upgrade(fresh, "0001")  # an empty database, built by the migration alone
    assert describe(fresh) == old, "the first migration differs from the schema 0.1.0 created"
    schema.upgrade(fresh)
    columns = {c["name"] for c in inspect(fresh).get_columns("nomercy_rooms")}
    assert {"state_format", "engine_version", "retired"} <= columns
    schema.downgrade(fresh, "0001")
    assert describe(fresh) == old, "downgrading to 0001 gives 0.1.0's schema back"
    fresh.dispose()


@pytest.mark.parametrize("db", DATABASES)
def test_serve_refuses_the_old_schema_then_db_upgrade_and_every_game_continues_exactly(
    db: str, tmp_path: Path, start_server: Any
) -> None:
    url = restore(db, tmp_path)
    current = nomercy("db", "current", url=url)
    assert current.returncode == 0 and "database: unversioned" in current.stdout, current.stderr

    refused = nomercy("serve", "--port", str(free_port()), url=url)
    assert refused.returncode == 1
    assert "nomercy db upgrade" in refused.stderr and "unversioned" in refused.stderr, refused.stderr

    upgraded = nomercy("db", "upgrade", url=url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert f"unversioned -> {schema.head()}" in upgraded.stdout
    assert f"database: {schema.head()}" in nomercy("db", "current", url=url).stdout

    before = stored(url)
    for name, entry in ROOMS.items():
        room = before[entry["code"]]
        assert (room.state_format, room.engine_version, room.retired) == (None, None, None), name
        assert room.status == entry["status"] and len(room.log) == entry["log_length"], name

    # This engine's replay of every room is 0.1.0's, field for field.
    here = replay_here(url)
    for name, entry in ROOMS.items():
        room = here[entry["code"]]
        assert room.status == entry["status"], name
        if entry["state"] is None:
            assert room.match is None, name
            continue
        assert room.match.state.to_dict() == entry["state"], f"{name}: another state than 0.1.0's"
        assert room.match.to_dict() == entry["match"], f"{name}: another match than 0.1.0's"
        for seat, view in entry["player_views"].items():
            assert player_view(room.match.state, int(seat)).to_dict() == view, f"{name}: seat {seat}"

    server = start_server(url)

    # Mid-round: each player sees what 0.1.0's server last showed them, and play goes on.
    mid = ROOMS["midround"]
    clients = {int(s): hello(server, mid["code"], t) for s, t in mid["tokens"].items()}
    for seat, ws in clients.items():
        snap = ws.latest_state()
        assert snap["version"] == mid["version"]
        assert snap["view"] == mid["views"][str(seat)], f"seat {seat} sees another table after the upgrade"
    version = mid["version"]
    for _ in range(4):
        view = clients[0].wait(lambda m, v=version: m["type"] == "state" and m["version"] == v)["view"]
        if view["outcome"] is not None:
            break
        seat = view["current_player"]
        mine = clients[seat].wait(lambda m, v=version: m["type"] == "state" and m["version"] == v)
        move = next(a for a in mine["view"]["legal_actions"] if a != "uno")
        start = clients[seat].mark()
        clients[seat].send({"type": "action", "action": move, "version": version})
        clients[seat].wait(lambda m, v=version: m["type"] == "state" and m["version"] == v + 1, start=start)
        version += 1
    assert version > mid["version"], "no move was accepted after the upgrade"

    # The lobby opens as it was and its game starts.
    lobby = ROOMS["lobby"]
    host = hello(server, lobby["code"], lobby["tokens"]["0"])
    assert host.wait(lambda m: m["type"] == "welcome")["room"]["status"] == "lobby"
    start_room(server, lobby["code"], lobby["tokens"]["0"])
    host.wait(lambda m: m["type"] == "state" and m["view"] is not None)

    # The finished game shows its end as it was.
    done = ROOMS["finished"]
    end = hello(server, done["code"], done["tokens"]["0"]).latest_state()
    assert end["view"] == done["player_views"]["0"]

    # Between rounds: the match deals its next round and the bots play on.
    between = ROOMS["between"]
    hello(server, between["code"], between["tokens"]["0"])
    deadline = time.monotonic() + 30
    while True:
        log = stored(url)[between["code"]].log
        if NEXT_ROUND in [a for _, a in log[between["log_length"] :]]:
            break
        assert time.monotonic() < deadline, "the match never dealt its next round after the upgrade"
        time.sleep(0.2)

    # Nothing 0.1.0 wrote was altered; what this engine wrote carries its versions.
    after = stored(url)
    for name, entry in ROOMS.items():
        assert after[entry["code"]].log[: entry["log_length"]] == before[entry["code"]].log, name
    for code in (mid["code"], between["code"], lobby["code"]):
        assert (after[code].state_format, after[code].engine_version) == (STATE_FORMAT_VERSION, __version__)


@pytest.mark.parametrize("db", DATABASES)
def test_a_room_this_engine_cannot_continue_exactly_ends_with_a_message_and_its_record_kept(
    db: str, tmp_path: Path, start_server: Any
) -> None:
    url = restore(db, tmp_path)
    assert nomercy("db", "upgrade", url=url).returncode == 0
    mid, between = ROOMS["midround"], ROOMS["between"]
    engine = create_engine(url)
    with engine.begin() as conn:
        # Written by an engine whose deals this one does not replay...
        conn.execute(
            update(rooms).where(rooms.c.code == mid["code"]).values(state_format=3, engine_version="0.0.9")
        )
        # ...and a log with a move this engine cannot read.
        room_id = conn.execute(select(rooms.c.id).where(rooms.c.code == between["code"])).scalar_one()
        conn.execute(
            update(actions)
            .where(actions.c.room_id == room_id, actions.c.seq == between["log_length"] - 1)
            .values(action="@unknown")
        )
    engine.dispose()
    records = stored(url)

    for _ in range(2):  # and again after a restart: it stays ended
        server = start_server(url)
        for room, token, needle in (
            (mid, mid["tokens"]["1"], "nomercy 0.0.9 (state format 3)"),
            (between, between["tokens"]["0"], "@unknown"),
        ):
            ws = WS(server.ws_url)
            start = ws.mark()
            ws.send({"type": "hello", "room": room["code"], "token": token})
            error = ws.error(start)
            assert error["code"] == "room_retired", error
            assert needle in error["message"] and "record is kept" in error["message"], error
            ws.close()
        info = httpx.get(f"{server.url}/api/rooms/{mid['code']}", timeout=10)
        assert info.status_code == 410 and info.json()["detail"]["code"] == "room_retired"
        # The other rooms go on as before.
        hello(server, ROOMS["finished"]["code"], ROOMS["finished"]["tokens"]["0"])
        server.stop()

    after = stored(url)
    for room in (mid, between):
        old, new = records[room["code"]], after[room["code"]]
        assert new.status == "retired" and new.retired is not None
        assert (new.log, new.seed, new.settings, new.seats) == (old.log, old.seed, old.settings, old.seats)
        assert (new.state_format, new.engine_version) == (old.state_format, old.engine_version)


def test_the_guide_shows_the_steps_the_rolling_upgrade_test_takes() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Upgrading") :]
    for step in (
        "pg_dump --format=custom",
        "nomercy db upgrade",
        "nomercy db current",
        "nomercy db downgrade REV",
        "systemctl restart nomercy@1",
        "/readyz",
        "tests/server/test_rolling_upgrade.py",
        "max_fails=1 fail_timeout=2s",
        "`max_fails=0`",
        "systemctl reload nginx",
        "### Going back",
        "systemctl stop",
        "`--yes`",
    ):
        assert step in section, step
    # The upstream is changed before anything else, as the test does it.
    steps = section[section.index("### Steps, several processes") :]
    assert steps.index("max_fails=0") < steps.index("pg_dump") < steps.index("systemctl restart")
    test = (Path(__file__).resolve().parent / "test_rolling_upgrade.py").read_text(encoding="utf-8")
    for step in (
        "reload(proxy, v010_site(",
        "reload(proxy, site_config(",
        '"--format=custom"',
        'nomercy_db("upgrade")',
        'nomercy_db("downgrade", "0001", "--yes")',
        "wait_ready()",
    ):
        assert step in test, step
    assert test.index("v010_site(ports") < test.index("site_config(ports") < test.index('"--format=custom"')


def test_serve_refuses_a_schema_a_newer_release_migrated(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    Storage(url).close()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE nomercy_alembic_version SET version_num = '0099'")
    engine.dispose()
    refused = nomercy("serve", "--port", str(free_port()), url=url)
    assert refused.returncode == 1
    assert "0099, which this nomercy does not know" in refused.stderr, refused.stderr
    assert "migrated by a newer nomercy" in nomercy("db", "current", url=url).stdout


@needs.POSTGRES
def test_processes_starting_together_on_an_empty_postgresql_create_the_schema_once() -> None:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    starts = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"from nomercy.server.rooms.storage import Storage; Storage({POSTGRES_URL!r}).close()",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for p in starts:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    assert "up to date" in nomercy("db", "current", url=POSTGRES_URL).stdout


@pytest.mark.parametrize(
    ("state_format", "engine_version", "continues"),
    [
        (None, None, True),  # written by 0.1.0, which recorded neither
        (STATE_FORMAT_VERSION, __version__, True),
        (STATE_FORMAT_VERSION, "0.1.0", True),
        (STATE_FORMAT_VERSION - 1, __version__, False),  # another state format
        (STATE_FORMAT_VERSION, "0.0.9", False),  # an engine whose deals this one does not replay
        (None, "0.1.0", False),  # half a record: nothing to go on
    ],
)
def test_which_recorded_writers_this_engine_continues(
    state_format: int | None, engine_version: str | None, continues: bool
) -> None:
    if continues:
        upgrades.check(state_format, engine_version)
    else:
        with pytest.raises(upgrades.Retired, match="cannot continue it exactly"):
            upgrades.check(state_format, engine_version)
