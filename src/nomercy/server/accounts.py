"""Accounts: the optional identity of a player who signs in, and their sessions.

A guest plays with seat tokens alone, as always; an account adds a name that is theirs on
every device (its passkeys live in ``nomercy_passkeys``) and links the seats it takes to
it, so its games, ratings and daily results follow it. Sessions are random tokens in a
cookie; only their SHA-256 is stored (a leaked database signs nobody in).

This module is the store; the routes that sign up and in are :mod:`nomercy.server.auth`.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

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

from nomercy.server.games import game_seats
from nomercy.server.names import name_key
from nomercy.server.storage import metadata, seats

if TYPE_CHECKING:
    from fastapi import Request

#: The cookie that carries a session.
SESSION_COOKIE = "nomercy_session"
#: How long a session lasts without use (seconds).
SESSION_SECONDS = 30 * 24 * 3600

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
)

sessions = Table(
    "nomercy_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", String(32), ForeignKey("nomercy_accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)


class NameTaken(Exception):
    """Another account has this name (or one a person could not tell from it)."""


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    created_at: float


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class AccountStore:
    """Reads and writes of accounts and sessions (each call commits)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: Called inside the transaction that deletes an account, with its id: every part
        #: that keeps something of a player (ratings, daily results) removes it there, so a
        #: deletion is whole or not at all.
        self.on_delete: list[Callable[[Connection, str], None]] = []

    def create(self, name: str, now: float | None = None) -> Account:
        """A new account named ``name``; :class:`NameTaken` if the name is someone's."""
        account = Account(secrets.token_urlsafe(16), name, now if now is not None else time.time())
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(accounts).values(
                        id=account.id,
                        name=name,
                        name_key=name_key(name),
                        created_at=account.created_at,
                        user_handle=secrets.token_bytes(32),
                    )
                )
        except IntegrityError:
            raise NameTaken(name) from None
        return account

    def get(self, account_id: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.id == account_id)).first()
        return Account(row.id, row.name, row.created_at) if row is not None else None

    def by_name(self, name: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.name_key == name_key(name))).first()
        return Account(row.id, row.name, row.created_at) if row is not None else None

    def open_session(self, account_id: str, now: float | None = None) -> str:
        """A new session of the account; returns its token (the cookie's value)."""
        token = secrets.token_urlsafe(32)
        at = now if now is not None else time.time()
        with self.engine.begin() as conn:
            conn.execute(
                insert(sessions).values(
                    id_hash=_digest(token),
                    account_id=account_id,
                    created_at=at,
                    expires_at=at + SESSION_SECONDS,
                )
            )
        return token

    def session_account(self, token: str, now: float | None = None) -> Account | None:
        """The account signed in by the session token, if it is open and not expired."""
        at = now if now is not None else time.time()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(accounts)
                .join(sessions, sessions.c.account_id == accounts.c.id)
                .where(sessions.c.id_hash == _digest(token), sessions.c.expires_at > at)
            ).first()
        return Account(row.id, row.name, row.created_at) if row is not None else None

    def delete(self, account_id: str) -> bool:
        """Delete the account, its passkeys and sessions and what the parts keep of it; the
        seats and games it played stay, no longer linked to it. False if there was none."""
        with self.engine.begin() as conn:
            if conn.execute(select(accounts.c.id).where(accounts.c.id == account_id)).first() is None:
                return False
            for hook in self.on_delete:
                hook(conn, account_id)
            conn.execute(
                update(game_seats).where(game_seats.c.account_id == account_id).values(account_id=None)
            )
            conn.execute(update(seats).where(seats.c.account_id == account_id).values(account_id=None))
            conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
            conn.execute(delete(passkeys).where(passkeys.c.account_id == account_id))
            conn.execute(delete(accounts).where(accounts.c.id == account_id))
        return True

    def close_session(self, token: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.id_hash == _digest(token)))


def account_of(request: Request) -> Account | None:
    """The account the request's session cookie signs in, or None (a guest)."""
    token = request.cookies.get(SESSION_COOKIE)
    store: AccountStore | None = getattr(request.app.state, "accounts", None)
    if not token or store is None or len(token) > 128:
        return None
    return store.session_account(token)
