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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Protocol, cast
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from openskill.models import PlackettLuce
from sqlalchemy import (
    Column,
    ColumnElement,
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
    text,
)
from sqlalchemy.engine import Connection, Engine
from starlette.requests import HTTPConnection

from nomercy.bots.levels import LEVELS
from nomercy.errors import InvalidRules
from nomercy.rules import PRESETS, Rules
from nomercy.server.base.protocol import ErrorCode, ProtocolError, build_rules
from nomercy.server.base.services import services_of
from nomercy.server.base.tables import Kept, games, metadata, rooms
from nomercy.server.players import fairplay as fair
from nomercy.server.players.accounts import account_of, accounts

if TYPE_CHECKING:
    from nomercy.server.base.protocol import CreateRoom
    from nomercy.server.base.settings import Settings
    from nomercy.server.players.accounts import AccountStore

log = logging.getLogger("nomercy.server")


class KeptGames(Protocol):
    """What ratings need of the kept games' store (``games.store.GameStore``, which sits above
    this package): its engine and the hooks it calls as it keeps a round."""

    engine: Engine
    on_keep: list[Callable[[Connection, str, Kept], None]]


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
#: Each bot level's rating in rated play, anchored: measured on the agent ladder
#: (``docs/bots.md``, "The levels on the ladder"; ``benchmarks/results/levels.json``) and
#: never moved by rated games, so that losing to a bot on purpose lifts nobody and a win
#: against a level is worth the same to everyone. One table for every preset: the ladder
#: plays no_mercy, and the levels keep their order at the others.
ANCHORS: dict[str, tuple[float, float]] = {
    "beginner": (20.33, 0.45),
    "casual": (25.23, 0.43),
    "strong": (27.88, 0.43),
    "expert": (30.44, 0.45),
}
#: How long a player stays on the boards after their last rated game (a setting:
#: ``leaderboard_active_days``), so that a board ranks the people playing now.
ACTIVE_DAYS = 30
#: Advisory lock of the rating writes (PostgreSQL): a recompute and a rated round never
#: interleave.
LOCK_KEY = 7210334502


def player_of_account(account_id: str) -> str:
    return f"{ACCOUNT}{account_id}"


def player_of_bot(level: str) -> str:
    return f"{BOT}{level}"


def anchor(player: str) -> tuple[float, float] | None:
    """A bot level's fixed rating (:data:`ANCHORS`); None for a person."""
    return ANCHORS.get(player[len(BOT) :]) if player.startswith(BOT) else None


def below_fair_share(order: dict[int, int], seat: int) -> bool:
    """Whether ``seat`` finished below the fair share of its round: its position (the mean of
    the positions its tie spans: a tie for 2nd of 4 holds 2nd to 4th, 3rd on average) is
    worse than the middle of the table, (n + 1) / 2."""
    rank = order[seat]
    first = 1 + sum(1 for r in order.values() if r < rank)
    tied = sum(1 for r in order.values() if r == rank)
    return first + (tied - 1) / 2 > (len(order) + 1) / 2


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"SELECT pg_advisory_xact_lock({LOCK_KEY})"))


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
REFUSALS = (
    "sign_in",
    "seed",
    "house_rules",
    "coach",
    "timer",
    "timer_bounds",
    "bot_level",
    "sign_in_seat",
    "no_removal",
    "no_review",
)

#: A rated room's turn timer, in seconds (``docs/ratings.md``, "Rated rounds as played"):
#: long enough for a person to read the table and answer (a one-second timer plays a
#: person's turns for them into a loss), short enough that nobody stalls a losing game.
RATED_TURN_SECONDS = (10, 120)
#: What the create form offers first for a rated room (``GET /api/rated``): a bot level of
#: :data:`~nomercy.bots.levels.LEVELS` and a turn timer within :data:`RATED_TURN_SECONDS`.
RATED_DEFAULT_LEVEL = "casual"
RATED_DEFAULT_TURN_SECONDS = 30


class RatedRefusal(ProtocolError):
    """A rated room's refusal; ``detail.rated`` names the condition (one of
    :data:`REFUSALS`), so that a client can say it in its own language (with ``detail``'s
    other fields, such as a bound, filled in)."""

    def __init__(self, code: str, message: str, reason: str, **extra: Any) -> None:
        super().__init__(code, message)
        self.status: int | None = None
        self.extra = {"rated": reason, **extra}


def _refuse(reason: str, message: str, code: str = ErrorCode.BAD_REQUEST, **extra: Any) -> RatedRefusal:
    return RatedRefusal(code, "a rated room " + message, reason, **extra)


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
    low, high = RATED_TURN_SECONDS
    if not low <= req.turn_seconds <= high:
        raise _refuse(
            "timer_bounds",
            f"gives a turn {low} to {high} seconds (not {req.turn_seconds}): time to answer, no stalling",
            min=low,
            max=high,
        )
    if req.bot.strip().lower() not in LEVELS or req.character:
        raise _refuse("bot_level", f"plays bots at a level: {', '.join(LEVELS)} (not {req.bot!r})")


def check_rated_removal(config: dict[str, Any], playing: bool) -> None:
    """Nobody is removed from a rated round in play: a removal would take the seat's result
    out of the ratings; an absent player's seat is a forfeit instead (:func:`round_order`)."""
    if config.get("rated") and playing:
        raise RatedRefusal(
            ErrorCode.FORBIDDEN,
            "this round is rated: nobody is removed from it; a player who leaves forfeits the round",
            "no_removal",
        )


def check_rated_seat(config: dict[str, Any], account_id: str | None) -> None:
    """Only signed-in players take a seat at a rated table; guests may watch."""
    if config.get("rated") and account_id is None:
        raise RatedRefusal(
            ErrorCode.FORBIDDEN,
            "this room is rated: sign in to take a seat, or watch as a spectator",
            "sign_in_seat",
        )


# -- the order of a round ------------------------------------------------------------------


def round_order(
    result: dict[str, Any], seats: Iterable[int], forfeits: Iterable[int] = ()
) -> dict[int, int] | None:
    """Each seat's rank in the round (1 best; equal ranks are ties), or None without a winner.

    The winner first (E1); then every other player still in the round, tied, since the
    round scores nobody else (E3); then the knocked-out players (M1), the last one out
    above the first. Knock-outs happen one card at a time, so they never tie. Last of all,
    tied, the ``forfeits``: seats a stand-in played for an absent person, whatever the
    stand-in made of them (a leaver earns nothing from the bot that played for them)."""
    winner = result.get("winner")
    if winner is None:
        return None
    knocked = [int(s) for s in result.get("knocked_out") or []]
    out = {seat: len(knocked) - i for i, seat in enumerate(knocked)}  # last out: 1
    forfeited = {int(s) for s in forfeits}
    order: dict[int, int] = {}
    for seat in seats:
        if seat in forfeited:
            order[seat] = 3 + len(knocked)  # below every knock-out (at most 2 + len(knocked))
        elif seat == winner:
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
    entrants: list[tuple[int, str]],
    order: dict[int, int],
    prior: dict[str, tuple[float, float]],
    weights: dict[str, float] | None = None,
) -> list[Change]:
    """The new rating of every player in ``entrants`` (seat, player); ``order`` ranks every
    seat of the round (:func:`round_order`), rated or not, so places are the round's own.

    Every seat is an entrant rated from its player's rating before the game; a bot level
    enters at its anchor (:data:`ANCHORS`) and keeps it. A player with several seats moves
    by the mean of its seats' changes, once. A person's change is scaled by their
    ``weights`` entry (how much the game counts, :func:`fairplay.weight`), and a finish
    below the fair share (:func:`below_fair_share`) never raises their ``mu`` nor their
    displayed rating, ``mu - 3 sigma``."""

    def start(player: str) -> tuple[float, float]:
        return anchor(player) or prior.get(player, (MODEL.mu, MODEL.sigma))

    teams = [[MODEL.rating(*start(player))] for _, player in entrants]
    rated = MODEL.rate(teams, ranks=[float(order[seat]) for seat, _ in entrants])
    ranked = places(order)
    by_player: dict[str, list[tuple[int, float, float]]] = {}
    for (seat, player), team in zip(entrants, rated, strict=True):
        by_player.setdefault(player, []).append((seat, team[0].mu, team[0].sigma))
    changes = []
    for player, seats in by_player.items():
        mu0, sigma0 = start(player)
        mu = mu0 + sum(m - mu0 for _, m, _ in seats) / len(seats)
        sigma = sum(s for _, _, s in seats) / len(seats)
        if anchor(player) is not None:
            mu, sigma = mu0, sigma0
        else:
            w = (weights or {}).get(player, 1.0)
            mu, sigma = mu0 + w * (mu - mu0), sigma0 + w * (sigma - sigma0)
            if all(below_fair_share(order, seat) for seat, _, _ in seats):
                mu = min(mu, mu0, mu0 - 3.0 * sigma0 + 3.0 * sigma)
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


def change_row(game_id: str, preset: str, change: Change, at: float) -> dict[str, Any]:
    """One row of ``nomercy_rating_changes``: a player's change in one rated game."""
    return {
        "game_id": game_id,
        "player": change.player,
        "preset": preset,
        "place": change.place,
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "mu": change.mu,
        "sigma": change.sigma,
        "at": at,
    }


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
    forfeits = [int(s) for s in kept.info.get("forfeits") or [] if int(s) in dealt]
    order = round_order(kept.info.get("result") or {}, dealt, forfeits)
    players = sorted({player for _, player in entrants})
    if order is None or len(players) < 2:
        return []
    _log_forfeits(conn, kept, game_id, forfeits)
    if fair.shared_pairs(conn, str(kept.room_id)):
        return []  # accounts seen together from one address: the room's rounds are not rated
    _lock(conn)
    weights = volume(conn, kept.room_code, game_id, players, now)
    # Locked in one order (PostgreSQL): two rounds kept at once rate one after the other.
    current = conn.execute(
        select(ratings)
        .where(ratings.c.preset == preset, ratings.c.player.in_(players))
        .order_by(ratings.c.player)
        .with_for_update()
    ).all()
    prior = {r.player: (float(r.mu), float(r.sigma)) for r in current}
    changes = rate(entrants, order, prior, weights)
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
    conn.execute(insert(rating_changes), [change_row(game_id, preset, c, now) for c in changes])
    record_seats(conn, game_id, preset, entrants, order, now)
    return changes


def volume(
    conn: Connection, room: str | None, game_id: str, players: list[str], now: float
) -> dict[str, float]:
    """How much the game counts for each person (:func:`fairplay.weight`), from the rated
    games of the 24 hours before it; the first game that counts less goes to the fair-play
    log."""
    history = fair.recent_games(conn, players, now - fair.DAY, now)
    met = {p: fair.meetings(p, players, history) for p in players if p.startswith(ACCOUNT)}
    first = sorted(p[len(ACCOUNT) :] for p, n in met.items() if n == fair.PAIR_GAMES_PER_DAY)
    if first:
        detail = {"game": game_id, "games_in_a_day": fair.PAIR_GAMES_PER_DAY + 1}
        fair.log_flag(conn, "volume", room=room, accounts=first, detail=detail, at=now)
    return {p: fair.weight(n) for p, n in met.items()}


def record_seats(
    conn: Connection,
    game_id: str,
    preset: str,
    entrants: list[tuple[int, str]],
    order: dict[int, int],
    now: float,
) -> None:
    """The round's ranking, every dealt seat, for a recompute to replay."""
    who = dict(entrants)
    conn.execute(
        insert(fair.rated_seats),
        [
            {
                "game_id": game_id,
                "seat": seat,
                "player": who.get(seat),
                "preset": preset,
                "rank": rank,
                "dealt": len(order),
                "at": now,
            }
            for seat, rank in sorted(order.items())
        ],
    )


def _log_forfeits(conn: Connection, kept: Kept, game_id: str, forfeits: list[int]) -> None:
    """Each forfeit of a rated round goes to the fair-play log, in the keeping transaction."""
    why = kept.info.get("forfeit_reasons") or {}
    for seat in forfeits:
        account = kept.accounts.get(seat)
        fair.log_flag(
            conn,
            "forfeit",
            room=kept.room_code,
            accounts=[account] if account else [],
            detail={"game": game_id, "round": kept.round, "seat": seat, "why": why.get(str(seat), "standin")},
        )


def forget_account(conn: Connection, account_id: str) -> None:
    """An ``AccountStore.on_delete`` hook: the account's ratings and their history go, and
    so do the gains it gave others: every rated game it played is voided and the boards it
    was on are recomputed without them (``docs/ratings.md``, "Fair play")."""
    void_account(conn, account_id, "deleted")
    player = player_of_account(account_id)
    conn.execute(delete(rating_changes).where(rating_changes.c.player == player))
    conn.execute(delete(ratings).where(ratings.c.player == player))
    fair.forget(conn, account_id)


# -- voids and recomputes ------------------------------------------------------------------


def games_of(conn: Connection, player: str) -> list[str]:
    """The rated games ``player`` was rated in, oldest first."""
    rows = conn.execute(
        select(fair.rated_seats.c.game_id, func.min(fair.rated_seats.c.at).label("at"))
        .where(fair.rated_seats.c.player == player)
        .group_by(fair.rated_seats.c.game_id)
        .order_by("at", fair.rated_seats.c.game_id)
    ).all()
    return [r.game_id for r in rows]


def void_games(
    conn: Connection, game_ids: Iterable[str], reason: str, room: str | None = None, now: float | None = None
) -> set[str]:
    """Take rated games out of the ratings: their changes and rankings go, the fair-play log
    says which and why. Returns the presets whose boards need :func:`recompute`."""
    ids = sorted(set(game_ids))
    if not ids:
        return set()
    seats = fair.rated_seats
    rows = conn.execute(select(seats.c.player, seats.c.preset).where(seats.c.game_id.in_(ids))).all()
    people = sorted({r.player[len(ACCOUNT) :] for r in rows if r.player and r.player.startswith(ACCOUNT)})
    conn.execute(delete(rating_changes).where(rating_changes.c.game_id.in_(ids)))
    conn.execute(delete(seats).where(seats.c.game_id.in_(ids)))
    fair.log_flag(conn, "void", room=room, accounts=people, detail={"reason": reason, "games": ids}, at=now)
    return {r.preset for r in rows}


def void_account(conn: Connection, account_id: str, reason: str) -> int:
    """Void every rated game ``account_id`` played and recompute the boards; how many."""
    found = games_of(conn, player_of_account(account_id))
    presets = void_games(conn, found, reason)
    recompute(conn, presets)
    return len(found)


def void_together(conn: Connection, room_id: int, room_code: str, pair: tuple[str, str]) -> int:
    """Void the rated games of a room that two accounts seen from one address played
    together, and recompute; how many."""
    a, b = (player_of_account(x) for x in pair)
    seats = fair.rated_seats
    with_a = select(seats.c.game_id).where(seats.c.player == a)
    found = conn.execute(
        select(seats.c.game_id)
        .join(games, games.c.id == seats.c.game_id)
        .where(games.c.room_id == room_id, seats.c.player == b, seats.c.game_id.in_(with_a))
    ).scalars()
    ids = sorted(set(found))
    recompute(conn, void_games(conn, ids, "address", room=room_code))
    return len(ids)


def recompute(conn: Connection, presets: Iterable[str] | None = None) -> dict[str, int]:
    """Rebuild the ratings of ``presets`` (every preset when None) by replaying their rated
    games in order (``nomercy_rated_seats``) under today's rules: anchored bots, the fair
    share, the volume weights. Returns how many games each preset replayed."""
    _lock(conn)
    seats = fair.rated_seats
    query = select(seats).order_by(seats.c.at, seats.c.game_id, seats.c.seat)
    if presets is not None:
        chosen = sorted(set(presets))
        if not chosen:
            return {}
        query = query.where(seats.c.preset.in_(chosen))
    else:
        chosen = sorted(PRESETS)
    by_game: dict[str, list[Any]] = {}
    for r in conn.execute(query).all():
        by_game.setdefault(r.game_id, []).append(r)
    replayed: dict[str, int] = {}
    for preset in chosen:
        state: dict[str, list[float]] = {}  # player -> mu, sigma, games, wins, last game
        history: list[tuple[float, list[str]]] = []
        made = []
        for game_id, rows in by_game.items():
            if rows[0].preset != preset:
                continue
            at = float(rows[0].at)
            entrants = [(int(r.seat), str(r.player)) for r in rows if r.player]
            order = {int(r.seat): int(r.rank) for r in rows}
            players = sorted({p for _, p in entrants})
            history = [(t, g) for t, g in history if t > at - fair.DAY]
            people = [p for p in players if p.startswith(ACCOUNT)]
            recent = [g for _, g in history if len(set(g) & set(people)) >= 2]
            weights = {p: fair.weight(fair.meetings(p, players, recent)) for p in people}
            prior = {p: (state[p][0], state[p][1]) for p in players if p in state}
            for c in rate(entrants, order, prior, weights):
                old = state.get(c.player, [0.0, 0.0, 0.0, 0.0, 0.0])
                state[c.player] = [c.mu, c.sigma, old[2] + 1, old[3] + int(c.won), at]
                made.append(change_row(game_id, preset, c, at))
            history.append((at, people))
            replayed[preset] = replayed.get(preset, 0) + 1
        conn.execute(delete(rating_changes).where(rating_changes.c.preset == preset))
        conn.execute(delete(ratings).where(ratings.c.preset == preset))
        if made:
            conn.execute(insert(rating_changes), made)
        if state:
            conn.execute(
                insert(ratings),
                [
                    {
                        "player": player,
                        "preset": preset,
                        "mu": mu,
                        "sigma": sigma,
                        "games": int(n),
                        "wins": int(won),
                        "updated_at": last,
                    }
                    for player, (mu, sigma, n, won, last) in sorted(state.items())
                ],
            )
    return replayed


# -- leaderboards --------------------------------------------------------------------------


def settling(player: str, games_played: int, min_games: int) -> dict[str, Any]:
    """``provisional`` and ``games_to_settle`` of ``player``'s rating after ``games_played``
    rated games of its preset: the one rule every rating row sent follows, and the boards'
    query (:func:`settled`) too. An account's rating is provisional below ``min_games``; a
    bot level's is anchored at its ladder rating, never provisional."""
    left = 0 if player.startswith(BOT) else max(0, min_games - games_played)
    return {"provisional": left > 0, "games_to_settle": left}


def settled(min_games: int) -> ColumnElement[bool]:
    """:func:`settling`'s rule in SQL, over :data:`ratings`: the rating is not provisional."""
    return or_(ratings.c.player.like(BOT + "%"), ratings.c.games >= min_games)


def board_query(preset: str, min_games: int, active_since: float | None = None) -> Any:
    """A board's rows, (join, where): the bot levels that have played it and the accounts
    whose rating is :func:`settled` and who played a rated game since ``active_since`` (no
    limit when None)."""
    joined = ratings.outerjoin(accounts, ratings.c.player == literal(ACCOUNT) + accounts.c.id)
    bot = ratings.c.player.like(BOT + "%")
    person: ColumnElement[bool] = accounts.c.id.is_not(None)
    if active_since is not None:
        person = person & (ratings.c.updated_at >= active_since)
    return joined, (ratings.c.preset == preset) & settled(min_games) & or_(bot, person)


def entry(rank: int, player: str, name: str | None, r: Any, min_games: int) -> dict[str, Any]:
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
        **settling(player, games, min_games),  # settled on a board (its query's rule)
    )
    return out


class RatingsHolder(Protocol):
    """What the leaderboards' routes need of the services (a part of
    ``players.deps.PlayerServices``, declared here so that this module imports no other)."""

    @property
    def ratings(self) -> Ratings: ...


class Ratings:
    """The rating writes and the leaderboards of one server process."""

    def __init__(
        self,
        engine: Engine,
        min_games: int,
        active_days: float = ACTIVE_DAYS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.min_games = max(1, min_games)
        self.active_days = active_days
        self.clock = clock

    def active_since(self) -> float:
        """The boards list people whose last rated game is this recent (``active_days``)."""
        return self.clock() - self.active_days * 24 * 3600.0

    @classmethod
    def install(cls, settings: Settings, games: KeptGames, accounts: AccountStore) -> Ratings:
        """Ratings written with every kept round and forgotten with every deleted account."""
        made = cls(games.engine, settings.leaderboard_min_games, settings.leaderboard_active_days)
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
                joined, where = board_query(preset, self.min_games, self.active_since())
                n = conn.execute(select(func.count()).select_from(joined).where(where)).scalar_one()
                out.append({"preset": preset, "players": int(n)})
        return out

    def board(self, preset: str, page: int, per_page: int) -> dict[str, Any]:
        """One page of ``preset``'s board, best first (by :func:`conservative`)."""
        joined, where = board_query(preset, self.min_games, self.active_since())
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
            "active_days": self.active_days,
            "total": total,
            "page": page,
            "per_page": per_page,
            "pages": max(1, math.ceil(total / per_page)),
            "entries": [entry(first + i, r.player, r.name, r, self.min_games) for i, r in enumerate(rows)],
        }


# -- routes --------------------------------------------------------------------------------

router = APIRouter()


def ratings_part(conn: HTTPConnection) -> Ratings:
    """The ratings, as this module's routes see them (a FastAPI dependency: the players'
    :data:`~nomercy.server.players.deps.PlayersDep` is built on this module, so it cannot be
    used here without an import circle)."""
    made: Ratings = cast("RatingsHolder", services_of(conn)).ratings
    return made


RatingsDep = Annotated["Ratings", Depends(ratings_part)]


@router.get("/api/rated")
async def rated_rooms(request: Request, made: RatingsDep) -> dict[str, Any]:
    """What the create form needs for a rated room: whether this browser is signed in (a
    rated room's host must be), the bot levels it may seat and the one it offers first, the
    turn timer it offers, the leaderboards' minimum."""
    return {
        "signed_in": await asyncio.to_thread(account_of, request) is not None,
        "levels": list(LEVELS),
        "default_level": RATED_DEFAULT_LEVEL,
        "default_turn_seconds": RATED_DEFAULT_TURN_SECONDS,
        "min_games": made.min_games,
    }


@router.get("/api/leaderboards")
async def list_boards(made: RatingsDep) -> dict[str, Any]:
    return {"min_games": made.min_games, "boards": await asyncio.to_thread(made.boards)}


@router.get("/api/leaderboards/{preset}")
async def get_board(
    made: RatingsDep,
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
    return await asyncio.to_thread(made.board, name, page, per_page)
