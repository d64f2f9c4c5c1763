"""Accounts: the optional identity of a player who signs in, and their sessions.

A guest plays with seat tokens alone, as always; an account adds a name that is theirs on
every device (its passkeys live in ``nomercy_passkeys``) and links the seats it takes to
it, so its games, ratings and daily results follow it. Sessions are random tokens in a
cookie; only their SHA-256 is stored (a leaked database signs nobody in).

This module is the store; the routes that sign up and in are :mod:`nomercy.server.players.auth`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, cast

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from nomercy.server.base.names import name_key
from nomercy.server.base.services import installed
from nomercy.server.base.tables import Kept, chat, game_seats, games, metadata, seats

if TYPE_CHECKING:
    from fastapi import Request

#: The cookie that carries a session over plain http (a LAN, development on localhost).
SESSION_COOKIE = "nomercy_session"
#: The cookie that carries a session over https: the ``__Host-`` prefix makes a browser
#: keep it only when it is ``Secure``, for ``Path=/`` and with no ``Domain``, so neither a
#: sibling subdomain nor a page served over plain http can set or replace it.
SECURE_SESSION_COOKIE = "__Host-nomercy_session"
#: How long a session lasts after its sign-in (seconds): then the player signs in again.
SESSION_SECONDS = 30 * 24 * 3600
#: How recent a passkey confirmation must be for a sensitive change (adding or removing a
#: passkey, ending sessions, deleting the account): a stale session alone cannot make one.
CONFIRM_SECONDS = 300.0
#: A session's ``last_seen_at`` is written at most this often (a request reads it anyway).
SEEN_EVERY = 300.0

accounts = Table(
    "nomercy_accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    #: The name as its owner spelled it, and its key (:func:`name_key`): two names a person
    #: could not tell apart are one name.
    Column("name", String(24), nullable=False),
    Column("name_key", String(96), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    #: WebAuthn's user handle for this account (random, never the name).
    Column("user_handle", LargeBinary(64), nullable=False, unique=True),
)

passkeys = Table(
    "nomercy_passkeys",
    metadata,
    #: The credential id, base64url.
    Column("id", String(512), primary_key=True),
    Column("account_id", String(32), ForeignKey("nomercy_accounts.id"), nullable=False, index=True),
    Column("public_key", LargeBinary, nullable=False),
    Column("sign_count", Integer, nullable=False),
    #: JSON list of the authenticator's transports (``usb``, ``internal``...), or NULL.
    Column("transports", Text, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("last_used_at", Float, nullable=True),
    #: The name its owner gave it (a nickname's bounds), so that two passkeys can be told
    #: apart on the account page; NULL before 0010 or until named.
    Column("name", String(24), nullable=True),
)

sessions = Table(
    "nomercy_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", String(32), ForeignKey("nomercy_accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    #: The passkey that opened it (removing that passkey ends it); NULL before 0009.
    Column("credential_id", String(512), nullable=True),
    Column("last_seen_at", Float, nullable=True),
    #: When its owner last answered a passkey in it (sign-in, or a confirmation).
    Column("confirmed_at", Float, nullable=True),
)


#: A WebAuthn ceremony under way: its challenge stays on the server (in the database, so
#: any process behind the proxy can finish it) and is used once.
ceremonies = Table(
    "nomercy_ceremonies",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    #: ``signup``, ``signin`` or ``add`` (a passkey for the signed-in account).
    Column("purpose", String(8), nullable=False),
    Column("challenge", LargeBinary(64), nullable=False),
    #: signup: the chosen name and the new account's user handle; add: the account.
    Column("name", String(24), nullable=True),
    Column("user_handle", LargeBinary(64), nullable=True),
    Column("account_id", String(32), nullable=True),
    Column("expires_at", Float, nullable=False),
)


#: How long a sign-up or sign-in may take between its two requests.
CEREMONY_SECONDS = 300.0
#: What a deleted account's seats in kept games are called instead (see ``delete``).
FORMER_PLAYER = "Player {n}"


class LastPasskey(Exception):
    """The account's only passkey: removing it would lock the account for good."""


class PasskeyTaken(Exception):
    """That credential id is already registered (to this account or another)."""


@dataclass(frozen=True)
class Session:
    """An open session as its owner sees it (never its token or digest)."""

    #: A public handle (from the digest, one way): what the account page ends it by.
    id: str
    account_id: str
    created_at: float
    expires_at: float
    credential_id: str | None
    last_seen_at: float | None
    confirmed_at: float | None

    def fresh(self, now: float) -> bool:
        """Did its owner confirm with a passkey in the last :data:`CONFIRM_SECONDS`?"""
        return self.confirmed_at is not None and now - self.confirmed_at <= CONFIRM_SECONDS


@dataclass(frozen=True)
class Passkey:
    id: str
    public_key: bytes
    sign_count: int
    transports: list[str] | None
    created_at: float
    last_used_at: float | None = None
    name: str | None = None


@dataclass(frozen=True)
class Ceremony:
    purpose: str
    challenge: bytes
    name: str | None = None
    user_handle: bytes | None = None
    account_id: str | None = None


class NameTaken(Exception):
    """Another account has this name (or one a person could not tell from it)."""


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    created_at: float


@dataclass(frozen=True)
class AccountSummary:
    """An account as ``nomercy accounts list`` shows it."""

    account: Account
    passkeys: int
    last_sign_in: float | None
    sessions: int
    games: int


def _bytes(value: Any) -> bytes | None:
    return bytes(value) if value is not None else None


def _passkey(row: Any) -> Passkey:
    transports = json.loads(row.transports) if row.transports else None
    return Passkey(
        row.id, bytes(row.public_key), row.sign_count, transports, row.created_at, row.last_used_at, row.name
    )


def _passkey_row(account_id: str, p: Passkey) -> dict[str, Any]:
    return {
        "id": p.id,
        "account_id": account_id,
        "public_key": p.public_key,
        "sign_count": p.sign_count,
        "transports": json.dumps(p.transports) if p.transports else None,
        "created_at": p.created_at,
        "last_used_at": p.last_used_at,
        "name": p.name,
    }


def _claim(conn: Connection, account_id: str, token_hashes: Sequence[str]) -> int:
    if not token_hashes:
        return 0
    result = conn.execute(
        update(game_seats)
        .where(game_seats.c.token_hash.in_(list(token_hashes)), game_seats.c.account_id.is_(None))
        .values(account_id=account_id)
    )
    return int(result.rowcount or 0)


def _anonymise(conn: Connection, account_id: str) -> None:
    """The deleted account's name leaves the kept games it played (their records keep only
    seats and moves): each of its seats is called "Player N" there."""
    played = conn.execute(
        select(games.c.id, games.c.info, game_seats.c.seat)
        .join(game_seats, game_seats.c.game_id == games.c.id)
        .where(game_seats.c.account_id == account_id)
    ).all()
    for row in played:
        info = json.loads(row.info)
        for player in info.get("players", []):
            if player.get("seat") == row.seat:
                player["name"] = FORMER_PLAYER.format(n=row.seat + 1)
        conn.execute(update(games).where(games.c.id == row.id).values(info=json.dumps(info)))
    # The rooms it sits in: the stored name goes, and so does the name on its chat lines.
    held = conn.execute(select(seats.c.room_id, seats.c.seat).where(seats.c.account_id == account_id)).all()
    _chat_nameless(conn, [(int(r.room_id), int(r.seat)) for r in held])
    conn.execute(update(seats).where(seats.c.account_id == account_id).values(nickname=None))


def _chat_nameless(conn: Connection, held: Sequence[tuple[int, int]]) -> None:
    """The stored chat lines of these ``(room id, seat)`` are signed "Player N"."""
    for room_id, seat in held:
        conn.execute(
            update(chat)
            .where(chat.c.room_id == room_id, chat.c.seat == seat)
            .values(nickname=FORMER_PLAYER.format(n=seat + 1))
        )


def vetted(conn: Connection, kept: Kept) -> Kept:
    """A ``GameStore.vet`` hook: a round kept after one of its players deleted their account
    (its room was in play meanwhile, in this process or another) is kept as the deletion
    leaves the games kept before it: that seat named "Player N" and linked to no account,
    so no rating or daily result is written for it. The accounts' rows are locked (shared)
    until the keep commits: a deletion under way either finished before (its account is
    gone here) or waits, and then finds this game to anonymise."""
    ids = sorted(set(kept.accounts.values()))
    if not ids:
        return kept
    query = select(accounts.c.id).where(accounts.c.id.in_(ids))
    if conn.dialect.name == "postgresql":
        query = query.with_for_update(read=True)
    alive = set(conn.execute(query).scalars())
    gone = {seat for seat, account_id in kept.accounts.items() if account_id not in alive}
    if not gone:
        return kept
    info = json.loads(json.dumps(kept.info))
    for player in info.get("players", []):
        if player.get("seat") in gone:
            player["name"] = FORMER_PLAYER.format(n=int(player["seat"]) + 1)
    left = {seat: a for seat, a in kept.accounts.items() if seat not in gone}
    return dataclasses.replace(kept, info=info, accounts=left)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _handle(id_hash: str) -> str:
    """A session's public handle: from its digest, so it finds the session but signs nobody in."""
    return hashlib.sha256(f"session:{id_hash}".encode()).hexdigest()[:24]


def handle_of(token: str) -> str:
    """The public handle of the session this token opens."""
    return _handle(_digest(token))


def _session(row: Any) -> Session:
    return Session(
        _handle(row.id_hash),
        row.account_id,
        row.created_at,
        row.expires_at,
        row.credential_id,
        row.last_seen_at,
        row.confirmed_at,
    )


class AccountsHolder(Protocol):
    """What reading a request's account needs of the services (a part of
    ``players.deps.PlayerServices``, declared here so that this module imports no other)."""

    @property
    def accounts(self) -> AccountStore: ...


class AccountStore:
    """Reads and writes of accounts and sessions (each call commits)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: Called inside the transaction that deletes an account, with its id: every part
        #: that keeps something of a player (ratings, daily results) removes it there, so a
        #: deletion is whole or not at all.
        self.on_delete: list[Callable[[Connection, str], None]] = []

    def create(
        self,
        name: str,
        now: float | None = None,
        user_handle: bytes | None = None,
        passkey: Passkey | None = None,
        claim: Sequence[str] = (),
    ) -> Account:
        """A new account named ``name`` with its first passkey, and the guest games whose seat
        token digests are in ``claim`` linked to it, in one transaction; :class:`NameTaken`
        if the name is someone's (or looks like it)."""
        account = Account(secrets.token_urlsafe(16), name, now if now is not None else time.time())
        if passkey is not None and self.passkey(passkey.id) is not None:
            raise PasskeyTaken(passkey.id)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(accounts).values(
                        id=account.id,
                        name=name,
                        name_key=name_key(name),
                        created_at=account.created_at,
                        user_handle=user_handle or secrets.token_bytes(32),
                    )
                )
                if passkey is not None:
                    conn.execute(insert(passkeys).values(_passkey_row(account.id, passkey)))
                _claim(conn, account.id, claim)
        except IntegrityError:
            if passkey is not None and self.passkey(passkey.id) is not None:
                raise PasskeyTaken(passkey.id) from None  # registered by a request beside this one
            raise NameTaken(name) from None
        return account

    def name_free(self, name: str) -> bool:
        with self.engine.connect() as conn:
            return (
                conn.execute(select(accounts.c.id).where(accounts.c.name_key == name_key(name))).first()
                is None
            )

    # -- passkeys ------------------------------------------------------------------------

    def passkey(self, credential_id: str) -> Passkey | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(passkeys).where(passkeys.c.id == credential_id)).first()
        return _passkey(row) if row is not None else None

    def passkeys_of(self, account_id: str) -> list[Passkey]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(passkeys).where(passkeys.c.account_id == account_id).order_by(passkeys.c.created_at)
            ).all()
        return [_passkey(r) for r in rows]

    def owner_of(self, credential_id: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(accounts)
                .join(passkeys, passkeys.c.account_id == accounts.c.id)
                .where(passkeys.c.id == credential_id)
            ).first()
        return Account(row.id, row.name, row.created_at) if row is not None else None

    def user_handle(self, account_id: str) -> bytes:
        with self.engine.connect() as conn:
            return bytes(
                conn.execute(select(accounts.c.user_handle).where(accounts.c.id == account_id)).scalar_one()
            )

    def add_passkey(self, account_id: str, passkey: Passkey) -> None:
        """:class:`PasskeyTaken` if its credential id is registered already (to any account)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(passkeys).values(_passkey_row(account_id, passkey)))
        except IntegrityError:
            raise PasskeyTaken(passkey.id) from None

    def rename_passkey(self, account_id: str, credential_id: str, name: str | None) -> bool:
        """Give one of the account's passkeys a name (None: none); False if it has no such one."""
        with self.engine.begin() as conn:
            done = conn.execute(
                update(passkeys)
                .where(passkeys.c.account_id == account_id, passkeys.c.id == credential_id)
                .values(name=name)
            )
        return bool(done.rowcount)

    def passkey_used(self, credential_id: str, sign_count: int, now: float | None = None) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(passkeys)
                .where(passkeys.c.id == credential_id)
                .values(sign_count=sign_count, last_used_at=now if now is not None else time.time())
            )

    def remove_passkey(self, account_id: str, credential_id: str) -> bool:
        """Remove one of the account's passkeys and end the sessions it opened (a lost
        device's session goes with its passkey); :class:`LastPasskey` for its only one (the
        account could never be signed in to again: deleting it is the way)."""
        with self.engine.begin() as conn:
            ids = [
                r.id
                for r in conn.execute(select(passkeys.c.id).where(passkeys.c.account_id == account_id)).all()
            ]
            if credential_id not in ids:
                return False
            if len(ids) == 1:
                raise LastPasskey(credential_id)
            conn.execute(delete(passkeys).where(passkeys.c.id == credential_id))
            conn.execute(
                delete(sessions).where(
                    sessions.c.account_id == account_id, sessions.c.credential_id == credential_id
                )
            )
        return True

    # -- ceremonies ----------------------------------------------------------------------

    def start_ceremony(self, ceremony: Ceremony, now: float | None = None) -> str:
        """Keep a ceremony's challenge (and prune the expired); returns its id for the client."""
        at = now if now is not None else time.time()
        ceremony_id = secrets.token_urlsafe(24)
        with self.engine.begin() as conn:
            conn.execute(delete(ceremonies).where(ceremonies.c.expires_at < at))
            conn.execute(
                insert(ceremonies).values(
                    id_hash=_digest(ceremony_id),
                    purpose=ceremony.purpose,
                    challenge=ceremony.challenge,
                    name=ceremony.name,
                    user_handle=ceremony.user_handle,
                    account_id=ceremony.account_id,
                    expires_at=at + CEREMONY_SECONDS,
                )
            )
        return ceremony_id

    def take_ceremony(self, ceremony_id: str, purpose: str, now: float | None = None) -> Ceremony | None:
        """The ceremony, used up (a challenge answers once); None if unknown or expired."""
        at = now if now is not None else time.time()
        with self.engine.begin() as conn:
            row = conn.execute(
                select(ceremonies).where(
                    ceremonies.c.id_hash == _digest(ceremony_id), ceremonies.c.purpose == purpose
                )
            ).first()
            if row is None:
                return None
            conn.execute(delete(ceremonies).where(ceremonies.c.id_hash == row.id_hash))
        if row.expires_at < at:
            return None
        return Ceremony(row.purpose, bytes(row.challenge), row.name, _bytes(row.user_handle), row.account_id)

    # -- games ---------------------------------------------------------------------------

    def claim(self, account_id: str, token_hashes: Sequence[str]) -> int:
        """Link the kept games played with these seat tokens (a guest's, now signed in) to the
        account; a game another account already holds stays theirs. Returns how many seats."""
        with self.engine.begin() as conn:
            return _claim(conn, account_id, token_hashes)

    def get(self, account_id: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.id == account_id)).first()
        return Account(row.id, row.name, row.created_at) if row is not None else None

    def by_name(self, name: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.name_key == name_key(name))).first()
        return Account(row.id, row.name, row.created_at) if row is not None else None

    def open_session(
        self, account_id: str, now: float | None = None, credential_id: str | None = None
    ) -> str:
        """A new session of the account, opened by the passkey ``credential_id`` (which
        confirms it now); returns its token (the cookie's value). Expired sessions of every
        account are pruned here."""
        token = secrets.token_urlsafe(32)
        at = now if now is not None else time.time()
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.expires_at <= at))
            conn.execute(
                insert(sessions).values(
                    id_hash=_digest(token),
                    account_id=account_id,
                    created_at=at,
                    expires_at=at + SESSION_SECONDS,
                    credential_id=credential_id,
                    last_seen_at=at,
                    confirmed_at=at if credential_id is not None else None,
                )
            )
        return token

    def session(self, token: str, now: float | None = None) -> Session | None:
        """The open session of this token (None if unknown or expired); notes that it was
        seen now (written at most every :data:`SEEN_EVERY` seconds)."""
        at = now if now is not None else time.time()
        digest = _digest(token)
        with self.engine.connect() as conn:
            row = conn.execute(
                select(sessions).where(sessions.c.id_hash == digest, sessions.c.expires_at > at)
            ).first()
        if row is None:
            return None
        return replace(_session(row), last_seen_at=self._seen(digest, row.last_seen_at, at))

    def _seen(self, digest: str, last_seen_at: float | None, at: float) -> float:
        """Note that the session was seen at ``at`` (unless it was lately); when it was."""
        if last_seen_at is not None and at - last_seen_at < SEEN_EVERY:
            return last_seen_at
        with self.engine.begin() as conn:
            conn.execute(update(sessions).where(sessions.c.id_hash == digest).values(last_seen_at=at))
        return at

    def session_account(self, token: str, now: float | None = None) -> Account | None:
        """The account signed in by the session token, if it is open and not expired."""
        at = now if now is not None else time.time()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(accounts, sessions.c.last_seen_at)
                .join(sessions, sessions.c.account_id == accounts.c.id)
                .where(sessions.c.id_hash == _digest(token), sessions.c.expires_at > at)
            ).first()
        if row is None:
            return None
        self._seen(_digest(token), row.last_seen_at, at)
        return Account(row.id, row.name, row.created_at)

    def confirm_session(self, token: str, now: float | None = None) -> None:
        """Its owner just answered a passkey in this session: sensitive changes may follow."""
        at = now if now is not None else time.time()
        with self.engine.begin() as conn:
            conn.execute(update(sessions).where(sessions.c.id_hash == _digest(token)).values(confirmed_at=at))

    def sessions_of(self, account_id: str, now: float | None = None) -> list[Session]:
        """The account's open sessions, newest first (the expired are pruned)."""
        at = now if now is not None else time.time()
        with self.engine.begin() as conn:
            conn.execute(
                delete(sessions).where(sessions.c.account_id == account_id, sessions.c.expires_at <= at)
            )
            rows = conn.execute(
                select(sessions)
                .where(sessions.c.account_id == account_id)
                .order_by(sessions.c.created_at.desc())
            ).all()
        return [_session(r) for r in rows]

    def end_session(self, account_id: str, handle: str) -> bool:
        """End one of the account's sessions by its public handle; False if it has none such."""
        with self.engine.begin() as conn:
            digests = conn.execute(select(sessions.c.id_hash).where(sessions.c.account_id == account_id))
            found = [d for (d,) in digests if _handle(d) == handle]
            for digest in found:
                conn.execute(delete(sessions).where(sessions.c.id_hash == digest))
        return bool(found)

    def end_sessions(self, account_id: str) -> int:
        """Sign the account out everywhere: every session ends. Returns how many."""
        with self.engine.begin() as conn:
            result = conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
        return int(result.rowcount or 0)

    def delete(self, account_id: str) -> bool:
        """Delete the account, its passkeys and sessions and what the parts keep of it; the
        seats and games it played stay, no longer linked to it. False if there was none."""
        with self.engine.begin() as conn:
            # Locked first: a round being kept with this account (``vetted``) commits before
            # this deletion reads the kept games, or waits for it and keeps it nameless.
            mine = select(accounts.c.id).where(accounts.c.id == account_id).with_for_update()
            if conn.execute(mine).first() is None:
                return False
            for hook in self.on_delete:
                hook(conn, account_id)
            _anonymise(conn, account_id)
            conn.execute(
                update(game_seats).where(game_seats.c.account_id == account_id).values(account_id=None)
            )
            conn.execute(update(seats).where(seats.c.account_id == account_id).values(account_id=None))
            conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
            conn.execute(delete(ceremonies).where(ceremonies.c.account_id == account_id))
            conn.execute(delete(passkeys).where(passkeys.c.account_id == account_id))
            conn.execute(delete(accounts).where(accounts.c.id == account_id))
        return True

    def deleted_of(self, seated: dict[str, list[tuple[int, int]]]) -> set[str]:
        """Of the accounts seated in rooms in play here (id -> its ``(room id, seat)``),
        those deleted (by another process, or ``nomercy accounts remove``). For each, what
        the deletion does is done again for what was written since by a process that still
        had the name (a chat line, a kept round): idempotent, in one transaction."""
        wanted = sorted(seated)
        if not wanted:
            return set()
        with self.engine.begin() as conn:
            alive = set(conn.execute(select(accounts.c.id).where(accounts.c.id.in_(wanted))).scalars())
            gone = {a for a in wanted if a not in alive}
            for account_id in sorted(gone):
                for hook in self.on_delete:
                    hook(conn, account_id)
                _anonymise(conn, account_id)
                _chat_nameless(conn, seated[account_id])
                conn.execute(
                    update(game_seats).where(game_seats.c.account_id == account_id).values(account_id=None)
                )
                conn.execute(update(seats).where(seats.c.account_id == account_id).values(account_id=None))
        return gone

    def summaries(self) -> list[AccountSummary]:
        """Every account, oldest first, with what an operator asks about it (``nomercy
        accounts list``): its passkeys, last sign-in, open sessions and kept games."""
        at = time.time()
        with self.engine.connect() as conn:
            rows = conn.execute(select(accounts).order_by(accounts.c.created_at)).all()
            keys: dict[str, list[Any]] = {}
            for k in conn.execute(select(passkeys.c.account_id, passkeys.c.last_used_at)).all():
                keys.setdefault(k.account_id, []).append(k.last_used_at)
            open_: dict[str, int] = {}
            for r in conn.execute(select(sessions.c.account_id).where(sessions.c.expires_at > at)).all():
                open_[r.account_id] = open_.get(r.account_id, 0) + 1
            played: dict[str, int] = {}
            for r in conn.execute(
                select(game_seats.c.account_id).where(game_seats.c.account_id.is_not(None))
            ):
                played[r.account_id] = played.get(r.account_id, 0) + 1
        out = []
        for row in rows:
            used = [u for u in keys.get(row.id, []) if u is not None]
            out.append(
                AccountSummary(
                    Account(row.id, row.name, row.created_at),
                    passkeys=len(keys.get(row.id, [])),
                    last_sign_in=max(used) if used else None,
                    sessions=open_.get(row.id, 0),
                    games=played.get(row.id, 0),
                )
            )
        return out

    def close_session(self, token: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.id_hash == _digest(token)))


def secure(request: Request) -> bool:
    """Did the request come over TLS (directly, or through a trusted proxy's header)?"""
    return request.url.scheme in ("https", "wss")


def session_token(request: Request) -> str | None:
    """The session token the request carries: over https the ``__Host-`` cookie, else the
    plain one (plain http, where a browser may not keep a ``Secure`` cookie). Over https
    the plain cookie of a browser signed in before the ``__Host-`` cookie (see
    :func:`legacy_token`) is read too, until the client's next ``GET /api/account`` moves it."""
    if secure(request):
        token = request.cookies.get(SECURE_SESSION_COOKIE) or request.cookies.get(SESSION_COOKIE)
    else:
        token = request.cookies.get(SESSION_COOKIE)
    return token if token and len(token) <= 128 else None


def legacy_token(request: Request) -> str | None:
    """Over https, a plain ``nomercy_session`` cookie and no ``__Host-`` one: a browser
    signed in by a release before the ``__Host-`` cookie."""
    if not secure(request) or request.cookies.get(SECURE_SESSION_COOKIE):
        return None
    token = request.cookies.get(SESSION_COOKIE)
    return token if token and len(token) <= 128 else None


def account_of(request: Request) -> Account | None:
    """The account the request's session cookie signs in, or None (a guest)."""
    token = session_token(request)
    started = cast("AccountsHolder | None", installed(request.app))  # None: before start-up
    store = started.accounts if started is not None else None
    if not token or store is None:
        return None
    if legacy_token(request) == token:
        # Over https a plain cookie only counts for a session opened before 0009 (no
        # passkey recorded): one a sibling subdomain or a plain http page planted for a
        # session of this release signs nobody in.
        session = store.session(token)
        if session is None or session.credential_id is not None:
            return None
    return store.session_account(token)
