"""The account mark in a real browser: at a table, the seat a signed-in account holds shows
the drawn badge (the server's ``account`` in the seat info), a guest's seat never does, in
the lobby and at the table, in English and Norwegian, at both sizes, axe-clean."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import BROWSER_ENV, DESKTOP, PHONE, Pages, axe_check, browser, pages, shot
from browser.test_client import with_lang
from server.conftest import ServerProcess, join_room, start_room
from server.softkey import SoftKey

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages"]  # the fixtures, shared with test_browser

CATALOGS = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "i18n" / "catalogs"


def words(lang: str) -> dict[str, Any]:
    return json.loads((CATALOGS / lang / "web.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("marks")
    env = {**BROWSER_ENV, "NOMERCY_ACCOUNT_ATTEMPTS_PER_MINUTE": "1000"}
    srv = ServerProcess(f"sqlite:///{folder / 'rooms.sqlite3'}", env, log=folder / "server.log").start()
    yield srv
    srv.stop()


def account_table(server: ServerProcess, name: str) -> tuple[str, str, str]:
    """A room that the account ``name`` (signed up with a software passkey) hosts, with a
    guest and a bot: returns the code, the host's token and the guest's token."""
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=15) as http:
        key = SoftKey(server.url)
        body = http.post("/api/account/signup/options", json={"name": name}).json()
        answer = {"ceremony": body["ceremony"], "credential": key.create(body["options"])}
        assert http.post("/api/account/signup/verify", json=answer).status_code == 200
        made = http.post("/api/rooms", json={"nickname": "x", "seats": 3, "bots": 1}).json()
    guest = join_room(server, made["code"], "Guest")
    return made["code"], made["token"], guest["token"]


#: Each place's account mark: its label, or null where the place has none.
LABELS = """ps => ps.map(p => {
  const m = p.querySelector('.account-mark');
  return m && m.getAttribute('aria-label');
})"""


def marks(page: Any, where: str) -> list[str | None]:
    return page.eval_on_selector_all(where, LABELS)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("nb", "phone")])
def test_a_seat_held_by_an_account_is_marked_and_a_guest_seat_is_not(
    pages: Pages, server: ServerProcess, lang: str, size: str
) -> None:
    t = words(lang)
    code, host, guest = account_table(server, {"en": "Paloma", "nb": "Åse"}[lang])
    page = with_lang(pages.sit(server, code, guest, 1, DESKTOP if size == "desktop" else PHONE), lang)
    page.reload()
    page.wait_for_selector("#lobby-seats li .name")
    assert marks(page, "#lobby-seats li") == [t["seat.account"], None, None]
    axe_check(page, f"lobby with an account's seat {lang} {size}")
    shot(page, f"account-mark-lobby-{lang}")

    start_room(server, code, host)
    page.wait_for_selector('.seat[data-seat="0"] .plate')
    # The ring starts at the viewer's own seat: read it seat by seat.
    table = [marks(page, f'#seat-ring .seat[data-seat="{seat}"]') for seat in range(3)]
    assert table == [[t["seat.account"]], [None], [None]]
    mark = page.locator('.seat[data-seat="0"] .account-mark')
    assert mark.get_attribute("role") == "img" and mark.is_visible()
    # The mark is drawn beside the name, not written into it: the name reads as it is.
    assert page.inner_text('.seat[data-seat="0"] .name') == {"en": "Paloma", "nb": "Åse"}[lang]
    axe_check(page, f"table with an account's seat {lang} {size}")
    shot(page, f"account-mark-table-{lang}")
