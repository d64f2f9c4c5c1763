"""The browser client against the engine and its catalogs, in both languages.

- Every reason and cost the page shows is the server's (nomercy.decisions) in the page's
  words, and what it says is what the engine does: played by two people through the page
  under stack_color="match", the classic preset with a challenge, and a mix of house rules,
  with the same game mirrored on a local engine.
- No word on any screen comes from outside the catalogs (a marked catalog is served).
- Each moment of a game, photographed at both sizes in both languages: the deal, a stack
  on you, a big take, your knock-out, a swap, the end screen, the guide.
- What testing of the first client found: tap targets, the action row in view, settings
  that show their whole text, reactions kept across a reload, every round on the scoreboard.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import needs

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from browser.plans import big_take_plan, challenge_plan, seven_plan
from browser.test_browser import (
    DESKTOP,
    PHONE,
    SHOTS,
    Pages,
    axe_check,
    browser,
    goto,
    pages,
    seated,
    server,
    shot,
    wait_turn,
)
from nomercy.actions import Action, Play
from nomercy.cards import Card, Color, Face
from nomercy.decisions import decisions
from nomercy.errors import IllegalAction
from nomercy.events import Challenged, Drew, KnockedOut
from nomercy.match import Match
from nomercy.rules import Rules
from nomercy.views import player_view
from server.conftest import ServerProcess

pytestmark = needs.CHROMIUM

__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_browser

STORE = "nomercy.store.get()"
#: How the engine's refusals name a rule (W5's names its house rule; a knocked-out seat is
#: refused as not deciding).
SPELLING = {"W5": "wild_draw4_restricted", "M3": "(T1)"}


def with_lang(page: Any, lang: str) -> Any:
    page.add_init_script(f"localStorage.setItem('nomercy:lang', {json.dumps(lang)})")
    return page


def sit(
    pages: Pages,
    server: ServerProcess,
    code: str,
    token: str,
    seat: int,
    size: dict[str, Any],
    lang: str,
    clock: bool = False,
) -> Any:
    page = with_lang(pages.new(size), lang)
    if clock:  # the page's timers run when the test says: a moment waits for its picture
        page.clock.install()
    goto(page, server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{code}", json.dumps({"seat": seat, "token": token})],
    )
    goto(page, f"{server.url}/join/{code}")
    return page


def line_of(page: Any, line: dict[str, Any]) -> str:
    return str(page.evaluate("l => nomercy.ctx.i18n.line(l)", line))


def engine_refusal(state: Any, seat: int, code: str) -> str:
    card = Card.parse(code)
    trial = state.clone()
    color = Color.RED if card.is_wild and card.face is not Face.WILD_COLOR_ROULETTE else None
    target = None
    if card.face is Face.SEVEN and trial.rules.seven_zero and len(trial.hands[seat]) > 1:
        target = next(s for s in range(trial.players) if s != seat and trial.active[s])
    try:
        trial.apply(Play(card, color, target), seat)
    except IllegalAction as exc:
        return str(exc)
    raise AssertionError(f"the engine lets {code} be played, the server said it cannot")


def choose(d: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A player who likes Draw cards and challenges: plays a Draw card when one may go,
    else any card (never calling UNO), else challenges or takes, draws or keeps."""
    options = [c for c in d["choices"] if c["kind"] in ("play", "draw", "take", "pass", "challenge", "color")]
    plays = [c for c in options if c["kind"] == "play" and not c["uno"]]
    draws = [c for c in plays if c["card"] and Card.parse(c["card"]).is_draw]
    if draws and rng.random() < 0.85:
        return rng.choice(draws)
    if plays:
        return rng.choice(plays)
    for kind in ("color", "challenge", "take", "pass", "draw"):
        found = [c for c in options if c["kind"] == kind]
        if found:
            return rng.choice(found)
    return options[0]


def make_move(page: Any, choice: dict[str, Any]) -> None:
    """The choice made through the page: a card and its dialogs, or a button."""
    kind = choice["kind"]
    if kind == "play":
        page.locator(f"#hand .card.playable[data-code='{choice['card']}']").first.click()
        if choice["color"] is not None:
            page.wait_for_selector("#prompt[open]")
            page.click(f"#prompt-choices button[value='{choice['color']}']")
        if choice["target"] is not None and page.locator("#prompt[open]").count():
            page.click(f"#prompt-choices button[value='{choice['target']}']")
    elif kind == "color":
        page.wait_for_selector("#prompt[open]")
        page.click(f"#prompt-choices button[value='{choice['color']}']")
    else:
        button = {
            "take": "#take-btn",
            "challenge": "#challenge-btn",
            "pass": "#pass-btn",
            "draw": "#draw-btn",
        }[kind]
        page.click(button)


def check_cost(choice: dict[str, Any], events: list[Any], seat: int, before: Any, after: Any) -> str | None:
    """What the choice's cost said, against what the engine did; returns the checked key."""
    cost = choice["cost"]
    if cost is None:
        return None
    key, p = cost["key"], cost["params"]
    drew = {
        s: sum(e.count for e in events if isinstance(e, Drew) and e.seat == s) for s in range(before.players)
    }
    knocked = {e.seat for e in events if isinstance(e, KnockedOut)}
    if key == "cost.take":
        assert drew[seat] == p["count"] == before.pending_total, (cost, events)
    elif key == "cost.take_knockout":
        assert seat in knocked, (cost, events)
    elif key == "cost.challenge":
        verdict = next(e for e in events if isinstance(e, Challenged))
        loser, count = (p["seat"], p["guilty"]) if verdict.guilty else (seat, p["innocent"])
        assert drew[loser] == count or loser in knocked, (cost, events)
    elif key == "cost.stack":
        assert after.current == p["seat"] and after.pending_total == p["total"], (cost, after)
    elif key in ("cost.penalty", "cost.out_draw"):
        assert drew[p["seat"]] == p["count"] or p["seat"] in knocked, (cost, events)
    elif key == "cost.wd4":
        assert after.current == p["seat"] and after.decision.label == "challenge"
    elif key == "cost.swap":
        assert len(after.hands[seat]) == p["count"]
    else:
        return None
    return str(key)


CONFIGS = {
    # K5: a coloured Draw card stacks only on its colour or the same face.
    "stack_color_match": ({"stack_color": "match"}, "no_mercy", "en", None),
    # W6: the classic preset; Ann opens with a Wild Draw 4 that Bob may challenge.
    "classic_challenge": ({}, "classic", "nb", "challenge"),
    "house_mix": (
        {
            "stack_color": "match",
            "draw10_stackable": False,
            "last_card_draw": "apply",
            "draw_when_playable": True,
            "must_play_drawn": False,
            "knockout_bonus_to": "knocker",
            "mercy_limit": 15,
        },
        "no_mercy",
        "en",
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_cost_and_reason_the_page_shows_is_what_the_engine_does(
    pages: Pages, server: ServerProcess, name: str
) -> None:
    rules, preset, lang, plan = CONFIGS[name]
    seed = challenge_plan().seed if plan == "challenge" else 1000 + len(name)
    code, tokens = seated(server, 2, 0, seed=seed, rules=rules, preset=preset, turn_seconds=0)
    people = {
        0: sit(pages, server, code, tokens[0], 0, DESKTOP, lang),
        1: sit(pages, server, code, tokens[1], 1, PHONE, lang),
    }
    match = Match(2, Rules.from_dict(rules, base=Rules.preset(preset)), seed)
    rng = random.Random(name)
    checked: dict[str, int] = {"reasons": 0}
    for version in range(36):
        state = match.state
        if state.is_over:
            break
        seat = state.current_player
        assert seat is not None
        page = people[seat]
        page.wait_for_function(f"{STORE}.version === {version} && {STORE}.decisions !== null", timeout=15_000)
        d = page.evaluate(f"{STORE}.decisions")
        assert d == decisions(player_view(state, seat)).to_dict(), (name, version)  # the same game
        choice = (
            choose(d, rng)
            if not (plan == "challenge" and version == 0)
            else next(c for c in d["choices"] if c["card"] == "W+4" and c["color"] == "R")
        )
        page.mouse.move(1, 1)  # a card under the pointer tells its own story in that line
        if choice["kind"] in ("take", "challenge"):
            # The line beside the buttons says what each choice costs.
            assert line_of(page, choice["cost"]) in page.inner_text("#why"), (choice, page.inner_text("#why"))
        for blocked in d["blocked"][:2]:
            page.locator(f"#hand .card.dim[data-code='{blocked['card']}']").first.dispatch_event("click")
            shown = page.inner_text("#why")
            assert shown == line_of(page, blocked["reason"]), (shown, blocked)
            rule = blocked["reason"]["rule"]
            assert SPELLING.get(rule, rule) in engine_refusal(state, seat, blocked["card"]), blocked
            checked["reasons"] += 1
        before = state.clone()
        make_move(page, choice)
        events = match.apply(Action.parse(choice["action"]), seat)
        key = check_cost(choice, events, seat, before, match.state)
        if key:
            checked[key] = checked.get(key, 0) + 1
    assert checked["reasons"] >= 3, checked
    assert any(k in checked for k in ("cost.take", "cost.take_knockout", "cost.stack", "cost.penalty")), (
        checked
    )
    if plan == "challenge":
        assert "cost.challenge" in checked, checked


# -- no word outside the catalogs ----------------------------------------------------------------

MARK = re.compile(r"⟪[^⟫]*⟫")
PLACEHOLDER = re.compile(r"\{\w+(?::\w+)?\}")


def marked(message: Any) -> Any:
    if isinstance(message, dict):
        return {k: marked(v) for k, v in message.items()}
    text, out, i = str(message), [], 0
    for m in PLACEHOLDER.finditer(text):
        if text[i : m.start()]:
            out.append(f"⟪{text[i : m.start()]}⟫")
        out.append(m.group(0))
        i = m.end()
    if text[i:]:
        out.append(f"⟪{text[i:]}⟫")
    return "".join(out)


SEEN_TEXT = """() => {
  const out = [document.title];
  const visible = (el) => el && !el.closest('[hidden], .sprite, script, style') && el.checkVisibility();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode()); ) {
    if (n.textContent.trim() && visible(n.parentElement)) out.push(n.textContent);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (el.closest('[hidden]')) continue;
    for (const a of ['aria-label', 'title', 'placeholder']) {
      if (el.getAttribute(a)) out.push(el.getAttribute(a));
    }
  }
  for (const o of document.querySelectorAll('select option')) {
    if (!o.closest('[hidden]')) out.push(o.textContent);
  }
  return out;
}"""
#: What may stand outside a catalog's words: names, the room code, card codes and corner
#: symbols, numbers, the brand and the languages' own names, key letters. The room code comes
#: first: a code such as "4PHEGK" would otherwise lose its digit to the card-number pattern.
ALLOWED = re.compile(
    r"\b[A-Z0-9]{6}\b|"  # the room code
    r"Ann|Bob|nomercy|\bno\b|\bmercy\b|English|Norsk|[RYGBW]?[0-9]|[RYGB](?:⊘⊘|⊘|⇄|≡|\+2|\+4)|⇄\+4|\+\d+|◎|"
    r"\b[A-Z]\b|[\W_]+",  # a key letter or a name's initial
)


def stray_words(texts: list[str]) -> list[str]:
    out = []
    for text in texts:
        rest = ALLOWED.sub(" ", MARK.sub(" ", text))
        if rest.strip():
            out.append(f"{rest.strip()!r} in {text!r}")
    return out


def test_no_word_on_any_screen_comes_from_outside_the_catalogs(pages: Pages, server: ServerProcess) -> None:
    def serve_marked(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={k: marked(v) for k, v in response.json().items()})

    host = pages.new(DESKTOP)
    host.route("**/i18n/en/*.json", serve_marked)
    goto(host, server.url + "/")
    seen = host.evaluate(SEEN_TEXT)
    host.click("#guide-home")
    seen += host.evaluate(SEEN_TEXT)
    host.keyboard.press("Escape")
    host.click("#house-rules summary")
    seen += host.evaluate(SEEN_TEXT)
    plan = big_take_plan()
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=plan.rules, turn_seconds=30)
    bob = pages.new(PHONE)
    bob.route("**/i18n/en/*.json", serve_marked)
    goto(bob, server.url + "/")
    bob.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{code}", json.dumps({"seat": 1, "token": tokens[1]})],
    )
    goto(bob, f"{server.url}/join/{code}")
    bob.wait_for_selector("#hand .card")
    seen += bob.evaluate(SEEN_TEXT)
    ann = pages.new(DESKTOP)
    ann.route("**/i18n/en/*.json", serve_marked)
    goto(ann, server.url + "/")
    ann.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"nomercy:seat:{code}", json.dumps({"seat": 0, "token": tokens[0]})],
    )
    goto(ann, f"{server.url}/join/{code}")
    wait_turn(ann)
    seen += ann.evaluate(SEEN_TEXT)
    ann.locator("#hand .card.playable[data-code='W+10']").first.click()
    ann.wait_for_selector("#prompt[open]")
    seen += ann.evaluate(SEEN_TEXT)
    ann.click("#prompt-choices button[value='R']")
    bob.wait_for_selector("#take-btn:not([hidden])")
    seen += bob.evaluate(SEEN_TEXT)
    bob.click("#take-btn")
    for page in (ann, bob):
        page.wait_for_selector("#end:not([hidden])")
        seen += page.evaluate(SEEN_TEXT)
    assert len(seen) > 200 and sum("⟪" in t for t in seen) > 150
    assert stray_words(seen) == []


# -- every moment, both sizes, both languages ---------------------------------------------------


def snap(page: Any, name: str, lang: str, settle: int = 0) -> None:
    """The viewport now, motion and all, named with its size and language."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if settle:
        page.wait_for_timeout(settle)
    size = "phone" if page.viewport_size["width"] < 600 else "desktop"
    page.screenshot(path=str(SHOTS / f"{name}-{lang}-{size}.png"))


@pytest.mark.parametrize(
    ("lang", "size"), [("en", "phone"), ("en", "desktop"), ("nb", "phone"), ("nb", "desktop")]
)
def test_every_moment_of_a_game_at_both_sizes(
    pages: Pages, server: ServerProcess, lang: str, size: str
) -> None:
    """A stack on Bob, his big take and knock-out, the end screen with every round, the
    guide, a rematch's deal; then a swap at a three-player table. Bob sits at ``size``,
    Ann at the other; moments are photographed at the size of the page that has them."""
    plan = big_take_plan()
    rules = {**plan.rules, "target_score": 100}
    code, tokens = seated(server, 2, 0, seed=plan.seed, rules=rules, mode="match", turn_seconds=0)
    bob_size, ann_size = (PHONE, DESKTOP) if size == "phone" else (DESKTOP, PHONE)
    ann = sit(pages, server, code, tokens[0], 0, ann_size, lang)
    bob = sit(pages, server, code, tokens[1], 1, bob_size, lang, clock=True)
    shoot = size == "phone"  # the still pictures once per language (shot() takes both sizes)
    wait_turn(ann)
    ann.locator("#hand .card.playable[data-code='W+10']").first.click()
    ann.wait_for_selector("#prompt[open]")
    ann.click("#prompt-choices button[value='R']")
    bob.wait_for_selector("#take-btn:not([hidden])")
    take = bob.evaluate(f"{STORE}.decisions.choices.find(c => c.kind === 'take')")
    assert line_of(bob, take["cost"]) in bob.inner_text("#why")
    if shoot:
        shot(bob, f"30-stack-on-you-{lang}")
    axe_check(bob, f"stack on you ({lang}, {size})")
    # From here the test runs the timers. Playwright reads a number as seconds since the
    # epoch: milliseconds sent the page's clock some 57,000 years on, which fired every
    # timer at once (the connection's watchdog gave the silent socket up).
    bob.clock.pause_at(bob.evaluate("Date.now()") / 1000 + 0.05)
    bob.click("#take-btn")
    bob.wait_for_function(f"{STORE}.version > 1")
    bob.clock.run_for(1_000)
    bob.wait_for_selector("#moment.bigtake:not([hidden])", timeout=5_000)  # +10 fills the table
    snap(bob, "31-big-take", lang, 400)
    bob.clock.run_for(1_950)
    bob.wait_for_selector("#moment.ko:not([hidden])", timeout=5_000)  # and so does the knock-out
    snap(bob, "32-your-knockout", lang, 400)
    bob.clock.run_for(7_000)  # the knock-out, then the match's fanfare (4.2 s)
    for page in (ann, bob):
        page.wait_for_selector("#end:not([hidden])", timeout=15_000)
    # The end of the match: a column for every round, and the total.
    rounds = ann.evaluate(f"{STORE}.room.rounds.length")
    assert rounds >= 1 and ann.locator("#end-table thead th").count() == 2 + rounds + 1
    if shoot:
        shot(ann, f"33-end-screen-{lang}")
        shot(bob, f"33-end-screen-{lang}-knocked-out")
    axe_check(ann, f"end screen ({lang}, {size})")
    ann.click("#guide-btn")
    ann.wait_for_selector("#guide[open]")
    assert ann.locator("#guide-body .guide-section").count() >= 8
    if shoot:
        shot(ann, f"34-guide-{lang}")
    axe_check(ann, f"guide ({lang}, {size})")
    ann.click("#guide-close")
    # A rematch deals a new round: cards fly from the deck to every seat, and the table
    # opens at its top.
    bob.wait_for_function("document.activeElement && document.activeElement.id === 'rematch-btn'")
    bob.keyboard.press("Enter")
    ann.wait_for_function("!document.querySelector('#rematch-btn').disabled")
    ann.evaluate("window.scrollTo(0, 300)")
    ann.click("#rematch-btn")
    ann.wait_for_selector(".ghost", timeout=5_000)
    snap(ann, "35-deal", lang, 120)
    ann.wait_for_selector("#end", state="hidden")
    assert ann.evaluate("window.scrollY") == 0

    # A swap at a three-player table (one person, two bots), caught in flight.
    seven = seven_plan()
    code3, tokens3 = seated(server, 3, 2, seed=seven.seed, turn_seconds=0)
    page = sit(pages, server, code3, tokens3[0], 0, bob_size, lang)
    wait_turn(page)
    page.locator(f"#hand .card.playable[data-code='{seven.cards[0]}']").first.click()
    page.wait_for_selector("#prompt[open]")
    page.locator("#prompt-choices button").first.click()
    page.wait_for_selector(".ghost", timeout=3_000)
    snap(page, "36-swap", lang, 200)


# -- what testing found ----------------------------------------------------------------------------


def test_what_testing_of_the_first_client_found(pages: Pages, server: ServerProcess) -> None:
    # A hand of 30 at 1280x800: the action row stays in view. Ann plays first, so no bot's
    # card (a roulette asks her for a colour) can move the focus after she presses H.
    rules = {"hand_size": 30, "mercy_limit": None}
    thirty = Rules(hand_size=30, mercy_limit=None)
    ann_first = (s for s in range(500) if Match(2, thirty, s).state.current_player == 0)
    seed = next(ann_first)
    code, tokens = seated(server, 2, 1, seed=seed, rules=rules, turn_seconds=0)
    page = sit(pages, server, code, tokens[0], 0, DESKTOP, "en")
    wait_turn(page)
    page.wait_for_selector("#hand .card >> nth=29")
    box = page.evaluate(
        "(() => { const r = document.querySelector('#actions').getBoundingClientRect();"
        " return [r.top, r.bottom]; })()"
    )
    assert box[0] >= 0 and box[1] <= 800 + 1, box
    # The keyboard's focus on a card is its own mark, not the playable glow.
    page.keyboard.press("h")
    page.wait_for_function(
        "document.activeElement && document.activeElement.matches('#hand .card:focus-visible')"
    )
    focused = page.evaluate(
        "(() => { const c = document.activeElement; const s = getComputedStyle(c);"
        " return [s.outlineStyle, s.outlineColor, getComputedStyle(c, '::before').content]; })()"
    )
    assert focused[0] == "solid" and focused[1] == "rgb(255, 255, 255)" and focused[2] == '""', focused
    shot(page, "40-thirty-cards")
    # Reactions stay in the chat after a reload.
    page.click("#reactions button >> nth=0")
    page.wait_for_selector("#chat li.reaction")
    page.reload()
    page.wait_for_selector("#chat li.reaction")

    # The phone: every tap target at least 44 px high; settings show their whole text.
    phone = with_lang(pages.new(PHONE), "nb")
    goto(phone, server.url + "/")
    phone.click("#house-rules summary")
    small = phone.evaluate(
        "[...document.querySelectorAll('button, summary, select, input[type=checkbox]')]"
        ".filter(e => e.checkVisibility() && !e.closest('#rules-box .rule.bool'))"
        ".map(e => [e.id || e.textContent.trim().slice(0, 20), e.getBoundingClientRect().height])"
        ".filter(([, h]) => h < 44)"
    )
    assert small == [], small
    cut = phone.evaluate(
        "[...document.querySelectorAll('select')].filter(s => s.checkVisibility())"
        ".filter(s => s.scrollWidth > s.clientWidth + 1).map(s => s.id)"
    )
    assert cut == [], cut
    desktop = pages.new(DESKTOP)
    goto(desktop, server.url + "/")
    desktop.click("#house-rules summary")
    cut = desktop.evaluate(
        "[...document.querySelectorAll('#create-form select')].filter(s => s.checkVisibility())"
        ".filter(s => { const o = s.options[s.selectedIndex];"
        " const c = document.createElement('canvas').getContext('2d');"
        " c.font = getComputedStyle(s).font;"
        " return c.measureText(o.textContent).width > s.clientWidth - 24; })"
        ".map(s => s.id)"
    )
    assert cut == [], cut
    values = desktop.eval_on_selector_all("#rules-box select option", "os => os.map(o => o.textContent)")
    assert not [
        v for v in values if "_" in v or v in ("self", "opponent", "ignore", "apply", "aside", "named")
    ], values
    assert "heuristic" not in desktop.inner_text("#bot")
    # The language can be switched in the page, and the choice is remembered.
    desktop.select_option("#lang-select", "nb")
    desktop.wait_for_function("document.documentElement.lang === 'nb'")
    assert "Sett opp et bord" in desktop.inner_text("#create-form h2")
    desktop.reload()
    desktop.wait_for_selector("html[data-ready]", state="attached")
    assert desktop.evaluate("document.documentElement.lang") == "nb"
    assert Path(SHOTS).exists()
