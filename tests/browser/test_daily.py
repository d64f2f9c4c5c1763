"""The daily deal in the browser (/daily), at both sizes and in both languages.

- The page: today's deal per preset with its Play button, the time left, the day's board,
  and the day before's board, whose replay (open to all once that day is over) opens.
- A signed-in player plays today's deal to its end through the page, and finds their
  result on the page and on the board; the deal is dealt once (no rematch).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser.test_browser import DESKTOP, PHONE, Pages, axe_check, browser, goto, shot, take_turn
from browser.test_client import with_lang
from nomercy.server.players.accounts import SESSION_COOKIE, AccountStore
from nomercy.server.rooms.storage import Storage
from server.conftest import ServerProcess, hello
from server.test_game import play_humans

pytestmark = needs.CHROMIUM

__all__ = ["browser"]  # the fixture, shared with test_browser

YESTERDAY, TODAY = "2026-12-04", "2026-12-05"
ENV = {"NOMERCY_TEST_OPTIONS": "1", "NOMERCY_BOT_DELAY": "0.05", "NOMERCY_REACTION_DELAY": "1.5"}


def session(url: str, name: str) -> str:
    storage = Storage(url)
    try:
        accounts = AccountStore(storage.engine)
        account = accounts.by_name(name) or accounts.create(name)
        return accounts.open_session(account.id)
    finally:
        storage.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Yesterday Ann played the deal (through the API, signed in); today is the next day."""
    folder = tmp_path_factory.mktemp("daily")
    url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    before = ServerProcess(url, {**ENV, "NOMERCY_DAILY_DAY": YESTERDAY}, log=folder / "before.log").start()
    try:
        jar = {SESSION_COOKIE: session(url, "Ann")}
        with httpx.Client(
            base_url=before.url, headers={"Origin": before.url}, cookies=jar, timeout=15
        ) as http:
            made = http.post("/api/daily/no_mercy", json={"nickname": "Ann"}).json()
            assert made["rated"], made
            ws = hello(before, made["code"], made["token"])
            play_humans({0: ws}, random.Random(4))
            ws.close()
            deadline = time.monotonic() + 20
            while not http.get(f"/api/daily/{YESTERDAY}/no_mercy").json()["total"]:
                assert time.monotonic() < deadline, "yesterday's result was not written"
                time.sleep(0.1)
    finally:
        before.stop()
    srv = ServerProcess(url, {**ENV, "NOMERCY_DAILY_DAY": TODAY}, log=folder / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "en"), (PHONE, "nb")], ids=["desktop-en", "phone-nb"])
def test_the_page_and_yesterdays_replay(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str
) -> None:
    page = with_lang(pages.new(size), lang)
    goto(page, f"{server.url}/daily")
    page.wait_for_selector(".daily-preset")
    presets = page.eval_on_selector_all(".daily-preset", "ps => ps.map(p => p.dataset.preset)")
    assert "no_mercy" in presets and len(presets) >= 2
    assert page.locator(".daily-play").count() == len(presets)
    assert page.locator("#daily-nick").count() == 1  # a guest names themself, off the board
    left = page.inner_text(".daily-left")
    assert ("UTC" in left) and any(ch.isdigit() for ch in left)
    empty = page.inner_text(".daily-boards .empty")
    assert empty and empty == page.evaluate("nomercy.ctx.t('daily.board_empty')"), (
        empty
    )  # today: nobody yet, in the page's language
    assert page.evaluate("document.documentElement.lang") == lang
    shot(page, f"daily-today-{lang}")
    axe_check(page, "the daily deal")

    page.click(".daily-days a")  # the day before
    page.wait_for_url(f"**/daily/{YESTERDAY}")
    page.wait_for_selector(".daily-board tbody tr")
    row = page.locator(".daily-board tbody tr").first
    assert row.locator("td.name a").inner_text() == "Ann"
    assert row.locator("td.name a").get_attribute("href") == "/u/Ann"
    assert page.locator(".daily-today").count() == 0  # a past day has no Play buttons
    shot(page, f"daily-yesterday-{lang}")
    row.locator("a[href^='/g/']").first.click()
    page.wait_for_selector("#replay-bar:not([hidden])", timeout=15_000)  # open to anyone now


def test_a_day_that_is_not_one_or_has_not_come_is_said_in_the_pages_language(
    pages: Pages, server: ServerProcess
) -> None:
    """/daily/2026-02-30 and a day after today: a sentence of the catalog, not the server's
    English text, on the Norwegian page."""
    page = with_lang(pages.new(PHONE), "nb")
    for day, key in (("2026-02-30", "daily.bad_day"), ("2026-12-09", "daily.not_yet")):
        goto(page, f"{server.url}/daily/{day}")
        page.wait_for_selector("#page-root > .note")
        said = page.inner_text("#page-root > .note")
        assert said == page.evaluate(f"nomercy.ctx.t('{key}', {{day: '{day}'}})"), said
        assert day in said and "written" not in said and "has not come" not in said


def test_a_signed_in_player_plays_todays_deal_to_its_end(
    pages: Pages, server: ServerProcess, tmp_path: Path
) -> None:
    page = with_lang(pages.new(DESKTOP), "en")
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": session(server.database_url, "Bea"), "url": server.url}]
    )
    goto(page, f"{server.url}/daily")
    page.wait_for_selector(".daily-preset[data-preset='no_mercy']")
    mine = page.locator(".daily-preset[data-preset='no_mercy']")
    assert mine.locator(".note").inner_text() == "Your try for the board"
    assert page.locator("#daily-nick").count() == 0  # signed in: the account's name
    mine.locator(".daily-play").click()
    page.wait_for_url("**/join/*")
    page.wait_for_selector("#screen-table:not([hidden])", timeout=15_000)
    deadline = time.monotonic() + 240
    page.set_default_timeout(3000)  # a control the bots' move just took away is passed over
    while not page.is_visible("#end"):
        assert time.monotonic() < deadline, "the round did not end"
        try:
            if not take_turn(page):
                page.wait_for_timeout(100)
        except PlaywrightTimeout:
            continue
    page.set_default_timeout(30_000)
    # Dealt once: no rematch, no replay before the day is over; the way back to the board.
    page.wait_for_selector("#end-daily:not([hidden])")
    assert page.locator("#rematch-btn").is_hidden() and page.locator("#end-replay").is_hidden()
    assert page.inner_text("#end-rematch") == page.evaluate("nomercy.ctx.t('daily.end_note')")  # on the board
    shot(page, "daily-end")
    goto(page, f"{server.url}/daily")
    page.wait_for_selector(".daily-preset[data-preset='no_mercy']")
    deadline = time.monotonic() + 20
    while "moves" not in mine.locator(".note").inner_text():
        assert time.monotonic() < deadline, mine.locator(".note").inner_text()
        page.reload()
        page.wait_for_selector(".daily-preset[data-preset='no_mercy']")
    assert mine.locator(".daily-play").inner_text() == "Play again (practice)"
    names = page.eval_on_selector_all(".daily-board td.name", "ts => ts.map(t => t.textContent)")
    assert names == ["Bea"]
    assert page.locator(".daily-board a[href^='/g/']").count() == 0  # today's replays stay closed
