"""Profiles: what a signed-in player's public page shows (``GET /api/players/{name}``).

A profile reads what the other parts write: the account (:mod:`nomercy.server.players.accounts`),
the kept rounds its seats played (``nomercy_game_seats.account_id``), their reviews, and
its ratings with their history (:mod:`nomercy.server.players.ratings`). It writes nothing.

Hidden information and privacy (``docs/profiles.md``): a kept game is either for its
players only or for anyone with its link (the room's ``replays`` setting). A profile is
public, so it must not turn the first kind into the second: every round is listed (when,
preset, how many players, the result), but a stranger gets the game's id, replay and
review links only for a ``link`` game. The owner, signed in, gets them for every game: they
played them all, and a players-only game opens to the account that played it
(:meth:`nomercy.server.games.store.GameStore.played_by`). A daily deal's game links for nobody
until its day is over, then for everyone, as it opens. The other players' names are not
listed.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from sqlalchemy import JSON, case, cast, select, type_coerce
from sqlalchemy.engine import Connection, Engine

from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import client_key
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import game_seats, games, reviews
from nomercy.server.players.accounts import Account, AccountStore, account_of
from nomercy.server.players.daily import over, today
from nomercy.server.players.deps import PlayersDep
from nomercy.server.players.ratings import conservative, player_of_account, rating_changes, ratings, settling
from nomercy.server.players.standings import game_changes

#: Recent games per page, and the most a page may ask for.
PER_PAGE = 20
MAX_PER_PAGE = 50
#: The rating history keeps this many of the latest rated rounds per preset (a chart of a
#: few hundred points says all a person can read from it; the page stays small).
HISTORY_POINTS = 500
#: Longer names are no account's (``NICKNAME_MAX`` is 24); anything longer is simply unknown.
MAX_NAME = 64


@dataclass(frozen=True)
class Played:
    """One round an account's seat played, as the profile counts it."""

    game_id: str
    seat: int
    finished_at: float
    access: str
    preset: str
    mode: str
    winner: int | None
    match_winner: int | None
    sitting_out: list[int]
    #: The daily deal's day (``YYYY-MM-DD``) for one of its games, else None.
    daily: str | None = None

    @property
    def took_part(self) -> bool:
        """A seat out of a match (knocked out earlier, E4 off) sits the later rounds out."""
        return self.seat not in self.sitting_out

    @property
    def won(self) -> bool:
        return self.winner == self.seat


def _json(engine: Engine, column: Any) -> Any:
    """A JSON text column read as JSON: PostgreSQL needs a cast; SQLite's JSON functions read
    text as it is (a CAST there would make it a number)."""
    return cast(column, JSON) if engine.dialect.name == "postgresql" else type_coerce(column, JSON)


def _int(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


class Profiles:
    """Reads of one account's profile (each call one connection, read only)."""

    def __init__(
        self, engine: Engine, accounts: AccountStore, min_games: int = Settings.leaderboard_min_games
    ) -> None:
        self.engine = engine
        self.accounts = accounts
        #: A rating is provisional below this many rated games (the boards' minimum).
        self.min_games = min_games

    def _played(self, conn: Connection, account_id: str) -> list[Played]:
        """Every kept round a seat of the account played, newest first: a few small values
        per round from the JSON (never the record's actions)."""
        info = _json(self.engine, games.c.info)
        record = _json(self.engine, games.c.record)
        rows = conn.execute(
            select(
                games.c.id,
                game_seats.c.seat,
                games.c.finished_at,
                games.c.access,
                info["preset"].as_string().label("preset"),
                info["mode"].as_string().label("mode"),
                info[("result", "winner")].as_integer().label("winner"),
                info[("result", "match_winner")].as_integer().label("match_winner"),
                info[("daily", "day")].as_string().label("daily"),
                # Only a match has seats sitting a round out: a round's record (its every
                # action) is not read for the rest.
                case((info["mode"].as_string() == "match", record["sitting_out"]), else_=None).label(
                    "sitting_out"
                ),
            )
            .join(game_seats, game_seats.c.game_id == games.c.id)
            .where(game_seats.c.account_id == account_id)
            .order_by(games.c.finished_at.desc(), games.c.id.desc())
        ).all()
        seen: set[str] = set()
        out = []
        for r in rows:
            if r.id in seen:  # one account, one seat per game (names are unique at a table)
                continue
            seen.add(r.id)
            out.append(
                Played(
                    game_id=str(r.id),
                    seat=int(r.seat),
                    finished_at=float(r.finished_at),
                    access=str(r.access),
                    preset=str(r.preset or "no_mercy"),
                    mode=str(r.mode or "round"),
                    winner=_int(r.winner),
                    match_winner=_int(r.match_winner),
                    sitting_out=[int(s) for s in (r.sitting_out or [])],
                    daily=str(r.daily) if r.daily else None,
                )
            )
        return [p for p in out if p.took_part]

    def profile(
        self, name: str, viewer: Account | None, page: int, per_page: int, day: str | None = None
    ) -> dict[str, Any] | None:
        """The profile of the account named ``name`` (by its name key), as ``viewer`` may see
        it on the UTC ``day`` (default: today); None if there is no such account."""
        current = day or today()
        if not 0 < len(name) <= MAX_NAME:
            return None
        account = self.accounts.by_name(name)
        if account is None:
            return None
        owner = viewer is not None and viewer.id == account.id
        player = player_of_account(account.id)
        with self.engine.connect() as conn:
            played = self._played(conn, account.id)
            rated = conn.execute(
                select(ratings).where(ratings.c.player == player).order_by(ratings.c.preset)
            ).all()
            history = {r.preset: self._history(conn, player, r.preset) for r in rated}
            shown = played[(page - 1) * per_page : page * per_page]
            reviewed = self._reviewed(conn, [p.game_id for p in shown])
            players = self._player_counts(conn, [p.game_id for p in shown])
            changes = game_changes(conn, player, [p.game_id for p in shown], self.min_games)
        return {
            "name": account.name,
            "since": account.created_at,
            "me": owner,
            "presets": _by_preset(played, {r.preset: r for r in rated}, self.min_games),
            "history": history,
            "games": {
                "total": len(played),
                "page": page,
                "per_page": per_page,
                "pages": max(1, math.ceil(len(played) / per_page)),
                "items": [
                    {
                        **_game_item(p, owner, p.game_id in reviewed, players.get(p.game_id), current),
                        # What the rated game did to the rating (None: not rated), for anyone:
                        # the chart above shows the same numbers.
                        "rating": changes.get(p.game_id),
                    }
                    for p in shown
                ],
            },
        }

    @staticmethod
    def _history(conn: Connection, player: str, preset: str) -> list[dict[str, Any]]:
        """The rating after each rated round of ``preset`` (the latest ``HISTORY_POINTS``),
        oldest first, starting from the rating before the first one shown."""
        rows = list(
            conn.execute(
                select(rating_changes)
                .where(rating_changes.c.player == player, rating_changes.c.preset == preset)
                .order_by(rating_changes.c.at.desc(), rating_changes.c.game_id.desc())
                .limit(HISTORY_POINTS)
            ).all()
        )
        rows.reverse()
        return [
            {
                "at": float(r.at),
                "mu": round(float(r.mu), 3),
                "sigma": round(float(r.sigma), 3),
                "rating": round(conservative(float(r.mu), float(r.sigma)), 3),
                "place": int(r.place),
            }
            for r in rows
        ]

    @staticmethod
    def _reviewed(conn: Connection, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        rows = conn.execute(select(reviews.c.game_id).where(reviews.c.game_id.in_(ids))).all()
        return {str(r.game_id) for r in rows}

    @staticmethod
    def _player_counts(conn: Connection, ids: list[str]) -> dict[str, int]:
        """How many seats each shown game had (the players' names themselves are not shown)."""
        if not ids:
            return {}
        rows = conn.execute(select(games.c.id, games.c.info).where(games.c.id.in_(ids))).all()
        return {str(r.id): len(json.loads(r.info).get("players") or []) for r in rows}


def _by_preset(played: list[Played], rated: dict[str, Any], min_games: int) -> list[dict[str, Any]]:
    """Rounds played and won per preset, with the preset's rating if it has one (provisional
    below ``min_games`` rated games, as the boards count); most played first."""
    counts: dict[str, list[int]] = {}
    for p in played:
        c = counts.setdefault(p.preset, [0, 0])
        c[0] += 1
        c[1] += int(p.won)
    out = []
    for preset in sorted(set(counts) | set(rated), key=lambda k: (-counts.get(k, [0])[0], k)):
        n, wins = counts.get(preset, [0, 0])
        r = rated.get(preset)
        out.append(
            {
                "preset": preset,
                "games": n,
                "wins": wins,
                "win_rate": round(wins / n, 4) if n else None,
                "rating": None
                if r is None
                else {
                    "rating": round(conservative(float(r.mu), float(r.sigma)), 2),
                    "mu": round(float(r.mu), 2),
                    "sigma": round(float(r.sigma), 2),
                    "games": int(r.games),
                    "wins": int(r.wins),
                    **settling(str(r.player), int(r.games), min_games),
                },
            }
        )
    return out


def _game_item(p: Played, owner: bool, reviewed: bool, players: int | None, day: str) -> dict[str, Any]:
    """One recent round; its id and links only where this viewer may open it (the module's
    docstring). A daily deal's game is nobody's until its day is over, then everyone's
    (``Games.open``), its owner's no more than a stranger's."""
    open_to_viewer = over(p.daily, day) if p.daily is not None else owner or p.access == "link"
    item: dict[str, Any] = {
        "finished_at": p.finished_at,
        "preset": p.preset,
        "mode": p.mode,
        "players": players,
        "seat": p.seat,
        "won": p.won,
        "match_won": None if p.match_winner is None else p.match_winner == p.seat,
        "access": p.access,
        "daily": p.daily,
        "id": None,
        "replay": None,
        "review": None,
    }
    if open_to_viewer:
        item.update(
            id=p.game_id, replay=f"/g/{p.game_id}", review=f"/g/{p.game_id}#review" if reviewed else None
        )
    return item


router = APIRouter()


@router.get("/api/players/{name}")
async def get_profile(
    request: Request,
    p: PlayersDep,
    name: str,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = PER_PAGE,
) -> dict[str, Any]:
    # A name that finds nobody tells whether an account exists, as a sign-up does: those
    # answers share the address's limit on sign-ups and sign-ins (``docs/accounts.md``).
    limiter = p.account_attempts
    address = client_key(request)
    if limiter.blocked(address):
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "too many names looked up from your address: wait a minute"
        )
    store: AccountStore = p.accounts
    viewer = await asyncio.to_thread(account_of, request)
    profiles = Profiles(store.engine, store, p.ratings.min_games)
    day = p.today()  # a test server may set the day
    found = await asyncio.to_thread(profiles.profile, name, viewer, page, per_page, day)
    if found is None:
        limiter.charge(address)
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no player is called {name[:MAX_NAME]!r}")
    return found
