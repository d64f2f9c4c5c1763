"""Choosing the bots in the create form: a level, then a character the level allows, each
explained in a line; the table then seats the character by name. Both sizes, both languages."""

from __future__ import annotations

from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, PHONE, Pages, axe_check, browser, goto, pages, server, shot
from browser.test_client import with_lang
from server.conftest import ServerProcess

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser

WORDS = {
    "en": {
        "none": "None: the level as it is",
        "stacker": "Stacker Stella",
        "line": "Stacker Stella: stacks every Draw card she can, at the Strong level.",
        "expert": "Expert: searches far ahead",
        "seat": "Stella 1",
    },
    "nb": {
        "none": "Ingen: nivået som det er",
        "stacker": "Stablende Stella",
        "line": "Stablende Stella: stabler hvert trekkekort hun kan, på nivået Sterk.",
        "expert": "Ekspert: tenker langt framover",
        "seat": "Stella 1",
    },
}


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "nb"), (PHONE, "en")], ids=["desktop-nb", "phone-en"])
def test_a_level_and_a_character_each_explained_then_seated_by_name(
    pages: Pages, server: ServerProcess, size: dict[str, Any], lang: str
) -> None:
    words = WORDS[lang]
    page = with_lang(pages.new(size), lang)
    goto(page, server.url + "/")
    page.select_option("#bot", "expert")  # a character would only be the expert's search there
    assert page.eval_on_selector_all("#character option", "os => os.map(o => o.textContent)") == [
        words["none"]
    ]
    assert page.is_disabled("#character") and page.inner_text("#bot-line") == words["expert"]
    page.select_option("#bot", "strong")
    assert page.is_enabled("#character")
    page.select_option("#character", "stacker")
    assert page.inner_text("#bot-line") == words["line"]
    assert page.eval_on_selector("#character", "s => s.selectedOptions[0].textContent") == words["stacker"]
    shot(page, f"character-chosen-{lang}")
    axe_check(page, "the create form with a character")
    page.fill("#create-nick", "Ann")
    page.select_option("#seats", "3")
    page.select_option("#bots", "2")
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("#screen-lobby:not([hidden])")
    names = page.eval_on_selector_all("#lobby-seats .name", "ns => ns.map(n => n.textContent)")
    assert words["seat"] in names, names
    page.click("#start-btn")
    page.wait_for_selector("#screen-table:not([hidden])")
    page.wait_for_function(f"document.querySelector('#screen-table').textContent.includes({words['seat']!r})")
    shot(page, f"character-table-{lang}")
