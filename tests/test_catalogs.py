"""The message catalogs: the same keys in English and Norwegian, every key used, every key
used present, placeholders that agree, and no sentence of the terminal game outside them.

Keys are found where the code names them: as string literals in the Python, JavaScript and
HTML sources, and in the families a module builds from data (a card's face, a house rule's
field and values, a reaction, an error code, a section of the guide), listed here from the
data itself so that a new rule, face or error code without words fails this test.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from nomercy import bots
from nomercy.i18n import LANGUAGES, Catalog, Words
from nomercy.rules import GROUPS, Rules

SRC = Path(__file__).resolve().parents[1] / "src" / "nomercy"
CATALOGS = SRC / "i18n" / "catalogs"
PARTS = ("game", "terminal", "web")
PLACEHOLDER = re.compile(r"\{(\w+)(?::(\w+))?\}")


def load(lang: str, part: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGS / lang / f"{part}.json").read_text(encoding="utf-8"))
    return data


def strings(message: Any) -> list[str]:
    """Every string of a message (its plural and "you" forms)."""
    if isinstance(message, dict):
        return [s for v in message.values() for s in strings(v)]
    return [str(message)]


def families() -> set[str]:
    """Keys built from data at run time."""
    keys = {f"color.{c}" for c in "RYGB"} | {f"color_button.{c}" for c in "RYGB"}
    keys |= {
        f"face.{f}"
        for f in ("S", "R", "+2", "+4", "DA", "SE", "WR+4", "W+6", "W+10", "WCR", "W", "W+4", "WSH")
    }
    # Every house rule's words (Rules.fields(): its catalog key, its choices, its group).
    keys |= {f"{f.key}.{what}" for f in Rules.fields() for what in ("label", "help")}
    keys |= {f"{f.key}.value.{v}" for f in Rules.fields() for v in f.choices or ()}
    keys |= {f"rules.group.{g}" for g in GROUPS}
    # Only the package's own bots have catalog names; a plugin bot (the tests register some)
    # is shown under its own name.
    keys |= {f"bot.{b}" for b in bots.available() if type(bots.make(b)).__module__.startswith("nomercy.")}
    keys |= {  # the terminal's seat names and lines about its bots
        f"term.bot_{what}.{b}"
        for b in bots.available()
        if type(bots.make(b)).__module__.startswith("nomercy.")
        for what in ("name", "about")
    }
    presets = ("no_mercy", "classic", "classic_112", "rlcard")
    keys |= {f"preset.{p}.{what}" for p in presets for what in ("name", "text")}
    keys |= {f"reaction.{r}" for r in ("gg", "wow", "ouch", "haha", "hurry", "oops")}
    pytest.importorskip("pydantic")
    from nomercy.server.base.protocol import REACTIONS, ErrorCode

    assert set(REACTIONS) == {k.split(".")[1] for k in keys if k.startswith("reaction.")}
    keys |= {f"error.{v}" for k, v in vars(ErrorCode).items() if k.isupper()}
    keys |= {f"sort.{s}" for s in ("colour", "face", "none")}
    from nomercy.bots.levels import LEVELS
    from nomercy.server.players.ratings import REFUSALS

    keys |= {f"rating.level.{v}" for v in LEVELS} | {f"rating.refused.{r}" for r in REFUSALS}
    from nomercy.bots.levels import CHARACTERS

    keys |= {f"character.{c}{part}" for c in CHARACTERS for part in ("", ".first")}
    columns = re.findall(r'\["(\w+)", "[\w ]*"\]', (SRC / "web" / "js" / "leaders.js").read_text())
    keys |= {f"leaders.col.{c}" for c in columns}
    keys |= {f"lobby.tag.{t}" for t in ("host", "bot", "you", "away", "removed")}
    sections = re.findall(r'\["(\w+)", \[\[', (SRC / "web" / "js" / "guide.js").read_text())
    keys |= {f"guide.{s}.{what}" for s in sections for what in ("title", "text", "picture")}
    # The core's sentences (nomercy.decisions, summary, narration) that it builds by parts.
    keys |= {
        f"prompt.{who}.{what}"
        for who in ("waiting", "watching")
        for what in ("play", "stack", "challenge", "color")
    }
    keys |= {f"rules.draw_{d}_{k}" for d in ("until", "one") for k in ("play", "keep")}
    keys |= {f"rules.score_knockout_{to}" for to in ("winner", "knocker")}
    keys |= {f"choice.play{shape}{uno}" for shape in ("", "_color", "_target") for uno in ("", "_uno")}
    keys |= {f"term.what.{k}" for k in ("draw", "take", "pass", "challenge", "uno", "color")}
    return keys


def literals() -> set[str]:
    """Every string literal of the sources that could be a key."""
    found: set[str] = set()
    for path in [*SRC.rglob("*.py"), *(SRC / "web").rglob("*.js"), SRC / "web" / "index.html"]:
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r'["\'`]([a-z_]+(?:\.[a-z_0-9+]+)+)["\'`]', text))
        found |= set(re.findall(r'data-i18n="([^"]+)"', text))
        for attrs in re.findall(r'data-i18n-attr="([^"]+)"', text):
            found |= {pair.split(":")[1] for pair in attrs.split(";")}
        found |= set(re.findall(r'["\']([a-z_]+)["\']', text))  # one-word keys ("language", "room")
    return found


@pytest.mark.parametrize("part", PARTS)
def test_every_language_has_the_same_keys_and_placeholders(part: str) -> None:
    en = load("en", part)
    for lang in LANGUAGES:
        other = load(lang, part)
        assert sorted(set(en) - set(other)) == [], f"{lang}/{part}.json lacks these keys"
        assert sorted(set(other) - set(en)) == [], f"{lang}/{part}.json has keys English lacks"
        for key, message in other.items():
            names = {m[0] for s in strings(message) for m in PLACEHOLDER.findall(s)}
            english = {m[0] for s in strings(en[key]) for m in PLACEHOLDER.findall(s)}
            assert names <= english | {"count"}, (lang, key, names - english)


def test_every_key_is_used_and_every_used_key_exists() -> None:
    keys = {k for part in PARTS for k in load("en", part)}
    used = literals() | families()
    unused = sorted(k for k in keys if k not in used)
    assert unused == [], f"keys no code uses: {unused}"
    named = {k for k in used if "." in k and k.split(".")[0] in {k2.split(".")[0] for k2 in keys}}
    # A key the code names in a message call must be in the catalogs.
    calls: set[str] = set()
    for path in [*SRC.rglob("*.py"), *(SRC / "web").rglob("*.js")]:
        text = path.read_text(encoding="utf-8")
        calls |= set(
            re.findall(r'(?:\bt|text|phrase|InputError|Line\.of|line)\(\s*"([a-z_]+\.[a-z_0-9.]+)"', text)
        )
    missing = sorted(k for k in (calls | (families() & named)) if k not in keys and not k.endswith("."))
    assert missing == [], f"keys the code uses that no catalog has: {missing}"


def test_the_core_only_says_what_the_catalogs_hold() -> None:
    """Every sentence nomercy.decisions, summary and narration produce over random games of
    several rule sets is a key of game.json with the parameters it asks for."""
    import random

    from nomercy import new_game
    from nomercy.decisions import decisions
    from nomercy.narration import event_lines
    from nomercy.summary import rules_summary
    from nomercy.views import player_view

    for lang in LANGUAGES:
        cat = Catalog(lang, "web")
        rng = random.Random(lang)
        for rules in (Rules(), Rules.preset("classic"), Rules(stack_color="match", last_card_draw="apply")):
            for line in rules_summary(rules):
                assert cat.line(line)
            state = new_game(3, rules, seed=rng.getrandbits(32))
            while not state.is_over:
                for seat in (*range(state.players), None):
                    d = decisions(player_view(state, seat))
                    lines = [d.prompt] + [c.label for c in d.choices] + [c.cost for c in d.choices if c.cost]
                    lines += [b.reason for b in d.blocked]
                    for line in lines:
                        assert cat.line(line, Words(me=seat)), line
                events = state.apply(rng.choice(state.legal_actions()), state.current)
                for line in event_lines(events):
                    if line is not None:
                        assert cat.line(line, Words(me=0)), line


def test_the_terminal_game_says_nothing_outside_its_catalog(tmp_path: Path) -> None:
    """With a catalog whose every message is marked, a game in the terminal prints no word
    outside a mark: names, card codes, rule IDs, numbers and symbols aside."""
    from rich.console import Console

    from nomercy.tui.game import Game
    from nomercy.tui.session import new_session

    marked = {k: mark(v) for part in ("game", "terminal") for k, v in load("en", part).items()}
    cat = Catalog("en", messages=marked)
    session = new_session(3, Rules(), ["random"], seed=11, name="Ana", match_mode=True)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    asked = {"n": 0, "step": -1, "last": ""}

    def read(prompt: str) -> str:
        """A person: help, rules, a typo and a refused draw first, then plays on."""
        console.print(prompt)
        asked["n"] += 1
        n, state = asked["n"], session.state
        if n > 400:
            return "q"
        first = {1: "?", 2: "r", 3: "zz", 4: "d"}
        if n in first:
            return first[n]
        if state.is_over:
            return ""  # the next round
        if state.current != 0:
            return "c"  # a bot forgot Uno: catch it
        again = state.step == asked["step"]
        asked["step"] = state.step
        kinds = {a.kind for a in state.legal_actions(0)}
        if state.decision.label in ("roulette", "choose_color") or (again and asked["last"] == "1"):
            answer = "r"  # a colour prompt
        elif again and asked["last"] == "r":
            answer = next(str(s) for s in (1, 2) if state.active[s])  # a Seven's target
        elif "play" in kinds:
            answer = "1"
        else:
            answer = "t" if "take" in kinds else "d"
        asked["last"] = answer
        return answer

    Game(session, console, tmp_path / "save.json", delay=0, read=read, cat=cat).run()
    out = console.file.getvalue().replace(str(tmp_path), " ")  # type: ignore[attr-defined]
    outside = re.sub(r"⟪[^⟫]*⟫", " ", out)
    outside = re.sub(
        r"\b[RYGB](?:\d|S|R|\+2|\+4|DA|SE)(?:x\d+)?\b|WR\+4|W\+10|W\+6|W\+4|WCR|\bW\b", " ", outside
    )
    outside = outside.replace("zz", " ")  # the typo, quoted back in the explanation
    outside = re.sub(r"\bP\d\b|\b(?:Ana|random|nomercy|play|replay|resume|save|json)\b", " ", outside)
    stray = sorted(set(re.findall(r"[A-Za-z]{2,}", outside)))
    assert out.count("⟪") > 50 and stray == [], stray


def mark(message: Any) -> Any:
    """The message with every text piece between ⟪ ⟫, placeholders kept."""
    if isinstance(message, dict):
        return {k: mark(v) for k, v in message.items()}
    text = str(message)
    pieces = PLACEHOLDER.split(text)
    out = []
    i = 0
    for m in PLACEHOLDER.finditer(text):
        out.append(f"⟪{text[i : m.start()]}⟫" if text[i : m.start()].strip() else text[i : m.start()])
        out.append(m.group(0))
        i = m.end()
    rest = text[i:]
    out.append(f"⟪{rest}⟫" if rest.strip() else rest)
    del pieces
    return "".join(out)


@pytest.mark.parametrize(
    ("requested", "environ", "expected"),
    [
        ("nb", {}, "nb"),
        ("en", {"LANG": "nb_NO.UTF-8"}, "en"),
        (None, {"LANG": "nb_NO.UTF-8"}, "nb"),
        (None, {"LANGUAGE": "nn:en", "LANG": "C.UTF-8"}, "nb"),
        (None, {"LC_ALL": "no_NO"}, "nb"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),
        (None, {"LANG": "C"}, "en"),
        (None, {}, "en"),
    ],
)
def test_the_language_comes_from_lang_or_the_environment(
    requested: str | None, environ: dict[str, str], expected: str
) -> None:
    from nomercy.i18n import resolve_language

    assert resolve_language(requested, environ) == expected


def test_a_language_we_do_not_speak_is_refused_by_name() -> None:
    from nomercy.i18n import resolve_language

    with pytest.raises(ValueError, match="not a language of this game: use en, nb"):
        resolve_language("xx")


def test_numbers_and_plurals_follow_each_language() -> None:
    en, nb = Catalog("en"), Catalog("nb")
    assert en.text("term.cards", count=1) == "1 card" and en.text("term.cards", count=3) == "3 cards"
    assert nb.text("term.cards", count=1) == "1 kort"
    assert en.number(1000) == "1,000" and nb.number(1000) == "1\xa0000"
    words = Words(me=0, seat_name=lambda s: f"P{s}")
    assert nb.text("event.hands_swapped", words, seat=1, target=0) == "P1 og deg byttet hånd."
    assert (
        en.text("event.challenged_innocent", words, seat=1, by=0)
        == "P1 challenged your Wild Draw 4: it was allowed."
    )
