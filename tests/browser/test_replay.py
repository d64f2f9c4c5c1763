"""Kept games in the browser: the replay page, the review, your games, records and the coach.

- /g/<id> steps through a kept round by buttons, keys and the slider, every hand face up,
  the log in words beside it; the share button copies the link. A game for its players
  opens with the seat token this browser keeps; without one, or for an unknown id, the
  page says so.
- The review is asked for, followed and drawn: one line per seat, the costliest decisions
  as buttons that move the replay there, the same numbers as a table.
- "Your games" on the landing page, a room's rounds and the end screen's replay link.
- The record downloads, and opens again from the file input or a drop; a file that is not
  JSON, not a record, too large or with an illegal move names the step that fails.
- The coach answers at a table of bots (not at one with another person), and the replay
  of that round says a hint was used.
- No word outside the catalogs on these pages, and no serious axe violation, at both sizes
  and in both languages.
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

from browser.test_browser import DESKTOP, PHONE, Pages, axe_check, browser, goto, shot, wait_turn
from browser.test_client import SEEN_TEXT, marked, stray_words, with_lang
from server.conftest import ServerProcess, create_room, hello, start_room
from server.test_game import play_humans

pytestmark = needs.CHROMIUM

#: The expert's review runs in the server's pool: on a busy machine it takes minutes.
REVIEW_MS = int(scaled(240) * 1000)

__all__ = ["browser"]  # the fixture, shared with test_browser

#: Reviews and hints on few worlds, in Python: quick on a busy machine.
QUICK = {"NOMERCY_REVIEW_WORLDS": "4", "NOMERCY_HINT_WORLDS": "4", "NOMERCY_REVIEW_NATIVE": "0"}
#: The browser logs a refused request (the first ask for a players' game, without a token;
#: the busy answer to a review)
REFUSED = ("status of 403", "status of 404", "status of 400", "status of 413", "status of 429")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("replay")
    srv = ServerProcess(f"sqlite:///{folder / 'rooms.sqlite3'}", QUICK, log=folder / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    p.allowed = REFUSED
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


def kept_round(server: ServerProcess, seed: int, nickname: str = "Ann", **body: Any) -> dict[str, Any]:
    """A room of one person (Ann unless named) and two bots played to its end: code, token, kept game."""
    made = create_room(server, nickname=nickname, seats=3, bots=2, bot="heuristic", seed=seed, **body)
    start_room(server, made["code"], made["token"])
    ws = hello(server, made["code"], made["token"])
    play_humans({0: ws}, random.Random(seed))
    ws.close()
    games = games_of(server, made["code"], made["token"])
    return {"code": made["code"], "token": made["token"], "id": games[0]["id"], "result": games[0]["result"]}


def games_of(server: ServerProcess, code: str, token: str) -> list[dict[str, Any]]:
    """The room's kept games as its player lists them, once its round is kept (keeping runs
    off the event loop)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        games: list[dict[str, Any]] = httpx.get(
            f"{server.url}/api/rooms/{code}/games", headers={"Authorization": f"Bearer {token}"}, timeout=10
        ).json()["games"]
        if games:
            return games
        time.sleep(0.1)
    raise AssertionError("the round was not kept")


def the_game(server: ServerProcess, kept: dict[str, Any]) -> dict[str, Any]:
    r = httpx.get(
        f"{server.url}/api/games/{kept['id']}",
        headers={"Authorization": f"Bearer {kept['token']}"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def holding(
    pages: Pages, server: ServerProcess, kept: dict[str, Any], size: dict[str, Any], lang: str
) -> Any:
    """A page of the browser Ann played in (it keeps her seat token)."""
    page = with_lang(pages.new(size), lang)
    goto(page, server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{kept['code']}", json.dumps({"seat": 0, "token": kept["token"]})],
    )
    return page


def position(page: Any) -> int:
    return int(page.eval_on_selector("#rp-slider", "e => Number(e.value)"))


def shown_cards(page: Any) -> int:
    return int(page.locator("#seat-ring .seat .shown .chip-card").count())


def at(game: dict[str, Any], frame: int) -> int:
    t = game["frames"][frame]["table"]
    return sum(len(h) for seat, h in enumerate(t["hands"]) if t["active"][seat])


@pytest.fixture(scope="module")
def kept(server: ServerProcess) -> dict[str, Any]:
    return kept_round(server, 31)


# -- the replay ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("nb", "phone")])
def test_the_replay_steps_by_buttons_keys_and_slider_with_every_hand(
    pages: Pages, server: ServerProcess, kept: dict[str, Any], lang: str, size: str
) -> None:
    game = the_game(server, kept)
    last = len(game["frames"]) - 1
    page = holding(pages, server, kept, DESKTOP if size == "desktop" else PHONE, lang)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    goto(page, f"{server.url}/g/{kept['id']}")
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert kept["code"] in page.inner_text("#replay-title")
    assert position(page) == 0 and page.is_disabled("#rp-back") and not page.is_disabled("#rp-fwd")
    assert shown_cards(page) == at(game, 0)  # every hand face up
    assert page.is_hidden("#hand") and page.is_hidden("#actions")
    shot(page, f"replay-deal-{lang}")
    page.click("#rp-fwd")
    assert position(page) == 1 and shown_cards(page) == at(game, 1)
    assert page.locator("#rp-now li").count() >= 1  # what that move did, in words
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert position(page) == 3
    page.keyboard.press("ArrowLeft")
    assert position(page) == 2 and shown_cards(page) == at(game, 2)
    page.keyboard.press("End")
    assert position(page) == last and page.is_disabled("#rp-fwd")
    assert page.locator("#status .banner").count() == 1  # the round's winner
    assert page.locator("#log li").count() >= last // 2
    entry = page.locator("#log li[data-frame]").nth(3)
    frame = int(entry.get_attribute("data-frame") or -1)
    entry.click()  # an entry of the log goes back to its move
    assert position(page) == frame
    page.keyboard.press("Home")
    assert position(page) == 0 and page.locator("#log li").count() == 1
    page.fill("#rp-slider", str(last // 2))
    assert position(page) == last // 2 and shown_cards(page) == at(game, last // 2)
    page.click("#rp-end")
    assert position(page) == last
    page.click("#rp-start")
    # Space on a focused button is that button's click (the page leaves it to the browser),
    # and whether #rp-start keeps the focus once it is disabled at the start varies: the
    # key is tried as a person would after looking away from the buttons.
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press(" ")  # play
    assert page.get_attribute("#rp-play", "aria-pressed") == "true"
    page.wait_for_function("Number(document.querySelector('#rp-slider').value) >= 2", timeout=5_000)
    page.keyboard.press(" ")  # pause
    assert page.get_attribute("#rp-play", "aria-pressed") == "false"
    stopped = position(page)
    page.wait_for_timeout(1_200)
    assert position(page) == stopped
    page.click("#rp-share")
    assert page.evaluate("navigator.clipboard.readText()") == f"{server.url}/g/{kept['id']}"
    page.fill("#rp-slider", str(last // 2))
    shot(page, f"replay-middle-{lang}")
    axe_check(page, "the replay")


def test_who_may_not_open_a_game_is_told_so(
    pages: Pages, server: ServerProcess, kept: dict[str, Any]
) -> None:
    stranger = pages.new(DESKTOP)
    goto(stranger, f"{server.url}/g/{kept['id']}")
    assert kept["code"] not in stranger.inner_text("#replay-title")  # the refusal names no room
    assert "only the players" in stranger.inner_text("#replay-title").lower()
    assert stranger.is_hidden("#rp-slider") and stranger.is_hidden(".felt")
    goto(stranger, f"{server.url}/g/NoSuchGameAtAllXyzw12")
    assert "no kept game" in stranger.inner_text("#replay-title").lower()
    # A game open to anyone with the link needs no token.
    public = kept_round(server, 32, replays="link")
    goto(stranger, f"{server.url}/g/{public['id']}")
    stranger.wait_for_selector("#rp-slider", state="visible")


# -- the review ---------------------------------------------------------------------------------


def test_the_review_is_followed_drawn_and_jumps_to_a_costly_decision(
    pages: Pages, server: ServerProcess, kept: dict[str, Any]
) -> None:
    page = holding(pages, server, kept, DESKTOP, "en")
    goto(page, f"{server.url}/g/{kept['id']}")
    page.wait_for_selector("#rp-review:not([hidden])")
    page.click("#rp-review")
    page.wait_for_selector("#review-worst-title:not([hidden])", timeout=REVIEW_MS)
    r = httpx.get(
        f"{server.url}/api/games/{kept['id']}/review",
        headers={"Authorization": f"Bearer {kept['token']}"},
        timeout=10,
    ).json()
    assert r["status"] == "done"
    decisions = [d for d in r["review"]["decisions"] if not d["forced"] and d["win"] is not None]
    seats = {d["seat"] for d in decisions}
    assert page.locator("#review-chart path.seat-line").count() == len(seats)
    assert page.get_attribute("#review-chart svg", "role") == "img"
    assert page.locator("#review-table tbody tr").count() == len(decisions)  # the same numbers, as a table
    # The list opens on Ann's seat (0, the seat this browser played): her own costliest.
    anns = (d for d in decisions if d["loss"] > 0 and d["seat"] == 0)
    costly = sorted(anns, key=lambda d: (-d["loss"], d["index"]))[:5]
    assert page.locator("#review-worst button.worst").count() == len(costly)
    if costly:
        first = page.locator("#review-worst button.worst").first
        assert "±" in first.inner_text() and "%" in first.inner_text()
        number = first.locator("strong").inner_text().split(",")[0]  # "Move 12"
        first.click()
        # The frame of that move: numbered as the review numbers it, the chart's mark on it,
        # the table in view (the jump scrolled it away before).
        assert position(page) == costly[0]["index"] + 1
        assert page.inner_text("#rp-pos").startswith(number + " "), (number, page.inner_text("#rp-pos"))
        now = page.get_attribute("#review-now", "data-at")
        assert now == str(costly[0]["index"] + 1)
        page.wait_for_function(
            "(() => { const r = document.getElementById('felt').getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= innerHeight; })()"
        )
        # The action chosen and the expert's choice are named in words (the labels the
        # server sends), in each language.
        assert all(d["chosen_label"] and d["best_label"] for d in costly)
        for lang in ("en", "nb"):
            words = catalog(lang)
            if lang == "nb":
                page = holding(pages, server, kept, DESKTOP, "nb")
                goto(page, f"{server.url}/g/{kept['id']}")
                page.wait_for_selector("#review-worst-title:not([hidden])", timeout=REVIEW_MS)
            entry = page.locator("#review-worst button.worst").first
            best = entry.locator(".best").inner_text().lower()
            chose = entry.locator(".chose").inner_text().lower()
            assert best.startswith(str(words["review.expert"]).lower()), best
            assert str(words["review.expert_other"]).lower() not in best
            assert all(w in best for w in fixed_words(words, costly[0]["best_label"])), (best, costly[0])
            assert all(w in chose for w in fixed_words(words, costly[0]["chosen_label"])), (chose, costly[0])
    shot(page, "replay-review")
    axe_check(page, "the review")


def catalog(lang: str) -> dict[str, Any]:
    """The browser's words in ``lang`` (its catalogs of the game and of the web client)."""
    root = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "i18n" / "catalogs" / lang
    words: dict[str, Any] = {}
    for part in ("game", "web"):
        words |= json.loads((root / f"{part}.json").read_text(encoding="utf-8"))
    return words


def fixed_words(words: dict[str, Any], label: dict[str, Any]) -> list[str]:
    """The words a label shows whatever its parameters are: its sentence's text between the
    placeholders (of the plural form its count takes), and the name of a colour it names;
    in lower case (a sentence's first letter is a capital)."""
    text = words[label["key"]]
    if isinstance(text, dict):
        text = text["one"] if label["params"].get("count") == 1 and "one" in text else text["other"]
    parts = [p.strip(" ,.!:") for p in re.split(r"\{[^}]*\}", str(text))]
    color = label["params"].get("color")
    named = [str(words[f"color.{color}"])] if color else []
    return [p.lower() for p in [*parts, *named] if p]


def test_a_busy_review_says_try_again(pages: Pages, server: ServerProcess) -> None:
    kept = kept_round(server, 33)  # its own game: the module's one may be reviewed already
    page = holding(pages, server, kept, PHONE, "nb")
    goto(page, f"{server.url}/g/{kept['id']}")
    page.route(
        f"**/api/games/{kept['id']}/review",
        lambda route: (
            route.fulfill(status=429, json={"detail": {"code": "busy", "message": "busy"}})
            if route.request.method == "POST"
            else route.fallback()
        ),
    )
    page.wait_for_selector("#replay-bar:not([hidden])")
    page.wait_for_selector("#rp-review:not([hidden])")  # shown once the server says none exists
    page.click("#rp-review")
    page.wait_for_function("document.querySelector('#review-status').textContent.includes('Opptatt')")
    assert not page.is_disabled("#rp-review")


# -- your games, a room's rounds, the end screen ---------------------------------------------------


def test_your_games_a_rooms_rounds_and_the_end_screens_link(
    pages: Pages, server: ServerProcess, kept: dict[str, Any]
) -> None:
    page = holding(pages, server, kept, DESKTOP, "en")
    goto(page, server.url + "/")
    page.wait_for_selector("#my-games-list li")
    row = page.locator("#my-games-list li").first
    assert row.locator("a").get_attribute("href") == f"/g/{kept['id']}"
    won = kept["result"]["winner"] == 0
    assert ("you won" if won else "you lost") in row.inner_text().lower()
    assert kept["code"] in row.inner_text()
    shot(page, "home-your-games")
    axe_check(page, "the landing page with your games")
    goto(page, f"{server.url}/join/{kept['code']}")
    page.wait_for_selector("#end:not([hidden])")
    page.wait_for_selector("#end-replay:not([hidden])")
    assert page.get_attribute("#end-replay", "href") == f"/g/{kept['id']}"
    assert page.locator("#rounds-list a").first.get_attribute("href") == f"/g/{kept['id']}"
    page.click("#end-replay")
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert page.url.endswith(f"/g/{kept['id']}")


# -- records: download, upload, drop, refusals --------------------------------------------------


def test_a_record_downloads_and_opens_again_and_bad_files_name_their_step(
    pages: Pages, server: ServerProcess, kept: dict[str, Any], tmp_path: Path
) -> None:
    game = the_game(server, kept)
    page = holding(pages, server, kept, DESKTOP, "en")
    goto(page, f"{server.url}/g/{kept['id']}")
    page.wait_for_selector("#replay-bar:not([hidden])")
    with page.expect_download() as info:
        page.click("#rp-download")
    saved = tmp_path / "game.json"
    info.value.save_as(saved)
    record = json.loads(saved.read_text())
    assert record["actions"] == game["record"]["actions"]
    page.set_input_files("#rp-file", str(saved))
    page.wait_for_function("document.querySelector('#replay-title').textContent.includes('game record')")
    assert int(page.eval_on_selector("#rp-slider", "e => Number(e.max)")) == len(game["frames"]) - 1
    assert page.is_hidden("#rp-share") and page.is_hidden("#review-panel")

    def refused(name: str, body: bytes) -> str:
        path = tmp_path / name
        path.write_bytes(body)
        page.set_input_files("#rp-file", str(path))
        page.wait_for_selector("#file-error:not([hidden])")
        text = str(page.inner_text("#file-error"))
        assert name in text
        step = str(page.get_attribute("#file-error", "data-step"))
        page.click("#file-error-close")
        return step

    assert refused("words.json", b"this is not json") == "parse"
    assert refused("other.json", b'{"format": "something else"}') == "load"
    assert refused("big.json", b'{"x": "' + b"a" * 300_000 + b'"}') == "read"
    bad = dict(record)
    bad["actions"] = [*record["actions"][:3], [bad["actions"][3][0], "challenge"], *record["actions"][4:]]
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(bad))
    page.set_input_files("#rp-file", str(illegal))
    page.wait_for_selector("#file-error:not([hidden])")
    assert page.get_attribute("#file-error", "data-step") == "replay"
    # The refused move by its place, in words: the record's players have no names.
    said = page.inner_text("#file-error-text")
    assert "failed" in said and f"move 4, by Player {bad['actions'][3][0] + 1}," in said, said
    shot(page, "replay-bad-file")
    page.click("#file-error-close")
    # A drop on the landing page opens the replay.
    goto(page, server.url + "/")
    page.evaluate(
        DROP,
        saved.read_text(),
    )
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert page.is_hidden("#drop-zone")


DROP = """(text) => {
  const dt = new DataTransfer();
  dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
  for (const type of ['dragover', 'drop']) {
    document.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }
}"""


# -- the coach ----------------------------------------------------------------------------------


def test_the_coach_at_a_table_of_bots_and_the_replay_says_so(pages: Pages, server: ServerProcess) -> None:
    made = create_room(server, nickname="Ann", seats=2, bots=1, bot="heuristic", seed=44)
    start_room(server, made["code"], made["token"])
    page = pages.sit(server, made["code"], made["token"], 0, DESKTOP)
    wait_turn(page)
    assert page.is_visible("#hint-btn")
    page.keyboard.press("a")
    page.wait_for_function("document.querySelector('#coach').textContent.includes('%')", timeout=30_000)
    said = page.inner_text("#coach")
    assert said.startswith("Coach:") and "Chance to win the round" in said
    shot(page, "coach-hint")
    page.close()
    ws = hello(server, made["code"], made["token"])
    play_humans({0: ws}, random.Random(44))
    ws.close()
    kept = {
        "code": made["code"],
        "token": made["token"],
        "id": games_of(server, made["code"], made["token"])[0]["id"],
    }
    game = the_game(server, kept)
    assert game["hints"], "the record keeps the hint"
    replay = holding(pages, server, kept, PHONE, "en")
    goto(replay, f"{server.url}/g/{kept['id']}")
    assert "hint" in replay.inner_text("#replay-meta")
    step = game["hints"][0]["step"]
    frame = next(i for i, f in enumerate(game["frames"]) if f.get("hint"))
    replay.fill("#rp-slider", str(frame))
    assert replay.is_visible("#rp-hint") and "hint" in replay.inner_text("#rp-hint")
    assert step >= 0


def test_no_hint_at_a_table_with_another_person(pages: Pages, server: ServerProcess) -> None:
    from server.conftest import join_room

    made = create_room(server, nickname="Ann", seats=2, bots=0)
    bob = join_room(server, made["code"], "Bob")
    start_room(server, made["code"], made["token"])
    page = pages.sit(server, made["code"], bob["token"], 1, DESKTOP)
    page.wait_for_selector("#hand .card")
    assert page.is_hidden("#hint-btn")


# -- words and accessibility ----------------------------------------------------------------------


def test_no_word_outside_the_catalogs_on_the_kept_games_pages(
    pages: Pages, server: ServerProcess, kept: dict[str, Any], tmp_path: Path
) -> None:
    def serve_marked(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={k: marked(v) for k, v in response.json().items()})

    seen: list[str] = []
    for size in (DESKTOP, PHONE):
        page = holding(pages, server, kept, size, "en")
        page.route("**/i18n/en/*.json", serve_marked)
        goto(page, server.url + "/")
        page.wait_for_selector("#my-games-list li")
        seen += page.evaluate(SEEN_TEXT)
        goto(page, f"{server.url}/g/{kept['id']}")
        page.wait_for_selector("#replay-bar:not([hidden])")
        # The button shows once the server says no review exists; a review asked for by
        # another test (done or under way) shows instead.
        page.wait_for_selector(
            "#rp-review:not([hidden]):not([disabled]), #review-worst-title:not([hidden]),"
            " #rp-review[disabled]"
        )
        if page.is_visible("#rp-review") and page.is_enabled("#rp-review"):
            page.click("#rp-review")
        page.wait_for_selector("#review-worst-title:not([hidden])", timeout=REVIEW_MS)
        page.click("#review-table-box summary")
        page.keyboard.press("End")
        seen += page.evaluate(SEEN_TEXT)
        path = tmp_path / "not-a-record.json"
        path.write_text("[1, 2")
        page.set_input_files("#rp-file", str(path))
        page.wait_for_selector("#file-error:not([hidden])")
        seen += [t.replace("not-a-record.json", " ") for t in page.evaluate(SEEN_TEXT)]
    stranger = pages.new(DESKTOP)
    stranger.route("**/i18n/en/*.json", serve_marked)
    goto(stranger, f"{server.url}/g/{kept['id']}")
    seen += stranger.evaluate(SEEN_TEXT)
    assert sum("⟪" in t for t in seen) > 100
    assert stray_words(seen) == []
