"""What the terminal game says, in both languages: the core decides what a card still
needs (a color, a target, an Uno call), refusals say why, each fact is told once, seats
are named as a person knows them, and the Norwegian uses the game's own terms."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from nomercy import GameState, Rules
from nomercy.actions import Play
from nomercy.i18n import catalog
from nomercy.tui import render
from nomercy.tui.game import Game
from nomercy.tui.session import Session, new_session
from nomercy.views import player_view

pytestmark = pytest.mark.usefixtures("test_bots")

CATALOGS = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "i18n" / "catalogs"


def position(rules: Rules | None = None, **fields: Any) -> GameState:
    base: dict[str, Any] = {
        "draw_pile": ["R0", "G0", "B0", "Y0", "R1", "G1", "B1", "Y1"],
        "discard_pile": ["R5"],
    }
    if rules is not None:
        base["rules"] = rules.to_dict(only_changes=True)
    base.update(fields)
    return GameState.from_dict(base)


def play(
    start: GameState, lines: list[str], tmp_path: Path, lang: str = "en", bots: str = "first"
) -> tuple[Game, str, list[str]]:
    """Play ``lines`` (then q) from ``start``; the game, what it printed and its prompts."""
    session = new_session(start.players, start.rules, [bots], 1, "Ana", False, start)
    answers = iter([*lines, "q", "q"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    console = Console(file=io.StringIO(), width=100, color_system=None)
    game = Game(session, console, tmp_path / "save.json", delay=0, read=read, lang=lang)
    game.run()
    file = console.file
    assert isinstance(file, io.StringIO)
    return game, " ".join(file.getvalue().split()), prompts


# -- what a card still needs: the core's choices ------------------------------------------


def test_u_arms_the_call_for_a_discard_all_that_leaves_one_card(tmp_path: Path) -> None:
    """U1, A5: three cards, and the Discard All takes the other green with it; the core
    offers that play with a call, so u arms it (the terminal once allowed it at two cards only)."""
    start = position(hands=[["GDA", "G3", "B8"], ["R3", "R4", "G9"], ["G4", "G6", "G9"]], color="G")
    game, out, _ = play(start, ["u", "gda"], tmp_path)
    assert "Uno! Your next play calls it." in out
    seat, first = game.session.round_actions[0]
    assert seat == 0 and isinstance(first, Play) and first.uno


def test_u_is_refused_where_the_table_plays_without_calls(tmp_path: Path) -> None:
    """U1 with ``uno_calls`` off: no play calls Uno, so u arms nothing and says when it would."""
    start = position(Rules(uno_calls=False), hands=[["R6", "B8"], ["R3", "R4", "G9"], ["G3", "G4"]])
    game, out, _ = play(start, ["u"], tmp_path)
    assert "Uno! Your next play calls it." not in out
    assert "Call Uno with the play that leaves you one card (U1)" in out
    assert game.session.round_actions == []


def test_a_wild_asks_for_its_color_and_a_roulette_does_not(tmp_path: Path) -> None:
    """W2, W4: the core's plays of W+6 differ by color, so it asks; WCR's do not."""
    start = position(hands=[["W+6", "WCR", "B8"], ["R3", "R4", "G9"], ["G3", "G4", "G9"]])
    game, _, prompts = play(start, ["w+6", "b"], tmp_path)
    assert prompts[1].startswith("Color to name for W+6?")
    assert game.session.round_actions[0] == (0, Play.parse("play W+6 B"))
    start = position(hands=[["WCR", "W+6", "B8"], ["R3", "R4", "G9"], ["G3", "G4", "G9"]])
    game, _, prompts = play(start, ["wcr"], tmp_path)
    assert not any(p.startswith("Color to name") for p in prompts)
    assert game.session.round_actions[0] == (0, Play.parse("play WCR"))


def test_an_uno_call_with_a_card_that_leaves_several_says_why(tmp_path: Path) -> None:
    """U1: ``r4 u`` with seven cards is refused with the reason, not a vague "like that"."""
    hand = ["R4", "R6", "B8", "G2", "Y3", "Y7", "B1"]
    start = position(hands=[hand, ["R3", "R8", "G9"], ["G3", "G4", "G9"]])
    game, out, _ = play(start, ["r4 u"], tmp_path)
    assert "Uno is called only with the card that leaves you one card (U1): play R4 without u" in out
    assert "cannot be played like that" not in out and game.session.round_actions == []


def test_a_color_for_a_card_that_names_none_says_why(tmp_path: Path) -> None:
    start = position(hands=[["R4", "R6", "B8"], ["R3", "R8", "G9"], ["G3", "G4", "G9"]])
    _, out, _ = play(start, ["r4 b"], tmp_path)
    assert "R4 names no color: only a wild card does" in out


def test_the_prompt_with_several_playable_cards_does_not_say_one(tmp_path: Path) -> None:
    """T2: three cards fit; the prompt says drawing waits until none does."""
    start = position(hands=[["R4", "R6", "R8", "B8"], ["R3", "G9"], ["G3", "G4"]])
    _, out, _ = play(start, [], tmp_path)
    assert "1: R4 2: R6 3: R8" in out
    assert "you may draw only when none does" in out and "you hold one" not in out


# -- each fact once, one notation -----------------------------------------------------------


def test_the_win_is_announced_once(tmp_path: Path) -> None:
    """E1: the person plays their last card; the outcome says so, the log does not repeat it."""
    start = position(hands=[["R6"], ["R3", "R4"], ["G3", "G4"]], uno_open=[])
    _, out, _ = play(start, ["r6"], tmp_path)
    assert out.count("wins the round") == 1 and out.count("win the round") == 0


def test_drawn_cards_end_before_the_next_sentence(tmp_path: Path) -> None:
    """K2, M1: the stack's cards, a full stop, then the knock-out."""
    hand = ["B2", "B3", "B4", "B6", "B7", "B8", "B9", "Y2", "Y3", "Y4", "Y6", "Y7"] * 2
    start = position(
        hands=[hand[:23], ["R3", "R4"], ["G3", "G4"]],
        discard_pile=["R5", "R+2"],
        color="R",
        decision="stack",
        pending={"total": 2, "last_value": 2, "by": 2},
    )
    _, out, _ = play(start, ["t"], tmp_path)
    assert "You took the stack: 2 cards: R0 G0. You are knocked out with 25 cards" in out


def test_copies_are_counted_the_same_way_playable_or_not() -> None:
    s = position(hands=[["GDA", "GDA", "R+2", "R+2", "B8"], ["R3"], ["G3"]], color="R")
    console = Console(width=80, color_system=None, file=io.StringIO())
    console.print(render.hand_panel(player_view(s, 0)))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "GDA x2" in text and "R+2 x2" in text and "GDAx2" not in text


# -- names -------------------------------------------------------------------------------------


def test_bots_are_named_by_level_or_character_in_each_language(tmp_path: Path) -> None:
    start = position(hands=[["R4", "B8"], ["R3", "G9"], ["G3", "G4"]])
    session = new_session(3, start.rules, ["heuristic", "stacker"], 1, "Ana", False, start)
    for lang, casual, stella in (
        ("en", "Casual", "Stacker Stella"),
        ("nb", "Hobbyspiller", "Stablende Stella"),
    ):
        assert session.seat_names(catalog(lang)) == ["Ana", casual, stella]
        console = Console(width=80, color_system=None, file=io.StringIO())
        names = session.seat_names(catalog(lang))
        console.print(render.players_grid(player_view(session.state, 0), names, catalog(lang)))
        grid = console.file.getvalue()  # type: ignore[attr-defined]
        assert f"P1 {casual}" in grid and f"P2 {stella}" in grid and "heuristic" not in grid


def test_a_save_begun_in_norwegian_names_the_person_in_english_when_resumed(tmp_path: Path) -> None:
    start = position(hands=[["R4", "B8"], ["R3", "G9"], ["G3", "G4"]])
    name = catalog("nb").text("term.default_name")
    session = new_session(3, start.rules, ["first"], 1, name, False, start)
    session.save(tmp_path / "save.json")
    resumed = Session.load(tmp_path / "save.json")
    assert resumed.seat_names(catalog("en"))[0] == "You"
    assert resumed.seat_names(catalog("nb"))[0] == "Du"
    console = Console(file=io.StringIO(), width=100, color_system=None)
    Game(resumed, console, tmp_path / "save.json", delay=0, read=lambda prompt: "q").run()
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "P0 You" in shown and "P0 Du" not in shown


# -- the words themselves -----------------------------------------------------------------------


def messages(lang: str, parts: tuple[str, ...] = ("game", "terminal", "web")) -> dict[str, str]:
    """Every string of a language's catalogs, by key (plural forms joined)."""

    def flat(value: Any) -> str:
        return " | ".join(flat(v) for v in value.values()) if isinstance(value, dict) else str(value)

    out: dict[str, str] = {}
    for part in parts:
        data = json.loads((CATALOGS / lang / f"{part}.json").read_text(encoding="utf-8"))
        out |= {key: flat(value) for key, value in data.items()}
    return out


def test_english_writes_color_one_way() -> None:
    """The rules docs write "color": so does every message a player reads in English."""
    found = {k: v for k, v in messages("en").items() if re.search(r"colou?r", v, re.I)}
    assert found, "no message names a color"
    assert [k for k, v in found.items() if "colour" in v.lower()] == []


@pytest.mark.parametrize(
    "stilted",
    ["står overfor", "som Hobbyspiller", "matcher farge", "reglene kort", "trukne verdener", "dens seier"],
)
def test_norwegian_avoids_stilted_phrases(stilted: str) -> None:
    """The game's and the terminal's words (the browser's own page has its own review)."""
    assert [k for k, v in messages("nb", ("game", "terminal")).items() if stilted in v] == []


def test_norwegian_names_the_roulette_card_in_norwegian_in_the_game_and_the_terminal() -> None:
    """The Roulette is Villkort Fargerulett in Norwegian: no English half of its name is left."""
    for part in ("game", "terminal"):
        data = json.loads((CATALOGS / "nb" / f"{part}.json").read_text(encoding="utf-8"))
        text = json.dumps(data, ensure_ascii=False)
        assert re.findall(r"Roulette|Wild", text) == [], part


def test_norwegian_help_and_hand_speak_norwegian(tmp_path: Path) -> None:
    start = position(hands=[["R4", "W+6", "B8"], ["R3", "G9"], ["G3", "G4"]])
    _, out, _ = play(start, ["?"], tmp_path, lang="nb")
    assert "Kast alle (kaster alle kortene i fargen)" in out
    assert "discard all" not in out and "skip everyone" not in out and "(roulette)" not in out
    assert "reglene i korte trekk" in out
    assert re.search(r"Villkort\s+(\d+:\s*)?W\+6", out)
