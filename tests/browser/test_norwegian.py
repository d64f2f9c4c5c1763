"""Norwegian pages name the cards in Norwegian (issue 41, item 8), and a daily deal's game
that is still closed says why (item 10).

- The daily page, a past day's board and that day's replay, stepped from the deal to the
  end, in Norwegian: no English card word in the visible text nor in the names that screen
  readers hear (the card chips' labels and titles).
- Today's daily game, opened from the browser that played it, says that a daily game opens
  for everyone when its day is over, not that only its players may open it.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import needs
from patience import scaled

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, PHONE, Pages, axe_check, browser, goto, shot
from browser.test_client import with_lang
from server.conftest import ServerProcess, hello
from server.test_game import play_humans

pytestmark = needs.CHROMIUM

__all__ = ["browser", "english_card_words", "page_words"]

YESTERDAY, TODAY = "2026-12-04", "2026-12-05"
ENV = {"NOMERCY_TEST_OPTIONS": "1", "NOMERCY_BOT_DELAY": "0.05", "NOMERCY_REACTION_DELAY": "1.5"}
#: The id of yesterday's kept game (a guest's: off the board, but open to anyone now).
KEPT: dict[str, str] = {}
CATALOGS = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "i18n" / "catalogs"


def english_card_words() -> re.Pattern[str]:
    """The words of the English card names that Norwegian names otherwise ("Wild", "Draw",
    "Discard"...), from the catalogs themselves, as whole words in their English spelling."""
    en = json.loads((CATALOGS / "en" / "game.json").read_text(encoding="utf-8"))
    nb = json.loads((CATALOGS / "nb" / "game.json").read_text(encoding="utf-8"))
    words = {"Roulette"}
    for key in (k for k in en if k.startswith("face.")):
        ours = set(nb[key].split())
        words |= {w for w in en[key].split() if not w.isdigit() and w not in ours and w[0].isupper()}
    words -= {"All", "Color", "Hands"}  # too common outside a card's name to tell
    return re.compile(r"\b(" + "|".join(sorted(words)) + r")\b")


def page_words(page: Any) -> str:
    """What a reader sees and what a screen reader says: the text, labels and titles."""
    return str(
        page.evaluate(
            """() => [document.body.innerText,
                ...[...document.querySelectorAll('[aria-label], [title]')]
                  .filter((e) => e.getClientRects().length)
                  .flatMap((e) => [e.getAttribute('aria-label') || '', e.getAttribute('title') || ''])]
                .join('\\n')"""
        )
    )


def play_daily(http: httpx.Client, server: ServerProcess, seed: int) -> dict[str, Any]:
    made: dict[str, Any] = http.post("/api/daily/no_mercy", json={"nickname": "Bob"}).json()
    ws = hello(server, made["code"], made["token"])
    play_humans({0: ws}, random.Random(seed))
    ws.close()
    return made


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Yesterday a guest played the deal; today the server runs on the next day."""
    folder = tmp_path_factory.mktemp("norwegian")
    url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    before = ServerProcess(url, {**ENV, "NOMERCY_DAILY_DAY": YESTERDAY}, log=folder / "before.log").start()
    try:
        with httpx.Client(base_url=before.url, headers={"Origin": before.url}, timeout=15) as http:
            made = play_daily(http, before, 4)
            auth = {"Authorization": f"Bearer {made['token']}"}
            deadline = time.monotonic() + scaled(20)
            while not (
                games := http.get(f"/api/rooms/{made['code']}/games", headers=auth).json().get("games")
            ):
                assert time.monotonic() < deadline, "yesterday's game was not kept"
                time.sleep(0.1)
            KEPT["yesterday"] = games[0]["id"]
    finally:
        before.stop()
    srv = ServerProcess(url, {**ENV, "NOMERCY_DAILY_DAY": TODAY}, log=folder / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    p.allowed = ("status of 403",)  # a closed daily game's answer
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_daily_pages_and_their_replay_name_every_card_in_norwegian(
    pages: Pages, server: ServerProcess, size: dict[str, Any]
) -> None:
    english = english_card_words()
    page = with_lang(pages.new(size), "nb")
    goto(page, f"{server.url}/daily")
    page.wait_for_selector(".daily-preset")
    assert english.findall(page_words(page)) == []
    goto(page, f"{server.url}/daily/{YESTERDAY}")
    page.wait_for_selector(".daily-board, .daily-boards .empty")
    assert english.findall(page_words(page)) == []
    goto(page, f"{server.url}/g/{KEPT['yesterday']}")
    page.wait_for_selector("#replay-bar:not([hidden])", timeout=int(scaled(15) * 1000))
    last = int(page.eval_on_selector("#rp-slider", "e => Number(e.max)"))
    assert last > 0
    found: set[str] = set()
    for frame in range(last + 1):  # every frame's lines, the log and the cards' names
        page.eval_on_selector(
            "#rp-slider", "(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", frame
        )
        found |= set(english.findall(page_words(page)))
    assert found == set(), found
    shot(page, "replay-daily-nb")
    axe_check(page, "a daily replay in Norwegian")


def test_todays_daily_game_says_it_opens_when_the_day_is_over(pages: Pages, server: ServerProcess) -> None:
    """The browser that played today's deal keeps its seat token; the server keeps the game
    closed to everyone until the day is over, and the page says so, in each language."""
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=15) as http:
        made = play_daily(http, server, 5)
        auth = {"Authorization": f"Bearer {made['token']}"}
        deadline = time.monotonic() + scaled(20)
        games: list[dict[str, Any]] = []
        while not games:
            assert time.monotonic() < deadline, "today's game was not kept"
            games = http.get(f"/api/rooms/{made['code']}/games", headers=auth).json().get("games") or []
            time.sleep(0.1)
    assert httpx.get(f"{server.url}/api/games/{games[0]['id']}", headers=auth, timeout=10).status_code == 403
    for lang, size in (("nb", PHONE), ("en", DESKTOP)):
        page = with_lang(pages.new(size), lang)
        goto(page, server.url + "/")
        page.evaluate(
            "([k, v]) => localStorage.setItem(k, v)",
            [f"nomercy:seat:{made['code']}", json.dumps({"seat": 0, "token": made["token"]})],
        )
        goto(page, f"{server.url}/g/{games[0]['id']}")
        page.wait_for_function("document.getElementById('replay-title').textContent.length > 0")
        said = page.inner_text("#replay-title")
        assert said == page.evaluate(f"nomercy.ctx.t('replay.daily_closed', {{ day: '{TODAY}' }})"), said
        assert TODAY in said and said != page.evaluate("nomercy.ctx.t('replay.forbidden')")
        shot(page, f"replay-daily-closed-{lang}")
