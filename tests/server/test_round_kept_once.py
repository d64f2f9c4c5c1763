"""Every finished round is kept exactly once, whichever process rebuilds its room (issue 40).

A ``nomercy serve`` started with ``NOMERCY_TEST_DIE_AFTER_LAST_ACTION`` (a test server
only) exits at the worst moment: the round's last action is committed, the round is not
kept yet. Another process then rebuilds the room, by start-up (SQLite, PostgreSQL) or by
adopting it while it runs (PostgreSQL), and must keep that round: one game per round, with
the round's version, however many processes rebuild the room afterwards.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, func, select

import needs
from nomercy.server.base.tables import actions, games, rooms
from patience import WAIT_SECONDS, scaled

from .cluster import Serve
from .conftest import fresh_database
from .truth import truth

#: The exit status of a server that died at the hook (``RoomManager._applied``).
DIED = 17
#: A server that dies once a round is over on disk, its host's seat played by a stand-in at once.
DYING = {"NOMERCY_TEST_DIE_AFTER_LAST_ACTION": "1", "NOMERCY_GRACE_SECONDS": "0.05"}
#: Short rounds (three cards each), no seat waiting for its person.
ROUND = {"hand_size": 3}


def play_until_death(url: str, folder: Path, n: int, mode: str = "round") -> tuple[str, int]:
    """A room played by bots on a process that dies once its round is over: its join code
    and the version at which that round ended."""
    dying = Serve(url, folder / f"dying{n}.log", **DYING).wait_ready()
    try:
        made = httpx.post(
            dying.url + "/api/rooms",
            json={"nickname": "Ann", "seats": 2, "bots": 1, "mode": mode, "seed": 100 + n, "rules": ROUND},
            timeout=10,
        )
        assert made.status_code == 200, made.text
        code, token = made.json()["code"], made.json()["token"]
        started = httpx.post(
            f"{dying.url}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
        assert started.status_code == 200, started.text
        deadline = time.monotonic() + scaled(120)
        while dying.proc.poll() is None:
            assert time.monotonic() < deadline, "the round never ended"
            time.sleep(0.1)
        assert dying.proc.returncode == DIED, (dying.proc.returncode, dying.log.read_text()[-2000:])
    finally:
        dying.stop()
    # The version where the first round ended (a live adopter may have dealt the next already).
    over = [v for v, state in enumerate(truth(url, code).states) if state.outcome is not None]
    assert over, "the process died before its round was over"
    return code, over[0]


def kept_of(url: str, code: str) -> tuple[int, list[int]]:
    """The room's stored version (log length) and the versions of its kept games."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            room_id = conn.execute(select(rooms.c.id).where(rooms.c.code == code)).scalar_one()
            version = conn.execute(
                select(func.count()).select_from(actions).where(actions.c.room_id == room_id)
            ).scalar_one()
            seqs = conn.execute(select(games.c.seq).where(games.c.room_id == room_id)).scalars().all()
    finally:
        engine.dispose()
    return int(version), sorted(int(s) for s in seqs)


def ended(url: str, codes: dict[str, int]) -> dict[str, list[int]]:
    """For each room, the versions of its kept games that are the round left over at death."""
    return {code: [s for s in kept_of(url, code)[1] if s == at] for code, at in codes.items()}


def wait_kept(url: str, codes: dict[str, int]) -> dict[str, list[int]]:
    """Wait until every round left over is kept (or the time is up); what was kept."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = ended(url, codes)
        if all(found.values()) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def summary(found: dict[str, list[int]]) -> str:
    once = sum(1 for seqs in found.values() if len(seqs) == 1)
    return f"{once} of {len(found)} finished rounds kept exactly once: {found}"


def test_sqlite_a_restart_keeps_each_round_its_dead_process_left_unkept_once(tmp_path: Path) -> None:
    url = fresh_database("sqlite", tmp_path)
    left: dict[str, int] = {}
    for n in range(3):
        code, version = play_until_death(url, tmp_path, n)
        assert kept_of(url, code) == (version, []), "kept before the process died: the hook is misplaced"
        left[code] = version
    for again in range(2):  # a second start-up keeps nothing twice
        server = Serve(url, tmp_path / f"again{again}.log").wait_ready()
        try:
            found = wait_kept(url, left)
        finally:
            server.stop()
        assert all(len(s) == 1 for s in found.values()), summary(found)


@needs.POSTGRES
def test_postgres_start_up_and_adoption_keep_each_round_left_unkept_once(tmp_path: Path) -> None:
    """Before the fix, a finished room was never adopted and a room taken after start-up
    was rebuilt without keeping its ended round: most rounds were lost."""
    url = fresh_database("postgresql", tmp_path)
    left: dict[str, int] = {}
    live: list[Serve] = []
    try:
        # Nobody alive while the round ends: the next process keeps it as it starts.
        code, version = play_until_death(url, tmp_path, 0)
        assert kept_of(url, code) == (version, [])
        left[code] = version
        live.append(Serve(url, tmp_path / "live0.log").wait_ready())
        found = wait_kept(url, left)
        assert found[code] == [version], f"start-up did not keep it once: {summary(found)}"
        live.append(Serve(url, tmp_path / "live1.log").wait_ready())  # two adopters compete
        # A process dies while others run: one of them adopts the room and keeps the round,
        # a finished room (a round) or one still being played (a match between rounds).
        for n, mode in enumerate(["round", "round", "match"], start=1):
            code, version = play_until_death(url, tmp_path, n, mode)
            left[code] = version
            found = wait_kept(url, {code: version})
            assert found[code] == [version], f"adopted, not kept once: {summary(found)}"
        live.append(Serve(url, tmp_path / "late.log").wait_ready())  # more rebuilds keep nothing again
        for server in live[:2]:
            server.stop()  # their rooms are handed over and rebuilt once more
        found = ended(url, left)
        assert all(len(s) == 1 for s in found.values()), summary(found)
    finally:
        for server in live:
            server.stop()
