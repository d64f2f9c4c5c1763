"""Accounts over HTTP: passkey sign-up and sign-in (the server's real WebAuthn checks, with a
software authenticator), sessions, a second passkey, claiming a guest's games, deletion,
and each security point: cookie flags, sign-out on the server, session rotation,
cross-site refusals, rate limits, no name revealed by sign-in. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select, update

from nomercy.server.base.tables import game_seats, games
from nomercy.server.players.accounts import (
    CONFIRM_SECONDS,
    SECURE_SESSION_COOKIE,
    SESSION_COOKIE,
    AccountStore,
    sessions,
)

from .conftest import DATABASES, POSTGRES_URL, ServerProcess, hello, reset_postgres, start_room
from .softkey import SoftKey
from .test_game import play_humans
from .test_kept_games import kept_games


def client(server: ServerProcess, **headers: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Origin": server.url, **headers}, timeout=15)


def signup(http: httpx.Client, key: SoftKey, name: str, tokens: list[str] | None = None) -> httpx.Response:
    r = http.post("/api/account/signup/options", json={"name": name})
    assert r.status_code == 200, r.text
    body = r.json()
    answer: dict[str, Any] = {"ceremony": body["ceremony"], "credential": key.create(body["options"])}
    if tokens:
        answer["tokens"] = tokens
    return http.post("/api/account/signup/verify", json=answer)


def signin(http: httpx.Client, key: SoftKey, cred: bytes | None = None) -> httpx.Response:
    body = http.post("/api/account/signin/options").json()
    return http.post(
        "/api/account/signin/verify",
        json={"ceremony": body["ceremony"], "credential": key.get(body["options"], cred)},
    )


def cookie_header(r: httpx.Response) -> str:
    (line,) = [v for k, v in r.headers.multi_items() if k.lower() == "set-cookie" and SESSION_COOKIE in v]
    return line


def server_for(db: str, start_server: Any, **env: str) -> ServerProcess:
    if db == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        return start_server(POSTGRES_URL, **env)  # type: ignore[no-any-return]
    return start_server(**env)  # type: ignore[no-any-return]


@pytest.mark.parametrize("db", DATABASES)
def test_sign_up_out_and_in_with_a_passkey(db: str, start_server: Any) -> None:
    server = server_for(db, start_server)
    key = SoftKey(server.url)
    with client(server) as http:
        r = signup(http, key, "Ada")
        assert r.status_code == 200, r.text
        assert r.json()["account"]["name"] == "Ada" and len(r.json()["account"]["passkeys"]) == 1
        line = cookie_header(r).lower()
        assert "httponly" in line and "samesite=lax" in line and "path=/" in line
        assert "secure" not in line  # plain HTTP: a Secure cookie would never come back
        first = http.cookies[SESSION_COOKIE]
        assert http.get("/api/account").json()["account"]["name"] == "Ada"

        # A signed-in player sits under the account's name, and the seat is theirs.
        made = http.post("/api/rooms", json={"nickname": "someone else", "seats": 2, "bots": 1}).json()
        assert made["room"]["seats"][0]["nickname"] == "Ada"

        assert http.post("/api/account/signout").status_code == 200
        assert http.get("/api/account").json()["account"] is None
        # The session is closed on the server: the old cookie signs nobody in.
        assert (
            httpx.get(f"{server.url}/api/account", cookies={SESSION_COOKIE: first}).json()["account"] is None
        )

        options = http.post("/api/account/signin/options").json()["options"]
        assert "allowCredentials" not in json.loads(options) or not json.loads(options)["allowCredentials"]
        r = signin(http, key)
        assert r.status_code == 200, r.text
        assert r.json()["account"]["name"] == "Ada"
        assert http.cookies[SESSION_COOKIE] != first


def test_a_sign_in_rotates_the_session(start_server: Any) -> None:
    server = start_server()
    key = SoftKey(server.url)
    with client(server) as http:
        assert signup(http, key, "Bo").status_code == 200
        before = http.cookies[SESSION_COOKIE]
        assert signin(http, key).status_code == 200
        assert http.cookies[SESSION_COOKIE] != before
        assert (
            httpx.get(f"{server.url}/api/account", cookies={SESSION_COOKIE: before}).json()["account"] is None
        )


def test_the_cookie_is_secure_behind_tls(start_server: Any) -> None:
    """Over https the session is a ``__Host-`` cookie (Secure, Path=/, no Domain), and only
    that cookie signs in: the same token in a plain cookie, which a page over plain http or
    a sibling subdomain could plant, signs nobody in."""
    server = start_server(NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1")
    host = server.url.split("//", 1)[1]
    key = SoftKey(f"https://{host}")
    tls = {"X-Forwarded-Proto": "https", "Origin": f"https://{host}"}
    with client(server, **tls) as http:
        r = signup(http, key, "Cy")
        assert r.status_code == 200, r.text
        line = cookie_header(r)
        assert line.startswith(f"{SECURE_SESSION_COOKIE}=")
        flags = line.lower()
        assert "secure" in flags and "path=/" in flags and "domain" not in flags and "httponly" in flags
    token = line.split(";", 1)[0].split("=", 1)[1]
    me = f"{server.url}/api/account"
    signed = httpx.get(me, headers=tls, cookies={SECURE_SESSION_COOKIE: token}, timeout=10)
    assert signed.json()["account"]["name"] == "Cy"
    planted = httpx.get(me, headers=tls, cookies={SESSION_COOKIE: token}, timeout=10)
    assert planted.json()["account"] is None


def test_a_session_from_before_the_host_cookie_moves_into_it(start_server: Any) -> None:
    """A browser signed in over https by a release before the ``__Host-`` cookie still has
    its plain cookie: it stays signed in, and its next ``GET /api/account`` moves the same
    session into the ``__Host-`` cookie and clears the plain one."""
    server = start_server(NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1")
    host = server.url.split("//", 1)[1]
    tls = {"X-Forwarded-Proto": "https", "Origin": f"https://{host}"}
    with client(server, **tls) as http:
        assert signup(http, SoftKey(f"https://{host}"), "Cal").status_code == 200
    engine = create_engine(server.database_url)
    try:
        store = AccountStore(engine)
        account = store.by_name("Cal")
        assert account is not None
        old = store.open_session(account.id)  # as the release before opened them: no passkey noted
    finally:
        engine.dispose()
    r = httpx.get(f"{server.url}/api/account", headers=tls, cookies={SESSION_COOKIE: old}, timeout=10)
    assert r.json()["account"]["name"] == "Cal"
    lines = [v for k, v in r.headers.multi_items() if k.lower() == "set-cookie"]
    assert any(v.startswith(f"{SECURE_SESSION_COOKIE}={old};") and "Secure" in v for v in lines), lines
    assert any(v.startswith(f'{SESSION_COOKIE}="";') or v.startswith(f"{SESSION_COOKIE}=;") for v in lines), (
        lines
    )
    moved = httpx.get(
        f"{server.url}/api/account", headers=tls, cookies={SECURE_SESSION_COOKIE: old}, timeout=10
    )
    assert moved.json()["account"]["name"] == "Cal"


def test_requests_from_another_site_are_refused(start_server: Any) -> None:
    server = start_server()
    key = SoftKey(server.url)
    with client(server) as http:
        assert signup(http, key, "Di").status_code == 200
        session = http.cookies[SESSION_COOKIE]
    evil = {"Origin": "https://evil.example"}
    jar = {SESSION_COOKIE: session}
    for path, body in (
        ("/api/account/signout", None),
        ("/api/rooms", {"nickname": "x"}),
        ("/api/account/delete", {"name": "Di"}),
    ):
        r = httpx.post(f"{server.url}{path}", json=body, headers=evil, cookies=jar, timeout=10)
        assert r.status_code == 403 and r.json()["detail"]["code"] == "forbidden", (path, r.text)
        r = httpx.post(
            f"{server.url}{path}",
            json=body,
            headers={"Sec-Fetch-Site": "cross-site"},
            cookies=jar,
            timeout=10,
        )
        assert r.status_code == 403, (path, r.text)
    # Nothing changed: the account and its session are still there.
    assert httpx.get(f"{server.url}/api/account", cookies=jar, timeout=10).json()["account"]["name"] == "Di"
    # A sign-in started by another site's page is refused too (login CSRF).
    assert httpx.post(f"{server.url}/api/account/signin/options", headers=evil, timeout=10).status_code == 403
    # A guest (no session) creating a room is as before, whatever the origin.
    r = httpx.post(f"{server.url}/api/rooms", json={"nickname": "Guest"}, headers=evil, timeout=10)
    assert r.status_code == 200, r.text


def test_sign_up_and_in_are_rate_limited(start_server: Any) -> None:
    server = start_server(NOMERCY_ACCOUNT_ATTEMPTS_PER_MINUTE="3")
    with client(server) as http:
        codes = [http.post("/api/account/signin/options").status_code for _ in range(3)]
        codes.append(http.post("/api/account/signup/options", json={"name": "Eve"}).status_code)
        assert codes == [200, 200, 200, 429]
        assert (
            http.post("/api/account/signup/options", json={"name": "Eve"}).json()["detail"]["code"]
            == "rate_limited"
        )


def test_names_and_failed_sign_ins_reveal_nothing_more(start_server: Any) -> None:
    server = start_server()
    key, stranger = SoftKey(server.url), SoftKey(server.url)
    with client(server) as http:
        assert signup(http, key, "Fay").status_code == 200
        r = http.post("/api/account/signup/options", json={"name": "FAY"})
        assert r.status_code == 409 and r.json()["detail"]["code"] == "name_taken"
        r = http.post("/api/account/signup/options", json={"name": "Bot 3"})
        assert r.status_code == 400 and "bot" in r.json()["detail"]["message"]
    # A passkey this server never saw, and a forged signature, get the same answer.
    with client(server) as http:
        stranger.create({"rp": {"id": "127.0.0.1"}, "user": {"id": "AAAA"}, "challenge": "AAAA"})
        unknown = signin(http, stranger)
        body = http.post("/api/account/signin/options").json()
        forged = key.get(body["options"])
        forged["response"]["signature"] = stranger.get(body["options"])["response"]["signature"]
        bad = http.post(
            "/api/account/signin/verify", json={"ceremony": body["ceremony"], "credential": forged}
        )
        assert unknown.status_code == bad.status_code == 401
        assert unknown.json()["detail"] == bad.json()["detail"]
        # A challenge answers once.
        r = http.post("/api/account/signin/verify", json={"ceremony": body["ceremony"], "credential": forged})
        assert r.status_code == 400 and "try again" in r.json()["detail"]["message"]


@pytest.mark.parametrize("db", DATABASES)
def test_a_second_passkey_a_claim_and_deletion(db: str, start_server: Any) -> None:
    server = server_for(db, start_server, NOMERCY_TEST_OPTIONS="1")
    phone, laptop = SoftKey(server.url), SoftKey(server.url)
    # As a guest: one round played, its seat token kept by the browser.
    made = httpx.post(
        f"{server.url}/api/rooms",
        json={"nickname": "Gus", "seats": 2, "bots": 1, "bot": "heuristic", "seed": 5},
        timeout=10,
    ).json()
    start_room(server, made["code"], made["token"])
    ws = hello(server, made["code"], made["token"])
    play_humans({0: ws}, random.Random(5))
    (game,) = kept_games(server, made["code"], made["token"])
    with client(server) as http:
        r = signup(http, phone, "Gus", tokens=[made["token"], "not-a-token"])
        assert r.status_code == 200, r.text
        engine = create_engine(server.database_url)
        try:
            with engine.connect() as conn:
                row = conn.execute(select(game_seats).where(game_seats.c.game_id == game["id"])).one()
            assert row.account_id is not None  # the guest's game is the account's now

            body = http.post("/api/account/passkeys/options").json()
            r = http.post(
                "/api/account/passkeys/verify",
                json={"ceremony": body["ceremony"], "credential": laptop.create(body["options"])},
            )
            assert r.status_code == 200 and len(r.json()["account"]["passkeys"]) == 2
            assert http.post("/api/account/signout").status_code == 200
            assert signin(http, laptop).json()["account"]["name"] == "Gus"

            first = r.json()["account"]["passkeys"][0]["id"]
            r = http.post("/api/account/passkeys/remove", json={"id": first})
            assert r.status_code == 200 and len(r.json()["account"]["passkeys"]) == 1
            last = r.json()["account"]["passkeys"][0]["id"]
            r = http.post("/api/account/passkeys/remove", json={"id": last})
            assert r.status_code == 400 and "only passkey" in r.json()["detail"]["message"]
            assert signin(http, phone).status_code == 401  # the removed passkey signs nobody in

            r = http.post("/api/account/delete", json={"name": "someone"})
            assert r.status_code == 400
            r = http.post("/api/account/delete", json={"name": "gus"})
            assert r.status_code == 200 and r.json()["deleted"]
            assert http.get("/api/account").json()["account"] is None
            assert signin(http, laptop).status_code == 401
            with engine.connect() as conn:
                row = conn.execute(select(game_seats).where(game_seats.c.game_id == game["id"])).one()
                info = json.loads(
                    conn.execute(select(games.c.info).where(games.c.id == game["id"])).scalar_one()
                )
            assert row.account_id is None  # the game stays, anonymised
            assert info["players"][0]["name"] == "Player 1"
            # The name is free again.
            assert http.post("/api/account/signup/options", json={"name": "Gus"}).status_code == 200
        finally:
            engine.dispose()


def test_account_routes_need_a_session(start_server: Any) -> None:
    server = start_server()
    with client(server) as http:
        for path, body in (
            ("/api/account/passkeys/options", None),
            ("/api/account/claim", {"tokens": []}),
            ("/api/account/delete", {"name": "x"}),
            ("/api/account/confirm/options", None),
            ("/api/account/sessions/end", {"id": "x"}),
            ("/api/account/sessions/end-all", None),
        ):
            r = http.post(path, json=body)
            assert r.status_code == 401 and r.json()["detail"]["message"] == "sign in first", path
    forged = httpx.get(f"{server.url}/api/account", cookies={SESSION_COOKIE: "forged"}, timeout=10)
    assert forged.json()["account"] is None


def test_the_relying_party_comes_from_the_request_unless_the_settings_name_it(start_server: Any) -> None:
    """By default the passkey's relying party is the host the request named (127.0.0.1
    here); NOMERCY_RP_ID and NOMERCY_PUBLIC_ORIGIN name it for a site a proxy serves under
    another name, and then an answer made for the request's own origin is refused."""
    plain = start_server()
    with client(plain) as http:
        options = json.loads(http.post("/api/account/signin/options").json()["options"])
        assert options["rpId"] == "127.0.0.1"
    public = "https://play.example.org"
    named = start_server(NOMERCY_RP_ID="play.example.org", NOMERCY_PUBLIC_ORIGIN=public)
    with client(named, Origin=public) as http:
        options = json.loads(http.post("/api/account/signup/options", json={"name": "Gil"}).json()["options"])
        assert options["rp"]["id"] == "play.example.org"
        assert signup(http, SoftKey(named.url), "Gil").status_code == 400  # signed for the wrong origin
        key = SoftKey(public)
        r = signup(http, key, "Gil")
        assert r.status_code == 200, r.text
        assert signin(http, key).status_code == 200


def age_confirmations(server: ServerProcess) -> None:
    """Every session's last passkey confirmation is older than CONFIRM_SECONDS (the
    server's clock cannot be moved; its database can)."""
    engine = create_engine(server.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(update(sessions).values(confirmed_at=sessions.c.confirmed_at - CONFIRM_SECONDS - 1))
    finally:
        engine.dispose()


def confirm(http: httpx.Client, key: SoftKey, cred: bytes | None = None) -> httpx.Response:
    body = http.post("/api/account/confirm/options").json()
    return http.post(
        "/api/account/confirm/verify",
        json={"ceremony": body["ceremony"], "credential": key.get(body["options"], cred)},
    )


def add_passkey(http: httpx.Client, key: SoftKey, cred: bytes | None = None) -> httpx.Response:
    body = http.post("/api/account/passkeys/options").json()
    return http.post(
        "/api/account/passkeys/verify",
        json={"ceremony": body["ceremony"], "credential": key.create(body["options"], cred)},
    )


def refusal(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["detail"]["code"]


@pytest.mark.parametrize("db", DATABASES)
def test_a_lost_phones_stale_session_cannot_take_the_account_over(db: str, start_server: Any) -> None:
    """The issue's attack: a phone signed in to the account is lost. Its open session may
    not add a passkey, remove one, end sessions or delete the account without a passkey
    confirmation of the last minutes, which needs the phone's user verified (its lock);
    the owner confirms on the laptop and removes the phone's passkey, which ends the
    sessions that passkey opened."""
    server = server_for(db, start_server)
    laptop, phone = SoftKey(server.url), SoftKey(server.url)
    with client(server) as owner, client(server) as thief:
        assert signup(owner, laptop, "Hal").status_code == 200
        r = add_passkey(owner, phone)  # fresh from the sign-up: no confirmation asked
        assert r.status_code == 200, r.text
        laptop_id, phone_id = (p["id"] for p in r.json()["account"]["passkeys"])
        assert signin(thief, phone).status_code == 200
        age_confirmations(server)

        for path, body in (
            ("/api/account/passkeys/options", None),
            ("/api/account/passkeys/remove", {"id": laptop_id}),
            ("/api/account/sessions/end-all", None),
            ("/api/account/delete", {"name": "Hal"}),
        ):
            assert refusal(thief.post(path, json=body)) == (403, "confirm_first"), path
        # Whoever holds the phone without its lock: present, not verified, not enough.
        unlocked = SoftKey(server.url, verifies=False)
        unlocked.keys, unlocked.count = phone.keys, phone.count + 10
        assert refusal(confirm(thief, unlocked)) == (401, "unauthorized")
        assert refusal(thief.post("/api/account/passkeys/remove", json={"id": laptop_id})) == (
            403,
            "confirm_first",
        )

        # The owner confirms on the laptop and sees both sessions, each with its passkey.
        r = confirm(owner, laptop)
        assert r.status_code == 200, r.text
        listed = r.json()["account"]["sessions"]
        assert sorted((s["passkey"], s["current"]) for s in listed) == sorted(
            [(laptop_id, True), (phone_id, False)]
        )
        assert r.json()["account"]["confirmed_until"] is not None
        r = owner.post("/api/account/passkeys/remove", json={"id": phone_id})
        assert r.status_code == 200, r.text
        assert [s["passkey"] for s in r.json()["account"]["sessions"]] == [laptop_id]
        assert thief.get("/api/account").json()["account"] is None  # the phone's session ended
        assert signin(thief, phone).status_code == 401
        assert owner.get("/api/account").json()["account"]["name"] == "Hal"


def test_sessions_are_listed_and_each_can_be_ended_or_all_at_once(start_server: Any) -> None:
    server = start_server()
    key, other = SoftKey(server.url), SoftKey(server.url)
    with client(server) as home, client(server) as work, client(server) as stranger:
        assert signup(home, key, "Ivy").status_code == 200
        assert signin(work, key).status_code == 200
        assert signup(stranger, other, "Jon").status_code == 200
        mine = home.get("/api/account").json()["account"]["sessions"]
        assert len(mine) == 2 and [s["current"] for s in mine].count(True) == 1
        assert all(s["created_at"] and s["last_seen_at"] and s["expires_at"] > s["created_at"] for s in mine)
        (work_id,) = [s["id"] for s in mine if not s["current"]]
        # Another account's session is not one of Ivy's to end.
        (jon_id,) = [s["id"] for s in stranger.get("/api/account").json()["account"]["sessions"]]
        assert refusal(home.post("/api/account/sessions/end", json={"id": jon_id})) == (404, "not_found")
        assert stranger.get("/api/account").json()["account"]["name"] == "Jon"

        age_confirmations(server)
        assert refusal(home.post("/api/account/sessions/end", json={"id": work_id})) == (403, "confirm_first")
        # A confirmation needs a passkey of this account.
        assert refusal(confirm(home, other)) == (401, "unauthorized")
        assert confirm(home, key).status_code == 200
        r = home.post("/api/account/sessions/end", json={"id": work_id})
        assert r.status_code == 200 and len(r.json()["account"]["sessions"]) == 1
        assert work.get("/api/account").json()["account"] is None

        assert signin(work, key).status_code == 200
        r = home.post("/api/account/sessions/end-all")
        assert r.status_code == 200 and r.json() == {"account": None, "ended": 2}
        assert home.get("/api/account").json()["account"] is None
        assert work.get("/api/account").json()["account"] is None
        assert stranger.get("/api/account").json()["account"]["name"] == "Jon"


def test_user_verification_is_required(start_server: Any) -> None:
    """Options ask for user verification, and an answer without it (someone touched the
    key; nobody proved who) neither signs up nor signs in."""
    server = start_server()
    verified, touched = SoftKey(server.url), SoftKey(server.url, verifies=False)
    with client(server) as http:
        options = json.loads(http.post("/api/account/signin/options").json()["options"])
        assert options["userVerification"] == "required"
        r = signup(http, touched, "Kim")
        assert refusal(r) == (400, "bad_request")
        assert signup(http, verified, "Kim").status_code == 200
        touched.keys, touched.count = verified.keys, verified.count + 10
        assert refusal(signin(http, touched)) == (401, "unauthorized")
        assert signin(http, verified).status_code == 200


def test_a_passkey_registered_already_is_refused_clearly(start_server: Any) -> None:
    """A credential id the server holds already (a broken or hostile authenticator) gets a
    409 that says so: not a 500 when a passkey is added, not "name taken" at sign-up."""
    server = start_server()
    key, copier = SoftKey(server.url), SoftKey(server.url)
    with client(server) as http, client(server) as other:
        assert signup(http, key, "Lea").status_code == 200
        (cred,) = key.keys
        r = add_passkey(http, copier, cred)
        assert refusal(r) == (409, "bad_request") and "passkey" in r.json()["detail"]["message"]
        body = other.post("/api/account/signup/options", json={"name": "Max"}).json()
        r = other.post(
            "/api/account/signup/verify",
            json={"ceremony": body["ceremony"], "credential": copier.create(body["options"], cred)},
        )
        assert refusal(r) == (409, "bad_request") and "passkey" in r.json()["detail"]["message"]
        assert other.post("/api/account/signup/options", json={"name": "Max"}).status_code == 200
        assert len(http.get("/api/account").json()["account"]["passkeys"]) == 1


def test_passkey_options_are_rate_limited_like_sign_in(start_server: Any) -> None:
    server = start_server(NOMERCY_ACCOUNT_ATTEMPTS_PER_MINUTE="3")
    with client(server) as http:
        assert signup(http, SoftKey(server.url), "Ned").status_code == 200  # one attempt
        codes = [http.post("/api/account/passkeys/options").status_code for _ in range(2)]
        r = http.post("/api/account/confirm/options")
        assert [*codes, r.status_code] == [200, 200, 429] and r.json()["detail"]["code"] == "rate_limited"
        assert http.post("/api/account/passkeys/options").status_code == 429
