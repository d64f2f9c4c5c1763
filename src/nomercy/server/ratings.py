"""Ratings: OpenSkill ratings per player and preset, written with each rated round.

A player is ``account:<id>`` or ``bot:<level>`` (:func:`player_of_account`,
:func:`player_of_bot`): every bot level is one rated identity, so the leaderboard shows
where each level stands. Only rated rooms count (:func:`check_rated_room`): a preset as it
is, no coach, a turn timer, bots at a level, every person signed in. ``docs/ratings.md``
explains the order of a round, the model and the leaderboard.

Written inside the transaction that keeps a round (:meth:`Ratings.on_keep`, a
``GameStore.on_keep`` hook): a round is rated with its record or not at all, and once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from openskill.models import PlackettLuce
from sqlalchemy import (
    Column,
    Float,
    Index,
    Integer,
    String,
    Table,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
)
from sqlalchemy.engine import Connection, Engine

from nomercy.bots.levels import LEVELS
from nomercy.errors import InvalidRules
from nomercy.rules import PRESETS, Rules
from nomercy.server.accounts import account_of, accounts
from nomercy.server.games import games
from nomercy.server.protocol import ErrorCode, ProtocolError
from nomercy.server.room import build_rules
from nomercy.server.storage import metadata, rooms

if TYPE_CHECKING:
    from nomercy.server.accounts import AccountStore
    from nomercy.server.games import GameStore, Kept
    from nomercy.server.protocol import CreateRoom
    from nomercy.server.settings import Settings

log = logging.getLogger("nomercy.server")

ratings = Table(
    "nomercy_ratings",
    metadata,
    Column("player", String(48), primary_key=True),
    Column("preset", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)

#: What each rated game changed, per player: the rating over time and a game's effect.
#: No foreign key to the game: a rating's history outlives the games that retention prunes.
rating_changes = Table(
    "nomercy_rating_changes",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("player", String(48), primary_key=True),
    Column("preset", String(32), nullable=False),
    Column("place", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_nomercy_rating_changes_player", "player", "at"),
)

#: Plackett-Luce rates a free-for-all of any size from a ranking (ties allowed). Its
#: defaults: mu 25, sigma 25/3, beta 25/6, and tau 25/300, the uncertainty added before
#: every game, so that a rating keeps following a player who gets better.
MODEL = PlackettLuce()
#: Leaderboard pages are at most this long.
MAX_PER_PAGE = 100
ACCOUNT = "account:"
BOT = "bot:"


def player_of_account(account_id: str) -> str:
    return f"{ACCOUNT}{account_id}"


def player_of_bot(level: str) -> str:
    return f"{BOT}{level}"


def conservative(mu: float, sigma: float) -> float:
    """The leaderboard's score: mu - 3 sigma, a rating the player is very likely above
    (OpenSkill's ordinal). A newcomer starts at 0 and climbs as the uncertainty shrinks."""
    return mu - 3.0 * sigma


def preset_name(name: str) -> str:
    """The preset's own name for ``name`` or one of its aliases; :class:`InvalidRules` if none."""
    rules = Rules.preset(name)
    return next(key for key, value in PRESETS.items() if value is rules)


# -- rated rooms ---------------------------------------------------------------------------


#: The conditions a rated room's refusal names (``detail.rated``).
REFUSALS = ("sign_in", "seed", "house_rules", "coach", "timer", "bot_level", "sign_in_seat")


class RatedRefusal(ProtocolError):
    """A rated room's refusal; ``detail.rated`` names the condition (one of
    :data:`REFUSALS`), so that a client can say it in its own language."""

    def __init__(self, code: str, message: str, reason: str) -> None:
        super().__init__(code, message)
        self.status: int | None = None
        self.extra = {"rated": reason}


def _refuse(reason: str, message: str, code: str = ErrorCode.BAD_REQUEST) -> RatedRefusal:
    return RatedRefusal(code, "a rated room " + message, reason)


def check_rated_room(req: CreateRoom, account_id: str | None) -> None:
    """Refuse a rated room whose games would not compare: the host signed in, the preset's
    rules as they are, no coach, a turn timer, bots at a level, no chosen seed."""
    if not req.rated:
        return
    if account_id is None:
        raise _refuse("sign_in", "counts for accounts: sign in to host one", ErrorCode.FORBIDDEN)
    if req.seed is not None:
        raise _refuse("seed", "deals at random: no chosen seed", ErrorCode.FORBIDDEN)
    changed = build_rules(req.preset, req.rules)  # the rooms' own checks (a deck by name only)
    ours, theirs = Rules.preset(req.preset).to_dict(), changed.to_dict()
    differ = sorted(k for k in ours if ours[k] != theirs.get(k))
    if differ:
        raise _refuse(
            "house_rules",
            f"plays the {preset_name(req.preset)} rules as they are: no house rules ({', '.join(differ)})",
            ErrorCode.INVALID_RULES,
        )
    if req.coach:
        raise _refuse("coach", "is played without the coach's hints")
    if not req.turn_seconds:
        raise _refuse("timer", "needs a turn timer, so that nobody can stall a game they are losing")
    if req.bot.strip().lower() not in LEVELS or req.character:
        raise _refuse("bot_level", f"plays bots at a level: {', '.join(LEVELS)} (not {req.bot!r})")


def check_rated_seat(config: dict[str, Any], account_id: str | None) -> None:
    """Only signed-in players take a seat at a rated table; guests may watch."""
    if config.get("rated") and account_id is None:
        raise RatedRefusal(
            ErrorCode.FORBIDDEN,
            "this room is rated: sign in to take a seat, or watch as a spectator",
            "sign_in_seat",
        )


# -- the order of a round ------------------------------------------------------------------


def round_order(result: dict[str, Any], seats: Iterable[int]) -> dict[int, int] | None:
    """Each seat's rank in the round (1 best; equal ranks are ties), or None without a winner.

    The winner first (E1); then every other player still in the round, tied, since the
    round scores nobody else (E3); then the knocked-out players (M1), the last one out
    above the first. Knock-outs happen one card at a time, so they never tie."""
    winner = result.get("winner")
    if winner is None:
        return None
    knocked = [int(s) for s in result.get("knocked_out") or []]
    out = {seat: len(knocked) - i for i, seat in enumerate(knocked)}  # last out: 1
    order: dict[int, int] = {}
    for seat in seats:
        if seat == winner:
            order[seat] = 1
        elif seat in out:
            order[seat] = 2 + out[seat]
        else:
            order[seat] = 2
    return order


def places(order: dict[int, int]) -> dict[int, int]:
    """Competition ranking (1, 2, 2, 4) of ``order``'s ranks, among the seats it holds."""
    return {seat: 1 + sum(1 for r in order.values() if r < rank) for seat, rank in order.items()}


@dataclass(frozen=True)
class Change:
    player: str
    place: int
    won: bool
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float


def rate(
    entrants: list[tuple[int, str]], order: dict[int, int], prior: dict[str, tuple[float, float]]
) -> list[Change]:
    """The new rating of every player in ``entrants`` (seat, player); ``order`` ranks every
    seat of the round (:func:`round_order`), rated or not, so places are the round's own.

    Every seat is an entrant rated from its player's rating before the game. A player with
    several seats (the bots of one level) moves by the mean of its seats' changes, once."""
    teams = [[MODEL.rating(*prior.get(player, (MODEL.mu, MODEL.sigma)))] for _, player in entrants]
    rated = MODEL.rate(teams, ranks=[float(order[seat]) for seat, _ in entrants])
    ranked = places(order)
    by_player: dict[str, list[tuple[int, float, float]]] = {}
    for (seat, player), team in zip(entrants, rated, strict=True):
        by_player.setdefault(player, []).append((seat, team[0].mu, team[0].sigma))
    changes = []
    for player, seats in by_player.items():
        mu0, sigma0 = prior.get(player, (MODEL.mu, MODEL.sigma))
        mu = mu0 + sum(m - mu0 for _, m, _ in seats) / len(seats)
        sigma = sum(s for _, _, s in seats) / len(seats)
        place = min(ranked[seat] for seat, _, _ in seats)
        won = any(order[seat] == 1 for seat, _, _ in seats)
        changes.append(Change(player, place, won, mu0, sigma0, mu, sigma))
    return sorted(changes, key=lambda c: (c.place, c.player))


def entrants_of(kept: Kept, level: str) -> list[tuple[int, str]]:
    """(seat, player) for every seat dealt into the round that has a rated identity: a
    signed-in person, or a bot of the room's level. A person without an account (a seat
    unlinked when its account was deleted) is left out; the others keep their order."""
    sitting_out = {int(s) for s in kept.record.get("sitting_out") or []}
    out = []
    for p in kept.info.get("players") or []:
        seat = int(p["seat"])
        if seat in sitting_out:
            continue
        if p.get("bot"):
            if level in LEVELS:
                out.append((seat, player_of_bot(level)))
        elif seat in kept.accounts:
            out.append((seat, player_of_account(kept.accounts[seat])))
    return out


def rate_kept(conn: Connection, game_id: str, kept: Kept, now: float) -> list[Change]:
    """Rate a kept round if its room is rated (in the keeping transaction); the changes."""
    row = conn.execute(select(rooms.c.settings).where(rooms.c.id == kept.room_id)).first()
    if row is None:
        return []
    config = json.loads(row.settings)
    if not config.get("rated"):
        return []
    try:
        preset = preset_name(str(config.get("preset", "no_mercy")))
    except InvalidRules:
        return []
    entrants = entrants_of(kept, str(config.get("bot", "")))
    sitting_out = {int(s) for s in kept.record.get("sitting_out") or []}
    dealt = [int(p["seat"]) for p in kept.info.get("players") or [] if int(p["seat"]) not in sitting_out]
    order = round_order(kept.info.get("result") or {}, dealt)
    players = sorted({player for _, player in entrants})
    if order is None or len(players) < 2:
        return []
    # Locked in one order (PostgreSQL): two rounds kept at once rate one after the other.
    current = conn.execute(
        select(ratings)
        .where(ratings.c.preset == preset, ratings.c.player.in_(players))
        .order_by(ratings.c.player)
        .with_for_update()
    ).all()
    prior = {r.player: (float(r.mu), float(r.sigma)) for r in current}
    changes = rate(entrants, order, prior)
    for c in changes:
        if c.player in prior:
            conn.execute(
                ratings.update()
                .where(ratings.c.player == c.player, ratings.c.preset == preset)
                .values(
                    mu=c.mu,
                    sigma=c.sigma,
                    games=ratings.c.games + 1,
                    wins=ratings.c.wins + int(c.won),
                    updated_at=now,
                )
            )
        else:
            conn.execute(
                insert(ratings).values(
                    player=c.player,
                    preset=preset,
                    mu=c.mu,
                    sigma=c.sigma,
                    games=1,
                    wins=int(c.won),
                    updated_at=now,
                )
            )
    conn.execute(
        insert(rating_changes),
        [
            {
                "game_id": game_id,
                "player": c.player,
                "preset": preset,
                "place": c.place,
                "mu_before": c.mu_before,
                "sigma_before": c.sigma_before,
                "mu": c.mu,
                "sigma": c.sigma,
                "at": now,
            }
            for c in changes
        ],
    )
    return changes


def forget_account(conn: Connection, account_id: str) -> None:
    """An ``AccountStore.on_delete`` hook: the account's ratings and their history go."""
    player = player_of_account(account_id)
    conn.execute(delete(rating_changes).where(rating_changes.c.player == player))
    conn.execute(delete(ratings).where(ratings.c.player == player))


# -- leaderboards --------------------------------------------------------------------------


def _board_query(preset: str, min_games: int) -> Any:
    joined = ratings.outerjoin(accounts, ratings.c.player == literal(ACCOUNT) + accounts.c.id)
    return joined, (
        (ratings.c.preset == preset)
        & (ratings.c.games >= min_games)
        & or_(ratings.c.player.like(BOT + "%"), accounts.c.id.is_not(None))
    )


def entry(rank: int, player: str, name: str | None, r: Any) -> dict[str, Any]:
    games, wins = int(r.games), int(r.wins)
    out: dict[str, Any] = {"rank": rank, "player": player}
    if player.startswith(BOT):
        level = player[len(BOT) :]
        out.update(kind="bot", level=level, name=f"Bot: {level}")
    else:
        out.update(kind="account", name=name, profile=f"/u/{quote(name or '', safe='')}")
    out.update(
        rating=round(conservative(r.mu, r.sigma), 2),
        mu=round(float(r.mu), 2),
        sigma=round(float(r.sigma), 2),
        games=games,
        wins=wins,
        win_rate=round(wins / games, 4) if games else 0.0,
    )
    return out


class Ratings:
    """The rating writes and the leaderboards of one server process."""

    def __init__(self, engine: Engine, min_games: int) -> None:
        self.engine = engine
        self.min_games = max(1, min_games)

    @classmethod
    def install(cls, settings: Settings, games: GameStore, accounts: AccountStore) -> Ratings:
        """Ratings written with every kept round and forgotten with every deleted account."""
        made = cls(games.engine, settings.leaderboard_min_games)
        games.on_keep.append(made.on_keep)
        if forget_account not in accounts.on_delete:  # the server's store has it already
            accounts.on_delete.append(forget_account)
        return made

    def on_keep(self, conn: Connection, game_id: str, kept: Kept) -> None:
        at = conn.execute(select(games.c.finished_at).where(games.c.id == game_id)).scalar_one()
        changes = rate_kept(conn, game_id, kept, float(at) if at is not None else time.time())
        if changes:
            log.info("game %s rated: %s", game_id, ", ".join(f"{c.player} {c.place}" for c in changes))

    def boards(self) -> list[dict[str, Any]]:
        """Every preset, with how many players its board lists."""
        with self.engine.connect() as conn:
            out = []
            for preset in PRESETS:
                joined, where = _board_query(preset, self.min_games)
                n = conn.execute(select(func.count()).select_from(joined).where(where)).scalar_one()
                out.append({"preset": preset, "players": int(n)})
        return out

    def board(self, preset: str, page: int, per_page: int) -> dict[str, Any]:
        """One page of ``preset``'s board, best first (by :func:`conservative`)."""
        joined, where = _board_query(preset, self.min_games)
        score = ratings.c.mu - 3.0 * ratings.c.sigma
        with self.engine.connect() as conn:
            total = int(conn.execute(select(func.count()).select_from(joined).where(where)).scalar_one())
            rows = conn.execute(
                select(ratings, accounts.c.name)
                .select_from(joined)
                .where(where)
                .order_by(score.desc(), ratings.c.games.desc(), ratings.c.player)
                .offset((page - 1) * per_page)
                .limit(per_page)
            ).all()
        first = (page - 1) * per_page + 1
        return {
            "preset": preset,
            "min_games": self.min_games,
            "total": total,
            "page": page,
            "per_page": per_page,
            "pages": max(1, math.ceil(total / per_page)),
            "entries": [entry(first + i, r.player, r.name, r) for i, r in enumerate(rows)],
        }


# -- routes --------------------------------------------------------------------------------

router = APIRouter()


def _ratings(request: Request) -> Ratings:
    made: Ratings = request.app.state.ratings
    return made


@router.get("/api/rated")
async def rated_rooms(request: Request) -> dict[str, Any]:
    """What the create form needs for a rated room: whether this browser is signed in (a
    rated room's host must be), the bot levels it may seat, the leaderboards' minimum."""
    return {
        "signed_in": await asyncio.to_thread(account_of, request) is not None,
        "levels": list(LEVELS),
        "min_games": _ratings(request).min_games,
    }


@router.get("/api/leaderboards")
async def list_boards(request: Request) -> dict[str, Any]:
    made = _ratings(request)
    return {"min_games": made.min_games, "boards": await asyncio.to_thread(made.boards)}


@router.get("/api/leaderboards/{preset}")
async def get_board(
    request: Request,
    preset: str,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = 25,
) -> dict[str, Any]:
    try:
        name = preset_name(preset)
    except InvalidRules:
        raise ProtocolError(
            ErrorCode.NOT_FOUND, f"no leaderboard for {preset!r}: the presets are {', '.join(PRESETS)}"
        ) from None
    return await asyncio.to_thread(_ratings(request).board, name, page, per_page)
