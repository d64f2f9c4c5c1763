"""Fair play, ratings that only winning moves (``docs/ratings.md``, "Fair play"): each test
performs an attack on the rated layer, on SQLite and PostgreSQL, and checks that it fails.

Every time is a fixed number (``T0``) handed to the code, never today's date."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from nomercy.bots.levels import LEVELS
from nomercy.cli import app
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import Kept
from nomercy.server.games.store import GameStore
from nomercy.server.players import fairplay
from nomercy.server.players.ratings import (
    ANCHORS,
    MODEL,
    Ratings,
    below_fair_share,
    conservative,
    player_of_account,
    player_of_bot,
    rate,
    rating_changes,
    ratings,
)
from nomercy.server.players.store import account_store
from nomercy.server.rooms.storage import Storage, StoredSeat

from .conftest import DATABASES, fresh_database

#: A fixed moment (2023-11-14 22:13 UTC): the tests never read the clock.
T0 = 1_700_000_000.0
DAY = 24 * 3600.0
ROOT = Path(__file__).resolve().parents[2]


class Table:
    """A server's rating parts over ``storage``: accounts (deleted as the server deletes
    them), kept games, ratings; rounds are kept at the times the test gives."""

    def __init__(self, storage: Storage, min_games: int = 5) -> None:
        self.storage = storage
        self.people = account_store(storage.engine)
        self.games = GameStore(storage.engine)
        self.ratings = Ratings.install(Settings(leaderboard_min_games=min_games), self.games, self.people)
        self.seq = 0

    def room(self, accounts: list[str], bots: int = 0, level: str = "beginner") -> int:
        seats = [StoredSeat(i, "human", f"P{i}", f"{i}" * 64, i == 0, a) for i, a in enumerate(accounts)]
        seats += [StoredSeat(len(accounts) + j, "bot", f"Bot {j}", None, False) for j in range(bots)]
        config = {"preset": "no_mercy", "bot": level, "rated": True, "turn_seconds": 30}
        return self.storage.create_room(f"F{random.randrange(10**6):06d}", config, seats)

    def play(self, room: int, accounts: list[str], bots: int, result: dict[str, Any], at: float) -> str:
        """Keep one finished round of ``room`` (its seats: the accounts, then the bots)."""
        self.seq += 10
        n = len(accounts) + bots
        players = [{"seat": s, "name": f"P{s}", "bot": s >= len(accounts)} for s in range(n)]
        info = {"preset": "no_mercy", "mode": "round", "players": players, "result": result}
        tokens = {s: f"{s}" * 64 for s in range(len(accounts))}
        kept = Kept(
            room,
            f"R{room}",
            self.seq,
            1,
            "players",
            info,
            {"sitting_out": []},
            tokens,
            0,
            dict(enumerate(accounts)),
        )
        return self.games.keep(kept, now=at)

    def rating(self, player: str) -> Any:
        with self.storage.engine.connect() as conn:
            return conn.execute(select(ratings).where(ratings.c.player == player)).first()

    def flags(self, kind: str) -> list[dict[str, Any]]:
        with self.storage.engine.connect() as conn:
            return [f for f in fairplay.flags_of(conn) if f["kind"] == kind]


def shown(row: Any) -> float:
    return conservative(float(row.mu), float(row.sigma))


# -- bots are fixed yardsticks -------------------------------------------------------------


def test_the_anchors_are_the_ladders_levels_in_their_order() -> None:
    """The anchors are the ladder's measured levels (the Expert bot can never fall below
    Beginner on a board, as it did when rated games moved it)."""
    measured = {
        a["agent"]: a for a in json.loads((ROOT / "benchmarks/results/levels.json").read_text())["agents"]
    }
    for level in LEVELS:
        mu, sigma = ANCHORS[level]
        assert (mu, sigma) == (round(measured[level]["mu"], 2), round(measured[level]["sigma"], 2))
    assert [ANCHORS[level][0] for level in LEVELS] == sorted(ANCHORS[level][0] for level in LEVELS)


def test_a_throwaway_losing_to_a_bot_on_purpose_lifts_nobody(storage: Storage) -> None:
    """Attack: a throwaway loses six rated games to the beginner bot on purpose, to raise the
    bot's rating (27.6 to 32.0 before) so that every later win against it is worth more."""
    t = Table(storage)
    main, throwaway = t.people.create("Main"), t.people.create("Throwaway")
    first = t.room([main.id], bots=1)
    t.play(first, [main.id], 1, {"winner": 0, "knocked_out": []}, T0)
    gain_before = t.rating(player_of_account(main.id)).mu - MODEL.mu
    room = t.room([throwaway.id], bots=1)
    for i in range(6):
        t.play(room, [throwaway.id], 1, {"winner": 1, "knocked_out": []}, T0 + 60 * (i + 1))
    bot = t.rating(player_of_bot("beginner"))
    assert (bot.mu, bot.sigma) == ANCHORS["beginner"] and bot.games == 7  # counted, never moved
    # A newcomer's win against the bot after the throwaway's losses is worth what it was.
    other = t.people.create("Other")
    later = t.room([other.id], bots=1)
    t.play(later, [other.id], 1, {"winner": 0, "knocked_out": []}, T0 + 3600)
    assert t.rating(player_of_account(other.id)).mu - MODEL.mu == pytest.approx(gain_before)


# -- volume is not skill -------------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_a_finish_below_the_fair_share_never_raises_a_rating(seats: int) -> None:
    """Attack: finish in the lower half again and again (3rd of 4 gained rating before, as
    each game narrowed the uncertainty): neither ``mu`` nor the shown rating may rise."""
    rng = random.Random(seats)
    for _ in range(60):
        # Ranks of a round: a winner, ties among those still in, knock-outs below.
        ranks = [1, *sorted(rng.choice([2, 2, 3, 4, 5, 6][: seats - 1]) for _ in range(seats - 1))]
        order = dict(enumerate(ranks))
        prior = {f"account:{s}": (rng.uniform(10, 40), rng.uniform(0.8, 8.4)) for s in order}
        entrants = [(s, f"account:{s}") for s in order]
        for c in rate(entrants, order, prior):
            seat = int(c.player.split(":")[1])
            if below_fair_share(order, seat):
                assert c.mu <= c.mu_before + 1e-9
                assert conservative(c.mu, c.sigma) <= conservative(c.mu_before, c.sigma_before) + 1e-9
    # The fair share: the middle of the table, a tie counted at the mean of its positions.
    assert [below_fair_share(dict(enumerate([1, 2, 3, 4])), s) for s in range(4)] == [
        False,
        False,
        True,
        True,
    ]
    assert below_fair_share({0: 1, 1: 2, 2: 2}, 1)  # tied 2nd of 3 holds 2nd and 3rd
    assert not below_fair_share({0: 1, 1: 2, 2: 3}, 1)  # 2nd of 3 is the middle


def test_third_of_four_again_and_again_climbs_nowhere(storage: Storage) -> None:
    """Attack, kept as the server keeps rounds: third of four, twenty times."""
    t = Table(storage, min_games=1)
    grinder = t.people.create("Grinder")
    room = t.room([grinder.id], bots=3, level="casual")
    shown_before = 0.0
    for i in range(20):
        t.play(room, [grinder.id], 3, {"winner": 1, "knocked_out": [3, 0]}, T0 + 60 * i)  # 3rd of 4
        now = t.rating(player_of_account(grinder.id))
        assert shown(now) <= shown_before + 1e-9 if i else shown(now) <= conservative(MODEL.mu, MODEL.sigma)
        shown_before = shown(now)
    assert now.mu <= MODEL.mu


def test_a_new_rating_is_provisional_and_off_the_boards_until_settled(storage: Storage) -> None:
    """Attack: a few lucky wins put a newcomer on the board (#2 after 4 of 5 before)."""
    t = Table(storage, min_games=5)
    lucky = t.people.create("Lucky")
    room = t.room([lucky.id], bots=1, level="expert")
    board = Ratings(storage.engine, 5, clock=lambda: T0 + DAY)
    for i in range(4):
        t.play(room, [lucky.id], 1, {"winner": 0, "knocked_out": []}, T0 + 60 * i)
    names = [e["name"] for e in board.board("no_mercy", 1, 25)["entries"]]
    assert names == ["Bot: expert"]  # four wins: still provisional, not listed
    t.play(room, [lucky.id], 1, {"winner": 1, "knocked_out": []}, T0 + 600)
    entries = board.board("no_mercy", 1, 25)["entries"]
    assert {e["name"] for e in entries} == {"Lucky", "Bot: expert"}
    assert all((e["provisional"], e["games_to_settle"]) == (False, 0) for e in entries)


def test_the_boards_list_only_players_active_in_the_window(storage: Storage) -> None:
    """Attack: climb once, then stop playing and sit on the rank."""
    t = Table(storage, min_games=1)
    gone, here = t.people.create("Gone"), t.people.create("Here")
    t.play(t.room([gone.id], bots=1, level="strong"), [gone.id], 1, {"winner": 0, "knocked_out": []}, T0)
    t.play(t.room([here.id], bots=1), [here.id], 1, {"winner": 1, "knocked_out": []}, T0 + 20 * DAY)
    at = T0 + 30 * DAY  # Gone's last game is exactly 30 days old: still listed
    names = {
        e["name"] for e in Ratings(storage.engine, 1, clock=lambda: at).board("no_mercy", 1, 25)["entries"]
    }
    assert {"Gone", "Here"} <= names
    later = Ratings(storage.engine, 1, 30, clock=lambda: at + 1)
    names = {e["name"] for e in later.board("no_mercy", 1, 25)["entries"]}
    assert "Gone" not in names and "Here" in names and "Bot: strong" in names  # bots stay yardsticks
    assert later.board("no_mercy", 1, 25)["active_days"] == 30


# -- one person, one climb -----------------------------------------------------------------


def test_games_between_the_same_accounts_count_less_after_three_a_day(storage: Storage) -> None:
    """Attack: two accounts play each other over and over in one day, one losing to the
    other: past three games, each counts half the one before, and the log says so."""
    t = Table(storage, min_games=1)
    a, b = t.people.create("Alpha"), t.people.create("Beta")
    room = t.room([a.id, b.id])
    gains = []
    for i in range(6):
        before = t.rating(player_of_account(a.id))
        t.play(room, [a.id, b.id], 0, {"winner": 0, "knocked_out": []}, T0 + 60 * i)
        after = t.rating(player_of_account(a.id))
        gains.append(after.mu - (before.mu if before else MODEL.mu))
    full = rate([(0, "account:x"), (1, "account:y")], {0: 1, 1: 2}, {})[0].mu - MODEL.mu
    assert gains[0] == pytest.approx(full)
    for i in (3, 4, 5):
        assert gains[i] < gains[i - 1] * 0.75  # each past the third counts at most about half
    volume = t.flags("volume")
    assert len(volume) == 1 and set(volume[0]["accounts"]) == {a.id, b.id}
    # A day later the pair counts in full again.
    before = t.rating(player_of_account(a.id)).mu
    t.play(room, [a.id, b.id], 0, {"winner": 0, "knocked_out": []}, T0 + 2 * DAY)
    assert t.rating(player_of_account(a.id)).mu - before > gains[5] * 4
    assert fairplay.weight(2) == 1.0 and fairplay.weight(3) == 0.5 and fairplay.weight(5) == 0.125


def _connect(t: Table, room: int, account: str, address: str, at: float) -> list[tuple[str, str]]:
    """What the server does when a seat of a rated room connects (``fairplay.seat_connected``)."""
    from nomercy.server.players.ratings import void_together

    key = fairplay.secret(t.storage.engine)
    with t.storage.engine.begin() as conn:
        new = fairplay.note_seat(
            conn, key, room_id=room, room_code=f"R{room}", account=account, address=address, now=at
        )
        for found in new:
            void_together(conn, room, f"R{room}", found)
    return new


def test_two_accounts_from_one_address_are_flagged_and_their_room_is_not_rated(storage: Storage) -> None:
    """Attack: one person, two accounts, one address: the throwaway loses to the main
    (#1 in 6 games before). Flagged; the room's rounds are not rated, even a round rated
    before the second account was seen from the address; an allowed pair is rated."""
    t = Table(storage, min_games=1)
    main, alt = t.people.create("Main"), t.people.create("Alt")
    room = t.room([main.id, alt.id], bots=1)
    assert _connect(t, room, main.id, "203.0.113.7", T0) == []
    assert _connect(t, room, alt.id, "198.51.100.1", T0) == []
    early = t.play(room, [main.id, alt.id], 1, {"winner": 0, "knocked_out": [1]}, T0 + 60)  # rated
    assert t.rating(player_of_account(main.id)).games == 1
    # The throwaway comes back from the main account's address (an IPv4 address; an IPv6
    # /64 is one home too).
    assert _connect(t, room, alt.id, "203.0.113.7", T0 + 90) == [fairplay.pair(main.id, alt.id)]
    for i in range(6):
        t.play(room, [main.id, alt.id], 1, {"winner": 0, "knocked_out": [1]}, T0 + 120 + 60 * i)
    assert t.rating(player_of_account(main.id)) is None  # nothing rated, and the early round voided
    with storage.engine.connect() as conn:
        assert conn.execute(select(rating_changes).where(rating_changes.c.game_id == early)).all() == []
    flagged = t.flags("address")
    assert len(flagged) == 1 and set(flagged[0]["accounts"]) == {main.id, alt.id}
    assert "203.0.113" not in json.dumps(flagged[0])  # the log keeps a hash, not the address
    assert [f["detail"]["reason"] for f in t.flags("void")] == ["address"]
    # An operator allows the pair (one home network): their next rounds are rated.
    with storage.engine.begin() as conn:
        assert fairplay.allow(conn, main.id, alt.id, "siblings", T0)
    t.play(room, [main.id, alt.id], 1, {"winner": 0, "knocked_out": [1]}, T0 + 900)
    assert t.rating(player_of_account(main.id)).games == 1
    # IPv6: two addresses of one /64 are one home.
    other = t.room([main.id, alt.id])
    _connect(t, other, main.id, "2001:db8:1:2::10", T0)
    with storage.engine.begin() as conn:
        fairplay.disallow(conn, main.id, alt.id)
    assert _connect(t, other, alt.id, "2001:db8:1:2:ffff::1", T0) == [fairplay.pair(main.id, alt.id)]


def test_deleting_a_throwaway_takes_back_the_gains_it_gave(storage: Storage) -> None:
    """Attack: a throwaway loses to the main account on purpose, then is deleted; the main
    account keeps nothing it won from it, and its other games count as before."""
    t = Table(storage, min_games=1)
    main, rival, throwaway = t.people.create("Main"), t.people.create("Rival"), t.people.create("Throwaway")
    honest = t.room([main.id, rival.id])
    t.play(honest, [main.id, rival.id], 0, {"winner": 1, "knocked_out": []}, T0)
    alone = t.rating(player_of_account(main.id))
    farm = t.room([main.id, throwaway.id])
    for i in range(6):
        t.play(farm, [main.id, throwaway.id], 0, {"winner": 0, "knocked_out": []}, T0 + DAY * (i + 1))
    assert t.rating(player_of_account(main.id)).mu > alone.mu + 2
    assert t.people.delete(throwaway.id)
    now = t.rating(player_of_account(main.id))
    assert (now.games, now.wins) == (1, 0)
    assert (now.mu, now.sigma) == (pytest.approx(alone.mu), pytest.approx(alone.sigma))
    assert t.rating(player_of_account(rival.id)).games == 1  # the honest game still counts
    voids = t.flags("void")
    assert (
        len(voids) == 1
        and voids[0]["detail"]["reason"] == "deleted"
        and len(voids[0]["detail"]["games"]) == 6
    )


# -- the operator sees and acts ------------------------------------------------------------


def test_nomercy_accounts_shows_flags_voids_results_and_recomputes(storage: Storage) -> None:
    """The operator's commands over the same database: an account's flags, voiding its
    rated results, recomputing the boards, allowing a pair."""
    t = Table(storage, min_games=1)
    main, alt = t.people.create("Main"), t.people.create("Alt")
    room = t.room([main.id, alt.id])
    _connect(t, room, main.id, "203.0.113.7", T0)
    _connect(t, room, alt.id, "203.0.113.7", T0)
    other = t.people.create("Other")
    for i in range(2):
        t.play(
            t.room([main.id, other.id]),
            [main.id, other.id],
            0,
            {"winner": 0, "knocked_out": []},
            T0 + i * DAY,
        )
    url = storage.engine.url.render_as_string(hide_password=False)
    runner = CliRunner(env={"COLUMNS": "200"})

    out = runner.invoke(app, ["accounts", "flags", "main", "--database-url", url])
    assert out.exit_code == 0, out.output
    line = next(x for x in out.output.splitlines() if "address" in x)
    assert "Main" in line and "Alt" in line and f"R{room}" in line and "1 flag(s)" in out.output
    assert (
        "no flags for 'Other'"
        in runner.invoke(app, ["accounts", "flags", "Other", "--database-url", url]).output
    )

    # A recompute from history gives what was written as the rounds were kept.
    before = t.rating(player_of_account(other.id))
    out = runner.invoke(app, ["accounts", "recompute", "--database-url", url])
    assert out.exit_code == 0 and "from 2 rated game(s)" in out.output, out.output
    again = t.rating(player_of_account(other.id))
    assert (again.mu, again.sigma, again.games) == (pytest.approx(before.mu), pytest.approx(before.sigma), 2)

    out = runner.invoke(app, ["accounts", "void", "Main", "--database-url", url], input="n\n")
    assert out.exit_code == 1 and t.rating(player_of_account(main.id)).games == 2
    out = runner.invoke(app, ["accounts", "void", "Main", "--yes", "--database-url", url])
    assert out.exit_code == 0 and "voided 2 rated game(s) of 'Main'" in out.output, out.output
    assert t.rating(player_of_account(main.id)) is None and t.rating(player_of_account(other.id)) is None
    assert "void" in runner.invoke(app, ["accounts", "flags", "Other", "--database-url", url]).output

    out = runner.invoke(
        app, ["accounts", "allow", "Main", "Alt", "--note", "one flat", "--database-url", url]
    )
    assert out.exit_code == 0 and "may share an address" in out.output
    assert (
        "allowed already"
        in runner.invoke(app, ["accounts", "allow", "Alt", "Main", "--database-url", url]).output
    )
    with storage.engine.connect() as conn:
        assert fairplay.shared_pairs(conn, str(room)) == []
    out = runner.invoke(app, ["accounts", "allow", "Main", "Alt", "--remove", "--database-url", url])
    assert out.exit_code == 0 and "no longer" in out.output
    with storage.engine.connect() as conn:
        assert fairplay.shared_pairs(conn, str(room)) == [fairplay.pair(main.id, alt.id)]
    assert runner.invoke(app, ["accounts", "flags", "Nobody", "--database-url", url]).exit_code == 1


@pytest.mark.parametrize("db", DATABASES)
def test_a_real_server_flags_two_accounts_seated_from_one_address(
    db: str, start_server: Any, tmp_path: Path
) -> None:
    """Attack, against ``nomercy serve``: two accounts of one person take the two seats of a
    rated room from one machine. The server notes each seat's address as it connects."""
    from sqlalchemy import create_engine

    from .conftest import hello
    from .test_ratings import RATED, signed_in

    server = start_server(fresh_database(db, tmp_path)) if db == "postgresql" else start_server()
    main, alt = signed_in(server, "Main"), signed_in(server, "Alt")
    made = main.post("/api/rooms", json={"nickname": "x", **RATED, "seats": 2, "bots": 0}).json()
    joined = alt.post(f"/api/rooms/{made['code']}/join", json={"nickname": "x"}).json()
    first, second = hello(server, made["code"], made["token"]), hello(server, made["code"], joined["token"])
    engine = create_engine(server.database_url)
    try:
        deadline = time.monotonic() + 10
        while True:
            with engine.connect() as conn:
                found = [f for f in fairplay.flags_of(conn) if f["kind"] == "address"]
            if found or time.monotonic() > deadline:
                break
            time.sleep(0.1)
    finally:
        engine.dispose()
        first.close()
        second.close()
    assert len(found) == 1 and found[0]["room"] == made["code"] and len(found[0]["accounts"]) == 2


@pytest.mark.parametrize("db", DATABASES)
def test_rounds_rated_before_the_upgrade_enter_the_history_a_recompute_replays(
    db: str, tmp_path: Path
) -> None:
    """Migration 0007 carries the rated rounds of 0006 into ``nomercy_rated_seats``, so a
    deletion's recompute does not wipe the ratings people earned before the upgrade."""
    from sqlalchemy import create_engine, insert

    from nomercy.server.base import schema
    from nomercy.server.players.ratings import recompute

    engine = create_engine(fresh_database(db, tmp_path))
    try:
        schema.upgrade(engine, "0006")
        row = {"preset": "no_mercy", "sigma_before": MODEL.sigma, "at": T0}
        with engine.begin() as conn:
            conn.execute(
                insert(rating_changes),
                [
                    {
                        **row,
                        "game_id": "g1",
                        "player": "account:a",
                        "place": 1,
                        "mu_before": MODEL.mu,
                        "mu": 27.0,
                        "sigma": 8.0,
                    },
                    {
                        **row,
                        "game_id": "g1",
                        "player": "account:b",
                        "place": 2,
                        "mu_before": MODEL.mu,
                        "mu": 23.0,
                        "sigma": 8.0,
                    },
                ],
            )
        schema.upgrade(engine)
        with engine.begin() as conn:
            kept = conn.execute(select(fairplay.rated_seats).order_by(fairplay.rated_seats.c.rank)).all()
            assert [(r.game_id, r.player, r.rank, r.dealt) for r in kept] == [
                ("g1", "account:a", 1, 2),
                ("g1", "account:b", 2, 2),
            ]
            assert recompute(conn) == {"no_mercy": 1}
            a = conn.execute(select(ratings).where(ratings.c.player == "account:a")).one()
        assert a.games == 1 and a.wins == 1 and a.mu > MODEL.mu
    finally:
        engine.dispose()
