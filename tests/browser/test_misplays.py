"""The table never plays a card the player did not choose, and on a phone nothing hides
what matters (issue 41, first list: items 1, 3, 4, 5 and 6).

- A double click (desktop) or double tap (phone, touch) on a card that gives the turn
  back plays that card only: real timed clicks and taps, 100 to 300 ms apart.
- A toast never covers the UNO! and Catch buttons, wherever the page is scrolled.
- The end screen on a phone can be scrolled to every part of its card; none is under the
  top bar.
- A 26-card hand on a phone: every card's corner code shows, no card lies under the
  action bar.
- The match won plays its own moment, not the round's.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.plans import Plan, stack_knockout_plan
from browser.test_browser import DESKTOP, PHONE, SHOTS, Pages, browser, pages, seated, server, shot, wait_turn
from browser.test_client import sit
from nomercy.actions import Play
from nomercy.match import Match
from nomercy.rules import Rules
from server.conftest import ServerProcess

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser

STORE = "nomercy.store.get()"
SIZES = {"desktop": DESKTOP, "phone": PHONE}


@functools.cache
def turn_back_plan(hand_size: int = 6) -> Plan:
    """Ann (seat 0) starts with a Skip, Reverse or Skip Everyone that gives her the turn back
    (two players), and after it every other card she holds can be played without a
    question (no wild): whatever card a second click lands on would be played."""
    rules = {"hand_size": hand_size}
    for seed in range(50_000):
        state = Match(2, Rules(hand_size=hand_size), seed).state
        if state.current_player != 0:
            continue
        for action in state.legal_actions():
            if not isinstance(action, Play) or action.uno or action.card.is_wild:
                continue
            card = action.card
            if card.code[1:] not in ("S", "R", "SE"):
                continue
            probe = state.clone()
            probe.apply(action, 0)
            if probe.current_player != 0 or probe.outcome is not None:
                continue
            playable = {a.card.code for a in probe.legal_actions() if isinstance(a, Play) and a.color is None}
            if all(c.code in playable for c in probe.hands[0]):
                return Plan(seed, rules, (card.code,))
    raise AssertionError("no seed found")


def box(page: Any, selector: str) -> dict[str, float]:
    """The bounding box of the first element matching ``selector``, in the viewport."""
    return page.eval_on_selector(  # type: ignore[no-any-return]
        selector,
        "e => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height} }",
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share (0 when they do not touch)."""
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(0.0, w) * max(0.0, h)


# -- 1. a double click or tap plays one card ---------------------------------------------------


@pytest.mark.parametrize(
    ("size", "gap"), [("desktop", 100), ("desktop", 150), ("desktop", 300), ("phone", 150), ("phone", 250)]
)
def test_a_double_click_or_tap_plays_only_the_chosen_card(
    pages: Pages, server: ServerProcess, size: str, gap: int
) -> None:
    """The first click plays a card that gives Ann the turn back; the hand is drawn again
    with every card playable, so the second click, at the same spot ``gap`` ms later, lies
    on another card. Only the first card may be played."""
    plan = turn_back_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules, turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, SIZES[size], "en")
    wait_turn(ann)
    ann.wait_for_function("!document.querySelector('.ghost')", timeout=10_000)  # the deal has landed
    chosen = plan.cards[0]
    card = ann.locator(f"#hand .card.playable[data-code='{chosen}']").first
    card.scroll_into_view_if_needed()
    b = card.bounding_box()
    cards = ann.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.code)")
    # A quarter of a card off its centre, towards a neighbour: when the hand closes up, the
    # neighbour moves under this spot (its centre would fall between two cards).
    last = cards.index(chosen) == len(cards) - 1
    x = b["x"] + b["width"] * (0.25 if last else 0.75)
    y = b["y"] + b["height"] / 2
    under = ann.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('.card').dataset.code", [x, y])
    assert under == chosen
    before = ann.evaluate(f"{STORE}.version")
    count = len(cards)
    if size == "phone":
        ann.touchscreen.tap(x, y)
        ann.wait_for_timeout(gap)
        ann.touchscreen.tap(x, y)
    else:
        ann.mouse.click(x, y)
        ann.wait_for_timeout(gap)
        ann.mouse.click(x, y)
    ann.wait_for_function(f"{STORE}.version > {before}")
    ann.wait_for_timeout(800)  # time for a second play to be answered, were one sent
    assert ann.evaluate(f"{STORE}.version") == before + 1
    assert ann.evaluate(f"{STORE}.view.top") == chosen
    assert len(ann.eval_on_selector_all("#hand .card", "els => els")) == count - 1
    # The guard spares what the player aims at: another card, clicked where it lies, plays.
    wait_turn(ann)
    other = ann.locator("#hand .card.playable").first
    other_code = other.get_attribute("data-code")
    other.click()
    ann.wait_for_function(f"{STORE}.version > {before + 1}")
    assert ann.evaluate(f"{STORE}.view.top") == other_code


# -- 3. toasts keep clear of UNO! and Catch ---------------------------------------------------


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_toast_never_covers_uno_or_catch(pages: Pages, server: ServerProcess, size: str) -> None:
    plan = turn_back_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules, turn_seconds=0)
    for lang in ("en", "nb"):
        page = sit(pages, server, code, tokens[0], 0, SIZES[size], lang)
        wait_turn(page)
        # The longest toast a player meets: a refusal's reason over three lines.
        page.evaluate(
            "nomercy.ctx.toast(nomercy.ctx.t('removed.note') + ' ' + nomercy.ctx.t('conn.not_connected'))"
        )
        page.wait_for_selector("#toast:not([hidden])")
        height = page.evaluate("document.documentElement.scrollHeight - innerHeight")
        for scroll in sorted({0, height // 2, height}):
            page.evaluate(f"window.scrollTo(0, {scroll})")
            page.wait_for_timeout(50)
            toast = box(page, "#toast")
            for button in ("#uno-btn", "#catch-btn"):
                assert overlap(toast, box(page, button)) == 0, (lang, scroll, button)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, f"40-toast-{lang}-{size}")


# -- 4. the phone's end screen shows its whole card ------------------------------------------


@pytest.mark.parametrize("lang", ["en", "nb"])
def test_the_whole_end_card_can_be_seen_on_a_phone(pages: Pages, server: ServerProcess, lang: str) -> None:
    """Ann wins the match with a knock-out; on a phone her end card, from the art above it
    to its last button, can be scrolled into view below the top bar."""
    plan = stack_knockout_plan()
    rules = {**plan.rules, "target_score": 100}
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=rules, mode="match", turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, PHONE, lang)
    bob = sit(pages, server, code, tokens[1], 1, PHONE, lang)
    wait_turn(ann)
    ann.locator(f"#hand .card.playable[data-code='{plan.cards[0]}']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt-choices button.c-R")
    bob.wait_for_selector("#take-btn:not([hidden])")
    bob.click("#take-btn")
    for page in (ann, bob):
        page.wait_for_selector("#end:not([hidden])", timeout=20_000)
    # At two people the card fits the screen; at six, or read at a larger text size (as here,
    # Bob's), it is taller than the screen.
    bob.evaluate("document.documentElement.style.fontSize = '160%'")
    bob.evaluate("nomercy.ctx.render()")
    for page in (ann, bob):
        page.evaluate("document.querySelector('#end').scrollTo(0, 0)")
        page.wait_for_timeout(100)
        bar = box(page, ".topbar")
        top = bar["y"] + bar["h"]
        for part in ("#end-art", ".end-card", "#end-title"):
            assert box(page, part)["y"] >= top - 1, f"{part} under the top bar ({lang})"
        card = box(page, ".end-card")
        assert card["x"] >= 0 and card["x"] + card["w"] <= page.viewport_size["width"], (
            f"cut at a side ({lang})"
        )
        page.evaluate("document.querySelector('#end').scrollTo(0, 1e6)")
        page.wait_for_timeout(100)
        card = box(page, ".end-card")
        assert card["y"] + card["h"] <= page.viewport_size["height"] + 1, (
            f"the card's foot out of reach ({lang})"
        )
        page.evaluate("document.querySelector('#end').scrollTo(0, 0)")
    shot(ann, f"41-end-phone-{lang}")
    shot(bob, f"41-end-phone-{lang}-large-text")


# -- 5. a phone hand of 26 cards ---------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "nb"])
def test_a_hand_of_26_on_a_phone_shows_every_corner_and_none_under_the_bar(
    pages: Pages, server: ServerProcess, lang: str
) -> None:
    rules = {"hand_size": 26, "mercy_limit": 40}
    seed = next(  # Ann begins, with many cards to play: lifted, they lie over the row below
        seed
        for seed in range(1_000)
        if (state := Match(2, Rules(hand_size=26, mercy_limit=40), seed).state).current_player == 0
        and len({a.card.code for a in state.legal_actions() if isinstance(a, Play)}) >= 8
    )
    code, tokens = seated(server, 2, 0, seed=seed, rules=rules, turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, PHONE, lang)
    ann.wait_for_function("document.querySelectorAll('#hand .card').length === 26")
    ann.wait_for_function("!document.querySelector('.ghost')", timeout=10_000)
    wait_turn(ann)
    ann.wait_for_timeout(300)  # lifted cards settle
    assert ann.locator("#hand .hand-row").count() > 1
    assert ann.locator("#hand .card.playable").count() >= 8
    # Each card's corner code (the art's index at 6..26 x 5..17 of 60 x 90): the point at
    # its middle belongs to the card itself, no other card lies over it.
    hidden = ann.evaluate(
        """() => [...document.querySelectorAll('#hand .card')].filter((c) => {
          const r = c.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width * 14 / 60, r.top + r.height * 11 / 90);
          return !hit || hit.closest('.card') !== c;
        }).map((c) => c.dataset.code)"""
    )
    assert hidden == [], f"corner codes hidden: {hidden}"
    bar = box(ann, "#actions")
    under = ann.evaluate(
        """(bar) => [...document.querySelectorAll('#hand .card')].filter((c) => {
          const r = c.getBoundingClientRect();
          return r.bottom > bar.y + 1 && r.top < bar.y + bar.h;
        }).map((c) => c.dataset.code)""",
        bar,
    )
    assert under == [], f"cards under the action bar: {under}"
    shot(ann, f"42-hand-of-26-{lang}")


# -- 6. the match won has its moment ----------------------------------------------------------


def test_the_match_won_plays_its_own_moment(pages: Pages, server: ServerProcess) -> None:
    """Bob takes Ann's Wild Draw and is knocked out: the round and the match are Ann's. Both
    tables show the match's moment (the room that says so comes after the round's state)."""
    plan = stack_knockout_plan()
    rules = {**plan.rules, "target_score": 100}
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=rules, mode="match", turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, DESKTOP, "en")
    bob = sit(pages, server, code, tokens[1], 1, PHONE, "nb")
    wait_turn(ann)
    ann.locator(f"#hand .card.playable[data-code='{plan.cards[0]}']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt-choices button.c-R")
    bob.wait_for_selector("#take-btn:not([hidden])")
    bob.click("#take-btn")
    for page, name in ((ann, "en-desktop"), (bob, "nb-phone")):
        page.wait_for_selector("#moment.match:not([hidden])", timeout=10_000)
        assert page.locator("#moment.win").count() == 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"43-match-moment-{name}.png"))
    assert ann.inner_text("#moment .moment-title") == ann.evaluate(
        "nomercy.ctx.t('anim.match_won', {seat: 0})"
    )
    ann.wait_for_selector("#end:not([hidden])", timeout=10_000)
    assert ann.evaluate(f"{STORE}.room.status") == "finished"
