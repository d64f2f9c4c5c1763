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
from sqlalchemy import create_engine, select

from nomercy.server.accounts import SESSION_COOKIE
from nomercy.server.games import game_seats, games

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
    server = start_server(NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1")
    host = server.url.split("//", 1)[1]
    key = SoftKey(f"https://{host}")
    with client(server, **{"X-Forwarded-Proto": "https", "Origin": f"https://{host}"}) as http:
        r = signup(http, key, "Cy")
        assert r.status_code == 200, r.text
        assert "secure" in cookie_header(r).lower()


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
