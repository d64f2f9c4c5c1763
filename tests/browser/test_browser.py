"""The browser game in headless Chromium (Debian's ``chromium``, driven by Playwright).

Never ``playwright install``: the tests use the system browser through
``executable_path``. Every page is watched for console errors; each state is
photographed at a desktop and a phone size under ``artifacts/screenshots/``; axe-core
checks the lobby, the table and the end screen for serious or critical violations.
Seeds come from :mod:`browser.plans`, which asks the engine for the wanted deal.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
sync_api = pytest.importorskip("playwright.sync_api")

from browser.plans import (  # noqa: E402
    challenge_plan,
    colour_plan,
    person_choice,
    stack_knockout_plan,
    uno_plan,
    whole_round_plan,
)
from nomercy.match import Match  # noqa: E402
from nomercy.rules import Rules  # noqa: E402
from server.conftest import ServerProcess, create_room, join_room, start_room  # noqa: E402

CHROMIUM = needs.CHROMIUM_PATH
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
# Bots move at a pace a person can follow, and wait before catching, as in production.
BROWSER_ENV = {"NOMERCY_BOT_DELAY": "0.3", "NOMERCY_REACTION_DELAY": "1.5", "NOMERCY_BETWEEN_ROUNDS": "30"}

pytestmark = needs.CHROMIUM


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("browser")
    srv = ServerProcess(f"sqlite:///{folder / 'rooms.sqlite3'}", BROWSER_ENV, log=folder / "server.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


class Pages:
    """Every page a test opens, with the console errors each one logged."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.errors: list[str] = []
        self.allowed: tuple[str, ...] = ()

    def new(self, size: dict[str, Any]) -> Any:
        # bypass_csp: the tests' own wait_for_function predicates are evaluated strings,
        # which the server's Content-Security-Policy (script-src 'self') rightly forbids.
        context = self.browser.new_context(bypass_csp=True, **size)
        self.contexts.append(context)
        page = context.new_page()
        page.on("console", lambda m: self._error(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: self._error(str(exc)))
        return page

    def _error(self, text: str) -> None:
        if not any(a in text for a in self.allowed):
            self.errors.append(text)

    def sit(self, server: ServerProcess, code: str, token: str, seat: int, size: dict[str, Any]) -> Any:
        """A page that already holds a seat token (as after creating or joining a room)."""
        page = self.new(size)
        goto(page, server.url + "/")
        page.evaluate(
            "([k, v]) => localStorage.setItem(k, v)",
            [f"nomercy:seat:{code}", json.dumps({"seat": seat, "token": token})],
        )
        goto(page, f"{server.url}/join/{code}")
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    p = Pages(browser)
    yield p
    p.close()
    assert not p.errors, f"console errors: {p.errors}"


def goto(page: Any, url: str) -> None:
    """Open a page of the client and wait until it has its words and the server's options."""
    page.goto(url)
    page.wait_for_selector("html[data-ready]", state="attached")


def shot(page: Any, name: str) -> None:
    """The page as its user sees it, at its own size and at the other one (desktop and
    phone), as ``NAME-desktop.png`` and ``NAME-phone.png``. Viewport pictures, not whole
    pages: a whole-page capture draws the phone's sticky action bar and the overlays where
    the first screen ends, over the cards, which no user ever sees."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    own = dict(page.viewport_size)
    sizes = {"desktop": DESKTOP["viewport"], "phone": PHONE["viewport"]}
    mine = "phone" if own["width"] < 600 else "desktop"
    for size in (mine, *(s for s in sizes if s != mine)):
        if size != mine:
            page.set_viewport_size(sizes[size])
            page.wait_for_timeout(300)  # the hand is laid out again after a resize
        # Let cards in flight land first, so the picture shows the table as it settles.
        page.wait_for_function("!document.querySelector('.ghost')", timeout=5_000)
        page.evaluate("window.scrollTo(0, 0)")  # the first screen, as the page opens
        page.screenshot(path=str(SHOTS / f"{name}-{size}.png"))
    page.set_viewport_size(own)
    page.wait_for_timeout(300)


def axe_check(page: Any, where: str) -> None:
    """axe-core (bundled by axe-playwright-python): no serious or critical violation."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, f"{where}: {bad}"


COUNT_FLIGHTS = """(() => { window.__flights = 0; new MutationObserver((ms) => { for (const m of ms)
  for (const n of m.addedNodes) if (n.classList && n.classList.contains('ghost')) window.__flights++; })
  .observe(document.body, { childList: true }); })()"""


def wait_turn(page: Any, timeout: float = 15_000) -> None:
    page.wait_for_function("document.querySelector('#status .you') !== null", timeout=timeout)


def hand(page: Any) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.code)")  # type: ignore[no-any-return]


def version(page: Any) -> int:
    return int(page.evaluate("nomercy.store.get().version"))


def wait_version(page: Any, after: int, timeout: float = 10_000) -> None:
    page.wait_for_function(f"nomercy.store.get().version > {after}", timeout=timeout)


def log_text(page: Any) -> str:
    return str(page.inner_text("#log"))


def wait_log(page: Any, text: str, timeout: float = 10_000) -> None:
    page.wait_for_function(
        f"document.querySelector('#log').textContent.includes({json.dumps(text)})", timeout=timeout
    )


def take_turn(page: Any) -> bool:
    """Whatever this page must decide now: a prompt, a colour, a card, the deck, keep."""
    if page.locator("#prompt[open]").count():
        page.locator("#prompt-choices button").first.click()
    elif page.is_visible("#color-pick"):
        page.locator("#color-pick button").first.click()
    elif page.locator("#hand .card.playable").count():
        page.locator("#hand .card.playable").first.click()
        page.wait_for_timeout(80)
        if page.locator("#prompt[open]").count():
            page.locator("#prompt-choices button").first.click()
    elif page.is_enabled("#draw-btn"):
        page.click("#draw-btn")
    elif page.is_visible("#pass-btn"):
        page.click("#pass-btn")
    else:
        return False
    return True


def seated(server: ServerProcess, seats: int, bots: int, **room: Any) -> tuple[str, list[str]]:
    """A started room: Ann hosts, Bob (and Cy) join; returns the code and the seat tokens."""
    host = create_room(server, nickname="Ann", seats=seats, bots=bots, **room)
    tokens = [host["token"]]
    for name in ("Bob", "Cy", "Di")[: seats - bots - 1]:
        tokens.append(join_room(server, host["code"], name)["token"])
    start_room(server, host["code"], host["token"])
    return host["code"], tokens


# -- the tests -----------------------------------------------------------------------------


def test_create_join_lobby_rules_and_chat_that_survives_a_reload(pages: Pages, server: ServerProcess) -> None:
    host = pages.new(DESKTOP)
    goto(host, server.url + "/")
    host.wait_for_selector("#rules-box [data-rule]", state="attached")
    assert not host.is_visible("#screen-table")
    shot(host, "01-home")
    # Presets come with a description; house rules are grouped with a visible explanation.
    assert "knock" in host.inner_text("#presets").lower()
    host.click("#house-rules summary")
    groups = host.eval_on_selector_all("#rules-box legend", "els => els.map(e => e.textContent)")
    assert {"Dealing", "Stacking", "Sevens and Zeros", "Mercy", "Calling UNO", "Scoring"} <= set(groups)
    # Every house rule has its place, its own label and words of its own: none falls back to
    # an "Other" group named after the field.
    assert "Other" not in groups
    labels = host.eval_on_selector_all("#rules-box .rule label", "els => els.map(e => e.textContent)")
    fallbacks = {f.name.replace("_", " ") for f in dataclasses.fields(Rules)}
    assert labels and not [t for t in labels if "_" in t or t in fallbacks], labels
    help_line = host.locator("#rule-mercy_limit-help")
    assert help_line.is_visible() and "knocked out" in help_line.inner_text().lower()
    shot(host, "01b-house-rules")
    # The bot levels and characters by the names and lines of the catalogs.
    choices = host.eval_on_selector_all("#bot option", "els => els.map(e => e.textContent)")
    assert "Beginner: still learning, makes mistakes" in choices, choices
    assert choices[0].startswith("Beginner") and host.input_value("#bot") == "casual"  # levels first
    characters = host.eval_on_selector_all("#character option", "els => els.map(e => e.textContent)")
    assert characters[1:] == ["Stacker Stella", "Hoarder Harald", "Gambler Gina"], characters
    assert host.inner_text("#bot-line") == "Casual: plays sensibly"  # the chosen level, in a line
    host.fill("#create-nick", "Ann")
    host.select_option("#seats", "4")
    host.select_option("#bots", "2")
    host.click("#create-form button[type=submit]")
    host.wait_for_selector("#screen-lobby:not([hidden])")
    code = host.inner_text("#lobby-code")
    invite = host.input_value("#invite-link")
    assert invite.endswith(f"/join/{code}") and len(code) == 6

    guest = pages.new(PHONE)
    goto(guest, invite)
    assert guest.input_value("#join-code") == code
    shot(guest, "01-home-invited")
    # A nickname that pretends to be a bot is refused with a reason.
    guest.fill("#join-nick", "Bot 7")
    guest.click("#join-form button[type=submit]")
    guest.wait_for_selector("#toast:not([hidden])")
    assert "bot" in guest.inner_text("#toast").lower()
    guest.fill("#join-nick", "<b>\uff22\uff4f\uff42</b>")  # full-width letters
    guest.click("#join-form button[type=submit]")
    guest.wait_for_selector("#screen-lobby:not([hidden])")
    host.wait_for_function("document.querySelector('#lobby-seats').textContent.includes('Bob')")
    assert "<b>Bob</b>" in host.inner_text("#lobby-seats")  # NFKC, and shown as text, never markup
    assert host.locator("#lobby-seats b").count() == 0
    # Guests see the rules that apply.
    assert "25 cards or more knocks you out" in guest.inner_text("#rules-lines")  # the core's summary (M1)
    # Chat in the lobby: long words wrap, markup stays text, a reload keeps the conversation.
    long_word = "x" * 120
    guest.fill("#chat-text", f"<img src=x onerror=alert(1)> hi {long_word}")
    guest.press("#chat-text", "Enter")
    host.wait_for_function("document.querySelector('#chat').textContent.includes('onerror')")
    assert host.locator("#chat img").count() == 0
    width = guest.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "a long chat word must wrap, not widen the page"
    guest.reload()
    guest.wait_for_function("document.querySelector('#chat').textContent.includes('onerror')")
    for page in (host, guest):
        shot(page, "02-lobby")
        axe_check(page, "lobby")
    host.click("#start-btn")
    for page in (host, guest):
        page.wait_for_selector("#screen-table:not([hidden])")
        page.wait_for_selector("#hand .card")
        page.wait_for_selector("#seat-ring .seat >> nth=3")
    # Seats around the table: you at the bottom, the others in play order.
    tops = guest.eval_on_selector_all(
        "#seat-ring .seat", "els => els.map(e => [e.dataset.seat, e.getBoundingClientRect().top])"
    )
    assert tops[0][0] == "1" and tops[0][1] == max(t for _, t in tops)
    for page in (host, guest):
        shot(page, "03-table")
        axe_check(page, "table")
    # A quick reaction shows as a bubble at the sender's seat.
    guest.click("#reactions button:has-text('GG')")
    host.wait_for_selector("#seat-ring .seat[data-seat='1'] .bubble:has-text('GG')")
    # A spectator with the code: the table and every count, no hand, no chat box; the
    # players see that someone watches.
    watcher = pages.new(PHONE)
    goto(watcher, server.url + "/")
    watcher.fill("#join-code", code)
    watcher.click("#watch-btn")
    watcher.wait_for_selector("#screen-table:not([hidden]) #top-card")
    watcher.wait_for_function("document.querySelectorAll('#seat-ring .seat').length === 4")
    assert hand(watcher) == [] and watcher.evaluate("nomercy.store.get().seat") is None
    assert not watcher.is_visible("#actions") and not watcher.is_visible("#chat-text")
    assert "onerror" in watcher.inner_text("#chat")  # the chat is readable
    host.wait_for_function(
        "document.querySelector('#watchers').getAttribute('aria-label').startsWith('1 watching')"
    )
    shot(watcher, "03b-spectator")


def test_colour_dialogs_can_be_cancelled_and_the_decision_stays_visible(
    pages: Pages, server: ServerProcess
) -> None:
    """The Roulette's victim and a wild's player both cancel the dialog once, and can still
    name the colour (the victim from the keyboard); then a stack is taken at the deck."""
    plan = colour_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed)
    ann = pages.sit(server, code, tokens[0], 0, DESKTOP)
    bob = pages.sit(server, code, tokens[1], 1, PHONE)
    wait_turn(ann)
    bob.evaluate(COUNT_FLIGHTS)
    before = version(bob)
    ann.locator("#hand .card.playable[data-code='WCR']").first.click()
    wait_version(bob, before)
    assert bob.evaluate("window.__flights") >= 1  # the card flies from Ann's seat to the pile
    bob.wait_for_selector("#prompt[open]")
    assert "Roulette" in bob.inner_text("#prompt-title")
    bob.keyboard.press("Escape")
    bob.wait_for_selector("#prompt:not([open])", state="attached")
    # The decision stays on screen: an inline colour picker and a line saying why.
    assert bob.is_visible("#color-pick") and "color" in bob.inner_text("#why").lower()
    shot(bob, "04-roulette-after-cancel")
    shot(ann, "04-waiting-for-roulette")
    before = version(bob)
    bob.keyboard.press("g")  # keyboard: R, Y, G, B name a colour
    wait_version(bob, before)
    wait_log(ann, "named green")
    assert "Roulette turned up" in log_text(ann)

    wild = plan.cards[0]
    wait_turn(ann)
    count = len(hand(ann))
    ann.locator(f"#hand .card.playable[data-code='{wild}']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt button[value=cancel]")
    ann.wait_for_timeout(200)
    assert len(hand(ann)) == count and ann.locator(f"#hand .card.playable[data-code='{wild}']").count()
    ann.locator(f"#hand .card.playable[data-code='{wild}']").first.click()
    ann.wait_for_selector("#prompt[open]")
    shot(ann, "05-wild-colour-prompt")
    ann.keyboard.press("b")  # inside the dialog too, the letter its button shows names the colour
    wait_log(bob, "named blue")
    # Bob faces the stack: the deck says so and takes it.
    bob.wait_for_function("document.querySelector('#deck-label').textContent.startsWith('Take')")
    shot(bob, "06-facing-a-stack")
    before = version(bob)
    bob.keyboard.press("d")  # keyboard: D draws, or takes the stack
    wait_version(bob, before)
    wait_log(ann, "took the stack")
    log = log_text(ann)
    for code_word in ("last_standing", "played_out", "[stack]", "YDA", "WCR", "uno_penalty"):
        assert code_word not in log


def test_stack_knockout_end_screen_and_rematch(pages: Pages, server: ServerProcess) -> None:
    plan = stack_knockout_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules)
    ann = pages.sit(server, code, tokens[0], 0, DESKTOP)
    bob = pages.sit(server, code, tokens[1], 1, PHONE)
    wait_turn(ann)
    ann.locator(f"#hand .card.playable[data-code='{plan.cards[0]}']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt-choices button.c-R")
    bob.wait_for_function("document.querySelector('#deck-label').textContent.startsWith('Take')")
    assert bob.is_visible("#take-btn")
    bob.click("#take-btn")
    for page in (ann, bob):
        page.wait_for_selector("#end:not([hidden])")
    assert "You win the round" in ann.inner_text("#end-title")
    how = ann.inner_text("#end-how")
    assert "last one standing" in how and "Knocked out: Bob" in how
    assert "knocked out" in bob.inner_text("#end-table")
    # Every hand is revealed: Ann's remaining cards appear as chips on Bob's end screen.
    assert bob.locator("#end-table tbody tr >> nth=0").locator(".chip-card").count() == len(hand(ann))
    assert re.search(r"knocked out with \d+ cards", ann.inner_text("#end-table"))
    for page in (ann, bob):
        shot(page, "07-end-screen")
        axe_check(page, "end screen")
    # The end screen can be put aside to look at the table, and brought back.
    ann.click("#end-hide")
    ann.wait_for_selector("#end", state="hidden")
    ann.click("#status button:has-text('Show the results')")
    ann.wait_for_selector("#end:not([hidden])")
    # Rematch: Bob confirms from the keyboard (focus lands on the button), the host starts.
    assert ann.is_disabled("#rematch-btn") and "Bob" in ann.inner_text("#end-rematch")
    bob.wait_for_function("document.activeElement && document.activeElement.id === 'rematch-btn'")
    bob.keyboard.press("Enter")
    ann.wait_for_function("!document.querySelector('#rematch-btn').disabled")
    before = version(ann)
    ann.click("#rematch-btn")
    for page in (ann, bob):
        wait_version(page, before)
        page.wait_for_selector("#end", state="hidden")
        page.wait_for_function("document.querySelectorAll('#hand .card').length === 7")
    assert "New round" in log_text(bob).split("wins the round")[-1]
    shot(bob, "08-rematch-second-round")


def test_uno_call_and_catch(pages: Pages, server: ServerProcess) -> None:
    plan = uno_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules)
    ann = pages.sit(server, code, tokens[0], 0, DESKTOP)
    bob = pages.sit(server, code, tokens[1], 1, PHONE)
    wait_turn(ann)
    # The play would leave one card: the UNO button is prominent; pressing it arms the call.
    assert "hot" in (ann.get_attribute("#uno-btn", "class") or "")
    shot(ann, "09-uno-moment")
    ann.keyboard.press("u")  # keyboard: U arms the call
    assert ann.get_attribute("#uno-btn", "aria-pressed") == "true"
    ann.locator(f"#hand .card.playable[data-code='{plan.cards[0]}']").first.click()
    wait_log(bob, "calling UNO")
    wait_turn(bob)
    bob.locator(f"#hand .card.playable[data-code='{plan.cards[1]}']").first.click()
    ann.wait_for_function("!document.querySelector('#catch-btn').disabled")
    assert "Bob" in ann.inner_text("#catch-btn") and "hot" in (ann.get_attribute("#catch-btn", "class") or "")
    shot(ann, "10-catch-lit")
    ann.keyboard.press("c")
    wait_log(bob, "caught you without UNO")
    wait_log(ann, "caught Bob without UNO")
    assert "for not calling UNO" not in log_text(ann)  # each fact once


def test_seven_asks_whom_to_swap_with(pages: Pages, server: ServerProcess) -> None:
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
    # prefers-reduced-motion: the same game, no card flies.
    page = pages.sit(server, host["code"], host["token"], 0, {**DESKTOP, "reduced_motion": "reduce"})
    wait_turn(page)
    page.evaluate(COUNT_FLIGHTS)
    page.locator(f"#hand .card.playable[data-code='{seven}']").first.click()
    page.wait_for_selector("#prompt[open]")
    assert "swap hands" in page.inner_text("#prompt-title")
    choices = page.eval_on_selector_all("#prompt-choices button", "els => els.map(e => e.textContent)")
    assert len(choices) == 2 and any("Bob" in c for c in choices) and any("Carol" in c for c in choices)
    shot(page, "11-seven-target")
    # Keyboard: the dialog focuses its first choice (Bob); Tab moves to Carol, Enter picks.
    assert page.evaluate("document.activeElement.textContent").startswith("Bob")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent").startswith("Carol")
    page.keyboard.press("Enter")
    wait_log(page, "You and Carol swapped hands")
    assert sorted(hand(page)) == carol_hand
    assert page.evaluate("window.__flights") == 0


def test_phone_with_a_25_card_hand_and_keyboard_play(pages: Pages, server: ServerProcess) -> None:
    rules = {"hand_size": 25, "mercy_limit": None}
    for seed in range(500):
        state = Match(2, Rules(hand_size=25, mercy_limit=None), seed).state
        if state.current_player == 0:
            break
    code, tokens = seated(server, 2, 1, seed=seed, rules=rules)
    page = pages.sit(server, code, tokens[0], 0, PHONE)
    wait_turn(page)
    assert len(hand(page)) == 25
    shot(page, "12-25-cards")
    # The hand fits the screen's width (rows, no sideways scrolling) and every card shows
    # its corner (letter and symbol): no card hides another's top-left corner.
    box = page.evaluate(
        "(() => { const cards = [...document.querySelectorAll('#hand .card')];"
        " const rs = cards.map(c => c.getBoundingClientRect());"
        " return {sw: document.documentElement.scrollWidth, vw: window.innerWidth,"
        " minLeft: Math.min(...rs.map(r => r.left)), maxRight: Math.max(...rs.map(r => r.right))}; })()"
    )
    assert box["sw"] <= box["vw"] and box["minLeft"] >= 0 and box["maxRight"] <= box["vw"]
    step = page.evaluate(
        "(() => { const row = document.querySelector('#hand .hand-row'); const c = [...row.children];"
        " return c[1].getBoundingClientRect().left - c[0].getBoundingClientRect().left; })()"
    )
    assert step >= 28, f"cards overlap too much to read or tap: {step}px apart"
    # A card that does not fit says why instead of doing nothing.
    dim = page.locator("#hand .card.dim").first
    code = dim.get_attribute("data-code")
    # aria-disabled, yet it answers with the server's reason. The click goes to the card
    # itself: in a fan of 25 its neighbours cover parts of it, and a click by position
    # could land on one of them (the corners that stay in view are checked above).
    dim.dispatch_event("click")
    reason = page.evaluate(
        f"nomercy.store.get().decisions.blocked.find(b => b.card === {json.dumps(code)}).reason"
    )
    assert reason["rule"] == "T1" and page.inner_text("#why") == page.evaluate(
        "r => nomercy.ctx.i18n.line(r)", reason
    )
    # Sound can be muted, and the choice is remembered.
    page.click("#sound-btn")
    assert page.get_attribute("#sound-btn", "aria-pressed") == "false"
    # Sorting: by colour (default), by face, as dealt; the choice is remembered. Checked
    # while it is still this player's turn: once they play, the bot's reply (a Roulette
    # aimed at them, say) may open a question that stands above the table.
    page.click("#sort-btn")
    assert page.inner_text("#sort-btn") == "Sort: by face"
    page.reload()
    page.wait_for_selector("#hand .card")
    wait_turn(page)
    assert page.inner_text("#sort-btn") == "Sort: by face"
    assert page.get_attribute("#sound-btn", "aria-pressed") == "false"
    # Keyboard play: H focuses the hand (on a playable card), Enter plays it. A wild asks
    # for its colour first (the first colour is focused, so Enter names it).
    page.keyboard.press("h")
    focused = page.evaluate("document.activeElement.classList.contains('playable')")
    assert focused
    before = version(page)
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"nomercy.store.get().version > {before} || document.querySelector('#prompt[open]') !== null"
    )
    if version(page) == before:
        page.keyboard.press("Enter")
    wait_version(page, before)
    label = page.get_attribute("#hand .card >> nth=0", "aria-label")
    assert label and any(c in label for c in ("Red", "Yellow", "Green", "Blue", "Wild"))


def test_removed_player_confirmed_then_let_back_in(pages: Pages, server: ServerProcess) -> None:
    # A known deal: with a random one the bot may aim a Roulette at Ann before she acts, and
    # its question, a modal dialog, stands above the seat ring the host has to reach.
    code, tokens = seated(server, 3, 1, turn_seconds=0, seed=1)
    ann = pages.sit(server, code, tokens[0], 0, DESKTOP)
    bob = pages.sit(server, code, tokens[1], 1, PHONE)
    bob.wait_for_selector("#hand .card")
    ann.wait_for_selector("#seat-ring .seat[data-seat='1'] button")
    assert not ann.is_visible("#prompt[open]")
    ann.click("#seat-ring .seat[data-seat='1'] button")
    ann.wait_for_selector("#prompt[open]")
    assert "Remove Bob?" in ann.inner_text("#prompt-title")
    shot(ann, "13-remove-confirm")
    ann.click("#prompt-choices button[value=yes]")
    bob.wait_for_function("nomercy.store.get().seat === null && nomercy.store.get().removedSeat === 1")
    bob.wait_for_function("document.querySelectorAll('#hand .card').length === 0")
    assert not bob.is_visible("#actions")
    ann.wait_for_selector("#seat-ring .seat[data-seat='1'] button:has-text('let back in')")
    shot(ann, "14-removed")
    # A reload keeps the removed player watching, still able to come back.
    bob.reload()
    bob.wait_for_function(
        "(s => s.seat === null && s.removedSeat === 1 && s.room !== null)(nomercy.store.get())"
    )
    bob.wait_for_selector("#screen-table:not([hidden])")
    shot(bob, "14b-removed-watching")
    ann.click("#seat-ring .seat[data-seat='1'] button:has-text('let back in')")
    bob.wait_for_function("nomercy.store.get().seat === 1", timeout=15_000)
    bob.wait_for_selector("#hand .card")
    assert bob.is_visible("#actions")


def test_offline_overlay_blocks_input_until_the_server_is_back(browser: Any, tmp_path: Path) -> None:
    srv = ServerProcess(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", BROWSER_ENV, log=tmp_path / "server.log")
    srv.start()
    pages = Pages(browser)
    # The browser reports the refused reconnections while the server is down.
    pages.allowed = ("WebSocket connection", "ERR_CONNECTION_REFUSED")
    try:
        code, tokens = seated(srv, 2, 1, turn_seconds=0)
        page = pages.sit(srv, code, tokens[0], 0, PHONE)
        page.wait_for_selector("#hand .card")
        # On Ann's own turn, with no turn timer, the table stands still: a newer table
        # (the bot moving first) would close a game question as stale before it is seen.
        wait_turn(page)
        # A question open when the connection drops (as a bot's Roulette asks one) closes:
        # a modal dialog would stand above the overlay and take answers nobody receives.
        page.evaluate(
            "() => { nomercy.ctx.prompts.askColor('Name the colour', '', nomercy.store.get().version); }"
        )  # not awaiting the answer
        page.wait_for_selector("#prompt[open]")
        srv.kill()
        page.wait_for_selector("#offline:not([hidden])")
        assert page.evaluate("document.querySelector('#screen-table').inert")
        page.wait_for_selector("#prompt:not([open])", state="attached")
        shot(page, "15-offline")
        srv.start()  # the same port and database: the table comes back
        page.wait_for_selector("#offline", state="hidden", timeout=20_000)
        assert not page.evaluate("document.querySelector('#screen-table').inert")
        page.wait_for_selector("#hand .card")
    finally:
        pages.close()
        srv.stop()
    assert not pages.errors, pages.errors


def test_a_wild_draw_4_is_challenged_from_the_keyboard(pages: Pages, server: ServerProcess) -> None:
    """Classic rules (W6): Bob faces Ann's Wild Draw 4 with a visible choice, Challenge or
    Accept, both reachable from the keyboard; the outcome is told in words."""
    plan = challenge_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, preset="classic")
    ann = pages.sit(server, code, tokens[0], 0, DESKTOP)
    bob = pages.sit(server, code, tokens[1], 1, PHONE)
    wait_turn(ann)
    ann.locator("#hand .card.playable[data-code='W+4']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt-choices button.c-R")
    bob.wait_for_selector("#challenge-btn:not([hidden])")
    assert bob.is_visible("#take-btn") and bob.inner_text("#take-btn").startswith("Accept")
    why = bob.inner_text("#why")
    # The colour that was in play under the Wild Draw 4 (not the one Ann named) decides.
    under = bob.evaluate("nomercy.store.get().view.challenge.color")
    colour = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}[under]
    # W6: guilty, Ann draws the pending 4; innocent, Bob draws the 4 and 2 more.
    assert (
        "Ann played a Wild Draw 4" in why
        and f"If Ann held a {colour} card, they draw 4; if not, you draw 6." in why
    )
    shot(bob, "07-facing-a-wild-draw-4")
    axe_check(bob, "challenge")
    # Both choices are buttons in the tab order; X challenges, T accepts.
    bob.focus("#challenge-btn")
    assert bob.evaluate("document.activeElement.id") == "challenge-btn"
    before = version(bob)
    bob.keyboard.press("x")
    wait_version(bob, before)
    wait_log(ann, "challenged your Wild Draw 4")
    wait_log(bob, "You challenged Ann's Wild Draw 4")
    assert not bob.is_visible("#challenge-btn")
    shot(ann, "07-challenged")
    log = log_text(bob)
    assert "Ann draws 4 cards" in log or "You draw 6 cards" in log
    assert "[challenge]" not in log and "guilty" not in log


def test_paused_overlay_while_storage_fails_and_the_move_is_kept(browser: Any, tmp_path: Path) -> None:
    """A real storage failure: the test holds SQLite's write lock, so the server cannot
    save Ann's move. The page says the game is paused and blocks input; once the lock is
    let go the game resumes by itself, and a refused move can be made again."""
    import sqlite3

    db = tmp_path / "rooms.sqlite3"
    env = {**BROWSER_ENV, "NOMERCY_STORAGE_RETRY_BASE": "0.3", "NOMERCY_STORAGE_RETRY_MAX": "1"}
    srv = ServerProcess(f"sqlite:///{db}", env, log=tmp_path / "server.log")
    srv.start()
    pages = Pages(browser)
    lock = sqlite3.connect(db, isolation_level=None, timeout=1)
    try:
        code, tokens = seated(srv, 2, 0, turn_seconds=0, seed=colour_plan().seed)
        ann = pages.sit(srv, code, tokens[0], 0, DESKTOP)
        bob = pages.sit(srv, code, tokens[1], 1, PHONE)
        wait_turn(ann)
        lock.execute("BEGIN EXCLUSIVE")  # every write of the server now fails (database is locked)
        ann.locator("#hand .card.playable").first.click()
        for page in (ann, bob):
            page.wait_for_selector("#paused:not([hidden])", timeout=20_000)
            assert page.evaluate("document.querySelector('#screen-table').inert")
        assert "paused" in ann.inner_text("#paused").lower()
        shot(ann, "18-paused")
        shot(bob, "18-paused")
        axe_check(bob, "paused")
        lock.execute("ROLLBACK")
        for page in (ann, bob):
            page.wait_for_selector("#paused", state="hidden", timeout=20_000)
            assert not page.evaluate("document.querySelector('#screen-table').inert")
        wait_turn(ann)  # the refused move changed nothing: still Ann's turn, and she plays
        before = version(ann)
        ann.locator("#hand .card.playable").first.click()
        if ann.locator("#prompt[open]").count():
            ann.locator("#prompt-choices button").first.click()
        wait_version(ann, before)
    finally:
        lock.close()
        pages.close()
        srv.stop()
    assert not pages.errors, pages.errors


def perform(page: Any, text: str, first: set[str]) -> None:
    """Make the move ``text`` through the page, as a person would: keys, cards, dialogs.
    ``first`` names the situations met already (the first of each is photographed, and
    the first colour dialog of each kind is cancelled once)."""
    words = text.split()
    if words[0] == "color":
        page.wait_for_selector("#prompt[open]")
        if "roulette" not in first and "Roulette" in page.inner_text("#prompt-title"):
            first.add("roulette")
            page.keyboard.press("Escape")  # cancelled: the choice stays on screen
            page.wait_for_selector("#color-pick:not([hidden])")
            shot(page, "20-roulette-victim-after-cancel")
            page.keyboard.press(words[1].lower())
        else:
            page.click(f"#prompt-choices button[value='{words[1]}']")
    elif words[0] == "take":
        if "stack" not in first:
            first.add("stack")
            shot(page, "21-facing-a-stack")
        page.keyboard.press("d")
    elif words[0] == "draw":
        page.click("#draw-btn")
    elif words[0] == "pass":
        page.click("#pass-btn")
    elif words[0] == "catch":
        page.wait_for_function("!document.querySelector('#catch-btn').disabled")
        shot(page, "22-catch-lit")
        page.keyboard.press("c")
    else:
        code = words[1]
        if words[-1] == "uno":
            page.keyboard.press("u")
            assert page.get_attribute("#uno-btn", "aria-pressed") == "true"
            if "uno" not in first:
                first.add("uno")
                shot(page, "23-uno-armed")
        card = page.locator(f"#hand .card.playable[data-code='{code}']").first
        card.click()
        colour = next((w for w in words[2:] if w in ("R", "Y", "G", "B")), None)
        target = next((w[1:] for w in words[2:] if w.startswith("@")), None)
        if colour is not None and page.locator("#prompt[open]").count() == 0:
            page.wait_for_selector("#prompt[open]", timeout=2_000)
        if colour is not None:
            if "wild" not in first:
                first.add("wild")
                page.click("#prompt button[value=cancel]")  # cancelled once, then chosen
                page.wait_for_selector("#prompt:not([open])", state="attached")
                card.click()
                page.wait_for_selector("#prompt[open]")
                shot(page, "24-wild-colour-again")
            page.click(f"#prompt-choices button[value='{colour}']")
        if target is not None and page.locator("#prompt[open]").count():
            if "seven" not in first:
                first.add("seven")
                shot(page, "25-seven-target")
            page.click(f"#prompt-choices button[value='{target}']")


def test_a_whole_round_two_people_two_bots_then_a_rematch(browser: Any, tmp_path: Path) -> None:
    """Ann (desktop) and Bob (phone) play a whole round with two heuristic bots, every move
    made through the page: a wild whose colour dialog is cancelled once, a Roulette whose
    victim names the colour, a Seven with its target, a taken stack, an UNO call, a catch
    and a knock-out, to the end screen and a rematch into a second round.

    Deterministic: the seed comes from :func:`browser.plans.whole_round_plan`, which plays
    the same round with the engine; the bots choose without chance, and bots wait long
    before catching, so the one out-of-turn move is Ann's catch. Each move is checked
    against the plan at its version before it is made."""
    plan = whole_round_plan()
    env = {**BROWSER_ENV, "NOMERCY_BOT_DELAY": "0.25", "NOMERCY_REACTION_DELAY": "60"}
    srv = ServerProcess(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", env, log=tmp_path / "server.log")
    srv.start()
    pages = Pages(browser)
    try:
        code, tokens = seated(srv, 4, 2, seed=plan.seed, rules=plan.rules, bot="heuristic", turn_seconds=0)
        ann = pages.sit(srv, code, tokens[0], 0, DESKTOP)
        bob = pages.sit(srv, code, tokens[1], 1, PHONE)
        people = {0: ann, 1: bob}
        first: set[str] = set()
        for version_at, (seat, text) in enumerate(plan.moves):
            if seat not in people:
                continue  # the bots play by themselves
            page = people[seat]
            page.wait_for_function(f"nomercy.store.get().version === {version_at}", timeout=20_000)
            view = page.evaluate("nomercy.store.get().view")
            if text != "catch 1":
                expected = person_choice(view, forget_uno=text.split()[-1] != "uno")
                assert expected == text, (version_at, expected, text)
            if view["seat"] is not None and not view["active"][seat] and "ko" not in first:
                first.add("ko")
            perform(page, text, first)
            page.wait_for_function(f"nomercy.store.get().version > {version_at}", timeout=10_000)
            if "knocked out" in log_text(page) and "ko-shot" not in first:
                first.add("ko-shot")
                shot(page, "26-after-a-knock-out")
        for page in (ann, bob):
            page.wait_for_selector("#end:not([hidden])", timeout=20_000)
        # Through the page: the cancelled wild dialog, the victim's inline picker, the
        # Seven's dialog, the deck taking a stack, the armed UNO, and a knock-out seen.
        assert {"wild", "roulette", "seven", "stack", "uno", "ko-shot"} <= first, first
        log = log_text(ann)
        for words in ("named", "for the Roulette", "swapped hands", "took the stack", "calling UNO",
                      "caught Bob without UNO", "knocked out"):  # fmt: skip
            assert words in log, words
        assert "wins the round" in log or "You win the round" in log, log  # Ann reads "You" for herself
        shot(ann, "27-whole-round-end")
        shot(bob, "27-whole-round-end")
        axe_check(bob, "end screen (phone)")
        bob.wait_for_function("document.activeElement && document.activeElement.id === 'rematch-btn'")
        bob.keyboard.press("Enter")
        ann.wait_for_function("!document.querySelector('#rematch-btn').disabled")
        ann.click("#rematch-btn")
        for page in (ann, bob):
            page.wait_for_selector("#end", state="hidden")
            page.wait_for_function("document.querySelectorAll('#hand .card').length === 7")
        assert [s["kind"] for s in ann.evaluate("nomercy.store.get().room.seats")] == [
            "human",
            "human",
            "bot",
            "bot",
        ]
        shot(bob, "28-second-round")
    finally:
        pages.close()
        srv.stop()
    assert not pages.errors, pages.errors


def test_the_page_is_small_and_needs_no_other_host(pages: Pages, server: ServerProcess) -> None:
    """Everything the page loads comes from the server itself (no CDN), compressed: every
    module of the game's client (the pages beside it load when opened), the card art
    (drawn by js/cards.js) and the language's catalogs, at most 120 KB over the wire. The
    figure is printed and written to artifacts/transfer-size.txt."""
    page = pages.new(PHONE)
    requests: list[Any] = []
    page.on("requestfinished", lambda r: requests.append(r))
    page.goto(server.url + "/", wait_until="networkidle")
    page.wait_for_selector("html[data-ready]", state="attached")
    page.wait_for_selector("#hero-cards .card")  # the card art is drawn
    hosts = {r.url.split("/")[2] for r in requests}
    assert hosts == {server.url.split("/")[2]}, hosts
    paths = {r.url.split("/", 3)[3].split("?")[0] for r in requests}
    modules = {
        f"static/js/{p.name}"
        for p in (Path(__file__).resolve().parents[2] / "src/nomercy/web/js").glob("*.js")
    }
    # The pages beside the game (js/pages.js) load when they open, never for the game; the
    # music, the shareable picture and a second theme when first asked for; the replay and
    # its review when a replay is first opened.
    later = ("daily", "leaders", "profile", "profilemodel", "music", "share", "theme")
    later += ("replay", "review", "reviewsummary", "replaymodel", "account")  # and the account's page
    beside = {f"static/js/{name}.js" for name in later}
    assert modules - beside <= paths, modules - beside - paths  # the whole game's client is counted
    assert not beside & paths, beside & paths
    assert {"i18n/en/game.json", "i18n/en/web.json", "static/style.css"} <= paths
    total = 0
    lines = []
    for r in requests:
        sizes = r.sizes()
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        total += size
        lines.append(f"{size:>7}  {r.url.split('/', 3)[3] or '/'}")
    report = "\n".join([*lines, f"{total:>7}  total bytes transferred (gzip where the client accepts it)"])
    print(report)
    SHOTS.parent.mkdir(parents=True, exist_ok=True)
    (SHOTS.parent / "transfer-size.txt").write_text(report + "\n")
    assert total <= 120_000, report
