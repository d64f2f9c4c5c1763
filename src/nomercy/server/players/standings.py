"""What a rated game did, as players see it: the change of the round that just ended,
each game's change on a profile, and a player's own standing on a board.

Read only: the ratings are written by :mod:`nomercy.server.players.ratings` with each kept round
(``nomercy_rating_changes``, one row per player and rated game). Every number here is the
displayed rating, the boards' conservative ``mu - 3 sigma`` (:func:`ratings.conservative`),
so that a change reads in the same units as the board: ``12.3 (+1.4)``.

A rating is provisional until it has :attr:`Ratings.min_games` rated games of its preset
(the boards list it from then on): every rating shown says whether it is, and how many
games it still needs (``provisional``, ``games_to_settle``: :func:`ratings.settling`, the one
rule; a bot level, anchored, never is; ``docs/ratings.md``).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection, Engine

from nomercy.errors import InvalidRules
from nomercy.server.base import protocol as P
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import client_key
from nomercy.server.base.tables import game_seats, games
from nomercy.server.players.accounts import account_of
from nomercy.server.players.deps import PlayersDep
from nomercy.server.players.ratings import (
    BOT,
    board_query,
    conservative,
    player_of_account,
    preset_name,
    rating_changes,
    ratings,
    settling,
)

#: The board's page length in the client (``js/leaders.js``): a player's own page from their rank.
BOARD_PAGE = 25


def shown(mu: float, sigma: float) -> float:
    """The rating as the boards show it (two decimals; the client shows one)."""
    return round(conservative(mu, sigma), 2)


def change_of(row: Any, games_after: int, min_games: int) -> dict[str, Any]:
    """One rating change (a ``nomercy_rating_changes`` row) as the client shows it."""
    before = conservative(float(row.mu_before), float(row.sigma_before))
    after = conservative(float(row.mu), float(row.sigma))
    return {
        "place": int(row.place),
        "before": round(before, 2),
        "after": round(after, 2),
        "delta": round(after - before, 2),
        **settling(str(row.player), games_after, min_games),
    }


def _games_after(conn: Connection, rows: Iterable[Any]) -> dict[tuple[str, str], int]:
    """(game id, player) -> how many rated games of the preset the player had after that game."""
    out: dict[tuple[str, str], int] = {}
    for r in rows:
        earlier = rating_changes.c.at < r.at
        same_time = and_(rating_changes.c.at == r.at, rating_changes.c.game_id <= r.game_id)
        out[(r.game_id, r.player)] = int(
            conn.execute(
                select(func.count()).where(
                    rating_changes.c.player == r.player,
                    rating_changes.c.preset == r.preset,
                    or_(earlier, same_time),
                )
            ).scalar_one()
        )
    return out


def round_changes(engine: Engine, room_id: int, seq: int, min_games: int) -> dict[str, Any]:
    """The rating changes of the round room ``room_id`` ended at version ``seq``, per seat.

    ``kept`` says whether the round is written yet (a client asks again until it is);
    ``changes`` is empty for a kept round that changed no rating (not a rated round, or
    one the fair-play rules left unrated). A bot level's change shows on each of its seats."""
    with engine.connect() as conn:
        game = conn.execute(
            select(games.c.id, games.c.info).where(games.c.room_id == room_id, games.c.seq == seq)
        ).first()
        if game is None:
            return {"kept": False, "changes": []}
        rows = conn.execute(select(rating_changes).where(rating_changes.c.game_id == game.id)).all()
        seats = conn.execute(
            select(game_seats.c.seat, game_seats.c.account_id).where(game_seats.c.game_id == game.id)
        ).all()
        counts = _games_after(conn, rows)
    by_player = {r.player: r for r in rows}
    level_seats = [int(p["seat"]) for p in json.loads(game.info).get("players") or [] if p.get("bot")]
    out = []
    for s in seats:
        row = by_player.get(player_of_account(s.account_id)) if s.account_id else None
        if row is not None:
            out.append({"seat": int(s.seat), **change_of(row, counts[(row.game_id, row.player)], min_games)})
    for player, row in by_player.items():
        if player.startswith(BOT):
            change = change_of(row, counts[(row.game_id, player)], min_games)
            out.extend({"seat": seat, "bot": True, **change} for seat in level_seats)
    return {"kept": True, "changes": sorted(out, key=lambda c: c["seat"])}


def game_changes(
    conn: Connection, player: str, game_ids: list[str], min_games: int
) -> dict[str, dict[str, Any]]:
    """game id -> ``player``'s rating change in that game, for the rated ones among ``game_ids``."""
    if not game_ids:
        return {}
    rows = conn.execute(
        select(rating_changes).where(
            rating_changes.c.player == player, rating_changes.c.game_id.in_(game_ids)
        )
    ).all()
    counts = _games_after(conn, rows)
    return {str(r.game_id): change_of(r, counts[(r.game_id, r.player)], min_games) for r in rows}


def standing(
    engine: Engine, preset: str, account_id: str, min_games: int, active_since: float | None = None
) -> dict[str, Any]:
    """Where the account stands on ``preset``'s board (the board of :class:`Ratings`, whose
    ``min_games`` and ``active_since`` it takes): its rank and the page it is on, or, off
    the board, why (provisional and how many games it still needs; away; not rated yet)."""
    player = player_of_account(account_id)
    with engine.connect() as conn:
        mine = conn.execute(
            select(ratings).where(ratings.c.player == player, ratings.c.preset == preset)
        ).first()
        if mine is None:
            return {
                "player": player,
                "rated": False,
                "rank": None,
                "page": None,
                **settling(player, 0, min_games),
            }
        joined, where = board_query(preset, min_games, active_since)
        score = ratings.c.mu - 3.0 * ratings.c.sigma
        listed = conn.execute(
            select(func.count()).select_from(joined).where(where, ratings.c.player == player)
        ).scalar_one()
        rank = None
        if listed:
            my_score = float(mine.mu) - 3.0 * float(mine.sigma)
            ahead = or_(
                score > my_score,
                and_(score == my_score, ratings.c.games > mine.games),
                and_(score == my_score, ratings.c.games == mine.games, ratings.c.player < player),
            )
            rank = 1 + int(
                conn.execute(select(func.count()).select_from(joined).where(where, ahead)).scalar_one()
            )
    return {
        "player": player,
        "rated": True,
        "rank": rank,
        "page": None if rank is None else math.ceil(rank / BOARD_PAGE),
        "rating": shown(float(mine.mu), float(mine.sigma)),
        "games": int(mine.games),
        **settling(player, int(mine.games), min_games),
    }


# -- routes --------------------------------------------------------------------------------

router = APIRouter()


@router.get("/api/rooms/{code}/ratings")
async def room_round_ratings(
    request: Request, p: PlayersDep, code: str, seq: Annotated[int, Query(ge=0, le=10_000_000)]
) -> dict[str, Any]:
    """The rating changes of the round a room ended at version ``seq`` (the version of the
    round's last move, as the end screen has it). Public, as the profiles and boards that
    show the same numbers are; an unknown code counts against the address's guessing limit."""
    limiter = p.join_failures
    address = client_key(request)
    code = code.upper()
    if limiter.blocked(address):
        raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute")
    room_ids = p.room_ids
    room_id = await asyncio.to_thread(room_ids.id_of, code) if re.fullmatch(P.CODE_PATTERN, code) else None
    if room_id is None:
        limiter.charge(address)
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no room with the code {code[:12]}")
    made = p.ratings
    return await asyncio.to_thread(round_changes, made.engine, room_id, seq, made.min_games)


@router.get("/api/leaderboards/{preset}/me")
async def my_standing(request: Request, p: PlayersDep, preset: str) -> dict[str, Any]:
    """The signed-in player's place on ``preset``'s board (``signed_in`` false for a guest)."""
    try:
        name = preset_name(preset)
    except InvalidRules:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no leaderboard for {preset!r}") from None
    account = await asyncio.to_thread(account_of, request)
    if account is None:
        return {"signed_in": False}
    made = p.ratings
    found = await asyncio.to_thread(
        standing, made.engine, name, account.id, made.min_games, made.active_since()
    )
    return {"signed_in": True, "preset": name, **found}
