"""The leaderboards page and the create form's Rated box, in a real browser, at both sizes
and in both languages: seeded ratings ranked by mu - 3 sigma with their skill range, bots
named as bots, names linking to profiles, pages, the empty board; the Rated box shown to a
signed-in player only, locking the house rules, the timer and the bot choice, and a rated
table's refusal said in the page's language.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from sqlalchemy import create_engine, insert

from browser.test_browser import DESKTOP, PHONE, SHOTS, Pages, axe_check, browser, goto, pages, server, shot
from nomercy.server.players.accounts import SESSION_COOKIE, AccountStore
from nomercy.server.players.ratings import player_of_account, player_of_bot, ratings
from server.conftest import ServerProcess, create_room

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser

#: Names and ratings (mu, sigma, games, wins) of the seeded no_mercy board, best first by
#: mu - 3 sigma; 26 listed (two pages of 25), and one with too few games.
SEEDED = [("Ada", 33.0, 2.0, 60, 40), ("Bo", 36.0, 3.5, 12, 9)]
SEEDED += [(f"Player{i:02d}", 25.0 - i * 0.3, 3.0, 10, 4) for i in range(23)]
HIDDEN = ("Newcomer", 40.0, 5.0, 2, 2)


def with_lang(page: Any, lang: str) -> Any:
    page.add_init_script(f"localStorage.setItem('nomercy:lang', {json.dumps(lang)})")
    return page


def session(server: ServerProcess, name: str) -> str:
    engine = create_engine(server.database_url)
    try:
        store = AccountStore(engine)
        return store.open_session(store.create(name).id)
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def board(server: ServerProcess) -> ServerProcess:
    """The no_mercy board seeded with rows written directly (the ratings' own tests rate games)."""
    engine = create_engine(server.database_url)
    try:
        store = AccountStore(engine)
        rows = []
        for name, mu, sigma, games, wins in [*SEEDED, HIDDEN]:
            player = player_of_account(store.create(name).id)
            rows.append((player, mu, sigma, games, wins))
        rows.append((player_of_bot("expert"), 28.0, 0.8, 400, 250))  # 25.6: second
        with engine.begin() as conn:
            conn.execute(
                insert(ratings),
                [
                    {
                        "player": p,
                        "preset": "no_mercy",
                        "mu": mu,
                        "sigma": s,
                        "games": g,
                        "wins": w,
                        "updated_at": time.time(),  # active: the boards list the last 30 days
                    }
                    for p, mu, s, g, w in rows
                ],
            )
    finally:
        engine.dispose()
    return server


WORDS = {
    "en": {
        "bot": "Bot: Expert",
        "rating": "27.0",
        "range": "33.0 ± 6.0",
        "page": "Page 1 of 2",
        "next": "Next",
    },
    "nb": {
        "bot": "Robot: Ekspert",
        "rating": "27,0",
        "range": "33,0 ± 6,0",
        "page": "Side 1 av 2",
        "next": "Neste",
    },
}


@pytest.mark.parametrize(("lang", "size"), [("en", DESKTOP), ("nb", PHONE)])
def test_the_leaderboard_ranks_seeded_ratings_with_their_range(
    lang: str, size: dict[str, Any], pages: Pages, board: ServerProcess
) -> None:
    words = WORDS[lang]
    page = with_lang(pages.new(size), lang)
    goto(page, board.url + "/leaders/no_mercy")
    page.wait_for_selector(".leader-table tbody tr")
    rows = page.locator(".leader-table tbody tr")
    assert rows.count() == 25
    first = rows.nth(0)
    assert first.locator(".leader-rank").inner_text() == "1"
    assert first.locator(".leader-name a").inner_text() == "Ada"
    assert first.locator(".leader-name a").get_attribute("href") == "/u/Ada"
    assert first.locator(".leader-rating").inner_text().splitlines()[0] == words["rating"]  # 33 - 3 x 2
    # The skill range mu ± 3 sigma: its own column with a bar, or under the rating on a phone.
    where = ".range-small" if size is PHONE else ".range-text"
    assert first.locator(where).is_visible() and first.locator(where).inner_text() == words["range"]
    assert first.locator(".range-bar").is_visible() is (size is DESKTOP)
    second = rows.nth(1)
    assert second.locator(".leader-name").inner_text() == words["bot"]
    assert second.locator(".leader-name a").count() == 0  # a bot level has no profile
    # Bo's mu is the highest, but 3.5 of sigma puts his rating (25.5) third: certainty counts.
    assert rows.nth(2).locator(".leader-name").inner_text() == "Bo"
    assert "Newcomer" not in page.inner_text("#leaders")  # 2 games: under the minimum of 5
    assert page.locator(".leader-page").inner_text() == words["page"]
    assert page.locator('.leader-tab[aria-current="page"]').count() == 1
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    axe_check(page, f"leaderboard ({lang})")
    shot(page, f"leaders-{lang}")

    page.get_by_role("link", name=words["next"]).click()
    page.wait_for_selector(".leader-table tbody tr")
    assert page.url.endswith("/leaders/no_mercy?page=2")
    last = page.locator(".leader-table tbody tr")
    assert last.count() == 1 and last.nth(0).locator(".leader-rank").inner_text() == "26"

    goto(page, board.url + "/leaders/classic")
    page.wait_for_selector(".leader-empty")
    assert "5" in page.inner_text(".leader-empty")
    shot(page, f"leaders-empty-{lang}")


RATED_WORDS = {
    "en": "This table is rated: sign in to take a seat, or watch.",
    "nb": "Dette bordet er rangert: logg inn for å ta plass, eller se på.",
}


@pytest.mark.parametrize(("lang", "size"), [("en", PHONE), ("nb", DESKTOP)])
def test_the_rated_box_sets_up_a_rated_table_for_a_signed_in_player(
    lang: str, size: dict[str, Any], pages: Pages, server: ServerProcess
) -> None:
    guest = with_lang(pages.new(size), lang)
    goto(guest, server.url + "/")
    guest.wait_for_timeout(300)
    assert not guest.is_visible("#rated-box")  # signed out: no Rated box

    page = with_lang(pages.new(size), lang)
    name = f"Rae{lang}"
    page.context.add_cookies([{"name": SESSION_COOKIE, "value": session(server, name), "url": server.url}])
    goto(page, server.url + "/")
    page.wait_for_selector("#rated-box:not([hidden])")
    page.select_option("#turn", "0")
    page.select_option("#bot", "random")
    page.check("#rated")
    assert page.is_visible("#rated-help")
    assert page.input_value("#turn") == "30" and page.is_disabled('#turn option[value="0"]')
    assert page.input_value("#bot") == "casual" and page.is_disabled('#bot option[value="random"]')
    assert page.eval_on_selector_all("#rules-box [data-rule]", "els => els.every((e) => e.disabled)")
    SHOTS.mkdir(parents=True, exist_ok=True)  # the form, where the box is (below the first screen)
    page.locator("#create-form").screenshot(
        path=str(SHOTS / f"rated-box-{lang}-{'phone' if size is PHONE else 'desktop'}.png")
    )
    page.fill("#create-nick", name)
    page.click("#create-form button[type=submit]")
    page.wait_for_function("nomercy.store.get().room && nomercy.store.get().room.rated === true")
    code = page.evaluate("nomercy.store.get().room.code")

    # A guest asking for a seat at the rated table is told, in the page's words, to sign in
    # (the browser logs the refusal's 403: expected here).
    pages.allowed = ("status of 403",)
    goto(guest, f"{server.url}/join/{code}")
    guest.fill("#join-nick", "Gus")
    guest.click("#join-form button[type=submit]")
    guest.wait_for_function(
        f"document.querySelector('#toast').textContent.includes({json.dumps(RATED_WORDS[lang])})"
    )
    assert create_room(server)["room"]["rated"] is False  # an unrated table stays as it was
