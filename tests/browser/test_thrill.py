"""A table that thrills (issue 41): the stack as a show, the Colour Roulette's reveal, a
knock-out the whole table sees, the match's fanfare, the picture of a big moment, the
second theme and the music. Each moment is played for real against the server and
photographed; under reduced motion each keeps every piece of its news without movement.

- K1/K2: the stack's counter rolls up to its total and names who faces it; that seat
  glows and the felt warms; the take is a moment scaled to its size, on every table.
- W4: the Roulette's cards stand in a row on the felt, turned face up one by one, the last
  one (the named colour's) marked.
- M1/M2: a knock-out fills every seat's felt, not only the knocked-out player's.
"""

from __future__ import annotations

import functools
import struct
from pathlib import Path
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.plans import Plan, big_take_plan, stack_knockout_plan
from browser.test_browser import (
    COUNT_FLIGHTS,
    DESKTOP,
    PHONE,
    SHOTS,
    Pages,
    browser,
    pages,
    seated,
    server,
    shot,
    wait_turn,
)
from browser.test_client import sit
from nomercy.match import Match
from nomercy.rules import Rules
from server.conftest import ServerProcess

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser

REDUCED = {"reduced_motion": "reduce"}
RUNNING = "document.getAnimations().filter((a) => a.playState === 'running').length"
#: Every text the stack's counter shows, in order (a roll shows the figures on its way).
WATCH_COUNTER = """(() => { window.__counter = []; const box = document.querySelector('#pending');
  const seen = () => { const n = box.querySelector('.pending-n'); if (!n || box.hidden) return;
    const t = n.textContent; const log = window.__counter;
    if (log[log.length - 1] !== t) log.push(t); };
  new MutationObserver(seen).observe(box, { subtree: true, childList: true, characterData: true }); })()"""


@functools.cache
def roulette_plan(least: int = 3) -> Plan:
    """Ann (seat 0) starts with a Colour Roulette; Bob names the colour in ``cards[1]``, which
    turns up at least ``least`` cards and ends nothing."""
    for seed in range(50_000):
        state = Match(2, Rules(), seed).state
        if state.current_player != 0:
            continue
        play = next(
            (a for a in state.legal_actions() if a.kind == "play" and a.card.code == "WCR" and not a.uno),
            None,
        )
        if play is None:
            continue
        state.apply(play, 0)
        if state.current_player != 1 or state.decision.label != "roulette":
            continue
        for action in state.legal_actions():
            probe = state.clone()
            events = probe.apply(action, 1)
            drawn = sum(e.count for e in events if e.type == "drew" and e.reason == "roulette")
            if probe.outcome is None and least <= drawn <= 8:
                return Plan(seed, {}, ("WCR", str(action).split()[-1]))
    raise AssertionError("no seed found")


def t(page: Any, key: str, **params: Any) -> str:
    return str(page.evaluate("([k, p]) => nomercy.ctx.t(k, p)", [key, params]))


def wild_draw(ann: Any, bob: Any, card: str) -> None:
    """Ann plays her Wild Draw naming red; Bob, who cannot stack, is asked to take."""
    wait_turn(ann)
    ann.locator(f"#hand .card.playable[data-code='{card}']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt-choices button.c-R")
    bob.wait_for_selector("#take-btn:not([hidden])")


def moment_words(page: Any, kind: str) -> list[str]:
    """The title and line of the moment ``kind`` once it shows."""
    page.wait_for_selector(f"#moment.{kind}:not([hidden])", timeout=10_000)
    return [page.inner_text("#moment .moment-title"), page.inner_text("#moment .moment-sub")]


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "en"), (PHONE, "nb")])
def test_the_stack_rolls_up_names_who_faces_it_and_its_take_fills_every_table(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str
) -> None:
    """K1/K2: a Wild Draw 10 on the pile: Ann's counter rolls up to +10 (figures on its way)
    and says Bob faces it, Bob's seat glows, the felt warms; Bob's take of 10 is a moment
    on both tables (scaled for its size); the knock-out it brings (M2) fills Ann's felt
    too; the end screen offers the picture of the take, a PNG drawn in the page."""
    plan = big_take_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules, turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, size, lang)
    bob = sit(pages, server, code, tokens[1], 1, PHONE if size is DESKTOP else DESKTOP, lang)
    wait_turn(ann)
    ann.evaluate(WATCH_COUNTER)
    wild_draw(ann, bob, plan.cards[0])
    ann.wait_for_function("window.__counter.includes('+10')")
    rolled = ann.evaluate("window.__counter")
    assert rolled[-1] == "+10" and len(rolled) > 2, rolled  # it rolled, and stopped at the total
    assert [int(x) for x in rolled] == sorted(int(x) for x in rolled), rolled
    assert ann.inner_text("#pending .pending-who") == t(ann, "table.pending_who", seat=1)
    assert ann.eval_on_selector_all("#seat-ring .seat.faces", "els => els.map((e) => e.dataset.seat)") == [
        "1"
    ]
    assert ann.get_attribute("#felt", "data-heat") == "2"
    ann.wait_for_timeout(700)  # the roll and the badge's flight end
    shot(ann, f"thrill-stack-{lang}")
    bob.click("#take-btn")
    assert moment_words(ann, "bigtake") == ["+10", t(ann, "anim.takes", seat=1, count=10)]
    assert moment_words(bob, "bigtake") == ["+10", t(bob, "anim.big_take", count=10)]
    assert (
        ann.evaluate("getComputedStyle(document.querySelector('#moment')).getPropertyValue('--scale')") == "1"
    )
    ann.screenshot(path=str(SHOTS / f"thrill-take-{lang}.png"))
    # The knock-out is the table's news: Ann sees Bob's, with its count.
    title, line = moment_words(ann, "ko")
    assert title == t(ann, "anim.out")
    assert line == t(ann, "anim.ko_other", seat=1, count=ann.evaluate("nomercy.store.get().koCards[1]"))
    ann.screenshot(path=str(SHOTS / f"thrill-ko-other-{lang}.png"))
    ann.wait_for_selector("#end:not([hidden])", timeout=15_000)
    with ann.expect_download() as got:
        ann.click("#end-share")
    path = got.value.path()
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1200, 630)
    assert got.value.suggested_filename == "nomercy-take-10.png"
    ann.wait_for_selector("#toast:not([hidden])")
    assert ann.inner_text("#toast") == t(ann, "share.saved")
    shot(ann, f"thrill-end-share-{lang}")


@pytest.mark.parametrize(("size", "lang"), [(PHONE, "en"), (DESKTOP, "nb")])
def test_the_stack_and_its_take_keep_their_news_under_reduced_motion(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str
) -> None:
    """Reduced motion: the counter stands at its total at once (no figures on the way), who
    faces it is named, the take's and the knock-out's moments say the same words, and
    nothing moves."""
    plan = big_take_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules, turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, {**size, **REDUCED}, lang)
    bob = sit(pages, server, code, tokens[1], 1, DESKTOP, lang)
    wait_turn(ann)
    ann.evaluate(COUNT_FLIGHTS)
    ann.evaluate(WATCH_COUNTER)
    wild_draw(ann, bob, plan.cards[0])
    ann.wait_for_function("window.__counter.includes('+10')")
    assert ann.evaluate("window.__counter") == ["+10"]
    assert ann.inner_text("#pending .pending-who") == t(ann, "table.pending_who", seat=1)
    assert ann.eval_on_selector_all("#seat-ring .seat.faces", "els => els.map((e) => e.dataset.seat)") == [
        "1"
    ]
    bob.click("#take-btn")
    assert moment_words(ann, "bigtake") == ["+10", t(ann, "anim.takes", seat=1, count=10)]
    assert ann.evaluate(RUNNING) == 0
    assert ann.locator(".letterbox").count() == 0
    assert moment_words(ann, "ko")[0] == t(ann, "anim.out")
    assert ann.evaluate("window.__flights") == 0
    ann.screenshot(path=str(SHOTS / f"thrill-reduced-ko-{lang}.png"))


@pytest.mark.parametrize(
    ("size", "lang", "reduced"), [(DESKTOP, "en", False), (PHONE, "nb", False), (PHONE, "en", True)]
)
def test_the_roulette_turns_its_cards_face_up_one_by_one(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str, reduced: bool
) -> None:
    """W4: the cards the Roulette turned up (the server's `drew` event lists them) stand in a
    row on the felt, the last one marked, with who took them; with motion they turn face
    up one after another, under reduced motion they stand face up and still."""
    plan = roulette_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, {**size, **(REDUCED if reduced else {})}, lang)
    bob = sit(pages, server, code, tokens[1], 1, PHONE, lang)
    wait_turn(ann)
    ann.locator("#hand .card.playable[data-code='WCR']").first.click()
    bob.wait_for_selector("#prompt[open]")
    bob.click(f"#prompt-choices button.c-{plan.cards[1]}")
    ann.wait_for_selector(".roulette-row")
    cards = ann.eval_on_selector_all(".roulette-row .face", "els => els.map((e) => e.dataset.code)")
    assert len(cards) >= 3
    assert ann.eval_on_selector_all(
        ".roulette-slot", "els => els.map((e) => e.classList.contains('hit'))"
    ) == [False] * (len(cards) - 1) + [True]
    assert cards[-1].startswith(plan.cards[1]) or cards[-1].startswith("W")
    assert ann.inner_text(".roulette-line") == t(ann, "anim.roulette_turns", seat=1, count=len(cards))
    assert ann.inner_text(".roulette-title").lower() == t(ann, "anim.roulette").lower()
    if reduced:
        assert ann.locator(".roulette-row .back").count() == 0
        assert ann.evaluate(RUNNING) == 0
    else:
        # Turned one by one: while the first is face up, the last is still a back.
        ann.wait_for_function(
            "(() => { const a = document.querySelectorAll('.roulette-row .face');"
            " const f = (n) => n.getAnimations()[0];"
            " return f(a[0]) && f(a[0]).playState === 'finished'"
            " && f(a[a.length - 1]).playState !== 'finished'; })()",
            timeout=5_000,
        )
        ann.wait_for_function(
            "[...document.querySelectorAll('.roulette-row .face')]"
            ".every((n) => n.getAnimations().every((a) => a.playState === 'finished'))",
            timeout=8_000,
        )
    ann.screenshot(path=str(SHOTS / f"thrill-roulette-{lang}-{'reduced' if reduced else 'motion'}.png"))
    ann.wait_for_selector(".roulette-row", state="detached", timeout=10_000)
    assert ann.evaluate("nomercy.store.get().view.hand_sizes[1]") >= 7 + len(cards) - 1


@pytest.mark.parametrize("reduced", [False, True])
def test_the_match_won_is_its_own_fanfare(pages: Pages, server: ServerProcess, reduced: bool) -> None:
    """The match's moment: its own rays, its points and rounds in words, longer than a
    round's; under reduced motion the same words, still."""
    plan = stack_knockout_plan()
    rules = {**plan.rules, "target_score": 100}
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=rules, mode="match", turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, {**DESKTOP, **(REDUCED if reduced else {})}, "en")
    bob = sit(pages, server, code, tokens[1], 1, PHONE, "nb")
    wild_draw(ann, bob, plan.cards[0])
    bob.click("#take-btn")
    title, sub = moment_words(ann, "match")
    moment_words(bob, "match")  # both tables have it (it lasts 4.2 s)
    bob.screenshot(path=str(SHOTS / "thrill-match-nb-phone.png"))
    room = ann.evaluate("nomercy.store.get().room")
    assert title == t(ann, "anim.match_won", seat=0)
    assert sub == t(ann, "anim.match_sub", points=str(room["scores"][0]), count=len(room["rounds"]))
    assert ann.locator("#moment.match .rays").count() == 1
    if reduced:
        assert ann.evaluate(RUNNING) == 0
    ann.screenshot(path=str(SHOTS / f"thrill-match-{'reduced' if reduced else 'motion'}.png"))


def test_the_second_theme_is_remembered_and_the_music_waits_to_be_asked(
    pages: Pages, server: ServerProcess
) -> None:
    """The theme button puts the table in midnight blue, and a reload keeps it; the music
    is off and its code not loaded until its button is pressed."""
    plan = big_take_plan()
    code, tokens = seated(server, 2, 1, seed=plan.seed, rules=plan.rules, turn_seconds=0)
    ann = sit(pages, server, code, tokens[0], 0, DESKTOP, "nb")
    wait_turn(ann)
    theme_loaded = "performance.getEntriesByType('resource').some((r) => r.name.endsWith('/theme.js'))"
    assert ann.get_attribute("html", "data-theme") == "felt"
    assert not ann.evaluate(theme_loaded)  # the default theme needs no code
    felt = ann.evaluate("getComputedStyle(document.querySelector('#felt')).backgroundImage")
    ann.click("#theme-btn")
    ann.wait_for_function("document.documentElement.dataset.theme === 'night'")  # its code loads first
    assert ann.evaluate("getComputedStyle(document.querySelector('#felt')).backgroundImage") != felt
    assert ann.get_attribute("#theme-btn", "title") == t(ann, "theme.night")
    ann.reload()
    wait_turn(ann)
    ann.wait_for_function("document.documentElement.dataset.theme === 'night'")  # its code loads first
    shot(ann, "thrill-theme-night")
    loaded = "performance.getEntriesByType('resource').some((r) => r.name.endsWith('/music.js'))"
    assert ann.get_attribute("#music-btn", "aria-pressed") == "false"
    assert not ann.evaluate(loaded)
    ann.click("#music-btn")
    ann.wait_for_function(
        f"document.querySelector('#music-btn').getAttribute('aria-pressed') === 'true' && {loaded}"
    )
    assert ann.evaluate(theme_loaded)  # the theme's code came when the theme was picked
    assert ann.get_attribute("#music-btn", "title") == t(ann, "music.on")
    ann.click("#theme-btn")
    ann.wait_for_function("document.documentElement.dataset.theme === 'felt'")
