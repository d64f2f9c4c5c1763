"""Reduced motion removes the movement, never the news (issue 41).

With ``prefers-reduced-motion: reduce`` no card flies; a Seven's swap (N1) and a Zero's
pass (N2) must still be told: the words on the felt and a still mark on every seat whose
hand moved. Before, the page returned before the words, and a swap under reduced motion
went by without a sign.
"""

from __future__ import annotations

from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.plans import Plan, _plays, seven_plan
from browser.test_browser import (
    COUNT_FLIGHTS,
    DESKTOP,
    PHONE,
    SHOTS,
    Pages,
    browser,
    goto,
    pages,
    seated,
    server,
    wait_turn,
)
from browser.test_client import with_lang
from nomercy.match import Match
from nomercy.rules import Rules
from server.conftest import ServerProcess

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser
pytestmark = needs.CHROMIUM

REDUCED = {"reduced_motion": "reduce"}
SEATS = "els => els.map((e) => Number(e.dataset.seat))"


def zero_plan(players: int = 3) -> Plan:
    """Ann (seat 0) starts and holds a Zero she can play without calling UNO."""
    for seed in range(20_000):
        state = Match(players, Rules(), seed).state
        if state.current_player == 0:
            zeros = [a for a in _plays(state) if a.card.code.endswith("0") and not a.uno]
            if zeros:
                return Plan(seed, {}, (zeros[0].card.code,))
    raise AssertionError("no seed found")


def reduced_seat(pages: Pages, server: ServerProcess, plan: Plan, size: dict[str, Any], lang: str) -> Any:
    """Ann's page at a three-seat table (Ann and two bots), with reduced motion."""
    code, tokens = seated(server, 3, 2, seed=plan.seed, turn_seconds=0)
    page = with_lang(pages.new({**size, **REDUCED}), lang)
    goto(page, server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{code}", f'{{"seat": 0, "token": "{tokens[0]}"}}'],
    )
    goto(page, f"{server.url}/join/{code}")
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    wait_turn(page)
    page.evaluate(COUNT_FLIGHTS)
    return page


def told(page: Any, key: str, **params: Any) -> None:
    """The words of ``key`` stand on the felt, still, and no card flew."""
    words = page.evaluate("([k, p]) => nomercy.ctx.t(k, p)", [key, params])
    page.wait_for_function(
        "w => [...document.querySelectorAll('#felt .announce')].some((a) => a.textContent === w)",
        arg=words,
        timeout=5_000,
    )
    assert page.evaluate("window.__flights") == 0
    assert page.evaluate("document.getAnimations().filter((a) => a.playState === 'running').length") == 0


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "en"), (PHONE, "nb")])
def test_a_swap_under_reduced_motion_is_told_and_marked(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str
) -> None:
    """N1: the Seven's swap, without motion: the words, and both seats marked."""
    seven = seven_plan()
    page = reduced_seat(pages, server, seven, size, lang)
    page.locator(f"#hand .card.playable[data-code='{seven.cards[0]}']").first.click()
    page.wait_for_selector("#prompt[open]")
    target = int(page.locator("#prompt-choices button").first.evaluate("b => b.dataset.seat ?? -1"))
    page.locator("#prompt-choices button").first.click()
    page.wait_for_selector("#felt .announce.swap")
    marked = page.eval_on_selector_all(
        "#seat-ring .seat.moved", "els => els.map((e) => Number(e.dataset.seat))"
    )
    assert 0 in marked and len(marked) == 2, marked
    told(page, "anim.swap", seats=",".join(map(str, sorted(marked))))  # who swapped with whom
    if target >= 0:
        assert target in marked
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"reduced-swap-{lang}-{'phone' if size is PHONE else 'desktop'}.png"))
    # The mark is a moment's: it goes once the news is old.
    page.wait_for_function("!document.querySelector('#seat-ring .seat.moved')", timeout=10_000)


@pytest.mark.parametrize(("size", "lang"), [(PHONE, "en"), (DESKTOP, "nb")])
def test_a_pass_under_reduced_motion_is_told_and_marked(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str
) -> None:
    """N2: the Zero's pass, without motion: the words, and every active seat marked."""
    zero = zero_plan()
    page = reduced_seat(pages, server, zero, size, lang)
    page.locator(f"#hand .card.playable[data-code='{zero.cards[0]}']").first.click()
    told(page, "anim.pass")
    marked = page.eval_on_selector_all(
        "#seat-ring .seat.moved", "els => els.map((e) => Number(e.dataset.seat))"
    )
    assert sorted(marked) == [0, 1, 2]
    page.screenshot(path=str(SHOTS / f"reduced-pass-{lang}-{'phone' if size is PHONE else 'desktop'}.png"))
