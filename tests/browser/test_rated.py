"""A rated round in a real browser, as its players see it: two signed-in players in two
browser contexts (Ann at a desktop in English, Bob on a phone in Norwegian) play a rated
table to its end through the page; the table says "Rated" in its lobby and at play; the
end screen gives each their rating and its change (Bob's marked provisional, with the
games it still needs); each profile's history gives the game's change; and the board
highlights Ann's own row with her rank, and tells Bob how many games his provisional
rating still needs. Every screen at both sizes (``shot``) and checked by axe.

Ann comes with two rated games already (seeded as the ratings write them), so that this
round settles her rating (the boards list a player after 3 rated games here) while Bob's,
new, stays provisional.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import needs
from patience import scaled

pytest.importorskip("fastapi")
sync_api = pytest.importorskip("playwright.sync_api")

from sqlalchemy import create_engine, insert, select  # noqa: E402

from browser.test_browser import (  # noqa: E402
    BROWSER_ENV,
    DESKTOP,
    PHONE,
    SHOTS,
    Pages,
    axe_check,
    browser,
    goto,
    pages,
    shot,
    take_turn,
)
from browser.test_client import with_lang  # noqa: E402
from nomercy.server.players.accounts import SESSION_COOKIE, AccountStore  # noqa: E402
from nomercy.server.players.fairplay import allowed  # noqa: E402
from nomercy.server.players.ratings import conservative, player_of_account, rating_changes, ratings  # noqa: E402
from server.conftest import ServerProcess  # noqa: E402

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages"]  # the fixtures, shared with test_browser

CATALOGS = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "i18n" / "catalogs"
MIN_GAMES = 3
#: The players act at once; the bots of the room (none here) and the catch wait as in play.
ENV = {**BROWSER_ENV, "NOMERCY_LEADERBOARD_MIN_GAMES": str(MIN_GAMES)}
#: A number as the page writes it: "12.3", "+1.4", Norwegian "12,3" and a minus sign (U+2212).
MINUS = "\N{MINUS SIGN}"
NUMBER = rf"[+\-{MINUS}]?\d+(?:[.,]\d)?"


def words(lang: str) -> dict[str, Any]:
    return json.loads((CATALOGS / lang / "web.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def number(text: str) -> float:
    return float(text.replace(MINUS, "-").replace(",", "."))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    srv = ServerProcess(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", ENV, log=tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()


def accounts(server: ServerProcess) -> dict[str, tuple[str, str]]:
    """Ann (two rated games behind her), Bob (new) and Cleo (settled, ahead of Ann), each
    with a session: name -> (account id, session token). Ann and Bob play from one address
    (this machine): an operator allows the pair, as for friends on one network."""
    engine = create_engine(server.database_url)
    try:
        store = AccountStore(engine)
        made = {name: store.create(name).id for name in ("Ann", "Bob", "Cleo")}
        out = {name: (id_, store.open_session(id_)) for name, id_ in made.items()}
        ann = player_of_account(made["Ann"])
        days_ago = [time.time() - 86_400 * n for n in (2, 1)]  # her two games, lately
        with engine.begin() as conn:
            conn.execute(
                insert(ratings),
                [
                    {"player": ann, "preset": "no_mercy", "mu": 26.0, "sigma": 6.0, "games": 2, "wins": 1,
                     "updated_at": days_ago[1]},
                    {"player": player_of_account(made["Cleo"]), "preset": "no_mercy", "mu": 40.0,
                     "sigma": 1.0, "games": 40, "wins": 30, "updated_at": time.time()},  # active now
                ],
            )  # fmt: skip
            conn.execute(
                insert(rating_changes),
                [
                    {"game_id": f"seeded{i}", "player": ann, "preset": "no_mercy", "place": i + 1,
                     "mu_before": 25.0, "sigma_before": 8.0 - i, "mu": 26.0, "sigma": 7.0 - i,
                     "at": days_ago[i]}
                    for i in range(2)
                ],
            )  # fmt: skip
            a, b = sorted((made["Ann"], made["Bob"]))
            conn.execute(insert(allowed).values(account_a=a, account_b=b, at=1.0, note="one home network"))
    finally:
        engine.dispose()
    return out


def signed_in(pages: Pages, server: ServerProcess, session: str, lang: str, size: dict[str, Any]) -> Any:
    page = with_lang(pages.new(size), lang)
    page.context.add_cookies([{"name": SESSION_COOKIE, "value": session, "url": server.url}])
    return page


def panel_shot(page: Any, selector: str, name: str) -> None:
    """A panel below the first screen (a profile's games), as ``NAME-desktop.png`` and
    ``NAME-phone.png``: scrolled into view at each size."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    own = dict(page.viewport_size)
    for size, viewport in (("desktop", DESKTOP["viewport"]), ("phone", PHONE["viewport"])):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(300)
        page.locator(selector).screenshot(path=str(SHOTS / f"{name}-{size}.png"))
    page.set_viewport_size(own)


def pressing(page: Any) -> bool:
    """A turn as :func:`take_turn` takes it, but a Draw card first: stacks knock a player
    out sooner (25 cards), so a round between two people ends in a bounded time."""
    if not page.locator("#prompt[open]").count() and not page.is_visible("#color-pick"):
        draws = page.locator('#hand .card.playable[data-code*="+"]')
        if draws.count():
            draws.first.click()
            page.wait_for_timeout(80)
            if page.locator("#prompt[open]").count():
                page.locator("#prompt-choices button").first.click()
            return True
    return take_turn(page)


def play_to_the_end(players: list[Any], seconds: float = 300) -> None:
    """Each player takes their turn through the page (a Draw card first, else a card, the
    deck, a colour) until the end screen shows to both."""
    deadline = time.monotonic() + seconds
    for page in players:
        page.set_default_timeout(3000)  # a control the other's move just took away is passed over
    while not all(page.is_visible("#end") for page in players):
        assert time.monotonic() < deadline, "the round did not end"
        moved = False
        for page in players:
            try:
                moved = pressing(page) or moved
            except sync_api.TimeoutError:
                continue
        if not moved:
            players[0].wait_for_timeout(100)
    for page in players:
        page.set_default_timeout(30_000)


def test_a_rated_round_between_two_signed_in_players(pages: Pages, server: ServerProcess) -> None:
    made = accounts(server)
    en, nb = words("en"), words("nb")
    ann = signed_in(pages, server, made["Ann"][1], "en", DESKTOP)
    bob = signed_in(pages, server, made["Bob"][1], "nb", PHONE)

    # Ann sets a rated table up from the create form: two seats, no bots.
    goto(ann, server.url + "/")
    ann.wait_for_selector("#rated-box:not([hidden])")
    ann.fill("#create-nick", "Ann")
    ann.check("#rated")
    ann.select_option("#seats", "2")
    ann.select_option("#bots", "0")
    ann.click("#create-form button[type=submit]")
    ann.wait_for_selector("#screen-lobby:not([hidden])")
    code = ann.evaluate("nomercy.store.get().room.code")
    goto(bob, f"{server.url}/join/{code}")
    bob.fill("#join-nick", "Bob")
    bob.click("#join-form button[type=submit]")
    bob.wait_for_selector("#screen-lobby:not([hidden])")

    # The lobby says it is rated, in each player's language: the mark and what it means.
    for page, t in ((ann, en), (bob, nb)):
        page.wait_for_function("nomercy.store.get().room.seats.every((s) => s.connected)")
        assert page.is_visible("#rated-mark") and page.inner_text("#rated-mark") == t["rating.rated"]
        assert page.is_visible("#lobby-rated")
        assert page.inner_text("#lobby-rated") == f"{t['rating.rated']} {t['lobby.rated']}"
    axe_check(ann, "rated lobby (en, desktop)")
    axe_check(bob, "rated lobby (nb, phone)")
    shot(ann, "rated-lobby-en")
    shot(bob, "rated-lobby-nb")

    ann.click("#start-btn")
    for page, t in ((ann, en), (bob, nb)):
        page.wait_for_selector("#screen-table:not([hidden])", timeout=scaled(60) * 1000)
        page.wait_for_function("document.querySelectorAll('#hand .card').length > 0")
        assert page.is_visible("#rated-mark") and page.inner_text("#rated-mark") == t["rating.rated"]
    axe_check(ann, "rated table (en, desktop)")
    shot(ann, "rated-table-en")
    shot(bob, "rated-table-nb")

    play_to_the_end([ann, bob])

    # The end screen: each player's rating after the round and its change, as the board
    # counts it (mu - 3 sigma); Bob's, new, is provisional with two games to go.
    ann_player, bob_player = (player_of_account(made[n][0]) for n in ("Ann", "Bob"))
    engine = create_engine(server.database_url)
    deadline = time.monotonic() + scaled(60)  # the round is kept just after its end shows
    try:
        while True:
            with engine.connect() as conn:
                now = {
                    r.player: conservative(r.mu, r.sigma)
                    for r in conn.execute(select(ratings).where(ratings.c.preset == "no_mercy")).all()
                }
                changes = {
                    r.player: conservative(r.mu, r.sigma) - conservative(r.mu_before, r.sigma_before)
                    for r in conn.execute(
                        select(rating_changes).where(rating_changes.c.game_id.not_like("seeded%"))
                    )
                }
            if set(changes) == {ann_player, bob_player} or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        engine.dispose()
    assert set(changes) == {ann_player, bob_player}  # the round was rated
    shown: dict[str, str] = {}
    for page, t, player in ((ann, en, ann_player), (bob, nb, bob_player)):
        page.wait_for_selector("#end-rating:not([hidden])", timeout=scaled(60) * 1000)
        text = page.inner_text("#end-rating")
        found = re.fullmatch(rf"{re.escape(t['end.rating'])} ({NUMBER}) \(({NUMBER})\)(.*)", text)
        assert found, text
        assert abs(number(found[1]) - now[player]) <= 0.051, (text, now[player])
        assert abs(number(found[2]) - changes[player]) <= 0.051, (text, changes[player])
        shown[player] = found[0][len(t["end.rating"]) + 1 :]
    assert ann.locator("#end-rating .provisional").count() == 0  # her third game settles it
    assert bob.inner_text("#end-rating .provisional") == nb["rating.provisional"]["other"].replace(
        "{count}", "2"
    )
    axe_check(ann, "rated end screen (en, desktop)")
    axe_check(bob, "rated end screen (nb, phone)")
    shot(ann, "rated-end-en")
    shot(bob, "rated-end-nb")

    # The profile's history gives the round's change on its line; the seeded games are no
    # kept games, so the round is the only line.
    for page, t, name, player in ((ann, en, "Ann", ann_player), (bob, nb, "Bob", bob_player)):
        goto(page, f"{server.url}/u/{name}")
        page.wait_for_selector(".profile-game .rating-change")
        line = page.locator(".profile-game").first.locator(".rating-change").inner_text()
        assert line == f"{t['profile.rating']} {shown[player]}", line
        axe_check(page, f"profile of {name}")
        shot(page, f"rated-profile-{'en' if page is ann else 'nb'}")
        panel_shot(page, ".profile-games", f"rated-profile-games-{'en' if page is ann else 'nb'}")

    # The board: Ann's own row highlighted with her rank (Cleo is ahead); Bob is told how
    # many games his provisional rating still needs, and has no row.
    goto(ann, f"{server.url}/leaders/no_mercy")
    ann.wait_for_selector(".leader-table tbody tr.is-me")
    mine = ann.locator(".leader-table tbody tr.is-me")
    assert mine.count() == 1 and mine.get_attribute("aria-current") == "true"
    assert mine.locator(".leader-rank").inner_text() == "2"
    assert mine.locator(".leader-name a").inner_text() == "Ann"
    assert ann.locator(".leader-me").inner_text().startswith("You are #2 on this board, with ")
    axe_check(ann, "board (en, desktop)")
    shot(ann, "rated-board-en")
    goto(bob, f"{server.url}/leaders/no_mercy")
    bob.wait_for_selector(".leader-me")
    assert bob.locator(".leader-table tbody tr.is-me").count() == 0
    me_line = bob.inner_text(".leader-me")
    assert me_line.startswith(nb["leaders.me_off"].split("{")[0]), me_line
    assert me_line.endswith(nb["rating.provisional"]["other"].replace("{count}", "2")), me_line
    assert "Bob" not in bob.inner_text(".leader-table")
    axe_check(bob, "board (nb, phone)")
    shot(bob, "rated-board-nb")


def lobby_of_two(
    pages: Pages, server: ServerProcess, made: dict[str, tuple[str, str]]
) -> tuple[Any, Any, str]:
    """Ann (English, desktop) hosts a rated table of two from the create form; Bob
    (Norwegian, phone) takes the other seat. Their pages and the room's code."""
    ann = signed_in(pages, server, made["Ann"][1], "en", DESKTOP)
    bob = signed_in(pages, server, made["Bob"][1], "nb", PHONE)
    goto(ann, server.url + "/")
    ann.wait_for_selector("#rated-box:not([hidden])")
    ann.fill("#create-nick", "Ann")
    ann.check("#rated")
    ann.select_option("#seats", "2")
    ann.select_option("#bots", "0")
    ann.click("#create-form button[type=submit]")
    ann.wait_for_selector("#screen-lobby:not([hidden])")
    code = str(ann.evaluate("nomercy.store.get().room.code"))
    goto(bob, f"{server.url}/join/{code}")
    bob.fill("#join-nick", "Bob")
    bob.click("#join-form button[type=submit]")
    bob.wait_for_selector("#screen-lobby:not([hidden])")
    return ann, bob, code


def fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = re.sub(r"\{" + key + r"(?::\w+)?\}", value, template)
    return template


@pytest.fixture
def quick_abort(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server whose rated rounds wait 8 seconds for their people."""
    env = {**ENV, "NOMERCY_RATED_CONNECT_SECONDS": "8"}
    srv = ServerProcess(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", env, log=tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()


def test_a_rated_round_says_whom_it_waits_for_and_why_it_was_aborted(
    pages: Pages, quick_abort: ServerProcess
) -> None:
    """Bob leaves the lobby before Ann starts: the table tells Ann it waits for Bob to
    connect, with the time left counting down; past it, that the round was aborted, not
    rated, because Bob never connected; in Norwegian too after a reload. Both sizes, axe-clean."""
    server = quick_abort
    made = accounts(server)
    en, nb = words("en"), words("nb")
    ann, bob, _code = lobby_of_two(pages, server, made)
    bob.close()  # Bob's only page: he is no longer connected
    ann.wait_for_function("nomercy.store.get().room.seats.some((s) => !s.connected)")
    ann.click("#start-btn")
    ann.wait_for_selector("#screen-table:not([hidden])", timeout=15_000)
    ann.wait_for_selector("#rated-note:not([hidden])")
    first = ann.inner_text("#rated-note")
    waiting = re.escape(fill(en["rating.waiting_time"], list="Bob", time="TIME")).replace(
        "TIME", r"(\d+):(\d\d)"
    )
    found = re.fullmatch(waiting, first)
    assert found, first
    assert 0 < int(found[1]) * 60 + int(found[2]) <= 8
    ann.wait_for_function(f"document.querySelector('#rated-note').textContent !== {json.dumps(first)}")
    assert re.fullmatch(waiting, ann.inner_text("#rated-note"))  # it counts down
    axe_check(ann, "rated round waiting (en, desktop)")
    shot(ann, "rated-waiting-en")
    ann.set_viewport_size(PHONE["viewport"])
    axe_check(ann, "rated round waiting (en, phone)")
    ann.set_viewport_size(DESKTOP["viewport"])

    aborted = fill(en["rating.aborted"], list="Bob")
    ann.wait_for_function(
        f"document.querySelector('#rated-note').textContent === {json.dumps(aborted)}", timeout=20_000
    )
    assert ann.is_visible("#rated-note") and not ann.is_visible("#end")
    assert ann.evaluate("nomercy.store.get().room.status") == "finished"
    axe_check(ann, "rated round aborted (en, desktop)")
    shot(ann, "rated-aborted-en")
    # The same room in Norwegian (a reload keeps the seat): the abort is said in Bokmål.
    ann.evaluate("localStorage.setItem('nomercy:lang', 'nb')")
    ann.add_init_script("localStorage.setItem('nomercy:lang', 'nb')")
    ann.set_viewport_size(PHONE["viewport"])
    ann.reload()
    said = json.dumps(fill(nb["rating.aborted"], list="Bob"))
    ann.wait_for_function(f"document.querySelector('#rated-note').textContent === {said}", timeout=15_000)
    axe_check(ann, "rated round aborted (nb, phone)")
    shot(ann, "rated-aborted-nb")


def test_players_see_that_their_rated_room_is_not_rated_for_now(pages: Pages, server: ServerProcess) -> None:
    """Ann and Bob play from one address and no operator allows them: the table tells each,
    in their language, that its rounds are not rated for now and why. Both sizes, axe-clean."""
    made = accounts(server)
    engine = create_engine(server.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(allowed.delete())  # this time nobody vouched for them
    finally:
        engine.dispose()
    en, nb = words("en"), words("nb")
    ann, bob, _code = lobby_of_two(pages, server, made)
    for page, t in ((ann, en), (bob, nb)):
        page.wait_for_function(
            "document.querySelector('#rated-note').textContent === "
            + json.dumps(t["rating.unrated.address"]),
            timeout=15_000,
        )
        assert page.is_visible("#rated-note") and page.is_visible("#rated-mark")
    axe_check(ann, "rated room not rated for now (en, desktop)")
    axe_check(bob, "rated room not rated for now (nb, phone)")
    shot(ann, "rated-unrated-en")
    shot(bob, "rated-unrated-nb")
