"""The music's on or off is remembered across reloads, as the sound's mute is (issue 41).

A page may not start sound by itself: music left on shows its button pressed at once, and
its code (js/music.js) loads and plays from the player's first key or click.
"""

from __future__ import annotations

from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, Pages, browser, goto, pages, server
from server.conftest import ServerProcess

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser
pytestmark = needs.CHROMIUM

LOADED = "performance.getEntriesByType('resource').some((r) => r.name.endsWith('/music.js'))"


def pressed(page: Any) -> str:
    return str(page.get_attribute("#music-btn", "aria-pressed"))


def test_the_music_choice_survives_a_reload_and_starts_at_the_first_gesture(
    pages: Pages, server: ServerProcess
) -> None:
    page = pages.new(DESKTOP)
    goto(page, server.url + "/")
    assert pressed(page) == "false"
    page.click("#music-btn")
    page.wait_for_function(
        f"document.querySelector('#music-btn').getAttribute('aria-pressed') === 'true' && {LOADED}"
    )
    assert page.evaluate("localStorage.getItem('nomercy:music')") == "1"

    page.reload()
    page.wait_for_selector("html[data-ready]", state="attached")
    assert pressed(page) == "true"  # remembered, shown before any sound
    assert page.get_attribute("#music-btn", "title") == page.evaluate("nomercy.ctx.t('music.on')")
    assert not page.evaluate(LOADED)  # no sound, and no code for it, before a gesture
    page.keyboard.press("Shift")
    page.wait_for_function(LOADED)
    assert pressed(page) == "true"

    page.click("#music-btn")  # off, and remembered off
    page.wait_for_function("document.querySelector('#music-btn').getAttribute('aria-pressed') === 'false'")
    page.reload()
    page.wait_for_selector("html[data-ready]", state="attached")
    assert pressed(page) == "false"
    page.keyboard.press("Shift")
    page.wait_for_timeout(200)
    assert not page.evaluate(LOADED)
