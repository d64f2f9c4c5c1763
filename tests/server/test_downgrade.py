"""``nomercy db downgrade`` says what it drops and asks, is refused under a running server,
and ends the rooms that the release it goes back to cannot continue (issue 40).

On SQLite and, where ``NOMERCY_TEST_POSTGRES_URL`` is set, on PostgreSQL; the servers are
real ``nomercy serve`` processes, of this release and of 0.1.0 (its ``src/`` from git).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import httpx
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, select, text

from nomercy import __version__
from nomercy.server.base import schema, upgrades
from nomercy.server.base.tables import rooms
from nomercy.server.players.accounts import AccountStore
from nomercy.server.players.daily import DailyStore
from nomercy.server.rooms.storage import Storage, StoredSeat
from patience import START_SECONDS, answers, stop, wait_until_ready

from .conftest import DATABASES, FAST, create_room, free_port, fresh_database, start_room

ROOT = Path(__file__).resolve().parents[2]
#: nomercy 0.1.0, as in ``fixtures/make_v010.py``.
RELEASE = "367c6a1"


def nomercy(*args: str, url: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``nomercy ARGS --database-url URL`` of this release; no stdin unless given."""
    return subprocess.run(
        [sys.executable, "-m", "nomercy.cli", *args, "--database-url", url],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


class Serve:
    """A real ``nomercy serve`` on a loopback port (``src``: another release's code)."""

    def __init__(self, url: str, log: Path, src: Path | None = None) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        port = self.url.rsplit(":", 1)[1]
        env = {**os.environ, **FAST}
        if src is not None:
            env["PYTHONPATH"] = str(src)
        self.log = log
        command = [sys.executable, "-m", "nomercy.cli", "serve", "--host", "127.0.0.1", "--port", port]
        self.proc = subprocess.Popen(
            [*command, "--database-url", url],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(log, "ab"),  # noqa: SIM115
        )
        wait_until_ready(self.proc, answers(self.url + "/healthz"), "nomercy serve", self.text, START_SECONDS)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        stop(self.proc)


def revision(url: str) -> str | None:
    engine = create_engine(url)
    try:
        return schema.current(engine)
    finally:
        engine.dispose()


def statuses(url: str) -> dict[str, str]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {r.code: r.status for r in conn.execute(select(rooms.c.code, rooms.c.status))}
    finally:
        engine.dispose()


@pytest.mark.parametrize("db", DATABASES)
def test_a_downgrade_is_refused_while_a_server_holds_the_database(db: str, tmp_path: Path) -> None:
    url = fresh_database(db, tmp_path)
    server = Serve(url, tmp_path / "serve.log")
    try:
        made = create_room(server, seats=3, bots=2, bot="casual")  # type: ignore[arg-type]
        refused = nomercy("db", "downgrade", "0001", "--yes", url=url)
        assert refused.returncode == 1
        assert "a nomercy serve is using this database: stop every server first" in refused.stderr
        assert "Nothing was changed" in refused.stderr, refused.stderr
        assert revision(url) == schema.head()
        assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200
        assert httpx.get(f"{server.url}/api/rooms/{made['code']}", timeout=10).status_code == 200
    finally:
        server.stop()
    # Stopped (its locks gone with it): the downgrade runs.
    done = nomercy("db", "downgrade", "0001", "--yes", url=url)
    assert done.returncode == 0, done.stderr
    assert revision(url) == "0001"


def _fill(url: str) -> Storage:
    """Two accounts and the daily secret at the newest schema."""
    storage = Storage(url)
    accounts = AccountStore(storage.engine)
    accounts.create("Ada")
    accounts.create("Brit")
    DailyStore(storage.engine).secret()
    return storage


@pytest.mark.parametrize("db", DATABASES)
def test_a_downgrade_lists_what_is_lost_and_asks_first(db: str, tmp_path: Path) -> None:
    url = fresh_database(db, tmp_path)
    _fill(url).close()

    # No one to ask (stdin closed): refused, nothing dropped.
    unasked = nomercy("db", "downgrade", "0001", url=url)
    assert unasked.returncode == 1
    assert "pass --yes" in unasked.stderr, unasked.stderr
    assert "nomercy_accounts: 2 row(s) (accounts)" in unasked.stdout, unasked.stdout
    assert "nomercy_secrets: 1 row(s) (the daily deal's secret)" in unasked.stdout
    assert "nomercy_ratings: 0 row(s) (ratings)" in unasked.stdout
    assert "nomercy_rooms.engine_version: 0 value(s)" in unasked.stdout
    assert re.search(rf"database: {schema.head()} -> 0001 \(the schema of nomercy 0\.1\.0\)", unasked.stdout)
    assert revision(url) == schema.head()

    # Answered no: nothing dropped either.
    declined = nomercy("db", "downgrade", "0001", url=url, stdin="n\n")
    assert declined.returncode == 1 and "nothing was changed" in declined.stdout
    assert revision(url) == schema.head()

    # Answered yes: done, and the listed tables are gone.
    agreed = nomercy("db", "downgrade", "0001", url=url, stdin="y\n")
    assert agreed.returncode == 0, agreed.stderr
    assert f"database: {schema.head()} -> 0001" in agreed.stdout.splitlines()[-1]
    engine = create_engine(url)
    try:
        assert not inspect(engine).has_table("nomercy_accounts")
        assert not inspect(engine).has_table("nomercy_secrets")
    finally:
        engine.dispose()


def test_which_rooms_0_1_0_could_not_continue() -> None:
    """The rule the downgrade applies to every room not already expired."""
    plain = {"bot": "random", "rules": {"deck": "no_mercy"}}
    assert upgrades.older_cannot_continue("playing", plain, None, None) is None  # written by 0.1.0
    assert upgrades.older_cannot_continue("playing", plain, 4, "0.1.0") is None
    assert upgrades.older_cannot_continue("finished", {"bot": "expert"}, 4, __version__) is None
    assert upgrades.older_cannot_continue("expired", {"bot": "casual"}, 4, "0.1.0") is None  # ended already
    for status, settings, fmt, version, why in (
        (
            "playing",
            {"bot": "casual"},
            4,
            __version__,
            "'casual', which nomercy 0.1.0 does not know",
        ),
        ("lobby", {"bot": "strong"}, 4, __version__, "'strong'"),
        ("playing", {"bot": "random", "rules": {"deck": "classic_112"}}, 4, "0.1.0", "'classic_112' deck"),
        ("retired", plain, 4, "0.1.0", "it was retired"),
        ("playing", plain, 4, "0.0.9", "nomercy 0.0.9"),
        ("playing", plain, 3, "0.1.0", "state format 3"),
    ):
        found = upgrades.older_cannot_continue(status, settings, fmt, version)
        assert found is not None and why in found, (status, settings, found)


@pytest.fixture
def old_src(tmp_path: Path) -> Path:
    """0.1.0's ``src/`` from git (``git archive``: no worktree to clean up)."""
    probe = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{RELEASE}^{{commit}}"], check=False)
    if probe.returncode != 0:
        pytest.skip(f"the git history lacks {RELEASE} (a shallow clone)")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", RELEASE, "src"], capture_output=True, check=True
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path / "old", filter="data")
    return tmp_path / "old" / "src"


@pytest.mark.slow
@pytest.mark.parametrize("db", DATABASES)
def test_going_back_ends_the_rooms_0_1_0_cannot_continue_and_it_serves_the_rest(
    db: str, tmp_path: Path, old_src: Path
) -> None:
    url = fresh_database(db, tmp_path)
    server = Serve(url, tmp_path / "new.log")
    try:
        leveled = create_room(server, seats=3, bots=2, bot="casual")  # type: ignore[arg-type]
        start_room(server, leveled["code"], leveled["token"])  # type: ignore[arg-type]
        strong = create_room(server, seats=2, bots=1, bot="strong")  # type: ignore[arg-type]
        plain = create_room(server, seats=2, bots=1, bot="random")  # type: ignore[arg-type]
        start_room(server, plain["code"], plain["token"])  # type: ignore[arg-type]
    finally:
        server.stop()
    # A room this release had retired, which 0.1.0 would try to replay.
    storage = Storage(url)
    try:
        storage.create_room("RETIRED1", {"bot": "random"}, [StoredSeat(0, "human", "Ada", "x" * 64, True)])
    finally:
        storage.close()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(rooms.update().where(rooms.c.code == "RETIRED1").values(status="retired", retired="why"))
    engine.dispose()

    done = nomercy("db", "downgrade", "0001", "--yes", url=url)
    assert done.returncode == 0, done.stderr
    ended = {leveled["code"], strong["code"], "RETIRED1"}
    for code in ended:
        assert re.search(rf"^  {code}: ", done.stdout, re.M), done.stdout
    assert f"  {plain['code']}:" not in done.stdout
    assert "as nomercy 0.1.0 cannot continue them" in done.stdout
    found = statuses(url)
    assert {c: found[c] for c in ended} == dict.fromkeys(ended, "expired")
    assert found[plain["code"]] == "playing"

    old = Serve(url, tmp_path / "old.log", src=old_src)
    try:
        for code in ended:  # gone, as 0.1.0 says of a closed room: never an error of the server
            answer = httpx.get(f"{old.url}/api/rooms/{code}", timeout=30)
            assert answer.status_code == 404, (code, answer.text)
        info = httpx.get(f"{old.url}/api/rooms/{plain['code']}", timeout=30)
        assert info.status_code == 200 and info.json()["status"] == "playing", info.text
        assert httpx.get(old.url + "/readyz", timeout=10).status_code == 200
        assert "Traceback" not in old.text(), old.text()[-3000:]
    finally:
        old.stop()


def _accounts(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM nomercy_accounts")).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("db", DATABASES)
def test_the_backup_going_back_names_restores_what_the_downgrade_dropped(db: str, tmp_path: Path) -> None:
    """The backup and restore commands of deploy.md's "Going back", run as written there."""
    url = fresh_database(db, tmp_path)
    _fill(url).close()
    if db == "sqlite":
        tool = shutil.which("sqlite3")
        if tool is None:
            pytest.skip("the sqlite3 command is not installed (apt install sqlite3)")
        path = url.removeprefix("sqlite:///")
        backup = tmp_path / "before-downgrade.sqlite3"
        made = subprocess.run([tool, path, f".backup {backup}"], capture_output=True, text=True, check=False)
        restore = ["cp", str(backup), path]
    else:
        bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
        plain = url.replace("+psycopg", "")
        backup = tmp_path / "before-downgrade.dump"
        made = subprocess.run(
            [str(bindir / "pg_dump"), "--format=custom", "--file", str(backup), plain],
            capture_output=True,
            text=True,
            check=False,
        )
        restore = [str(bindir / "pg_restore"), "--dbname", plain, "--clean", "--if-exists", str(backup)]
    assert made.returncode == 0, made.stderr
    assert nomercy("db", "downgrade", "0001", "--yes", url=url).returncode == 0
    assert revision(url) == "0001"
    restored = subprocess.run(restore, capture_output=True, text=True, check=False)
    assert restored.returncode == 0, restored.stderr
    assert revision(url) == schema.head()
    assert _accounts(url) == 2


def test_the_revision_a_downgrade_names() -> None:
    """``-N`` counts steps down from the database's revision; ``base`` is below the first."""
    chain = [r.revision for r in ScriptDirectory.from_config(schema.config()).walk_revisions()]
    head = schema.head()
    assert chain[0] == head and chain[-1] == "0001"
    assert schema.target_of(head, "-1") == chain[1]
    assert schema.target_of(head, f"-{len(chain) - 1}") == "0001"
    assert schema.target_of(head, f"-{len(chain)}") == "base"
    assert schema.target_of(head, "0001") == "0001"
    assert schema.target_of("0001", "base") == "base"
    for bad, why in (
        (f"-{len(chain) + 1}", "steps above the base"),
        ("0099", "no revision 0099"),
    ):
        with pytest.raises(schema.SchemaMismatch, match=why):
            schema.target_of(head, bad)
    with pytest.raises(schema.SchemaMismatch, match="not a downgrade"):
        schema.target_of("0001", head)


def test_what_0_1_0_knows_is_read_from_0_1_0() -> None:
    """The bots and decks the rule takes 0.1.0 to know are those of its source in git."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{RELEASE}:src/nomercy/bots"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip(f"the git history lacks {RELEASE} (a shallow clone)")

    def show(path: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{RELEASE}:{path}"], capture_output=True, text=True, check=True
        ).stdout

    bots = set()
    for name in listed.stdout.split():
        if name.endswith(".py"):
            bots |= set(re.findall(r'^@register\("([a-z_]+)"\)', show(f"src/nomercy/bots/{name}"), re.M))
    assert bots == upgrades.OLDER_BOTS
    rooms_py = show("src/nomercy/server/rooms.py")
    decks = re.search(r"deck not in \(([^)]*)\)", rooms_py)
    assert decks is not None and set(re.findall(r'"([a-z_]+)"', decks.group(1))) == upgrades.OLDER_DECKS
    assert re.search(r'stored\.status not in \("lobby", "playing", "finished"\)', rooms_py)
