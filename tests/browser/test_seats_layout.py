"""Every seat count laid out (issue 41): at two to six seats, on a desktop and on a phone,
for a player and for a spectator, no two things on the felt cover each other and all of
them lie in view (above the action bar on a phone).

What is measured: every seat plate, the stack counter (shown with a large total, as in a
long stack), the colour in play, the draw pile (with its label and count) and the discard
pile; in the host's view, the host's kick buttons too, each inside its own plate (on
a phone they stuck out past the plates, off the screen's side and onto the discard pile's
ring). The seats' names are as long as a nickname may be, so a long name that ran off the
phone fails here too.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.test_browser import DESKTOP, PHONE, SHOTS, Pages, browser, goto, pages, server
from browser.test_client import sit, with_lang
from server.conftest import ServerProcess, create_room, join_room, start_room

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser
pytestmark = needs.CHROMIUM

# Names as long as a nickname may be (24), with wide letters: what used to run off a phone.
LONG_NAMES = [
    "Wilhelmina Wolfgangsdott",
    "Maximiliane Mwangi-Wolff",
    "Bartholomew Wainwright-W",
    "Gwendolyn Warrington-MWW",
    "Wolfgang Amadeus Mozartt",
    "Mohammed Abdulwahhab-Mwa",
]

# Every box, from the page: the seats, the piles, the colour and a large stack counter.
BOXES = """() => {
  const pending = document.querySelector('#pending');
  pending.hidden = false; pending.textContent = '+24'; pending.classList.add('huge');
  const box = (n) => { const r = n.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  const out = {};
  const kicks = {};
  for (const s of document.querySelectorAll('#seat-ring .seat')) {
    out['seat ' + s.dataset.seat] = box(s);
    const kick = s.querySelector('.seat-kick');
    if (kick) { out['kick ' + s.dataset.seat] = box(kick); kicks[s.dataset.seat] = true; }
  }
  out['stack counter'] = box(pending);
  out['colour in play'] = box(document.querySelector('#color-chip'));
  out['draw pile'] = box(document.querySelector('#draw-btn'));
  out['discard pile'] = box(document.querySelector('#discard-cards'));
  const names = [...document.querySelectorAll('#seat-ring .seat .name')];
  const clipped = names.filter((n) => {
    const r = n.getBoundingClientRect();
    return r.right > innerWidth || r.left < 0;
  });
  const bar = document.querySelector('#screen-table .actions');
  const barTop = bar && bar.offsetParent ? bar.getBoundingClientRect().top : innerHeight;
  return { out, kicks: Object.keys(kicks).length, clipped: clipped.length, width: innerWidth,
    height: innerHeight, barTop };
}"""


# The stack counter is a badge pinned to the discard pile's corner, on purpose.
PINNED = {("stack counter", "discard pile")}


def own_kick(a: str, b: str) -> bool:
    """A seat and its own kick button: the button lies inside the plate by design."""
    return {a.split()[0], b.split()[0]} == {"seat", "kick"} and a.split()[1] == b.split()[1]


def overlaps(boxes: dict[str, dict[str, float]]) -> list[str]:
    """Every pair of boxes that share more than a pixel's sliver."""
    found = []
    for (a, ra), (b, rb) in itertools.combinations(boxes.items(), 2):
        if (a, b) in PINNED or (b, a) in PINNED or own_kick(a, b):
            continue
        w = min(ra["right"], rb["right"]) - max(ra["left"], rb["left"])
        h = min(ra["bottom"], rb["bottom"]) - max(ra["top"], rb["top"])
        if w > 1 and h > 1:
            found.append(f"{a} / {b} ({w:.0f}x{h:.0f} px)")
    return found


def outside(boxes: dict[str, dict[str, float]], width: float, bottom: float) -> list[str]:
    return [
        name
        for name, r in boxes.items()
        if r["left"] < 0 or r["top"] < 0 or r["right"] > width or r["bottom"] > bottom
    ]


def kicks_outside_plates(boxes: dict[str, dict[str, float]]) -> list[str]:
    """Every kick button that reaches past its own seat's plate by more than a pixel."""
    found = []
    for name, r in boxes.items():
        if not name.startswith("kick "):
            continue
        plate = boxes["seat " + name.split()[1]]
        past = max(
            plate["left"] - r["left"],
            plate["top"] - r["top"],
            r["right"] - plate["right"],
            r["bottom"] - plate["bottom"],
        )
        if past > 1:
            found.append(f"{name} reaches {past:.0f} px past its plate")
    return found


def table(server: ServerProcess, seats: int) -> dict[str, Any]:
    """A started room of ``seats`` people, every name as long as allowed. Nobody but the
    host opens the table, so the round waits and the felt holds still to be measured."""
    room = create_room(server, nickname=LONG_NAMES[0], seats=seats, seed=7)
    for name in LONG_NAMES[1:seats]:
        join_room(server, room["code"], name)
    start_room(server, room["code"], room["token"])
    return room


def measure(page: Any, where: str, kicks: int = 0) -> list[str]:
    """What is wrong with the felt on this page: overlaps, boxes out of view, names cut,
    kick buttons past their plates (``kicks``: how many the page must show)."""
    page.wait_for_selector("#screen-table:not([hidden]) #top-card")
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("!document.querySelector('.ghost')", timeout=15_000)
    got = page.evaluate(BOXES)
    boxes = got["out"]
    phone = got["width"] < 600
    bottom = min(got["height"], got["barTop"]) if phone else got["height"]
    wrong = [f"{where}: {o}" for o in overlaps(boxes)]
    wrong += [f"{where}: {o} out of view" for o in outside(boxes, got["width"], bottom)]
    wrong += [f"{where}: {o}" for o in kicks_outside_plates(boxes)]
    if got["kicks"] != kicks:
        wrong.append(f"{where}: {got['kicks']} kick buttons, not {kicks}")
    if got["clipped"]:
        wrong.append(f"{where}: a name runs off the screen")
    return wrong


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("lang", ["en", "nb"])
def test_every_seat_count_lays_out_without_overlap(
    pages: Pages, server: ServerProcess, seats: int, lang: str
) -> None:
    """S1: two to six seats, the host's view (with a kick button on every other seat) and a
    spectator's, both sizes, both languages."""
    room = table(server, seats)
    wrong: list[str] = []
    for size, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = sit(pages, server, room["code"], room["token"], 0, size, lang)
        page.wait_for_function(f"document.querySelectorAll('#seat-ring .seat').length === {seats}")
        wrong += measure(page, f"{seats} seats, host, {label}, {lang}", kicks=seats - 1)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"seats-{seats}-player-{lang}-{label}.png"))
        watcher = with_lang(pages.new(size), lang)
        goto(watcher, server.url + "/")
        watcher.fill("#join-code", room["code"])
        watcher.click("#watch-btn")
        watcher.wait_for_function(f"document.querySelectorAll('#seat-ring .seat').length === {seats}")
        wrong += measure(watcher, f"{seats} seats, spectator, {label}, {lang}")
        watcher.screenshot(path=str(SHOTS / f"seats-{seats}-watch-{lang}-{label}.png"))
    assert not wrong, "\n".join(wrong)
