"""Kept games over HTTP and the coach over the WebSocket (``docs/protocol.md``, "Kept games").

:class:`Games` keeps each round as it ends (the rooms' hook, written off the event loop),
checks who may open a game (the room's ``replays`` setting), prunes by the operator's
retention, and answers the coach's hints. :data:`router` holds the routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import multiprocessing
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Annotated, Any, Protocol, cast

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field
from starlette.requests import HTTPConnection

from nomercy.actions import Action
from nomercy.decisions import decisions
from nomercy.server.base import protocol as P
from nomercy.server.base.limits import Slots, per_minute
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import bearer, client_key
from nomercy.server.base.services import services_of
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import Kept, token_hash
from nomercy.server.games.replays import RecordRefused, label_review, read_record, replay_frames, result_of
from nomercy.server.games.reviews import ReviewQueue
from nomercy.server.games.store import ACCESS, Game, GameStore
from nomercy.server.players.daily import over, today
from nomercy.views import player_view

if TYPE_CHECKING:
    from nomercy.server.base.limits import KeyedLimiter
    from nomercy.server.base.metrics import Metrics
    from nomercy.server.rooms.manager import Room, RoomManager
    from nomercy.server.rooms.ports import RoomStorage

log = logging.getLogger("nomercy.server")

#: What a game id looks like (``secrets.token_urlsafe(16)``); anything else is simply unknown.
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{16,32}$")
#: Keeping a round is tried this often (with a growing pause) before it is given up and logged.
KEEP_TRIES = 5


class GameError(ProtocolError):
    """A refusal whose ``detail`` says more than code and message (``room``, ``step``...)."""

    def __init__(self, code: str, message: str, status: int | None = None, **extra: Any) -> None:
        super().__init__(code, message)
        self.status = status
        self.extra = extra


def not_found() -> GameError:
    return GameError(ErrorCode.NOT_FOUND, "no such game")


def player_name(room: Room, seat: int) -> str:
    from nomercy.server.players.accounts import FORMER_PLAYER
    from nomercy.server.rooms.room import bot_name, bot_strength

    s = room.seats[seat]
    if s.kind == "human":
        # A person's name, or none left: their account was deleted while the room was played.
        return s.nickname or FORMER_PLAYER.format(n=seat + 1)
    return bot_name(seat, bot_strength(room.config))


class Games:
    """Kept games, reviews and hints of one server process."""

    def __init__(self, settings: Settings, store: GameStore) -> None:
        self.settings = settings
        self.store = store
        self.queue = ReviewQueue(settings, store)
        self._tasks: set[asyncio.Task[None]] = set()
        # Uploaded records (``POST /api/records/replay``, no sign-in): a rate per address,
        # a few at once, each in a worker process of their own (started with the first).
        self.replay_rate = per_minute(settings.replays_per_minute)
        self.replay_slots = Slots(settings.replays_at_once, settings.replays_per_address)
        self._replay_pool: Executor | None = None

    @property
    def replay_pool(self) -> Executor:
        """Processes, not threads: a replay builds millions of small objects, and their
        garbage collection and freeing hold the interpreter's lock for a tenth of a second
        and more at a time (a thread stalled ``/healthz`` so; ``benchmarks/upload_health.py``)."""
        if self._replay_pool is None:
            self._replay_pool = ProcessPoolExecutor(
                max(1, self.settings.replays_at_once),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_replay_worker,
                initargs=(self.settings.review_niceness,),
            )
        return self._replay_pool

    @replay_pool.setter
    def replay_pool(self, pool: Executor | None) -> None:
        self._replay_pool = pool

    def close(self) -> None:
        self.queue.close()
        pool, self._replay_pool = self._replay_pool, None
        if pool is not None:
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    process.terminate()
            with contextlib.suppress(Exception):
                pool.shutdown(wait=True, cancel_futures=True)

    def today(self) -> str:
        """The UTC day (a test server may set it: ``daily_day`` with ``test_options``)."""
        if self.settings.test_options and self.settings.daily_day:
            return self.settings.daily_day
        return today()

    # -- keeping -------------------------------------------------------------------------

    def kept_of(self, room: Room) -> Kept | None:
        """The round that just ended in ``room``, as it is kept."""
        match = room.match
        if match is None or not match.round_over or not match.rounds:
            return None
        record = match.record.to_dict()
        last = match.rounds[-1]
        result: dict[str, Any] = {
            "winner": last.winner,
            "reason": last.reason,
            "points": list(last.points),
            "knocked_out": list(last.knocked_out),
        }
        if room.mode == "match":
            result["scores"] = list(match.scores)
            result["match_winner"] = match.winner
        access = str(room.config.get("replays", ACCESS[0]))
        return Kept(
            room_id=room.id,
            room_code=room.code,
            seq=room.version,
            round=match.round_number,
            access=access if access in ACCESS else ACCESS[0],
            info={
                "preset": str(room.config.get("preset", "no_mercy")),
                "mode": room.mode,
                "rules": room.rules.to_dict(),
                "players": [
                    {"seat": s.seat, "name": player_name(room, s.seat), "bot": s.kind != "human"}
                    for s in room.seats
                ],
                "result": result,
                **({"daily": room.config["daily"]} if room.config.get("daily") else {}),
                **forfeits_of(room),
            },
            record=record,
            tokens={s.seat: s.token_hash for s in room.seats if s.kind == "human" and s.token_hash},
            start_seq=room.version - len(match.record.actions),
            accounts={s.seat: s.account_id for s in room.seats if s.kind == "human" and s.account_id},
        )

    def round_ended(self, room: Room) -> None:
        """The rooms' hook at the end of every round: keep it, off the event loop."""
        kept = self.kept_of(room)
        if kept is None:
            return
        task = asyncio.get_running_loop().create_task(self._keep(kept))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _keep(self, kept: Kept) -> None:
        for attempt in range(KEEP_TRIES):
            try:
                game_id = await asyncio.to_thread(self.store.keep, kept)
                log.info("round %d of room %s kept as game %s", kept.round, kept.room_code, game_id)
                return
            except Exception:
                log.warning(
                    "keeping a round of room %s failed (try %d)", kept.room_code, attempt + 1, exc_info=True
                )
                await asyncio.sleep(min(30.0, 0.5 * 2**attempt))
        log.error("round %d of room %s could not be kept", kept.round, kept.room_code)

    async def settle(self) -> None:
        """Wait for the rounds being kept (tests; shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def prune(self, now: float | None = None) -> int:
        days = self.settings.keep_games_days
        if days <= 0:
            return 0
        cutoff = (now if now is not None else time.time()) - days * 86400
        return await asyncio.to_thread(self.store.prune, cutoff)

    # -- reading -------------------------------------------------------------------------

    async def open(
        self, game_id: str, authorization: str | None, account: Callable[[], str | None] | None = None
    ) -> Game:
        """The game, if this request may open it: 404 for an unknown id, 403 (naming no
        room) for a players-only game without one of its players' tokens or accounts
        (``account``: the signed-in account's id, asked only when needed)."""
        if not GAME_ID.match(game_id):
            raise not_found()
        game = await asyncio.to_thread(self.store.get, game_id)
        if game is None:
            raise not_found()
        daily = game.info.get("daily")
        if isinstance(daily, dict):  # the daily deal: nobody's until the day ends, then everyone's
            day = str(daily.get("day"))
            if over(day, self.today()):
                return game
            raise GameError(
                ErrorCode.FORBIDDEN,
                f"the daily deal of {day} opens for replays when the day is over (UTC)",
                daily=day,  # the page says so in its own language
            )
        if game.access == "link":
            return game
        token = bearer(authorization)
        if token is not None and await asyncio.to_thread(self.store.allowed, game_id, token_hash(token)):
            return game
        account_id = await asyncio.to_thread(account) if account is not None else None
        if account_id is not None and await asyncio.to_thread(self.store.played_by, game_id, account_id):
            return game
        # The refusal names no room: a link found on a shared page must not hand out the
        # room's join code (a player's browser finds its token through ``/api/games/mine``).
        raise GameError(
            ErrorCode.FORBIDDEN,
            "only this game's players may open it: send the seat token you played it with",
        )

    # -- the coach -----------------------------------------------------------------------

    @staticmethod
    def coach_allowed(room: Room, seat: int) -> bool:
        """Hints cannot spoil a game between people: every other seat is a bot (not a
        stand-in for an absent person), or the host allowed the coach."""
        if room.config.get("daily"):
            return False  # every player meets the deal alone: results compare
        if room.config.get("rated"):
            return False  # a rating is earned without help, even against bots alone
        if bool(room.config.get("coach", False)):
            return True
        return all(s.kind == "bot" for s in room.seats if s.seat != seat)

    async def hint(self, manager: RoomManager, room: Room, seat: int | None, address: str = "") -> str:
        """The ``hint`` message for ``seat`` (asked from ``address``), or a refusal."""
        if seat is None or not self.coach_allowed(room, seat):
            raise ProtocolError(
                ErrorCode.HINT_NOT_ALLOWED,
                "spectators get no hints"
                if seat is None
                else "a rated round is played without the coach"
                if room.config.get("rated")
                else "the coach helps only at a table of bots, or where the host allowed it",
            )
        match = room.match
        if match is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
        if match.round_over:
            raise ProtocolError(ErrorCode.GAME_OVER, "the round is over")
        if match.state.current != seat:
            raise ProtocolError(ErrorCode.NOT_YOUR_TURN, "the coach answers when it is your decision")
        version = room.version
        step = len(match.record.actions)
        found = await self.queue.hint(room.code, seat, match.record.to_dict, seed=version, address=address)
        if found is None or room.version != version or room.match is not match:
            raise ProtocolError(ErrorCode.STALE, "the table moved on before the hint was ready: ask again")
        text, win, stderr = found
        choice = _choice(match.state, seat, text)
        if (seat, step) not in match.record.hints:
            match.record.hints.append((seat, step))
        try:
            await asyncio.to_thread(self.store.note_hint, room.id, version, seat, step)
        except Exception:  # the hint stays in the round's record in memory
            log.warning("noting a hint of room %s failed", room.code, exc_info=True)
        return P.HintOut(
            decision=choice, win=round(win, 4), margin=round(1.96 * stderr, 4), version=version
        ).model_dump_json()


def forfeits_of(room: Room) -> dict[str, Any]:
    """A rated round's forfeits for the kept info: the seats a stand-in played and why
    (``docs/ratings.md``, "Rated rounds as played"); nothing for any other round."""
    if not room.config.get("rated"):
        return {}
    seats = [s for s in room.seats if s.kind == "human" and (s.forfeit or s.standin)]
    return {
        "forfeits": [s.seat for s in seats],
        "forfeit_reasons": {str(s.seat): s.forfeit or "standin" for s in seats},
    }


def _choice(state: Any, seat: int, action: str) -> dict[str, Any]:
    """The seat's choice (as in ``state.decisions.choices``) that plays ``action``."""
    wanted = Action.parse(action)
    chosen = cast(list[dict[str, Any]], decisions(player_view(state, seat)).to_dict()["choices"])
    for choice in chosen:
        if Action.parse(choice["action"]) == wanted:
            return dict(choice)
    return {"action": action, "kind": None, "label": None, "cost": None}


class GameServices(Protocol):
    """The services kept games' routes read."""

    @property
    def games(self) -> Games: ...
    @property
    def manager(self) -> RoomManager: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def join_failures(self) -> KeyedLimiter: ...


def kept_games(conn: HTTPConnection) -> GameServices:
    """The services, as kept games' routes see them (a FastAPI dependency)."""
    return cast("GameServices", services_of(conn))


#: A route's parameter: the services, as kept games' routes see them.
KeptDep = Annotated["GameServices", Depends(kept_games)]


def _account_id(request: Request) -> Callable[[], str | None]:
    """The signed-in account's id (it opens the players-only games it played), or None:
    a lookup to run off the event loop, and only for a game that needs it."""
    from nomercy.server.players.accounts import account_of

    def lookup() -> str | None:
        account = account_of(request)
        return account.id if account is not None else None

    return lookup


class MineRequest(P._Request):
    """The seat tokens a browser keeps."""

    tokens: Annotated[
        list[Annotated[str, Field(min_length=16, max_length=64)]], Field(min_length=1, max_length=50)
    ]


router = APIRouter()


def game_body(game: Game) -> dict[str, Any]:
    """``GET /api/games/{id}``: the game with its frames (see ``docs/protocol.md``)."""
    from nomercy.record import GameRecord

    record = GameRecord.from_dict(game.record)
    replayed = replay_frames(record)
    return {
        "id": game.id,
        "room": game.room_code,
        "round": game.round,
        "finished_at": game.finished_at,
        "access": game.access,
        **_shape(game.info, record.to_dict(), replayed.frames, record.hints),
    }


def _shape(
    info: dict[str, Any], record: dict[str, Any], frames: list[dict[str, Any]], hints: list[tuple[int, int]]
) -> dict[str, Any]:
    return {
        "preset": info.get("preset"),
        "mode": info.get("mode"),
        "rules": info.get("rules"),
        "players": info.get("players"),
        "result": info.get("result"),
        "hints": [{"seat": seat, "step": step} for seat, step in hints],
        "record": record,
        "frames": frames,
    }


@router.get("/api/games/{game_id}")
async def get_game(
    request: Request, services: KeptDep, game_id: str, authorization: str | None = Header(None)
) -> Any:
    game = await services.games.open(game_id, authorization, _account_id(request))
    body = await asyncio.to_thread(game_body, game)
    return Response(json.dumps(body), media_type="application/json")


@router.get("/api/games/{game_id}/record")
async def get_record(
    request: Request, services: KeptDep, game_id: str, authorization: str | None = Header(None)
) -> Response:
    game = await services.games.open(game_id, authorization, _account_id(request))
    return Response(
        json.dumps(game.record, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="nomercy-{game.id}.json"'},
    )


#: Answers smaller than this go out as they are (as the app's gzip middleware does).
GZIP_MINIMUM = 1024


def _replay_worker(niceness: int) -> None:
    """A replay worker yields the CPU to the rooms' process (at the reviews' nice level)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(niceness)


def replay_upload(raw: bytes, max_bytes: int, seat_steps: int, compress: bool) -> tuple[bytes, bool]:
    """In a replay worker: an uploaded record's replay as the answer's bytes, gzipped when
    ``compress`` (and worth it). Raises :class:`RecordRefused`."""
    record = read_record(raw, max_bytes, seat_steps)
    replayed = replay_frames(record)
    players = [{"seat": s, "name": f"P{s}", "bot": None} for s in range(record.players)]
    info = {
        "preset": None,
        "mode": "round",
        "rules": record.rules.to_dict(),
        "players": players,
        "result": result_of(replayed.state),
    }
    shaped = _shape(info, record.to_dict(), [], record.hints)
    del shaped["frames"]
    head = json.dumps(
        {"id": None, "room": None, "round": None, "finished_at": None, "access": None, **shaped}
    )
    frames = ", ".join(json.dumps(frame) for frame in replayed.frames)
    body = f'{head[:-1]}, "frames": [{frames}]}}'.encode()
    if compress and len(body) >= GZIP_MINIMUM:
        return gzip.compress(body, 6), True  # zlib lets the lock go while it works
    return body, False


def _upload_refused(metrics: Metrics, code: str, message: str, retry_after: int) -> JSONResponse:
    metrics.refused(code, "http")
    return JSONResponse(
        {"detail": {"code": code, "message": message}},
        status_code=429,
        headers={"Retry-After": str(retry_after)},
    )


@router.post("/api/records/replay")
async def replay_file(request: Request, services: KeptDep) -> Response:
    """A record file replayed: no sign-in, so bounded per address (a rate, one at a time),
    in all (a few at once, refused beyond: never queued), and in its cost (seats, moves
    times seats: :func:`nomercy.server.games.replays.within_bounds`); the work runs on a worker."""
    games = services.games
    address = client_key(request)
    if not games.replay_rate.allow(address):
        return _upload_refused(
            services.metrics,
            ErrorCode.RATE_LIMITED,
            "too many records replayed from your address: wait a minute",
            60,
        )
    if not games.replay_slots.take(address):
        return _upload_refused(
            services.metrics,
            ErrorCode.BUSY,
            "the server is replaying other records: try again in a few seconds",
            5,
        )
    loop = asyncio.get_running_loop()
    try:
        raw = await request.body()
        compress = "gzip" in request.headers.get("accept-encoding", "").lower()
        s = games.settings
        work = games.replay_pool.submit(replay_upload, raw, s.max_record_bytes, s.replay_seat_steps, compress)
    except BaseException:
        games.replay_slots.release(address)
        raise
    # The slot is held until the work itself ends, even when the client leaves sooner.
    work.add_done_callback(lambda _: loop.call_soon_threadsafe(games.replay_slots.release, address))
    try:
        body, gzipped = await asyncio.wrap_future(work)
    except BrokenProcessPool:  # a worker died (out of memory, killed): the next upload gets a new one
        log.error("a replay worker died; its pool is started again")
        games.replay_pool = None
        raise ProtocolError(ErrorCode.SERVER_ERROR, "the replay failed: try again") from None
    except RecordRefused as exc:
        at = {} if exc.at is None else {"index": exc.at[0], "seat": exc.at[1]}
        raise GameError(
            ErrorCode.TOO_LARGE if exc.too_large else ErrorCode.BAD_RECORD,
            str(exc),
            413 if exc.too_large else 400,
            step=exc.step,
            detail=exc.detail,
            **at,
        ) from None
    headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"} if gzipped else None
    return Response(body, media_type="application/json", headers=headers)


#: The most games ``GET /api/rooms/{code}/games`` lists (the room's newest).
ROOM_GAMES_LISTED = 100


@router.get("/api/rooms/{code}/games")
async def room_games(
    request: Request, services: KeptDep, code: str, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """A room's kept games, for its players only (a seat token of the room, or the account
    of a seat): a spectator knows the code, and must not collect the ids of games kept for
    "anyone with the link". Unknown codes count against the address's guessing limit."""
    limiter = services.join_failures
    address = client_key(request)
    if limiter.blocked(address):
        raise ProtocolError(ErrorCode.RATE_LIMITED, "too many unknown codes: wait a minute")
    code = code.upper()
    stored = services.manager.storage  # the rooms' storage port
    room_id = await asyncio.to_thread(stored.id_of, code) if re.fullmatch(P.CODE_PATTERN, code) else None
    if room_id is None:
        limiter.charge(address)
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no room with the code {code[:12]}")
    token = bearer(authorization)
    digest = token_hash(token) if token is not None else None
    account_id = await asyncio.to_thread(_account_id(request)) if digest is None else None
    kept = await asyncio.to_thread(_room_games_for, services, room_id, digest, account_id)
    if kept is None:
        raise ProtocolError(
            ErrorCode.FORBIDDEN, "only the room's players may list its games: send your seat token"
        )
    return {
        "games": [
            {
                "id": g.id,
                "round": g.round,
                "finished_at": g.finished_at,
                "result": g.info.get("result"),
                "access": g.access,
            }
            for g in kept
        ]
    }


def _room_games_for(
    services: GameServices, room_id: int, digest: str | None, account_id: str | None
) -> list[Game] | None:
    """The room's newest kept games (oldest first) if the token or account holds or held a
    seat of the room (asked of the rooms' storage, then of the kept games); None if neither
    does."""
    if digest is None and account_id is None:
        return None
    store = services.games.store
    if not services.manager.storage.seated_in(room_id, digest, account_id) and not store.played_in_room(
        room_id, digest, account_id
    ):
        return None
    return store.newest_of_room(room_id, ROOM_GAMES_LISTED)


@router.post("/api/games/mine")
async def my_games(services: KeptDep, body: MineRequest) -> dict[str, Any]:
    store = services.games.store
    found = await asyncio.to_thread(store.mine, [token_hash(t) for t in body.tokens])
    return {
        "games": [
            {
                "id": g.id,
                "room": g.room_code,
                "round": g.round,
                "finished_at": g.finished_at,
                "seat": seat,
                "result": g.info.get("result"),
            }
            for g, seat in found
        ]
    }


@router.post("/api/games/{game_id}/review", status_code=202)
async def ask_review(
    request: Request, services: KeptDep, game_id: str, authorization: str | None = Header(None)
) -> dict[str, Any]:
    games = services.games
    game = await games.open(game_id, authorization, _account_id(request))
    await _no_review_in_rated_play(services.manager.storage, game)
    return await games.queue.request(game, client_key(request))


@router.get("/api/games/{game_id}/review")
async def get_review(
    request: Request, services: KeptDep, game_id: str, authorization: str | None = Header(None)
) -> Response:
    games = services.games
    game = await games.open(game_id, authorization, _account_id(request))
    await _no_review_in_rated_play(services.manager.storage, game)
    answer = await games.queue.status(game.id)
    if answer["review"] is not None:
        answer["review"] = await asyncio.to_thread(review_with_labels, answer["review"], game)
    return Response(json.dumps(answer), media_type="application/json")


async def _no_review_in_rated_play(rooms_stored: RoomStorage, game: Game) -> None:
    """No review of a rated room's round while that room still plays (the next round of a
    match, a rematch): the expert's reading of one round would help in the next. Asked of
    the rooms' storage, so that it holds whichever process runs the room."""
    if await asyncio.to_thread(rooms_stored.rated_in_play, game.room_code):
        raise GameError(
            ErrorCode.FORBIDDEN,
            "this rated room is still in play: its rounds are reviewed once it is over",
            room=game.room_code,
            rated="no_review",
        )


def review_with_labels(review: dict[str, Any], game: Game) -> dict[str, Any]:
    """The stored review with each decision's words (``chosen_label``, ``best_label``)."""
    from nomercy.record import GameRecord

    return label_review(review, GameRecord.from_dict(game.record))
