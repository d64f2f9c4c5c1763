"""Profiles in the browser (/u/<name>), at both sizes and in both languages.

- A player with kept games and a rating history: the table of rounds per preset with the
  rating, the chart (a line through every rated game, the band, the axes, a title, a
  description and a hidden table of the same points), the recent games with their links.
- The privacy rule as the page shows it: a stranger gets replay links for the games kept
  for anyone with the link only; the owner, signed in, for every game.
- A new account's empty states, an unknown name, no word outside the catalogs, no serious
  axe violation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from sqlalchemy import insert, update

from browser.test_browser import DESKTOP, PHONE, SHOTS, Pages, axe_check, browser, goto, shot
from browser.test_client import SEEN_TEXT, marked, stray_words, with_lang
from browser.test_replay import kept_round
from nomercy.server.base.tables import game_seats, reviews
from nomercy.server.games.store import GameStore
from nomercy.server.players.accounts import SESSION_COOKIE, AccountStore
from nomercy.server.players.ratings import player_of_account, ratings
from nomercy.server.rooms.storage import Storage
from server.conftest import ServerProcess
from server.test_profiles import keep, rate

pytestmark = needs.CHROMIUM

__all__ = ["browser"]  # the fixture, shared with test_browser

#: The browser logs the 404 of an unknown name, and the 403 of a stranger's replay.
REFUSED = ("status of 404", "status of 403")
DAY = 86400.0
START = 1_780_000_000.0  # early June 2026


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server whose Ann has 14 kept rounds (two presets, every other one kept for anyone
    with the link, two reviewed), 12 of them rated; Bob has an account and nothing else.
    The rounds are of rooms 1000 on, apart from the rooms the server makes."""
    folder = tmp_path_factory.mktemp("profiles")
    url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    storage = Storage(url)
    accounts = AccountStore(storage.engine)
    store = GameStore(storage.engine)
    ann = accounts.create("Ann", now=START - 30 * DAY)
    accounts.create("Bob", now=START)
    ids = []
    mu, sigma = 25.0, 25.0 / 3
    for i in range(14):
        preset = "classic" if i % 5 == 4 else "no_mercy"
        won = i % 3 != 1
        at = START + i * DAY / 2
        game = keep(
            store, 1000 + i, at, {0: ann.id}, preset=preset, winner=0 if won else 1,
            access="link" if i % 2 == 0 else "players", seats=2 + i % 4,
        )  # fmt: skip
        ids.append(game)
        if preset == "no_mercy":
            mu += 1.6 if won else -1.1
            sigma *= 0.9
            rate(storage.engine, game, ann.id, "no_mercy", at, mu, sigma)
    with storage.engine.begin() as conn:
        conn.execute(
            insert(ratings).values(
                player=player_of_account(ann.id), preset="no_mercy", mu=mu, sigma=sigma, games=12, wins=8,
                updated_at=START,
            )
        )  # fmt: skip
        conn.execute(insert(reviews).values(game_id=ids[12], review="{}", at=START))
        conn.execute(insert(reviews).values(game_id=ids[11], review="{}", at=START))
    server = ServerProcess(url, log=folder / "server.log").start()
    yield {
        "server": server,
        "ids": ids,
        "ann": accounts.open_session(ann.id),
        "ann_id": ann.id,
        "storage": storage,
    }
    server.stop()
    storage.close()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    p.allowed = REFUSED
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


def profile_page(
    pages: Pages, seeded: dict[str, Any], name: str, size: dict[str, Any], lang: str, me: bool
) -> Any:
    page = with_lang(pages.new(size), lang)
    server: ServerProcess = seeded["server"]
    if me:
        page.context.add_cookies([{"name": SESSION_COOKIE, "value": seeded["ann"], "url": server.url}])
    goto(page, f"{server.url}/u/{name}")
    return page


@pytest.mark.parametrize(
    ("size", "lang", "me"),
    [(DESKTOP, "en", False), (PHONE, "en", True), (DESKTOP, "nb", True), (PHONE, "nb", False)],
    ids=["desktop-en-stranger", "phone-en-owner", "desktop-nb-owner", "phone-nb-stranger"],
)
def test_a_profile_shows_its_rounds_rating_chart_and_games(
    pages: Pages, seeded: dict[str, Any], size: dict[str, Any], lang: str, me: bool
) -> None:
    page = profile_page(pages, seeded, "ann", size, lang, me)  # any spelling of the name: "ann" is Ann
    page.wait_for_selector(".profile-head h1")
    assert page.inner_text(".profile-head h1").startswith("Ann")
    assert page.locator(".profile-head .tag").count() == (1 if me else 0)
    assert page.evaluate("document.title").endswith("Ann")

    # Rounds per preset: 12 of No Mercy (8 won, all rated), 2 Classic (1 won, not rated).
    rows = page.eval_on_selector_all(
        ".profile-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
    )
    classic = "Classic" if lang == "en" else "Klassisk"
    no_mercy = "No Mercy"
    assert [r[0] for r in rows] == [no_mercy, classic]
    assert rows[0][1:4] == ["12", "8", "67%" if lang == "en" else "67\u00a0%"] and rows[1][1:3] == ["2", "1"]
    assert re.fullmatch(r"\d+[.,]\d \(\d+[.,]\d ± \d+[.,]\d\)", rows[0][4]), rows[0][4]
    assert rows[1][4] == ("Not rated" if lang == "en" else "Ikke rangert")

    # The chart: one line through the 12 rated rounds, a point at each, the band, axes,
    # and for screen readers a title, a description and the same numbers as a table.
    line = page.get_attribute(".rating-chart path.rating-line", "d") or ""
    assert line.startswith("M") and line.count("L") == 11
    assert page.locator(".rating-chart circle.rating-point").count() == 12
    assert (page.get_attribute(".rating-chart path.band", "d") or "").endswith("Z")
    assert page.locator(".rating-chart text.axis").count() >= 5
    assert (page.locator(".rating-chart title").text_content() or "").strip()
    assert "mu" in (page.locator(".rating-chart desc").text_content() or "")
    assert page.locator("table.rating-points tbody tr").count() == 12
    assert (
        page.eval_on_selector("table.rating-points", "t => t.parentElement.getBoundingClientRect().width")
        <= 1
    )

    # Recent games, newest first, ten a page: the replay links where this reader may open them.
    ids: list[str] = seeded["ids"]
    games = page.locator(".profile-game")
    assert games.count() == 10
    hrefs = page.eval_on_selector_all(
        ".profile-game", "gs => gs.map(g => [...g.querySelectorAll('a')].map(a => a.getAttribute('href')))"
    )
    newest = list(reversed(ids))[:10]  # ids[13] first; the even ones were kept for the link
    for i, (game, links) in enumerate(zip(newest, hrefs, strict=True)):
        number = 13 - i
        shared = number % 2 == 0
        reviewed = number in (11, 12)
        if me or shared:
            assert links == [f"/g/{game}"] + ([f"/g/{game}#review"] if reviewed else []), (number, links)
        else:
            assert links == [], (number, links)
    if not me:
        assert page.locator(".profile-game .tag").count() == 5
        assert all(game not in page.content() for game in ids[1::2])  # no id of a players-only game
    page.click(".profile-pager button:last-child")  # older
    page.wait_for_function("document.querySelectorAll('.profile-game').length === 4")
    assert page.locator(".profile-pager button:first-child").is_enabled()
    # The last page has no "older": the focus goes to the list's heading, not to nowhere.
    assert page.evaluate("document.activeElement.id") == "profile-games-title"
    page.click(".profile-pager button:first-child")  # newer again
    page.wait_for_function("document.querySelectorAll('.profile-game').length === 10")

    shot(page, f"profile-{'owner' if me else 'stranger'}-{lang}")
    # The games list is below the first screen on a phone: its own picture.
    page.locator(".profile-games").screenshot(
        path=str(SHOTS / f"profile-games-{lang}-{'owner' if me else 'stranger'}.png")
    )
    axe_check(page, "a profile")


def test_empty_states_unknown_names_and_the_language_switch(pages: Pages, seeded: dict[str, Any]) -> None:
    page = profile_page(pages, seeded, "Bob", PHONE, "en", False)
    page.wait_for_selector(".profile-head h1")
    empty = page.locator(".profile .empty").all_inner_texts()
    assert len(empty) == 2 and "Bob" in empty[1] and "rated" in empty[0], empty
    assert page.locator(".rating-chart").count() == 0 and page.locator(".profile-table").count() == 0
    shot(page, "profile-empty-en")
    page.select_option("#lang-select", "nb")  # drawn again in the new words, without a reload
    page.wait_for_function("document.querySelector('.profile-games h2').textContent === 'Siste spill'")
    assert "Bob" in page.locator(".profile .empty").last.inner_text()
    page.wait_for_timeout(100)
    assert page.evaluate("document.title") == "nomercy: Bob"
    axe_check(page, "an empty profile")

    missing = profile_page(pages, seeded, "Nobody", DESKTOP, "nb", False)
    missing.wait_for_selector(".profile-missing h1")
    assert missing.inner_text(".profile-missing h1") == "Ingen spiller her heter Nobody."
    assert missing.get_attribute(".profile-missing a", "href") == "/"


def test_no_word_on_a_profile_comes_from_outside_the_catalogs(pages: Pages, seeded: dict[str, Any]) -> None:
    def serve_marked(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={k: marked(v) for k, v in response.json().items()})

    page = profile_page(pages, seeded, "Ann", DESKTOP, "en", True)
    page.route("**/i18n/en/*.json", serve_marked)
    goto(page, f"{seeded['server'].url}/u/Ann")
    page.wait_for_selector(".rating-chart")
    seen: list[str] = page.evaluate(SEEN_TEXT)
    seen += page.eval_on_selector_all(
        "svg title, svg desc, table.rating-points *", "es => es.map(e => e.textContent)"
    )
    # The months' names are the browser's (Intl), as are the dates around them.
    months: list[str] = page.evaluate(
        """() => [...Array(12).keys()].flatMap(m => ['long', 'short'].map(f =>
             new Intl.DateTimeFormat('en', { month: f }).format(new Date(2026, m, 15))))"""
    )
    pattern = re.compile(
        r"(?:" + "|".join(sorted(map(re.escape, months), key=len, reverse=True)) + r")\b|AM|PM"
    )
    stray = stray_words([pattern.sub(" ", text) for text in seen])
    assert stray == [], stray
    assert json.dumps(seen)  # something was read


def test_the_owner_opens_a_players_only_replay_from_the_profile_on_a_new_device(
    pages: Pages, seeded: dict[str, Any]
) -> None:
    server: ServerProcess = seeded["server"]
    # Kept for its players (the default). The guest who played it sits as "Annika": the
    # names rule refuses a guest the name of an account ("Ann"); her account is set on the
    # seat below, so the profile is hers all the same.
    kept = kept_round(server, 4242, nickname="Annika")
    storage: Storage = seeded["storage"]
    with storage.engine.begin() as conn:  # Ann played it, signed in
        conn.execute(
            update(game_seats)
            .where(game_seats.c.game_id == kept["id"], game_seats.c.seat == 0)
            .values(account_id=seeded["ann_id"])
        )
    # A browser that never held the seat's token, signed in as Ann: the newest game links
    # to its replay, which opens by her session.
    page = profile_page(pages, seeded, "Ann", PHONE, "en", True)
    page.wait_for_selector(".profile-game a")
    assert page.get_attribute(".profile-game a", "href") == f"/g/{kept['id']}"
    page.click(".profile-game a")
    page.wait_for_selector("#replay-title")
    page.wait_for_function(
        "document.querySelector('#rp-slider') && Number(document.querySelector('#rp-slider').max) > 0"
    )
    assert kept["code"] in page.inner_text("#replay-title")
    assert "only the players" not in page.inner_text("#replay-title").lower()
    # A stranger's profile of Ann lists the game without a link; its address is refused.
    stranger = profile_page(pages, seeded, "Ann", DESKTOP, "en", False)
    stranger.wait_for_selector(".profile-game")
    assert stranger.locator(".profile-game").first.locator("a").count() == 0
    goto(stranger, f"{server.url}/g/{kept['id']}")
    stranger.wait_for_function("document.querySelector('#replay-title').textContent.length > 0")
    assert "only the players" in stranger.inner_text("#replay-title").lower()
