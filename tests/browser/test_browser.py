"""The browser game in headless Chromium (Debian's ``chromium``, driven by Playwright).

Never ``playwright install``: the tests use the system browser through
``executable_path``. Screenshots of the table are kept under ``artifacts/screenshots/``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
sync_api = pytest.importorskip("playwright.sync_api")

from nomercy.match import Match  # noqa: E402
from nomercy.rules import Rules  # noqa: E402
from nomercy.views import player_view  # noqa: E402
from server.conftest import ServerProcess, create_room, join_room, start_room  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
# bypass_csp: the tests' own wait_for_function predicates are evaluated strings, which the
# server's Content-Security-Policy (script-src 'self') rightly forbids to pages.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("browser")
    srv = ServerProcess(
        f"sqlite:///{folder / 'rooms.sqlite3'}", {"NOMERCY_BOT_DELAY": "0.3"}, log=folder / "server.log"
    ).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def sit(browser: Any, server: ServerProcess, code: str, token: str, seat: int, **ctx: Any) -> Any:
    """A browser that already holds a seat token (as after creating or joining a room)."""
    context = browser.new_context(bypass_csp=True, **ctx)
    page = context.new_page()
    page.goto(server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{code}", json.dumps({"seat": seat, "token": token})],
    )
    page.goto(f"{server.url}/join/{code}")
    return page


def wait_turn(page: Any, timeout: float = 15_000) -> None:
    page.wait_for_function("document.querySelector('#status .you') !== null", timeout=timeout)


def hand(page: Any) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.code)")  # type: ignore[no-any-return]


def take_turn(page: Any) -> None:
    """Answer an open prompt, else play the first playable card, else draw, take or keep."""
    before = page.evaluate("app.version")
    if page.locator("#prompt[open]").count():
        page.locator("#prompt-choices button").first.click()
    elif page.locator("#hand .card.playable").count():
        page.locator("#hand .card.playable").first.click()
        page.wait_for_timeout(100)
        if page.locator("#prompt[open]").count():
            page.locator("#prompt-choices button").first.click()
    elif page.is_enabled("#draw-btn"):
        page.click("#draw-btn")
    elif page.is_visible("#pass-btn"):
        page.click("#pass-btn")
    page.wait_for_function(f"app.version > {before}")


def test_create_a_room_join_by_invite_link_start_and_play(browser: Any, server: ServerProcess) -> None:
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    host = host_ctx.new_page()
    errors: list[str] = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(server.url + "/")
    host.wait_for_selector("#rules-box [data-rule]", state="attached")
    assert not host.is_visible("#screen-table") and not host.is_visible(".actions")
    shot(host, "01-home")
    host.fill("#create-nick", "Ann")
    host.select_option("#seats", "3")
    host.select_option("#bots", "1")
    host.click("#create-form button[type=submit]")
    host.wait_for_selector("#screen-lobby:not([hidden])")
    code = host.inner_text("#lobby-code")
    invite = host.input_value("#invite-link")
    assert invite.endswith(f"/join/{code}") and len(code) == 6
    assert host.url.endswith(f"/join/{code}")

    guest_ctx = browser.new_context(viewport={"width": 1024, "height": 768}, bypass_csp=True)
    guest = guest_ctx.new_page()
    guest.on("pageerror", lambda exc: errors.append(str(exc)))
    guest.goto(invite)
    assert guest.input_value("#join-code") == code
    guest.fill("#join-nick", "<b>Bob</b>")
    guest.click("#join-form button[type=submit]")
    guest.wait_for_selector("#screen-lobby:not([hidden])")
    host.wait_for_function("document.querySelectorAll('#lobby-seats li').length === 3")
    assert "<b>Bob</b>" in host.inner_text("#lobby-seats")  # shown as text, never as markup
    assert host.locator("#lobby-seats b").count() == 0
    shot(host, "02-lobby")
    host.click("#start-btn")
    for page in (host, guest):
        page.wait_for_selector("#screen-table:not([hidden])")
        page.wait_for_selector("#hand .card")
    # Whoever is on turn among the two humans plays (or draws); the table moves on.
    for _ in range(3):
        for page in (host, guest):
            if page.locator("#status .you").count():
                take_turn(page)
    shot(host, "03-table-desktop")
    # A spectator with the code: the table, every count, no card of anyone's hand.
    watch_ctx = browser.new_context(viewport={"width": 1024, "height": 700}, bypass_csp=True)
    watcher = watch_ctx.new_page()
    watcher.goto(server.url + "/")
    watcher.fill("#join-code", code)
    watcher.click("#watch-btn")
    watcher.wait_for_selector("#screen-table:not([hidden]) #top-card")
    watcher.wait_for_function("document.querySelectorAll('#opponents .opp').length === 3")
    assert hand(watcher) == [] and watcher.evaluate("app.seat") is None
    assert not watcher.is_visible(".actions") and not watcher.is_visible("#chat-text")
    shot(watcher, "03b-spectator")
    watch_ctx.close()
    # Chat text is escaped: markup arrives as text.
    guest.fill("#chat-text", "<img src=x onerror=alert(1)>hi")
    guest.press("#chat-text", "Enter")
    host.wait_for_function("document.querySelector('#chat').textContent.includes('onerror')")
    assert host.locator("#chat img").count() == 0
    assert not errors, errors
    host_ctx.close()
    guest_ctx.close()


def plan_seed() -> tuple[int, str, str]:
    """A 2-player seed: Ann (seat 0) starts with a playable Seven; Bob answers with a plain
    number (his first playable card in hand order); then Ann holds a playable wild."""
    for seed in range(20_000):
        state = Match(2, Rules(), seed).state
        if state.current_player != 0:
            continue
        sevens = [a for a in state.legal_actions() if a.kind == "play" and a.card.code.endswith("7")]
        if not sevens or sevens[0].uno:
            continue
        state.apply(sevens[0], 0)
        if state.current_player != 1:
            continue
        view = player_view(state, 1)
        plays = {str(a).split()[1] for a in view.legal_actions if a.kind == "play"}
        first = next((c for c in view.hand if c.code in plays), None)
        if first is None or not first.is_number or first.face in (0, 7):
            continue
        state.apply(
            next(a for a in view.legal_actions if a.kind == "play" and a.card is first and not a.uno), 1
        )
        if state.current_player != 0:
            continue
        wilds = [a for a in state.legal_actions() if a.kind == "play" and a.card.is_wild]
        if wilds:
            return seed, sevens[0].card.code, wilds[0].card.code
    raise AssertionError("no seed found")


def test_play_a_seven_and_a_wild_then_reload_back_into_the_seat(browser: Any, server: ServerProcess) -> None:
    seed, seven, wild = plan_seed()
    host = create_room(server, nickname="Ann", seats=2, bots=0, seed=seed)
    code = host["code"]
    guest = join_room(server, code, "Bob")
    start_room(server, code, host["token"])
    ann = sit(browser, server, code, host["token"], 0, viewport={"width": 1280, "height": 860})
    bob = sit(browser, server, code, guest["token"], 1, viewport={"width": 900, "height": 800})
    wait_turn(ann)
    ann_before, bob_before = hand(ann), hand(bob)
    # The Seven: with two players its only target is Bob, so no target prompt is needed.
    ann.locator(f"#hand .card.playable[data-code='{seven}']").first.click()
    bob.wait_for_function("document.querySelector('#log').textContent.includes('swapped hands')")
    wait_turn(bob)
    assert sorted(hand(bob)) == sorted(
        ann_before[: ann_before.index(seven)] + ann_before[ann_before.index(seven) + 1 :]
    )
    assert sorted(hand(ann)) == sorted(bob_before)
    shot(bob, "04-after-seven")

    # Reload: Bob lands back in his seat, same hand, still his turn.
    bob_hand = hand(bob)
    bob.reload()
    wait_turn(bob)
    assert hand(bob) == bob_hand
    bob.locator("#hand .card.playable").first.click()
    wait_turn(ann)

    # The wild: the color prompt, then (a Roulette) Bob names the color, or (a Draw wild) takes.
    before = ann.evaluate("app.version")
    ann.locator(f"#hand .card.playable[data-code='{wild}']").first.click()
    if wild != "WCR":
        ann.wait_for_selector("#prompt[open]")
        shot(ann, "05-color-prompt")
        ann.click("#prompt-choices button.c-B")
    ann.wait_for_function(f"app.version > {before}")
    assert f"played {wild}" in ann.inner_text("#log")
    if wild == "WCR":
        bob.wait_for_selector("#prompt[open]")
        shot(bob, "05-roulette-prompt")
        bob.click("#prompt-choices button.c-G")
        ann.wait_for_function("document.querySelector('#log').textContent.includes('drew')")
    shot(ann, "06-after-wild")


def test_phone_with_a_25_card_hand_and_keyboard_play(browser: Any, server: ServerProcess) -> None:
    rules = {"hand_size": 25, "mercy_limit": None}
    for seed in range(500):
        state = Match(2, Rules(hand_size=25, mercy_limit=None), seed).state
        if state.current_player == 0:
            break
    host = create_room(server, nickname="Ann", seats=2, bots=1, seed=seed, rules=rules)
    import httpx

    httpx.post(
        f"{server.url}/api/rooms/{host['code']}/start", headers={"Authorization": f"Bearer {host['token']}"}
    )
    phone = dict(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = sit(browser, server, host["code"], host["token"], 0, **phone)
    wait_turn(page)
    assert len(hand(page)) == 25
    shot(page, "07-phone-25-cards")
    # The hand fits the screen's width and scrolls; the action bar stays put.
    box = page.evaluate(
        "(() => { const h = document.querySelector('#hand'); const r = h.getBoundingClientRect();"
        " return {w: r.width, sw: h.scrollWidth, sh: h.scrollHeight, ch: h.clientHeight,"
        " vw: window.innerWidth, bar: getComputedStyle(document.querySelector('.actions')).position}; })()"
    )
    assert box["sw"] <= box["vw"] and box["bar"] == "fixed"
    # Every card can be reached: scroll the last into view and check it is not under the bar.
    last = page.locator("#hand .card").last
    last.scroll_into_view_if_needed()
    bar_top = page.evaluate("document.querySelector('.actions').getBoundingClientRect().top")
    assert last.bounding_box()["y"] + last.bounding_box()["height"] <= bar_top + 1
    # Keyboard play: H focuses the hand, arrows move to a playable card, Enter plays it.
    playable = page.eval_on_selector_all(
        "#hand .card",
        "els => els.map((e, i) => e.classList.contains('playable') ? i : -1).filter(i => i >= 0)",
    )
    assert playable, "no playable card in a 25-card hand"
    page.keyboard.press("h")
    for _ in range(playable[0]):
        page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.dataset.code")
    assert focused == hand(page)[playable[0]]
    before = page.evaluate("app.version")
    page.keyboard.press("Enter")
    if (
        page.locator("#prompt[open]").count()
        or page.wait_for_timeout(300)
        or page.locator("#prompt[open]").count()
    ):
        page.keyboard.press("Enter")  # the first color, focused
    page.wait_for_function(f"app.version > {before}")
    assert len(hand(page)) < 25 or page.locator("#status").inner_text()
    label = page.get_attribute("#hand .card >> nth=0", "aria-label")
    assert label and any(c in label for c in ("Red", "Yellow", "Green", "Blue", "Wild"))
    shot(page, "08-phone-after-play")


def test_seven_asks_whom_to_swap_with(browser: Any, server: ServerProcess) -> None:
    """N1 with three players: the Seven's target is asked for, by name."""
    for seed in range(20_000):
        state = Match(3, Rules(), seed).state
        if state.current_player == 0:
            sevens = [a for a in state.legal_actions() if a.kind == "play" and a.card.code.endswith("7")]
            if sevens and not sevens[0].uno:
                break
    seven = sevens[0].card.code
    carol_hand = sorted(c.code for c in state.hands[2])
    host = create_room(server, nickname="Ann", seats=3, bots=0, seed=seed)
    join_room(server, host["code"], "Bob")
    join_room(server, host["code"], "Carol")
    start_room(server, host["code"], host["token"])
    page = sit(browser, server, host["code"], host["token"], 0, viewport={"width": 1100, "height": 800})
    wait_turn(page)
    page.locator(f"#hand .card.playable[data-code='{seven}']").first.click()
    page.wait_for_selector("#prompt[open]")
    assert "swap hands" in page.inner_text("#prompt-title")
    choices = page.eval_on_selector_all("#prompt-choices button", "els => els.map(e => e.textContent)")
    assert len(choices) == 2 and any("Bob" in c for c in choices) and any("Carol" in c for c in choices)
    shot(page, "09-seven-target")
    page.locator("#prompt-choices button", has_text="Carol").click()
    page.wait_for_function("document.querySelector('#log').textContent.includes('swapped hands with Carol')")
    assert sorted(hand(page)) == carol_hand
