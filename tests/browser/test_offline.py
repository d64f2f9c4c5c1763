"""The offline app (issue 42): ``nomercy site build``'s folder, served by a plain static
file server (Python's ``http.server``, not ``nomercy serve``), in headless Chromium.

Each test loads the site once with the network on, waits for the service worker, turns
the network off (``context.set_offline``), reloads, and then, offline, plays a round and a
match against three bots to the end by clicks, closes the page in the middle of the
match and resumes it in a new one, and replays the kept round. It runs at both sizes and
in both languages; no request ever leaves for another host, none fails, and the page
logs no error. The first screen with the solo panel, the table and the end screen are
axe-clean and photographed (``artifacts/screenshots/offline-*``).

An update published while a game is open waits for it and takes over at the next visit.
A site served under a sub-path (a GitHub Pages project site: ``host/NAME/``) works as at
a host's root, offline included, and asks for nothing outside its folder.

The bots move quickly here and the match ends at a low score (the page passes
``nomercy:solo:overrides`` to the engine, as the server's settings pace its bots for
the other browser tests), so that a match ends in a round or two.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import needs
from patience import scaled

sync_api = pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, PHONE, Pages, axe_check, browser, shot  # noqa: E402
from browser.test_client import with_lang  # noqa: E402
from server.conftest import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "node_modules" / "pyodide"

# Whole games played by clicks with the engine in a worker, minutes each and sensitive to a
# saturated machine's timing: make test runs them alone, after the suite.
pytestmark = [
    pytest.mark.solo_game,
    needs.CHROMIUM,
    pytest.mark.skipif(
        not (PYODIDE / "pyodide.asm.wasm").exists(),
        reason="needs Pyodide's core files from npm: make pyodide (npm ci; apt-get install npm)",
    ),
]

__all__ = ["browser"]  # the fixture, shared with test_browser

#: Quick bots, a short pause between a match's rounds, and a match that ends soon.
OVERRIDES = (
    '{"delays": {"bot_delay": 0.05, "reaction_delay": 0.4, "between_rounds": 1.5},'
    ' "rules": {"target_score": 200}}'
)
#: The client's double-tap guard (js/layout.js GUARD_MS), in ms.
GUARD_MS = 500
#: Loading Python and the engine in a worker: seconds on a quiet machine, more on a busy one.
ENGINE_MS = int(scaled(120) * 1000)
#: A round or a match against quick bots, played by clicks.
PLAY_S = scaled(300)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder ``nomercy site build`` writes."""
    folder = tmp_path_factory.mktemp("site") / "site"
    subprocess.run([sys.executable, "-m", "nomercy", "site", "build", str(folder)], check=True, cwd=ROOT)
    return folder


@contextlib.contextmanager
def serving(folder: Path, probe: str = "sw-files.json") -> Iterator[str]:
    """``folder`` served by ``python -m http.server`` on 127.0.0.1; its root's URL (ready
    once ``probe`` answers)."""
    import httpx

    port = free_port()
    log = open(folder.parent / f"http-{port}.log", "wb")  # noqa: SIM115 (closed with the server)
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + scaled(20)
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + probe, timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the static server did not start"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def site(built: Path) -> Iterator[str]:
    with serving(built) as url:
        yield url


def ready(page: Any) -> None:
    page.wait_for_selector("html[data-ready]", state="attached")


def tap(page: Any, selector: str) -> None:
    """A click on the first element matching ``selector``; on a phone a 25-card hand
    overlaps its cards, so one that another covers is tapped where it is."""
    target = page.locator(selector).first
    try:
        target.click(timeout=2_000)
    except sync_api.TimeoutError:
        target.dispatch_event("click")


def take_turn(page: Any) -> bool:
    """Whatever this page must decide now: a prompt, a colour, a card, the deck, keep."""
    if page.locator("#prompt[open]").count():
        tap(page, "#prompt-choices button")
    elif page.is_visible("#color-pick"):
        tap(page, "#color-pick button")
    elif page.locator("#hand .card.playable").count():
        tap(page, "#hand .card.playable")
        # As a person would, not again at once: a second click on the same spot within the
        # double-tap guard (GUARD_MS, js/layout.js) is its echo and is ignored, so a play
        # refused as stale (a bot's catch came first) must be tried again after it.
        page.wait_for_timeout(GUARD_MS + 100)
        if page.locator("#prompt[open]").count():
            tap(page, "#prompt-choices button")
    elif page.is_enabled("#draw-btn"):
        tap(page, "#draw-btn")
    elif page.is_visible("#pass-btn"):
        tap(page, "#pass-btn")
    else:
        return False
    return True


def play_until(page: Any, done: str) -> int:
    """Take this page's turns by clicks until ``done`` (a JS expression) holds; the turns taken."""
    deadline = time.monotonic() + PLAY_S
    turns = 0
    while not page.evaluate(done):
        if time.monotonic() > deadline:
            where = page.evaluate(WHERE)
            raise AssertionError(f"not done after {PLAY_S:.0f} s: {done}; {where}")
        if page.locator("#status .you").count() and not page.is_visible("#end") and take_turn(page):
            turns += 1
        page.wait_for_timeout(60)
    return turns


def start_solo(page: Any, mode: str) -> None:
    """Three bots (the panel's default), the chosen mode, "Play offline": the deal."""
    page.wait_for_selector("#solo-levels select >> nth=2")
    assert page.locator("#solo-levels select").count() == 3
    page.select_option("#solo-levels select >> nth=1", "careful")
    page.select_option("#solo-levels select >> nth=2", "stacker")
    assert page.input_value("#solo-preset") == "no_mercy"
    page.select_option("#solo-mode", mode)
    page.click("#solo-start")
    page.wait_for_selector("#hand .card", timeout=ENGINE_MS)


#: Where the table stands, for a failure's message.
WHERE = """(() => { const s = nomercy.store.get();
  return {status: s.room && s.room.status, version: s.version,
    rounds: s.room && (s.room.rounds || []).length, deciding: s.decisions && s.decisions.deciding,
    outcome: s.view && s.view.outcome, conn: s.conn, end: !document.querySelector('#end').hidden}; })()"""
MY_TURN = "document.querySelector('#status .you') !== null"
OUT = "document.querySelector('#status .out') !== null"
ROUND_OVER = "document.querySelector('#end') && !document.querySelector('#end').hidden"
MATCH_OVER = f"({ROUND_OVER}) && nomercy.store.get().room.status === 'finished'"


@pytest.mark.timeout(scaled(900))
@pytest.mark.parametrize(
    ("lang", "size"), [("en", "desktop"), ("nb", "phone"), ("nb", "desktop"), ("en", "phone")]
)
def test_a_round_and_a_match_offline_then_resume_and_replay(
    browser: Any, site: str, lang: str, size: str
) -> None:
    """Issue 42's "done when": load once, network off, reload, a round and a match against
    three bots by clicks, the match resumed after its page was closed, the kept round replayed."""
    pages = Pages(browser)
    context = browser.new_context(**(DESKTOP if size == "desktop" else PHONE))
    pages.contexts.append(context)
    requests: list[str] = []
    failed: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    context.on("requestfailed", lambda r: failed.append(f"{r.url}: {r.failure}"))

    def new_page() -> Any:
        page = with_lang(context.new_page(), lang)
        page.on("console", lambda m: pages._error(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: pages._error(str(exc)))
        page.add_init_script(f"localStorage.setItem('nomercy:solo:overrides', {OVERRIDES!r})")
        return page

    try:
        page = new_page()
        page.goto(site)
        ready(page)
        # The first visit installs the app: the service worker keeps it, then controls the page.
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=ENGINE_MS)
        context.set_offline(True)
        page.reload()
        ready(page)
        assert page.evaluate("document.documentElement.lang") == lang
        assert page.is_visible("#solo-panel") and not page.is_visible("#create-form")
        tag = f"offline-{lang}"
        if size == "desktop":
            shot(page, f"{tag}-01-solo-panel")
        axe_check(page, f"solo panel, offline ({lang} {size})")

        # A round, to the end.
        start_solo(page, "round")
        seats = page.evaluate("nomercy.store.get().room.seats.map((s) => s.kind)")
        assert seats == ["human", "bot", "bot", "bot"]
        if size == "desktop":
            shot(page, f"{tag}-02-table")
        axe_check(page, f"solo table, offline ({lang} {size})")
        assert play_until(page, ROUND_OVER) > 0
        if size == "desktop":
            shot(page, f"{tag}-03-round-over")
        axe_check(page, f"solo end screen, offline ({lang} {size})")

        # Home: the round is kept on the device.
        page.click("#home-btn")
        ready(page)
        page.wait_for_selector("#solo-kept-list li.solo-round")
        assert page.locator("#solo-kept-list li.solo-round").count() == 1

        # A match: a few turns, the page closed mid-round, resumed in a new page.
        start_solo(page, "match")
        assert page.evaluate("nomercy.store.get().room.mode") == "match"
        for _ in range(3):
            # The round may end, or this seat be knocked out (M1), before its turn comes:
            # then no turn comes until the end screen is answered, and play_until does that.
            page.wait_for_function(f"({MY_TURN}) || ({ROUND_OVER}) || ({OUT})", timeout=scaled(60) * 1000)
            if page.evaluate(ROUND_OVER) or not page.evaluate(MY_TURN):
                break
            take_turn(page)
            page.wait_for_timeout(200)
        before = page.evaluate("(({version, view}) => ({version, hand: view.hand}))(nomercy.store.get())")
        page.close()
        page = new_page()
        page.goto(site)  # offline: the service worker answers
        ready(page)
        page.wait_for_selector("#solo-resume:not([hidden])")
        page.click("#solo-resume")
        resumed = f"(nomercy.store.get().version || -1) >= {before['version']}"
        page.wait_for_function(resumed, timeout=ENGINE_MS)
        if page.evaluate("nomercy.store.get().version") == before["version"]:
            assert page.evaluate("nomercy.store.get().view.hand") == before["hand"]  # the same table
        play_until(page, MATCH_OVER)
        if size == "desktop":
            shot(page, f"{tag}-04-match-over")

        # The kept round replayed on the device: the table's replay view, stepped.
        page.click("#home-btn")
        ready(page)
        page.wait_for_selector("#solo-kept-list li.solo-round >> nth=1")
        page.locator("#solo-kept-list li.solo-round").last.get_by_role("button").first.click()
        page.wait_for_function("nomercy.store.get().replaying === true", timeout=ENGINE_MS)
        assert page.is_visible("#replay-bar")
        page.click("#rp-fwd")
        page.click("#rp-fwd")
        assert page.input_value("#rp-slider") == "2"
        if size == "desktop":
            shot(page, f"{tag}-05-replay")
        axe_check(page, f"solo replay, offline ({lang} {size})")

        # Its record downloads, and the file opens again: replayed by the engine in the page.
        with page.expect_download() as got:
            page.click("#rp-download")
        record = got.value.path()
        assert json.loads(Path(record).read_text())["format"] == "nomercy.record"
        page.click("#rp-end")
        last = page.input_value("#rp-slider")
        page.set_input_files("#rp-file", record)
        page.wait_for_function("document.querySelector('#rp-slider').value === '0'")
        assert page.get_attribute("#rp-slider", "max") == last
        assert page.is_hidden("#file-error")
    finally:
        pages.close()
    here = site.rstrip("/")
    elsewhere = [u for u in requests if not u.startswith(here + "/")]
    assert requests and not elsewhere, elsewhere
    assert not failed, failed
    assert not pages.errors, pages.errors


def publish_again(folder: Path) -> str:
    """A new release of the site over the old one, as a second build writes it: a changed
    page, a new version in sw-files.json and in sw.js. Returns the new version."""
    version = "release-2"
    index = folder / "index.html"
    index.write_text(index.read_text().replace("<head>", '<head>\n  <meta name="release" content="2">', 1))
    listing = json.loads((folder / "sw-files.json").read_text())
    listing["version"] = version
    (folder / "sw-files.json").write_text(json.dumps(listing))
    sw = folder / "sw.js"
    text, n = re.subn(r'const VERSION = "[^"]*";', f'const VERSION = "{version}";', sw.read_text())
    assert n == 1, "sw.js names its version once"
    sw.write_text(text)
    return version


@pytest.mark.timeout(scaled(600))
def test_an_update_waits_for_the_game_in_progress_then_takes_over(
    browser: Any, built: Path, tmp_path: Path
) -> None:
    """A new release published while a solo game is open installs beside it and waits: the
    open page keeps its version and plays on. Once every page of the old version is
    closed, the next visit has the new one (its cache alone), and the game resumes."""
    folder = tmp_path / "site"
    shutil.copytree(built, folder)
    pages = Pages(browser)
    context = browser.new_context(**DESKTOP)
    pages.contexts.append(context)

    def new_page() -> Any:
        page = context.new_page()
        page.on("console", lambda m: pages._error(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: pages._error(str(exc)))
        page.add_init_script(f"localStorage.setItem('nomercy:solo:overrides', {OVERRIDES!r})")
        return page

    caches = "caches.keys().then((k) => k.filter((n) => n.startsWith('nomercy-')))"
    try:
        with serving(folder) as url:
            old = new_page()
            old.goto(url)
            ready(old)
            old.wait_for_function("navigator.serviceWorker.controller !== null", timeout=ENGINE_MS)
            first = old.evaluate(caches)
            assert len(first) == 1
            start_solo(old, "round")
            old.wait_for_function(MY_TURN, timeout=scaled(60) * 1000)

            version = publish_again(folder)
            # Another visit finds the new release: it installs, and waits.
            other = new_page()
            other.goto(url)
            ready(other)
            other.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
            other.wait_for_function(
                "navigator.serviceWorker.getRegistration().then((r) => r.waiting !== null)", timeout=ENGINE_MS
            )
            assert (
                other.evaluate("document.querySelector('meta[name=release]')") is None
            )  # still the old page
            other.close()
            # The game in progress plays on, with the old version's files.
            before = old.evaluate("nomercy.store.get().version")
            take_turn(old)
            old.wait_for_function(f"nomercy.store.get().version > {before}", timeout=scaled(30) * 1000)
            old.close()

            # Every page of the old version is closed: the next visit has the new one.
            new = new_page()
            new.goto(url)
            ready(new)
            new.wait_for_function("document.querySelector('meta[name=release]') !== null", timeout=ENGINE_MS)
            assert new.evaluate(caches) == [f"nomercy-{version}"]
            new.wait_for_selector("#solo-resume:not([hidden])")
            new.click("#solo-resume")
            new.wait_for_function(f"nomercy.store.get().version > {before}", timeout=ENGINE_MS)
            assert new.evaluate("nomercy.store.get().room.code") == "SOLO"
    finally:
        pages.close()
    assert not pages.errors, pages.errors


@pytest.mark.timeout(scaled(600))
def test_a_site_served_under_a_sub_path_plays_offline_and_asks_nothing_outside_it(
    browser: Any, built: Path, tmp_path: Path
) -> None:
    """A club's project page (``https://NAME.github.io/club/``): the folder under a path,
    not at the host's root. Catalogs, engine, worker and service worker all come from the
    folder; offline, the page reloads and a solo round deals and plays; home stays there."""
    root = tmp_path / "host"
    shutil.copytree(built, root / "club")
    pages = Pages(browser)
    context = browser.new_context(**PHONE)
    pages.contexts.append(context)
    requests: list[str] = []
    bad: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    context.on("requestfailed", lambda r: bad.append(f"{r.url}: {r.failure}"))
    context.on("response", lambda r: bad.append(f"{r.url}: {r.status}") if r.status >= 400 else None)
    try:
        with serving(root, probe="club/sw-files.json") as host:
            site = host + "club/"
            page = with_lang(context.new_page(), "nb")
            page.on("pageerror", lambda exc: pages._error(str(exc)))
            page.add_init_script(f"localStorage.setItem('nomercy:solo:overrides', {OVERRIDES!r})")
            page.goto(site)
            ready(page)
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=ENGINE_MS)
            assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == site + "sw.js"
            context.set_offline(True)
            page.reload()
            ready(page)
            assert page.evaluate("document.documentElement.lang") == "nb"
            start_solo(page, "round")
            for _ in range(3):  # a few turns (the round may end first, or knock this seat out)
                page.wait_for_function(f"({MY_TURN}) || ({ROUND_OVER}) || {OUT}", timeout=scaled(60) * 1000)
                if page.evaluate(f"({ROUND_OVER}) || {OUT}"):
                    break
                # The turn may come a moment before its buttons do (a card still flying):
                # try again briefly, as a person would, rather than at once only.
                acted_by = time.monotonic() + scaled(30)
                while not take_turn(page):
                    assert time.monotonic() < acted_by, "the turn came and nothing could be done"
                    page.wait_for_timeout(250)
            page.click("#home-link")  # the brand: the site's own folder, not the host's root
            ready(page)
            assert page.url == site, page.url
    finally:
        pages.close()
    outside = [u for u in requests if not u.startswith(site)]
    assert requests and not outside, outside
    assert not bad, bad
    assert not pages.errors, pages.errors
