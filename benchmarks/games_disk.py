"""The disk that kept games cost: a thousand finished rounds stored as the server keeps them.

Plays ``--rounds`` distinct four-player ``no_mercy`` rounds of heuristic self-play (real
rounds: their records are as long as real ones), then keeps ``--games`` games cycling
through them, exactly as :class:`nomercy.server.games.store.GameStore` does at the end of a
round (record, players, result, the people's seat-token digests; a review for one game in
``--reviewed``). Measures the database's growth: on SQLite the file (after a WAL
checkpoint), on PostgreSQL the tables with their indexes and TOAST
(``pg_total_relation_size``). Bounded: at most 20,000 games, into a fresh SQLite file or
the tables of the PostgreSQL given (emptied first: use a throwaway database).

    .venv/bin/python benchmarks/games_disk.py
    .venv/bin/python benchmarks/games_disk.py --database-url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import tempfile
import time
from typing import Any

from sqlalchemy import create_engine, delete, text

from nomercy.bots import make
from nomercy.bots.runner import play_round
from nomercy.engine import new_game
from nomercy.record import GameRecord
from nomercy.server.base import schema
from nomercy.server.base.tables import Kept, game_seats, games, hints, reviews
from nomercy.server.games.store import GameStore

TABLES = ("nomercy_games", "nomercy_game_seats", "nomercy_reviews", "nomercy_hints")


def rounds(count: int, seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``count`` heuristic self-play rounds: (record, result)."""
    out = []
    for n in range(count):
        state = new_game(4, seed=seed + n)
        record = GameRecord(state.rules, 4, state.seed, state.dealer)
        bots = [make("heuristic", seed=seat) for seat in range(4)]

        play_round(state, bots, listener=lambda seat, action, _events, rec=record: rec.add(seat, action))
        outcome = state.outcome
        assert outcome is not None
        result = {"winner": outcome.winner, "reason": outcome.reason, "points": list(outcome.points),
                  "knocked_out": [k.seat for k in outcome.knocked_out]}  # fmt: skip
        out.append((record.to_dict(), result))
    return out


def size(engine: Any, path: str | None) -> int:
    if path is not None:
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
    with engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE")
        return int(
            conn.execute(
                text("SELECT sum(pg_total_relation_size(c)) FROM unnest(CAST(:t AS regclass[])) AS c"),
                {"t": list(TABLES)},
            ).scalar_one()
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=40, help="distinct rounds the games cycle through")
    parser.add_argument("--reviewed", type=int, default=10, help="one game in this many has a stored review")
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file in a temp folder")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.games <= 20_000 or not 1 <= args.rounds <= 500 or args.reviewed < 1:
        parser.error("bounded on purpose: 1-20000 games, 1-500 rounds, --reviewed >= 1")
    folder = tempfile.mkdtemp(prefix="nomercy-disk-")
    path = None if args.database_url else os.path.join(folder, "games.sqlite3")
    url = args.database_url or f"sqlite:///{path}"
    engine = create_engine(url)
    if path is not None:
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA journal_mode=WAL")
    schema.upgrade(engine)
    with engine.begin() as conn:  # a throwaway database: the kept games' tables emptied
        for table in (reviews, game_seats, hints, games):
            conn.execute(delete(table))
    played = rounds(args.rounds, args.seed)
    # A review as the server stores it, of the typical size (a real review of a round).
    from nomercy.bots.review import review

    a_review = json.dumps(review(GameRecord.from_dict(played[0][0]), worlds=4, native=False).to_dict())
    store = GameStore(engine)
    before = size(engine, path)
    began = time.perf_counter()
    for n in range(args.games):
        record, result = played[n % len(played)]
        players = [{"seat": s, "name": f"Player {s}", "bot": False} for s in range(4)]
        info = {"preset": "no_mercy", "mode": "round", "rules": record["rules"], "players": players,
                "result": result}  # fmt: skip
        tokens = {s: hashlib.sha256(f"{n}-{s}".encode()).hexdigest() for s in range(4)}
        kept = Kept(n + 1, f"R{n:05d}", len(record["actions"]), 1, "players", info, record, tokens, 0)
        game_id = store.keep(kept, now=time.time())
        if n % args.reviewed == 0:
            store.store_review(game_id, a_review)
    seconds = time.perf_counter() - began
    after = size(engine, path)
    engine.dispose()
    actions = sum(len(r["actions"]) for r, _ in played) / len(played)
    grown = after - before
    kind = "sqlite" if path is not None else "postgresql"
    print(f"kept games: {args.games} four-player no_mercy rounds ({actions:.0f} actions on average), "
          f"one in {args.reviewed} reviewed, {kind}")  # fmt: skip
    print(f"  database grew        {grown / 1e6:.2f} MB  ({grown / args.games / 1024:.1f} KiB a game)")
    print(f"  per 1,000 games      {grown / args.games * 1000 / 1e6:.2f} MB")
    print(f"  review stored        {len(a_review) / 1024:.1f} KiB each (JSON)")
    print(f"  kept in              {seconds:.1f} s ({args.games / seconds:.0f} games/s, one commit each)")
    cmd = ["python", "benchmarks/games_disk.py", "--games", str(args.games), "--rounds", str(args.rounds),
           "--reviewed", str(args.reviewed)]  # fmt: skip
    if args.database_url:
        cmd += ["--database-url", "DATABASE_URL"]
    print("reproduce: " + shlex.join(cmd))


if __name__ == "__main__":
    main()
