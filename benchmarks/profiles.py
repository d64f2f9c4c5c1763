"""How long a profile takes to read for a player with many kept rounds.

A profile counts every kept round of the account (a few values from each round's JSON,
never the record's actions unless the round is part of a match), reads the ratings'
history and one page of games. This seeds a database with ``--games`` rounds of one
account (records of a realistic size: ``--actions`` actions each, every ``--match-every``-th
round a match's) and times ``Profiles.profile``.

    PYTHONPATH=src python benchmarks/profiles.py --games 2000
    PYTHONPATH=src python benchmarks/profiles.py --games 2000 --url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import secrets
import shlex
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from nomercy.server.base.tables import Kept
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import AccountStore
from nomercy.server.players.profiles import Profiles
from nomercy.server.players.ratings import player_of_account, rating_changes
from nomercy.server.rooms.storage import Storage


def seed(storage: Storage, games: int, actions: int, match_every: int) -> str:
    accounts = AccountStore(storage.engine)
    store = GameStore(storage.engine)
    ada = accounts.create(f"Bench {secrets.token_hex(4)}")  # a database that has an Ada already
    rooms = secrets.randbelow(10**9)  # rooms of their own: (room, version) keeps a round once
    record = {"sitting_out": [], "actions": ["play R5"] * actions}
    for i in range(games):
        mode = "match" if match_every and i % match_every == 0 else "round"
        info = {
            "preset": "no_mercy" if i % 4 else "classic",
            "mode": mode,
            "rules": {f"rule_{k}": k for k in range(40)},
            "players": [{"seat": s, "name": f"P{s}", "bot": s != 0} for s in range(4)],
            "result": {"winner": i % 4, "reason": "out", "points": [0] * 4, "knocked_out": []},
        }
        kept = Kept(rooms + i, "ABCDEF", 1, 1, "players", info, record, {0: "h" * 64}, 0, {0: ada.id})
        game_id = store.keep(kept, now=1e9 + i)
        with storage.engine.begin() as conn:
            conn.execute(
                insert(rating_changes).values(
                    game_id=game_id, player=player_of_account(ada.id), preset="no_mercy", place=1,
                    mu_before=25.0, sigma_before=8.0, mu=25.0, sigma=8.0, at=1e9 + i,
                )
            )  # fmt: skip
    return ada.name


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--actions", type=int, default=150, help="actions per round's record")
    parser.add_argument("--match-every", type=int, default=5, help="every n-th round is a match's (0: none)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--url", default=None, help="a database URL (default: a new SQLite file)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        storage = Storage(args.url or f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        try:
            started = time.perf_counter()
            name = seed(storage, args.games, args.actions, args.match_every)
            seeded = time.perf_counter() - started
            profiles = Profiles(storage.engine, AccountStore(storage.engine))
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                found = profiles.profile(name, None, 1, 20)
                times.append(time.perf_counter() - t0)
            assert found is not None and found["games"]["total"] == args.games
        finally:
            storage.close()
    print(
        f"database: {storage.engine.dialect.name}; {args.games} kept rounds of one account"
        f" ({seeded:.1f} s to seed)"
    )
    print(
        f"profile read: best {min(times) * 1000:.1f} ms,"
        f" median {sorted(times)[len(times) // 2] * 1000:.1f} ms"
    )
    print(
        "reproduce: "
        + shlex.join(["python", "benchmarks/profiles.py", *(argv if argv is not None else sys.argv[1:])])
    )


if __name__ == "__main__":
    main()
