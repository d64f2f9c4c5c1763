"""The review per seat (issue 41, item 9): a summary row for each seat, and each seat's own
costliest decisions, opening on the seat the viewer played.

Ann (seat 0) and Bob (seat 1) play with a bot (seat 2); Bob's browser opens the review on
Bob's seat, not on Ann's (the first person) nor on everyone's costliest (mostly the bot's).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import needs
from patience import scaled

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, PHONE, SHOTS, Pages, axe_check, browser, goto
from browser.test_client import with_lang
from browser.test_norwegian import english_card_words, page_words
from server.conftest import ServerProcess, create_room, hello, join_room, start_room
from server.test_game import play_humans

pytestmark = needs.CHROMIUM

__all__ = ["browser"]  # the fixture, shared with test_browser

#: Reviews on few worlds, in Python: quick on a busy machine (minutes at worst).
QUICK = {"NOMERCY_REVIEW_WORLDS": "4", "NOMERCY_HINT_WORLDS": "4", "NOMERCY_REVIEW_NATIVE": "0"}
REVIEW_S = scaled(240)
#: A mistake's lower bound in points of lost win chance, as the page counts them.
GRADES = (0.05, 0.1, 0.2)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("review_seats")
    srv = ServerProcess(f"sqlite:///{folder / 'rooms.sqlite3'}", QUICK, log=folder / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    p.allowed = ("status of 403",)  # the replay's first ask, before it sends Bob's seat token
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


@pytest.fixture(scope="module")
def reviewed(server: ServerProcess) -> dict[str, Any]:
    """A round of Ann, Bob and a bot, kept and reviewed: its code, Bob's token, id, review."""
    made = create_room(server, nickname="Ann", seats=3, bots=1, bot="heuristic", seed=41)
    bob = join_room(server, made["code"], "Bob")
    start_room(server, made["code"], made["token"])
    ws = {0: hello(server, made["code"], made["token"]), 1: hello(server, made["code"], bob["token"])}
    play_humans(ws, random.Random(41))
    for w in ws.values():
        w.close()
    auth = {"Authorization": f"Bearer {bob['token']}"}
    deadline = time.monotonic() + scaled(15)
    games: list[dict[str, Any]] = []
    while not games and time.monotonic() < deadline:
        games = httpx.get(f"{server.url}/api/rooms/{made['code']}/games", headers=auth, timeout=10).json()[
            "games"
        ]
        time.sleep(0.1)
    assert games, "the round was not kept"
    url = f"{server.url}/api/games/{games[0]['id']}/review"
    assert httpx.post(url, json={}, headers=auth, timeout=10).status_code in (200, 202)
    deadline = time.monotonic() + REVIEW_S
    r: dict[str, Any] = {}
    while time.monotonic() < deadline:
        r = httpx.get(url, headers=auth, timeout=10).json()
        if r["status"] in ("done", "failed"):
            break
        time.sleep(0.5)
    assert r.get("status") == "done", r
    return {"code": made["code"], "token": bob["token"], "id": games[0]["id"], "review": r["review"]}


def panel_shots(page: Any, name: str) -> None:
    """The review's panel as a player scrolls to it, at both sizes (``shot`` pictures the
    first screen, where the review is not)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    own = dict(page.viewport_size)
    for size, spec in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(spec["viewport"])
        page.wait_for_function("document.querySelector('#review-seats tbody tr') !== null")
        page.locator("#review-panel").screenshot(path=str(SHOTS / f"{name}-{size}.png"))
    page.set_viewport_size(own)


def costliest(review: dict[str, Any], seat: int) -> list[int]:
    mine = [d for d in review["decisions"] if d["seat"] == seat and not d["forced"] and d["loss"] > 0]
    return [d["index"] for d in sorted(mine, key=lambda d: (-d["loss"], d["index"]))[:5]]


def counts(review: dict[str, Any], seat: int) -> list[str]:
    """The seat's row as the page should show it: decisions, then each grade's count."""
    mine = [d for d in review["decisions"] if d["seat"] == seat and not d["forced"] and d["loss"] is not None]
    low, mid, high = GRADES
    graded = [
        sum(1 for d in mine if low <= d["loss"] < mid),
        sum(1 for d in mine if mid <= d["loss"] < high),
        sum(1 for d in mine if d["loss"] >= high),
    ]
    return [str(len(mine)), *map(str, graded)]


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "en"), (PHONE, "nb")])
def test_the_review_opens_on_the_viewers_seat_with_a_summary_per_seat(
    pages: Pages, server: ServerProcess, reviewed: dict[str, Any], size: dict[str, Any], lang: str
) -> None:
    page = with_lang(pages.new(size), lang)
    goto(page, server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{reviewed['code']}", json.dumps({"seat": 1, "token": reviewed["token"]})],
    )
    goto(page, f"{server.url}/g/{reviewed['id']}")
    # Bob's seat is found once the server says which seat his token played.
    page.wait_for_selector(
        '#review-pick button[data-seat="1"][aria-pressed="true"]', timeout=scaled(30) * 1000
    )
    review = reviewed["review"]
    assert page.get_attribute("#review-worst", "data-seat") == "1"
    shown = [
        int(i)
        for i in page.eval_on_selector_all("#review-worst button.worst", "bs => bs.map(b => b.dataset.index)")
    ]
    assert shown == costliest(review, 1)
    # One summary row per seat; Bob's is marked as the viewer's, and its numbers are his.
    rows = page.eval_on_selector_all(
        "#review-seats tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert len(rows) == 3
    you = "(you)" if lang == "en" else "(du)"
    assert [you in r[0] for r in rows] == [False, True, False]
    for seat, row in enumerate(rows):
        assert row[1:5] == counts(review, seat), (seat, row)
    # Another seat's decisions, on a click: the bot's own, and the chart marks them.
    page.click('#review-pick button[data-seat="2"]')
    page.wait_for_selector('#review-worst[data-seat="2"]')
    shown = [
        int(i)
        for i in page.eval_on_selector_all("#review-worst button.worst", "bs => bs.map(b => b.dataset.index)")
    ]
    assert shown == costliest(review, 2)
    assert page.get_attribute('#review-pick button[data-seat="1"]', "aria-pressed") == "false"
    page.click('#review-pick button[data-seat="1"]')
    page.wait_for_selector('#review-worst[data-seat="1"]')
    # The chart's axis labels are readable at both sizes (they were 5 px on a phone).
    sizes = page.eval_on_selector_all(
        "#review-chart .axis", "ts => ts.map(t => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 9, sizes
    if lang == "nb":  # the decisions' words and the cards' names are Norwegian (item 8)
        assert english_card_words().findall(page_words(page)) == []
    panel_shots(page, f"review-seats-{lang}")
    axe_check(page, "the review's seats")
