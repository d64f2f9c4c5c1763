"""Accounts in a real browser: Chromium's virtual authenticator (the DevTools ``WebAuthn``
domain: a CTAP2 platform authenticator with resident keys and user verification), no mock.

A guest who played a round signs up with a passkey and keeps that game; signs out (the
session is closed on the server); signs in again with the passkey, asked for no name;
adds a second passkey from another authenticator and signs in with it; removes the first;
deletes the account (the kept game stays, the name gone from it); and the deleted
account's passkey then signs nobody in. The account page lists where the account is
signed in; a stale session ends another one after one passkey prompt, then signs out
everywhere. At both sizes, in both languages, on SQLite and
(when ``NOMERCY_TEST_POSTGRES_URL`` is set) on PostgreSQL.

WebAuthn needs a secure context and a relying party that is a domain name: the pages are
opened at ``http://localhost:<port>`` (a secure context), which the server's default
allowed hosts accept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select, update

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, PHONE, Pages, axe_check, browser, goto, shot
from browser.test_client import with_lang
from browser.test_replay import kept_round
from nomercy.server.base.tables import game_seats, games
from nomercy.server.players.accounts import CONFIRM_SECONDS, SESSION_COOKIE, AccountStore, accounts, sessions
from server.conftest import DATABASES, POSTGRES_URL, ServerProcess, reset_postgres

pytestmark = needs.CHROMIUM

__all__ = ["browser"]  # the fixture, shared with test_browser

CATALOGS = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "i18n" / "catalogs"
#: Sign-up and sign-in attempts are limited per address; these tests make many from one.
ENV = {"NOMERCY_ACCOUNT_ATTEMPTS_PER_MINUTE": "1000"}
#: A deletion with the wrong name typed (400) and the deleted account's passkey (401) are refused.
REFUSED = ("status of 400", "status of 401")


def words(lang: str) -> dict[str, Any]:
    return json.loads((CATALOGS / lang / "web.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture(scope="module", params=DATABASES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("accounts")
    if request.param == "postgresql":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        url = POSTGRES_URL
    else:
        url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    srv = ServerProcess(url, ENV, log=folder / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    p.allowed = REFUSED
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


def local(server: ServerProcess) -> str:
    """The server by a domain name: WebAuthn refuses an IP address as the relying party."""
    return f"http://localhost:{server.port}"


def authenticator(page: Any) -> tuple[Any, str]:
    """A virtual platform authenticator in the page's browser tab (a passkey manager)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, made["authenticatorId"]


def session_cookie(page: Any) -> dict[str, Any] | None:
    found = [c for c in page.context.cookies() if c["name"] == SESSION_COOKIE]
    return found[0] if found else None


def who(server: ServerProcess, token: str) -> Any:
    r = httpx.get(f"{local(server)}/api/account", cookies={SESSION_COOKIE: token}, timeout=10)
    return r.json()["account"]


def signed_in_as(page: Any, name: str) -> None:
    page.wait_for_selector("#account-name", timeout=15_000)
    assert page.inner_text("#account-name") == name


def sign_in(page: Any) -> None:
    page.click("#account-signin")
    page.click("#account-signin-go")


def says(page: Any, where: str, text: str) -> None:
    page.wait_for_selector(f"{where}:has-text({json.dumps(text, ensure_ascii=False)})")


def passkey_rows(page: Any) -> int:
    return int(page.locator("#passkey-list li").count())


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("nb", "phone")])
def test_sign_up_keep_games_sign_out_in_second_passkey_and_delete(
    pages: Pages, server: ServerProcess, lang: str, size: str
) -> None:
    t = words(lang)
    name = {"en": "Ada Lovelace", "nb": "Åse Ørn"}[lang]
    kept = kept_round(server, 41 if lang == "en" else 43)
    engine = create_engine(server.database_url)
    page = with_lang(pages.new(DESKTOP if size == "desktop" else PHONE), lang)
    typed = [""]  # what the page's prompt (a passkey's new name) is answered with
    page.on("dialog", lambda d: d.accept(typed[0]) if d.type == "prompt" else d.accept())  # and the confirms
    cdp, first = authenticator(page)
    home = local(server) + "/"
    goto(page, home)
    page.evaluate(
        "([k, v]) => { localStorage.setItem(k, v); localStorage.setItem('nomercy:nickname', 'Guest') }",
        [f"nomercy:seat:{kept['code']}", json.dumps({"seat": 0, "token": kept["token"]})],
    )
    goto(page, home)
    assert page.inner_text("#account-signin") == t["account.sign_in"]

    # Sign up: the guest's nickname is offered, the name is chosen, the games kept.
    page.click("#account-signin")
    page.click("#account-to-signup")
    assert page.input_value("#account-name-input") == "Guest"
    assert page.is_checked("#account-claim")
    axe_check(page, f"sign-up dialog {lang} {size}")
    shot(page, f"account-signup-{lang}")
    page.fill("#account-name-input", name)
    page.click("#account-signup-go")
    signed_in_as(page, name)
    cookie = session_cookie(page)
    assert cookie is not None
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
    assert not cookie["secure"]  # plain http on localhost; Secure over TLS (server tests)
    with engine.connect() as conn:
        holder = conn.execute(
            select(accounts.c.id).join(game_seats, game_seats.c.account_id == accounts.c.id)
            .where(game_seats.c.game_id == kept["id"], game_seats.c.seat == 0)
        ).scalar_one()  # fmt: skip
        assert conn.execute(select(accounts.c.name).where(accounts.c.id == holder)).scalar_one() == name

    # The account page: one passkey, which cannot be removed.
    page.click("#account-name")
    page.wait_for_selector("#passkey-list li")
    assert page.inner_text("#account-title") == name
    assert passkey_rows(page) == 1 and page.is_disabled("#passkey-list li .passkey-remove")
    axe_check(page, f"account page {lang} {size}")
    shot(page, f"account-page-{lang}")

    # Sign out: the cookie goes, and the session is closed on the server too.
    old = cookie["value"]
    assert who(server, old)["name"] == name
    page.click("#account-signout")
    page.wait_for_selector("#account-signin")
    assert session_cookie(page) is None and who(server, old) is None

    # Sign in again with the passkey: no name asked; a new session (rotated).
    sign_in(page)
    signed_in_as(page, name)
    again = session_cookie(page)
    assert again is not None and again["value"] != old

    # A second passkey from another authenticator (a phone, a security key).
    saved = cdp.send("WebAuthn.getCredentials", {"authenticatorId": first})["credentials"]
    assert len(saved) == 1 and saved[0]["isResidentCredential"]
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": first})
    authenticator(page)
    goto(page, local(server) + "/account")
    # Named by its owner as it is added, and the first renamed: two passkeys never look alike.
    laptop, phone = ("Laptop", "Phone") if lang == "en" else ("Jobb-PC", "Mobilen min")
    page.fill("#passkey-new-name", laptop)
    page.click("#passkey-add")
    page.wait_for_function("document.querySelectorAll('#passkey-list li').length === 2")
    assert not page.is_disabled("#passkey-list li:first-child .passkey-remove")
    says(page, "#passkey-list li:nth-child(2) strong", laptop)
    typed[0] = phone
    page.click("#passkey-list li:first-child .passkey-rename")
    says(page, "#passkey-list li:first-child strong", phone)
    now = session_cookie(page)
    assert now is not None
    assert [p["name"] for p in who(server, now["value"])["passkeys"]] == [phone, laptop]

    # Signed out, the second authenticator alone signs in.
    page.click("#account-signout")
    page.wait_for_selector("#account-signin")
    sign_in(page)
    signed_in_as(page, name)

    # Signed in, a game this browser played as a guest since is kept on the account page.
    later = kept_round(server, 45 if lang == "en" else 47)
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{later['code']}", json.dumps({"seat": 0, "token": later["token"]})],
    )
    goto(page, local(server) + "/account")
    page.click("#account-claim-btn")
    says(page, "#account-page-message", t["account.claimed"]["one"].replace("{count}", "1"))
    with engine.connect() as conn:
        assert (
            conn.execute(
                select(game_seats.c.account_id).where(
                    game_seats.c.game_id == later["id"], game_seats.c.seat == 0
                )
            ).scalar_one()
            == holder
        )

    # The page follows a change of language.
    other = "nb" if lang == "en" else "en"
    page.select_option("#lang-select", other)
    says(page, ".account-passkeys h2", words(other)["account.passkeys"])
    page.select_option("#lang-select", lang)
    says(page, ".account-passkeys h2", t["account.passkeys"])

    # The first passkey (its authenticator is gone) is removed; the last one cannot be.
    page.wait_for_selector("#passkey-list li")
    assert t["account.passkey_unused"] not in page.inner_text("#passkey-list li:nth-child(2)")
    page.click("#passkey-list li:first-child .passkey-remove")
    page.wait_for_function("document.querySelectorAll('#passkey-list li').length === 1")
    assert page.is_disabled("#passkey-list li .passkey-remove")

    # Delete: the name must be typed; the game stays, without the name.
    page.click(".account-delete summary")
    page.fill("#account-delete-name", "someone else")
    page.click("#account-delete-go")
    says(page, "#account-page-message", t["account.error.delete_name"])
    page.fill("#account-delete-name", name)
    page.click("#account-delete-go")
    page.wait_for_selector("#account-signin")
    assert session_cookie(page) is None
    with engine.connect() as conn:
        assert conn.execute(select(accounts.c.id).where(accounts.c.name == name)).first() is None
        seat = conn.execute(
            select(game_seats.c.account_id).where(game_seats.c.game_id == kept["id"], game_seats.c.seat == 0)
        ).scalar_one()
        info = json.loads(conn.execute(select(games.c.info).where(games.c.id == kept["id"])).scalar_one())
    assert seat is None
    assert name not in json.dumps(info, ensure_ascii=False)
    engine.dispose()

    # The deleted account's passkey, still in the authenticator, signs nobody in.
    sign_in(page)
    says(page, "#account-message", t["account.error.unknown_passkey"])
    assert session_cookie(page) is None


def test_a_guest_sees_sign_in_and_the_account_page_offers_both(pages: Pages, server: ServerProcess) -> None:
    """Without an account: the page offers sign-in and sign-up, and nothing else."""
    for lang, size in (("en", PHONE), ("nb", DESKTOP)):
        t = words(lang)
        page = with_lang(pages.new(size), lang)
        goto(page, local(server) + "/account")
        page.wait_for_selector("#account-page-signin")
        assert page.inner_text("#account-title") == t["account.guest_title"]
        assert page.locator("#passkey-list").count() == 0
        page.click("#account-page-signup")
        page.wait_for_selector("#account-signup-form")
        assert page.locator("#account-claim").count() == 0  # no guest games in this browser
        page.click("#account-close")
        page.wait_for_selector("#account-dialog", state="detached")  # closed and gone


def test_no_passkey_support_and_a_cancelled_prompt_are_said_plainly(
    pages: Pages, server: ServerProcess
) -> None:
    """A browser without WebAuthn gets the dialog's explanation, not a broken button; a
    prompt the person cancels (the browser's NotAllowedError) says so and changes nothing."""
    for lang, size in (("nb", PHONE), ("en", DESKTOP)):
        t = words(lang)
        bare = with_lang(pages.new(size), lang)
        bare.add_init_script("delete window.PublicKeyCredential")
        goto(bare, local(server) + "/")
        bare.click("#account-signin")
        says(bare, "#account-dialog", t["account.no_support"])
        assert bare.locator("#account-signin-go").count() == 0
        page = with_lang(pages.new(size), lang)
        page.add_init_script(
            "navigator.credentials.get = () =>"
            " Promise.reject(new DOMException('cancelled', 'NotAllowedError'))"
        )
        goto(page, local(server) + "/")
        sign_in(page)
        says(page, "#account-message", t["account.error.cancelled"])
        assert session_cookie(page) is None and page.is_visible("#account-signin-go")


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("nb", "phone")])
def test_sessions_are_listed_and_a_stale_one_confirms_once_then_signs_out_everywhere(
    pages: Pages, server: ServerProcess, lang: str, size: str
) -> None:
    """The account page lists each signed-in browser (this device marked, its passkey
    named). Minutes after the sign-in, ending another session asks the authenticator once
    (the server's ``confirm_first``, a confirmation, the change sent again); right after,
    "Sign out everywhere" asks nothing more and ends every session, this one too."""
    t = words(lang)
    name = {"en": "Bea Stale", "nb": "Bø Gammel"}[lang]
    pages.allowed = (*REFUSED, "status of 403")  # the confirm_first answer the page handles
    page = with_lang(pages.new(DESKTOP if size == "desktop" else PHONE), lang)
    page.on("dialog", lambda d: d.accept())  # the confirm before signing out everywhere
    page.add_init_script(
        "{ const get = navigator.credentials.get.bind(navigator.credentials);"
        " window.__prompts = 0;"
        " navigator.credentials.get = (o) => { window.__prompts += 1; return get(o); }; }"
    )
    authenticator(page)
    goto(page, local(server) + "/")
    page.click("#account-signin")
    page.click("#account-to-signup")
    page.fill("#account-name-input", name)
    page.click("#account-signup-go")
    signed_in_as(page, name)
    engine = create_engine(server.database_url)
    try:
        store = AccountStore(engine)
        account = store.by_name(name)
        assert account is not None
        (passkey,) = store.passkeys_of(account.id)
        elsewhere = store.open_session(account.id, credential_id=passkey.id)  # another browser
        with engine.begin() as conn:  # minutes later: no confirmation is fresh any more
            conn.execute(
                update(sessions)
                .where(sessions.c.account_id == account.id)
                .values(confirmed_at=sessions.c.confirmed_at - CONFIRM_SECONDS - 1)
            )
    finally:
        engine.dispose()

    goto(page, local(server) + "/account")
    page.wait_for_function("document.querySelectorAll('#session-list li').length === 2")
    mine = page.locator("#session-list li.current")
    assert mine.count() == 1 and t["account.session_this"] in mine.inner_text()
    other = page.locator("#session-list li:not(.current)")
    assert t["account.session_passkey"].split("{")[0].strip().lower() in other.inner_text().lower()
    axe_check(page, f"account sessions {lang} {size}")
    shot(page, f"account-sessions-{lang}")

    assert page.evaluate("window.__prompts") == 0
    other.locator(".session-end").click()
    page.wait_for_function("document.querySelectorAll('#session-list li').length === 1")
    assert page.evaluate("window.__prompts") == 1  # asked once, then the change was made
    assert who(server, elsewhere) is None
    cookie = session_cookie(page)
    assert cookie is not None and who(server, cookie["value"])["name"] == name

    page.click("#account-signout-everywhere")
    page.wait_for_selector("#account-signin")
    assert session_cookie(page) is None and who(server, cookie["value"]) is None
