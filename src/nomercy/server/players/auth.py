"""Signing up and in with passkeys (WebAuthn), sessions in cookies, and the account's routes.

Each ceremony has two requests: ``.../options`` hands the browser a challenge (kept in the
database: any process behind the proxy may answer the second request, and a challenge
answers once), ``.../verify`` checks the authenticator's answer with the ``webauthn``
library. Sign-in asks for no name (discoverable passkeys): nothing in it tells whether a
name exists. The relying party is this server's own host name and origin (overridable for
a site served under another name: ``NOMERCY_RP_ID``, ``NOMERCY_PUBLIC_ORIGIN``).

Cross-site requests: :func:`cross_site` refuses a state-changing request that carries the
session cookie (and every request to the account's routes) when the browser says it came
from another site; the cookie is ``SameSite=Lax`` as a second wall.

A session alone is not enough for what could take an account over: adding or removing a
passkey, ending sessions and deleting the account need a passkey confirmation made in this
session within :data:`CONFIRM_SECONDS` (``/api/account/confirm/...``; a sign-in counts),
with user verification, so a lost device's open session cannot lock its owner out.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from nomercy.server.base import protocol as P
from nomercy.server.base.addresses import origin_allowed
from nomercy.server.base.names import clean_nickname, name_key
from nomercy.server.base.protocol import ErrorCode, ProtocolError
from nomercy.server.base.requests import client_key
from nomercy.server.base.settings import Settings
from nomercy.server.base.tables import token_hash
from nomercy.server.players.accounts import (
    CONFIRM_SECONDS,
    SECURE_SESSION_COOKIE,
    SESSION_COOKIE,
    SESSION_SECONDS,
    Account,
    AccountStore,
    Ceremony,
    LastPasskey,
    NameTaken,
    Passkey,
    PasskeyTaken,
    account_of,
    handle_of,
    legacy_token,
    secure,
    session_token,
)
from nomercy.server.players.deps import PlayersDep, PlayerServices, players, players_if_started

router = APIRouter()

#: The name people see in their passkey manager.
RP_NAME = "nomercy"
#: Longest account name (as a nickname; a name is a nickname that is kept).
NAME_MAX = 24
#: A guest's seat tokens sent to claim their games, at most.
CLAIM_MAX = 200
_UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


class SignupOptions(P._Request):
    name: Annotated[str, Field(max_length=64)]


class Answer(P._Request):
    """The browser's answer to a ceremony: the ceremony's id and the credential as JSON."""

    ceremony: Annotated[str, Field(max_length=64)]
    credential: dict[str, Any]


class SignupAnswer(Answer):
    #: Seat tokens this browser holds: the guest's games to keep under the new account.
    tokens: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=CLAIM_MAX)] = []


class Claim(P._Request):
    tokens: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=CLAIM_MAX)]


class PasskeyAnswer(Answer):
    #: The name its owner gives the new passkey (a nickname's bounds), or none.
    name: Annotated[str, Field(max_length=64)] | None = None


class RemovePasskey(P._Request):
    id: Annotated[str, Field(max_length=512)]


class RenamePasskey(P._Request):
    id: Annotated[str, Field(max_length=512)]
    #: Its new name; empty takes the name away (the page then numbers it).
    name: Annotated[str, Field(max_length=64)]


class EndSession(P._Request):
    #: The session's public handle, as the account page lists it.
    id: Annotated[str, Field(max_length=64)]


class DeleteAccount(P._Request):
    #: The account's name typed again: a deletion is never one stray click.
    name: Annotated[str, Field(max_length=64)]


# -- the relying party -----------------------------------------------------------------


def rp_id(request: Request, settings: Settings) -> str:
    """The WebAuthn relying party: this server's host name (the front door checked it)."""
    configured: str | None = settings.rp_id
    if configured:
        return configured
    host = request.headers.get("host") or request.url.netloc
    return host.rsplit(":", 1)[0] if not host.endswith("]") else host


def origin(request: Request, settings: Settings) -> str:
    configured: str | None = settings.public_origin
    if configured:
        return configured.rstrip("/")
    host = request.headers.get("host") or request.url.netloc
    return f"{request.url.scheme}://{host}"


def cross_site(request: Request) -> bool:
    """Did a page of another site send this request? ``Origin`` (every browser sends it on a
    POST) must be this server's own or an allowed origin; without it, ``Sec-Fetch-Site`` must
    not say cross-site. A client that is no browser sends neither and has no victim's cookie."""
    p = players(request)  # a middleware's question, asked before any route
    settings = p.settings
    sent = request.headers.get("origin")
    if sent is not None:
        if sent == origin(request, settings):
            return False
        return not origin_allowed(
            sent,
            request.headers.get("host"),
            p.hosts,
            settings.allowed_origins,
            scheme=request.url.scheme,
        )
    return request.headers.get("sec-fetch-site") in ("cross-site", "same-site")


def needs_origin_check(request: Request) -> bool:
    if request.method not in _UNSAFE:
        return False
    cookies = request.cookies
    return request.url.path.startswith("/api/account/") or (
        SESSION_COOKIE in cookies or SECURE_SESSION_COOKIE in cookies
    )


# -- helpers ---------------------------------------------------------------------------


def _limit(p: PlayerServices, request: Request) -> None:
    if not p.account_attempts.allow(client_key(request)):
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "too many sign-ups or sign-ins from your address: wait a minute"
        )


class _Refused(ProtocolError):
    """A refusal with its own HTTP status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(code, message)
        self.status = status


def _signed_in(request: Request) -> Account:
    account = account_of(request)
    if account is None:
        raise ProtocolError(ErrorCode.UNAUTHORIZED, "sign in first")
    return account


def _confirmed(store: AccountStore, request: Request) -> tuple[Account, str]:
    """The signed-in account and its session token, if its owner confirmed with a passkey
    in this session within :data:`CONFIRM_SECONDS`; else ``confirm_first`` (403)."""
    account = _signed_in(request)
    token = session_token(request)
    assert token is not None  # signed in
    session = store.session(token)
    if session is None or not session.fresh(time.time()):
        raise _Refused(
            ErrorCode.CONFIRM_FIRST,
            f"confirm with a passkey first (a confirmation lasts {int(CONFIRM_SECONDS) // 60} minutes)",
            403,
        )
    return account, token


def _passkey_taken() -> ProtocolError:
    return _Refused(
        ErrorCode.BAD_REQUEST,
        "this passkey is already registered on this server: sign in with it, or make another",
        409,
    )


def _name(value: str) -> str:
    try:
        name = clean_nickname(value)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_REQUEST, str(exc).replace("nickname", "name")) from None
    if len(name) > NAME_MAX:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"a name is at most {NAME_MAX} characters")
    return name


def _taken(name: str) -> ProtocolError:
    return ProtocolError(ErrorCode.NAME_TAKEN, f"the name {name} is taken: choose another")


async def guest_name(request: Request, nickname: str) -> None:
    """Refuse a guest's nickname that is an account's name, or drawn like one (its
    :func:`name_key`): at any table, a name that reads as an account's is that account."""
    started = players_if_started(request)
    store = started.accounts if started is not None else None
    if store is not None and not await asyncio.to_thread(store.name_free, nickname):
        raise ProtocolError(
            ErrorCode.NAME_TAKEN,
            f"{nickname} is an account's name (or looks like it): sign in to use it, or choose another",
        )


def _ceremony(store: AccountStore, ceremony_id: str, purpose: str) -> Ceremony:
    ceremony = store.take_ceremony(ceremony_id, purpose)
    if ceremony is None:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST, "that sign-in took too long or was already used: try again"
        )
    return ceremony


def _set_session_cookie(request: Request, response: JSONResponse, token: str, max_age: int) -> None:
    """Over https the ``__Host-`` cookie (``Secure``, ``Path=/``, no ``Domain``), and any
    plain one of an older release cleared; over plain http the plain cookie, not ``Secure``
    (a browser would not keep a ``Secure`` cookie from a plain http page of a LAN)."""
    if secure(request):
        response.set_cookie(
            SECURE_SESSION_COOKIE,
            token,
            max_age=max_age,
            path="/",
            httponly=True,
            samesite="lax",
            secure=True,
        )
        if SESSION_COOKIE in request.cookies:
            response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    else:
        response.set_cookie(SESSION_COOKIE, token, max_age=max_age, path="/", httponly=True, samesite="lax")


def _clear_session_cookies(request: Request, response: JSONResponse) -> None:
    if secure(request):
        response.delete_cookie(SECURE_SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=True)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


def _with_session(
    store: AccountStore,
    request: Request,
    account: Account,
    credential_id: str,
    body: dict[str, Any] | None = None,
) -> JSONResponse:
    """The response that signs ``account`` in with the passkey ``credential_id``: a new
    session (any old one of this browser is closed: a session is never carried over a
    sign-in) in the cookie."""
    old = session_token(request)
    if old:
        store.close_session(old)
    token = store.open_session(account.id, credential_id=credential_id)
    response = JSONResponse(body if body is not None else account_body(store, account, token))
    _set_session_cookie(request, response, token, int(SESSION_SECONDS))
    return response


def _passkey_of(verified: Any, credential: dict[str, Any]) -> Passkey:
    transports = (credential.get("response") or {}).get("transports")
    return Passkey(
        id=bytes_to_base64url(verified.credential_id),
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        transports=[str(t) for t in transports][:8] if isinstance(transports, list) else None,
        created_at=time.time(),
    )


def _registration(
    settings: Settings, request: Request, name: str, user_handle: bytes, exclude: list[Passkey]
) -> tuple[str, bytes]:
    """The creation options as the browser's JSON, and their challenge."""
    options = generate_registration_options(
        rp_id=rp_id(request, settings),
        rp_name=RP_NAME,
        user_name=name,
        user_id=user_handle,
        user_display_name=name,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(p.id)) for p in exclude],
    )
    return options_to_json(options), options.challenge


def _verify_registration(
    settings: Settings, request: Request, ceremony: Ceremony, credential: dict[str, Any]
) -> Passkey:
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=ceremony.challenge,
            expected_rp_id=rp_id(request, settings),
            expected_origin=origin(request, settings),
            require_user_verification=True,
        )
    except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as exc:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"the passkey could not be checked: {exc}") from None
    return _passkey_of(verified, credential)


def account_body(store: AccountStore, account: Account, token: str | None = None) -> dict[str, Any]:
    """The account as its owner sees it, with its passkeys and open sessions (``current``:
    the session of ``token``, this browser's)."""
    current = handle_of(token) if token else None
    now = time.time()
    open_sessions = store.sessions_of(account.id, now)
    mine = next((s for s in open_sessions if s.id == current), None)
    return {
        "account": {
            "name": account.name,
            "since": account.created_at,
            "passkeys": [
                {
                    "id": p.id,
                    "created_at": p.created_at,
                    "last_used_at": p.last_used_at,
                    "transports": p.transports,
                    "name": p.name,
                }
                for p in store.passkeys_of(account.id)
            ],
            "sessions": [
                {
                    "id": s.id,
                    "created_at": s.created_at,
                    "last_seen_at": s.last_seen_at,
                    "expires_at": s.expires_at,
                    "passkey": s.credential_id,
                    "current": s.id == current,
                }
                for s in open_sessions
            ],
            #: Until when this session may make a sensitive change without confirming again.
            "confirmed_until": (
                mine.confirmed_at + CONFIRM_SECONDS
                if mine is not None and mine.confirmed_at is not None and mine.fresh(now)
                else None
            ),
        }
    }


def _authenticate(
    p: PlayerServices,
    request: Request,
    ceremony: Ceremony,
    credential: dict[str, Any],
    refused: ProtocolError,
) -> Passkey:
    """The passkey that answered ``ceremony`` (its signature, the origin, the relying party,
    user verification all checked; its sign count noted), or ``refused``."""
    store = p.accounts
    settings = p.settings
    passkey = store.passkey(str(credential.get("id", ""))[:512])
    if passkey is None:
        raise refused
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=ceremony.challenge,
            expected_rp_id=rp_id(request, settings),
            expected_origin=origin(request, settings),
            credential_public_key=passkey.public_key,
            credential_current_sign_count=passkey.sign_count,
            require_user_verification=True,
        )
    except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError):
        raise refused from None
    store.passkey_used(passkey.id, verified.new_sign_count)
    return passkey


# -- routes ----------------------------------------------------------------------------


@router.get("/api/account")
async def whoami(request: Request, p: PlayersDep) -> JSONResponse:
    """Who is signed in. A browser signed in over https before the ``__Host-`` cookie has
    its session moved into it here (the page asks this on every load): nobody is signed
    out by the upgrade, and the plain cookie is read no longer."""
    account = account_of(request)
    if account is None:
        return JSONResponse({"account": None})
    token = session_token(request)
    response = JSONResponse(account_body(p.accounts, account, token))
    moved = legacy_token(request)
    if moved is not None:
        session = p.accounts.session(moved)
        if session is not None:
            _set_session_cookie(request, response, moved, max(1, int(session.expires_at - time.time())))
    return response


@router.post("/api/account/signup/options")
async def signup_options(request: Request, p: PlayersDep, body: SignupOptions) -> dict[str, Any]:
    _limit(p, request)
    name = _name(body.name)
    store = p.accounts
    if not store.name_free(name):
        raise _taken(name)
    user_handle = secrets.token_bytes(32)
    options, challenge = _registration(p.settings, request, name, user_handle, [])
    ceremony = store.start_ceremony(Ceremony("signup", challenge, name=name, user_handle=user_handle))
    return {"ceremony": ceremony, "options": options}


@router.post("/api/account/signup/verify")
async def signup_verify(request: Request, p: PlayersDep, body: SignupAnswer) -> JSONResponse:
    ceremony = _ceremony(p.accounts, body.ceremony, "signup")
    passkey = _verify_registration(p.settings, request, ceremony, body.credential)
    assert ceremony.name is not None
    store = p.accounts
    try:
        account = store.create(
            ceremony.name,
            user_handle=ceremony.user_handle,
            passkey=passkey,
            claim=[token_hash(t) for t in body.tokens],
        )
    except PasskeyTaken:
        raise _passkey_taken() from None
    except NameTaken:
        raise _taken(ceremony.name) from None
    return _with_session(p.accounts, request, account, passkey.id)


@router.post("/api/account/signin/options")
async def signin_options(request: Request, p: PlayersDep) -> dict[str, Any]:
    _limit(p, request)
    options = generate_authentication_options(
        rp_id=rp_id(request, p.settings), user_verification=UserVerificationRequirement.REQUIRED
    )
    ceremony = p.accounts.start_ceremony(Ceremony("signin", options.challenge))
    return {"ceremony": ceremony, "options": options_to_json(options)}


@router.post("/api/account/signin/verify")
async def signin_verify(request: Request, p: PlayersDep, body: Answer) -> JSONResponse:
    ceremony = _ceremony(p.accounts, body.ceremony, "signin")
    refused = ProtocolError(ErrorCode.UNAUTHORIZED, "this passkey is not one of this server's accounts")
    passkey = _authenticate(p, request, ceremony, body.credential, refused)
    account = p.accounts.owner_of(passkey.id)
    if account is None:
        raise refused
    return _with_session(p.accounts, request, account, passkey.id)


@router.post("/api/account/confirm/options")
async def confirm_options(request: Request, p: PlayersDep) -> dict[str, Any]:
    """A passkey confirmation for this session: one of the account's own passkeys, with
    user verification (a device's lock, not only its presence)."""
    _limit(p, request)
    account = _signed_in(request)
    store = p.accounts
    options = generate_authentication_options(
        rp_id=rp_id(request, p.settings),
        user_verification=UserVerificationRequirement.REQUIRED,
        allow_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(p.id)) for p in store.passkeys_of(account.id)
        ],
    )
    ceremony = store.start_ceremony(Ceremony("confirm", options.challenge, account_id=account.id))
    return {"ceremony": ceremony, "options": options_to_json(options)}


@router.post("/api/account/confirm/verify")
async def confirm_verify(request: Request, p: PlayersDep, body: Answer) -> JSONResponse:
    account = _signed_in(request)
    ceremony = _ceremony(p.accounts, body.ceremony, "confirm")
    refused = ProtocolError(ErrorCode.UNAUTHORIZED, "that passkey is not one of your account's")
    if ceremony.account_id != account.id:
        raise refused
    passkey = _authenticate(p, request, ceremony, body.credential, refused)
    owner = p.accounts.owner_of(passkey.id)
    if owner is None or owner.id != account.id:
        raise refused
    token = session_token(request)
    assert token is not None  # signed in
    p.accounts.confirm_session(token)
    return JSONResponse(account_body(p.accounts, account, token))


@router.post("/api/account/passkeys/options")
async def passkey_options(request: Request, p: PlayersDep) -> dict[str, Any]:
    _limit(p, request)
    account, _token = _confirmed(p.accounts, request)
    store = p.accounts
    handle = store.user_handle(account.id)
    options, challenge = _registration(
        p.settings, request, account.name, handle, store.passkeys_of(account.id)
    )
    ceremony = store.start_ceremony(Ceremony("add", challenge, account_id=account.id))
    return {"ceremony": ceremony, "options": options}


def passkey_name(raw: str | None) -> str | None:
    """A passkey's name as its owner typed it, within a nickname's bounds
    (:func:`~nomercy.server.base.names.clean_nickname`); None for none."""
    if raw is None or not raw.strip():
        return None
    try:
        return clean_nickname(raw)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"passkey name: {exc}") from None


@router.post("/api/account/passkeys/verify")
async def passkey_verify(request: Request, p: PlayersDep, body: PasskeyAnswer) -> dict[str, Any]:
    account, token = _confirmed(p.accounts, request)
    name = passkey_name(body.name)
    ceremony = _ceremony(p.accounts, body.ceremony, "add")
    if ceremony.account_id != account.id:
        raise ProtocolError(ErrorCode.FORBIDDEN, "that passkey was asked for by another account")
    store = p.accounts
    added = replace(_verify_registration(p.settings, request, ceremony, body.credential), name=name)
    try:
        store.add_passkey(account.id, added)
    except PasskeyTaken:
        raise _passkey_taken() from None
    return account_body(store, account, token)


@router.post("/api/account/passkeys/rename")
async def passkey_rename(request: Request, p: PlayersDep, body: RenamePasskey) -> dict[str, Any]:
    """Name one of this account's passkeys. A name changes no access: no confirmation, and
    not counted against the sign-in attempts (a session, itself won by a passkey, is the
    bound; the request's size is the model's)."""
    account = _signed_in(request)
    store = p.accounts
    if not store.rename_passkey(account.id, body.id, passkey_name(body.name)):
        raise ProtocolError(ErrorCode.NOT_FOUND, "no such passkey on your account")
    return account_body(store, account, session_token(request))


@router.post("/api/account/passkeys/remove")
async def passkey_remove(request: Request, p: PlayersDep, body: RemovePasskey) -> JSONResponse:
    """Remove a passkey, and end the sessions it opened (this one too, if it did)."""
    account, token = _confirmed(p.accounts, request)
    store = p.accounts
    try:
        removed = store.remove_passkey(account.id, body.id)
    except LastPasskey:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST, "this is your only passkey: add another first, or delete the account"
        ) from None
    if not removed:
        raise ProtocolError(ErrorCode.NOT_FOUND, "no such passkey on your account")
    if store.session(token) is None:  # this session was opened by the passkey removed
        response = JSONResponse({"account": None})
        _clear_session_cookies(request, response)
        return response
    return JSONResponse(account_body(store, account, token))


@router.post("/api/account/sessions/end")
async def end_session(request: Request, p: PlayersDep, body: EndSession) -> JSONResponse:
    """End one of the account's sessions (another device's, or this one)."""
    account, token = _confirmed(p.accounts, request)
    store = p.accounts
    if not store.end_session(account.id, body.id):
        raise ProtocolError(ErrorCode.NOT_FOUND, "no such session on your account")
    if body.id == handle_of(token):
        response = JSONResponse({"account": None})
        _clear_session_cookies(request, response)
        return response
    return JSONResponse(account_body(store, account, token))


@router.post("/api/account/sessions/end-all")
async def sign_out_everywhere(request: Request, p: PlayersDep) -> JSONResponse:
    """Sign out everywhere: every session of the account ends, this one too."""
    account, _token = _confirmed(p.accounts, request)
    ended = p.accounts.end_sessions(account.id)
    response = JSONResponse({"account": None, "ended": ended})
    _clear_session_cookies(request, response)
    return response


@router.post("/api/account/claim")
async def claim(request: Request, p: PlayersDep, body: Claim) -> dict[str, Any]:
    account = _signed_in(request)
    linked = p.accounts.claim(account.id, [token_hash(t) for t in body.tokens])
    return {"claimed": linked}


@router.post("/api/account/signout")
async def signout(request: Request, p: PlayersDep) -> JSONResponse:
    token = session_token(request)
    if token:
        p.accounts.close_session(token)
    response = JSONResponse({"account": None})
    _clear_session_cookies(request, response)
    return response


@router.post("/api/account/delete")
async def delete_account(request: Request, p: PlayersDep, body: DeleteAccount) -> JSONResponse:
    account, _token = _confirmed(p.accounts, request)
    if name_key(body.name) != name_key(account.name):
        raise ProtocolError(ErrorCode.BAD_REQUEST, "type your name exactly to delete the account")
    p.accounts.delete(account.id)
    p.seated.accounts_deleted({account.id})  # its seats in play here lose the name
    response = JSONResponse({"account": None, "deleted": True})
    _clear_session_cookies(request, response)
    return response
