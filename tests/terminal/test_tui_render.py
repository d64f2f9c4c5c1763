"""Rendering of the hand, the stack indicator and the scoreboard, with and without color."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from nomercy import GameState, Match, Rules
from nomercy.bots import make as make_bot
from nomercy.bots import runner
from nomercy.tui import render
from nomercy.tui.hand import playable
from nomercy.views import player_view

ANSI_COLOR = re.compile(r"\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])[0-9;]*m")
NAMES = ["Ana", "heuristic", "expert", "random"]


def state(**changes: object) -> GameState:
    base: dict[str, object] = {
        "players": 4,
        "hands": [
            ["R7", "R3", "Y4", "B+2", "W+6", "G+4", "R+2"],
            ["G1"] * 2,
            ["B9"] * 2 + ["Y9"] * 2 + ["R9"] * 2 + ["G9"] * 2 + ["B8"] * 2 + ["Y8"] * 2 + ["R8"] * 2
            + ["G8"] * 2 + ["B6"] * 2 + ["Y6"] * 2 + ["G6"] * 2,
            ["Y1"],
        ],
        "draw_pile": ["R0", "G0"],
        "discard_pile": ["R5"],
        "current": 0,
    }  # fmt: skip
    base.update(changes)
    return GameState.from_dict(base)


def record(console: Console, renderable: object) -> str:
    """Exactly what the console wrote to the terminal, escape codes included."""
    console.print(renderable)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def bare(out: str) -> str:
    """The text without any escape codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", out)


def colored() -> Console:
    return Console(width=80, color_system="truecolor", force_terminal=True, file=io.StringIO())


def plain() -> Console:
    return Console(width=80, color_system=None, file=io.StringIO())


def test_hand_groups_by_color_and_numbers_the_playable_cards() -> None:
    view = player_view(state(), 0)
    assert [c.code for c in playable(view)] == ["R3", "R7", "R+2", "W+6"]  # T1: red or a 5, or wild
    out = record(plain(), render.hand_panel(view))
    lines = out.splitlines()
    assert lines[0].startswith("Your hand: 7 cards")
    assert re.match(r"Red\s+1: R3\s+2: R7\s+3: R\+2", lines[1])
    assert re.match(r"Yellow\s+Y4$", lines[2].rstrip())  # not playable: no number
    assert re.match(r"Green\s+G\+4$", lines[3].rstrip())
    assert re.match(r"Blue\s+B\+2$", lines[4].rstrip())
    assert re.match(r"Wild\s+4: W\+6", lines[5])


@pytest.mark.parametrize("make", [colored, plain])
def test_every_card_shows_its_letter_and_symbol_with_or_without_color(make: type) -> None:
    out = record(make(), render.hand_panel(player_view(state(), 0)))
    for code in ("R7", "R3", "Y4", "B+2", "W+6", "G+4", "R+2"):
        assert code in out
    has_color = bool(ANSI_COLOR.search(out))
    assert has_color is (make is colored)


def test_no_color_environment_drops_colors_but_keeps_the_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    console = Console(width=80, force_terminal=True, file=io.StringIO())
    out = record(console, render.screen(player_view(state(), 0), NAMES, ["P3 played R5"], "title"))
    assert not ANSI_COLOR.search(out)
    text = bare(out)
    assert "1: R3" in text and "R5" in text and "RED" in text


def test_stack_indicator_shows_the_pending_total_and_what_may_answer_it() -> None:
    s = state(
        discard_pile=["G+4", "R5"],
        color="G",
        decision="stack",
        pending={"total": 6, "last_value": 4, "by": 3},
    )
    view = player_view(s, 0)
    mine = record(plain(), render.stack_text(view, NAMES))
    assert "STACK +6" in mine and "pending on you" in mine
    flat = " ".join(mine.split())
    assert "Stack a Draw card to pass +6 on, or take it" in flat and "t takes" in flat  # K2
    # Only the Draw cards that may be stacked are numbered (K3: a Draw 2 is too low on a Draw 4).
    assert [c.code for c in playable(view)] == ["G+4", "W+6"]
    others = record(plain(), render.stack_text(player_view(s, 1), NAMES))
    assert "STACK +6" in others and "pending on P0 Ana" in others
    assert render.stack_text(player_view(state(), 0), NAMES) is None
    colored_out = record(colored(), render.stack_text(view, NAMES))
    assert ANSI_COLOR.search(colored_out) and "STACK +6" in colored_out


def test_players_show_counts_whose_turn_uno_and_the_mercy_warning() -> None:
    s = state(uno_open=3, current=1)
    out = record(plain(), render.players_grid(player_view(s, 0), NAMES))
    assert "▶ P1 heuristic  2 cards" in out
    assert "P2 expert  22 cards ⚠ 3 to Mercy" in out  # M1: 25 is the limit
    assert "P3 random  1 card UNO (not called!)" in out  # U2
    assert "P0 Ana  7 cards" in out


def test_the_screen_fits_80_columns_and_shows_top_color_and_direction() -> None:
    s = state(direction=-1)
    console = Console(width=80, height=24, color_system=None, file=io.StringIO())
    out = record(
        console, render.screen(player_view(s, 0), NAMES, [f"line {i}" for i in range(10)], "round 1")
    )
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "Top  R5" in out and "color in play  RED" in out
    assert "↺ counter-clockwise: P0 → P3 → P2 → P1" in out
    assert "… 4 earlier" in out and "line 9" in out and "line 3" not in out


@pytest.mark.parametrize("make", [colored, plain])
def test_scoreboard_lists_each_round_and_running_totals(make: type) -> None:
    match = Match(players=3, rules=Rules(), seed=5)
    bots = [make_bot("random", seed=s) for s in range(3)]
    for _ in range(2):
        while not match.state.is_over:
            runner.step(match.state, bots, apply=match.apply)
        if len(match.rounds) < 2:
            match.next_round()
    names = ["Ana", "bot", "bot"]
    out = record(make(), render.scoreboard(match.rounds, match.scores, names, 1000))
    assert bool(ANSI_COLOR.search(out)) is (make is colored)
    text = bare(out)
    assert "first to 1,000" in " ".join(text.split())
    for r in match.rounds:  # E3: a round's winner scores, marked with *
        assert re.search(rf"^\S*\s*{r.number}\s.*\*{r.points[r.winner]}", text, re.M)
    total_line = next(line for line in text.splitlines() if "Total" in line)
    assert [int(x) for x in re.findall(r"\d+", total_line)] == match.scores  # E4: running totals


def test_copies_of_a_card_are_one_numbered_choice() -> None:
    s = state(hands=[["W+6", "W+6", "R7", "R7", "R3", "B2"], ["G1"], ["G2"], ["G3"]])
    out = record(plain(), render.hand_panel(player_view(s, 0)))
    assert re.search(r"Red\s+1: R3\s+2: R7 x2", out)
    assert re.search(r"Wild\s+3: W\+6 x2", out)
    assert out.count("W+6") == 1 and "Your hand: 6 cards" in out
