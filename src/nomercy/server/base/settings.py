"""The server's configuration, from the command line or ``NOMERCY_*`` environment variables.

The environment form exists so that a server started as a subprocess (tests, the load
benchmark, ``uvicorn --factory``) is configured without code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path


def default_database_url() -> str:
    """SQLite in the user's data directory (created on first use)."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("nomercy", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'rooms.sqlite3'}"


@dataclass(frozen=True)
class Settings:
    """Every knob of the server. Times are in seconds."""

    #: SQLAlchemy URL; None means SQLite under the user's data directory.
    database_url: str | None = None
    #: Extra origins allowed to open a WebSocket (the server's own origin always is).
    allowed_origins: tuple[str, ...] = ()
    #: Host names this server answers to (``Host`` header; ``*.example.org`` matches the
    #: subdomains, ``*`` anything). Empty: ``localhost`` and IP addresses only, which a DNS
    #: rebinding attack cannot use. A public server lists its name here.
    allowed_hosts: tuple[str, ...] = ()
    #: Proxies (addresses or networks, ``*`` for any) whose ``X-Forwarded-For`` /
    #: ``Forwarded`` headers name the real client. Empty: the headers are ignored.
    forwarded_allow_ips: tuple[str, ...] = ()
    #: Pause before a bot (or a stand-in for an absent human) moves, so people can follow.
    bot_delay: float = 0.9
    #: Pause before a bot catches a player who did not call Uno, giving humans a chance.
    reaction_delay: float = 1.5
    #: Seconds a disconnected human keeps the seat before a bot plays for them.
    grace_seconds: float = 45.0
    #: Pause between the rounds of a match.
    between_rounds: float = 8.0
    #: Largest turn timer a host may choose (0/None in a room turns it off).
    max_turn_seconds: int = 600
    #: A rated round waits this long after its deal for every person to connect, then is
    #: aborted unrated (``docs/ratings.md``, "Rated rounds as played").
    rated_connect_seconds: float = 60.0
    #: A rated round's turn timer running out this often in a row for one person: a stand-in
    #: plays their seat and the round is their forfeit.
    rated_timeouts: int = 3
    #: Rated games a player needs before the leaderboards list them (``docs/ratings.md``).
    leaderboard_min_games: int = 5
    #: The boards list a person whose last rated game is at most this many days old.
    leaderboard_active_days: int = 30
    #: Largest WebSocket message accepted from a client, in bytes.
    max_message_bytes: int = 4096
    #: Messages per second a connection may send (token bucket rate and burst).
    message_rate: float = 8.0
    message_burst: int = 30
    #: Chat lines and quick reactions per connection: rate per second and burst.
    chat_rate: float = 0.5
    chat_burst: int = 5
    #: Rooms one client address may create per minute (burst = the same number).
    rooms_per_minute: int = 10
    #: The passkeys' relying party (WebAuthn): a host name and the origin pages are served
    #: from. None: the request's own host and scheme (right unless a proxy rewrites them).
    rp_id: str | None = None
    public_origin: str | None = None
    #: Sign-ups and sign-ins one address may begin per minute.
    account_attempts_per_minute: int = 10
    #: Unknown join codes or bad seat tokens one address may try per minute.
    join_failures_per_minute: int = 20
    #: Most rooms in memory at once.
    max_rooms: int = 2000
    #: Open (unfinished) rooms one client address may have created at once.
    max_rooms_per_address: int = 20
    #: Rooms left alone this long are forgotten by memory (not by storage); also how far
    #: back a restart looks for rooms to rebuild.
    idle_room_seconds: float = 6 * 3600
    #: A lobby nobody is connected to closes for good after this long without a change.
    lobby_idle_seconds: float = 600.0
    #: A finished room is reclaimed (its connections closed) this long after its end.
    finished_room_seconds: float = 300.0
    #: How often the sweeper looks for rooms to expire or reclaim.
    sweep_seconds: float = 30.0
    #: Largest HTTP request body, counted as it arrives (chunked bodies too).
    max_body_bytes: int = 16_384
    #: Deepest nesting of arrays and objects in a JSON message or body.
    max_json_depth: int = 32
    #: Seconds a new WebSocket has to send ``hello`` before it is closed.
    hello_timeout: float = 5.0
    #: WebSockets one address may hold open that are not seated players (spectators and
    #: connections that have not said hello yet). Seated players never count.
    max_sockets_per_address: int = 64
    #: Connections one seat may hold at once: a new one closes the oldest (so a reconnect
    #: is never refused).
    max_connections_per_seat: int = 4
    #: Spectators one room admits.
    max_spectators: int = 50
    #: Room updates (who is connected, how many watch) are sent at most this often.
    room_update_delay: float = 0.25
    #: After a failed storage write a room waits this long, doubled on every further
    #: failure up to ``storage_retry_max``, and its players are told the game is paused.
    #: The cap is low on purpose: a room resumes within it once the database answers (one
    #: small write per paused room and cap is cheap even while it is down).
    storage_retry_base: float = 0.5
    storage_retry_max: float = 2.0
    #: Tests only: let room creation fix the seed. Off by default: a known seed reveals
    #: every hand and the whole draw pile.
    test_options: bool = False
    #: Tests only (with ``test_options``): the UTC day the daily deal takes as today.
    daily_day: str | None = None
    #: Messages kept per room for the game log a (re)connecting client receives.
    log_length: int = 200
    #: Several processes on PostgreSQL: seconds a room's lease lasts without renewal
    #: (a process that stops renewing loses its rooms after this long; one that dies
    #: loses them at once).
    lease_seconds: float = 10.0
    #: Days a kept game (every finished round, its record and review) is kept; 0: forever.
    #: The sweep prunes older ones; so does ``nomercy db prune-games``.
    keep_games_days: float = 90.0
    #: Largest record file ``POST /api/records/replay`` accepts, in bytes.
    max_record_bytes: int = 262_144
    #: Uploaded records replayed per minute for one client address (``rate_limited`` beyond).
    replays_per_minute: int = 12
    #: Uploaded records replayed at once (each in a worker process), in all and for one address;
    #: beyond, an upload is refused with ``busy`` (429 and ``Retry-After``), never queued.
    replays_at_once: int = 2
    replays_per_address: int = 1
    #: The most work one replay of an uploaded record may cost, in moves times seats (each
    #: move's frame shows every seat): 20,000 is 2,000 moves at ten seats or 5,000 at four;
    #: a No Mercy round at ten seats takes about 300 moves.
    replay_seat_steps: int = 20_000
    #: Worker processes that compute reviews (the coach has one more of its own).
    review_workers: int = 1
    #: Reviews waiting or running at once; beyond, a request is refused with ``busy``.
    review_queue: int = 8
    #: Reviews one client address, and one room, may have waiting or running at once.
    reviews_per_address: int = 2
    reviews_per_room: int = 2
    #: Hints being worked out at once, in the process and for one client address; and hints
    #: one address may ask per minute. Beyond, a hint is refused with ``busy``.
    hint_queue: int = 4
    hints_per_address: int = 1
    hints_per_minute: int = 30
    #: Sampled worlds per decision of a review, and of a hint (``nomercy.bots.review``).
    review_worlds: int = 200
    hint_worlds: int = 200
    #: Reviews and hints use the native engine when the ``fast`` extra is installed.
    review_native: bool = True
    #: Review workers run in Linux's idle scheduling class (only on CPU time the rooms
    #: leave); off, or where that is missing, at the ``nice`` level below (the coach too).
    review_idle: bool = True
    review_niceness: int = 19
    #: The share of one core a review worker may use (it rests in between): the idle class
    #: alone did not keep a busy 2-core machine's rooms fast (docs/deploy.md, "Kept games").
    review_cpu_share: float = 0.25
    #: Log lines: ``text`` or ``json`` (one object per line, with room and seat).
    log_format: str = "text"
    #: Level of the server's own log lines (``debug``, ``info``, ``warning``...).
    log_level: str = "info"

    def resolved_database_url(self) -> str:
        return self.database_url or default_database_url()

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``NOMERCY_<FIELD>`` variables, then keyword overrides."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            key = "NOMERCY_" + f.name.upper()
            if key not in env:
                continue
            raw = env[key]
            kind = str(f.type)
            if kind == "bool":
                values[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
            elif kind == "int":
                values[f.name] = int(raw)
            elif kind == "float":
                values[f.name] = float(raw)
            elif kind.startswith("tuple"):
                values[f.name] = tuple(x.strip() for x in raw.split(",") if x.strip())
            else:
                values[f.name] = raw or None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)  # type: ignore[arg-type]
