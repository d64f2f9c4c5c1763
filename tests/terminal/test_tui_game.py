"""The game loop in-process, with a scripted reader in place of the keyboard.

These cover what the pseudo-terminal tests do not: catching a bot that forgot Uno (U2),
a Seven aimed at a knocked-out player (M3), the Roulette prompt (W4), an armed Uno call
(U1), a match's scoreboard between rounds (E4), and that a resumed game with random bots
continues exactly (their generators are restored).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from nomercy import GameState, Rules
from nomercy.actions import Action, Catch, Draw, Pass, Play, Take
from nomercy.tui.game import Game
from nomercy.tui.session import Session, new_session
from nomercy.views import player_view

pytestmark = pytest.mark.usefixtures("test_bots")


def position(**fields: Any) -> GameState:
    base: dict[str, Any] = {
        "draw_pile": ["R0", "G0", "B0", "Y0", "R1", "G1", "B1", "Y1"],
        "discard_pile": ["R5"],
    }
    base.update(fields)
    return GameState.from_dict(base)


def console() -> Console:
    return Console(file=io.StringIO(), width=80, color_system=None)


def output(game: Game) -> str:
    file = game.console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def scripted(lines: list[str]) -> tuple[Callable[[str], str], list[str]]:
    """A reader answering with ``lines``; it records the prompts it was shown."""
    answers: Iterator[str] = iter(lines)
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    return read, prompts


def game_from(
    start: GameState, lines: list[str], tmp_path: Path, bots: str = "first"
) -> tuple[Game, list[str]]:
    session = new_session(start.players, start.rules, [bots], 1, "Ana", False, start)
    read, prompts = scripted(lines)
    return Game(session, console(), tmp_path / "save.json", delay=0, read=read), prompts


def test_the_person_catches_a_bot_that_did_not_call_uno(tmp_path: Path) -> None:
    """U2: P1 plays down to one card without calling; the quiet P2 lets it pass; P0 catches."""
    start = position(hands=[["B7", "B8"], ["R3", "R4"], ["G3", "G4", "G6"]], current=1)
    game, prompts = game_from(start, ["c", "q"], tmp_path, bots="quiet")
    assert game.run() is False
    assert "P1 quiet is down to one card and did not call Uno!" in prompts[0]
    assert (0, Catch(1)) in game.session.round_actions
    assert len(game.session.state.hands[1]) == 3  # one card + the 2-card penalty
    assert "You caught P1 quiet without UNO" in output(game)


def test_the_next_player_catches_at_the_main_prompt(tmp_path: Path) -> None:
    """U2: with two players the person is next; the screen says c catches, and it does."""
    start = position(hands=[["B7", "B8"], ["R3", "R4"]], current=1)
    game, prompts = game_from(start, ["c", "q"], tmp_path, bots="quiet")
    game.run()
    assert prompts[0].startswith("Your move")
    assert "P1 quiet did not call Uno: c catches them (U2)." in output(game)
    assert game.session.round_actions[-1] == (0, Catch(1))


def test_nobody_to_catch_gets_an_explanation(tmp_path: Path) -> None:
    start = position(hands=[["R7", "B8", "G2"], ["R3", "R4"], ["G3", "G4"]])
    game, prompts = game_from(start, ["c", "q"], tmp_path)
    game.run()
    assert prompts == ["Your move (? for help): "] * 2
    assert "Nobody can be caught now" in output(game)


def test_a_seven_cannot_target_a_knocked_out_player(tmp_path: Path) -> None:
    """N1, M3: the target prompt refuses P2, who is out, and asks again."""
    start = position(
        hands=[["R7", "B8", "G2"], ["R3", "R4"], [], ["Y3", "Y4"]], knocked_out=[{"seat": 2, "by": None}]
    )
    game, prompts = game_from(start, ["r7", "2", "3", "q"], tmp_path)
    game.run()
    assert prompts[1] == prompts[2] and prompts[1].startswith(
        "Swap hands with whom? 1=P1 first (2 cards), 3=P3 first (2 cards);"
    )
    assert "P2 first is knocked out and cannot be swapped with (M3)" in output(game)
    assert game.session.round_actions[0] == (0, Action.parse("play R7 @3"))


def test_the_roulette_victim_names_a_color(tmp_path: Path) -> None:
    """W4: P2 plays a Wild Color Roulette; the person names green at the color prompt."""
    start = position(
        hands=[["B7", "B8"], ["Y6", "Y7"], ["WCR", "Y4", "Y3"]],
        current=2,
        draw_pile=["R0", "B1", "G4", "Y1", "Y2"],
    )
    game, prompts = game_from(start, ["x", "g", "q"], tmp_path)
    game.run()
    assert prompts[0].startswith("Name a color") and prompts[1] == prompts[0]
    assert game.session.round_actions[1] == (0, Action.parse("color G"))
    assert "The Roulette turned up 3 cards for you: R0 B1 G4" in " ".join(output(game).split())


def test_u_arms_uno_for_the_next_play(tmp_path: Path) -> None:
    """U1: u, then a play that leaves one card, calls Uno; the catching bot cannot catch."""
    start = position(hands=[["R6", "B8"], ["R3", "R4", "G9"], ["G3", "G4", "G9"]])
    game, _ = game_from(start, ["u", "r6", "q"], tmp_path)
    game.run()
    first = game.session.round_actions[0]
    assert first[0] == 0 and isinstance(first[1], Play) and first[1].uno
    assert all(not isinstance(a, Catch) for _, a in game.session.round_actions)


def typed(action: Any) -> str:
    """What a person types for ``action``."""
    if isinstance(action, Play):
        words = [action.card.code]
        if action.color is not None:
            words.append(action.color.letter)
        if action.target is not None:
            words.append(str(action.target))
        if action.uno:
            words.append("u")
        return " ".join(words)
    return {Draw: "d", Take: "t", Pass: "p"}.get(type(action), "") or str(action).replace("color ", "")


def policy(session: Session, quit_after: int | None) -> Callable[[str], str]:
    """A person whose choice depends only on the position; quits after ``quit_after`` moves."""
    moves = 0

    def read(prompt: str) -> str:
        nonlocal moves
        if prompt.startswith("Enter deals"):
            return ""
        if "did not call Uno" in prompt:
            return "c"
        if quit_after is not None and moves >= quit_after:
            return "q"
        moves += 1
        view = player_view(session.state, 0)
        legal = [a for a in view.legal_actions if not a.out_of_turn]
        return typed(legal[(view.step * 7 + len(view.hand)) % len(legal)])

    return read


def test_a_new_game_says_in_a_line_which_level_or_character_each_bot_plays(tmp_path: Path) -> None:
    session = new_session(3, Rules(), ["stacker", "beginner"], 7, "Ana", False)
    game = Game(session, console(), tmp_path / "save.json", delay=0, read=lambda prompt: "q")
    assert game.run() is False
    text = output(game)
    assert "P1 Stacker Stella stacks every Draw card she can." in text
    assert "P2 Beginner is still learning and makes mistakes." in text


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "P1 Gambler Gina loves Roulettes and hand swaps, at the Strong level."),
        ("nb", "P1 Gamblende Gina elsker Villkort Fargerulett og å bytte hender, på nivået Sterk."),
    ],
)
def test_a_character_at_a_level_is_introduced_with_its_level(tmp_path: Path, lang: str, line: str) -> None:
    session = new_session(2, Rules(), ["gambler:level=strong"], 7, "Ana", False)
    game = Game(session, console(), tmp_path / "save.json", delay=0, read=lambda prompt: "q", lang=lang)
    assert game.run() is False
    assert line in " ".join(output(game).split())


def test_a_resumed_game_with_random_bots_continues_exactly(tmp_path: Path) -> None:
    """Saved after 3 moves and resumed: the same round as one played without a break."""

    def play(session: Session, quit_after: int | None, path: Path) -> bool:
        return Game(session, console(), path, delay=0, read=policy(session, quit_after)).run()

    whole = new_session(4, Rules(), ["random"], 2024, "Ana", False)
    assert play(whole, None, tmp_path / "whole.json") is True

    broken = new_session(4, Rules(), ["random"], 2024, "Ana", False)
    assert play(broken, 3, tmp_path / "broken.json") is False
    states = [bot.rng.getstate() for bot in broken.bots if bot is not None]
    resumed = Session.load(tmp_path / "broken.json")
    assert resumed.state == broken.state
    # The bots' generators are where they were, not back at their seeds.
    assert [bot.rng.getstate() for bot in resumed.bots if bot is not None] == states
    assert play(resumed, None, tmp_path / "broken.json") is True
    assert resumed.round_actions == whole.round_actions
    assert resumed.state.outcome == whole.state.outcome
    assert len(whole.round_actions) > 10


def test_a_match_shows_the_scoreboard_between_rounds_and_resumes_there(tmp_path: Path) -> None:
    """E4: after round 1 the scoreboard; q there saves; the resumed match deals round 2."""
    session = new_session(3, Rules(), ["random"], 7, "Ana", True)
    base = policy(session, None)

    def read(prompt: str) -> str:
        return "q" if prompt.startswith("Enter deals") else base(prompt)

    game = Game(session, console(), tmp_path / "match.json", delay=0, read=read)
    assert game.run() is False
    text = output(game)
    assert "Scores (first to 1,000 wins the match)" in text and "Total" in text
    resumed = Session.load(tmp_path / "match.json")
    assert resumed.match is not None and resumed.match.round_number == 1 and resumed.state.is_over

    def read2(prompt: str) -> str:
        return "" if prompt.startswith("Enter deals") else "q"

    assert Game(resumed, console(), tmp_path / "match.json", delay=0, read=read2).run() is False
    again = Session.load(tmp_path / "match.json")
    assert again.match is not None and again.match.round_number == 2
    assert again.match.scores == resumed.match.scores and sum(again.match.scores) > 0


def test_help_and_rules_summary_change_nothing(tmp_path: Path) -> None:
    start = position(hands=[["R6", "B8", "G2"], ["R3", "R4"], ["G3", "G4"]])
    game, prompts = game_from(start, ["?", "r", "q"], tmp_path)
    game.run()
    assert prompts == ["Your move (? for help): "] * 3
    text = output(game)
    assert "w+6 b   play a wild, naming blue" in text
    assert "knocks you out of the round (M1)" in text and "(K2)" in text
    assert game.session.round_actions == []
    shown = text.split("Game saved to")[0]  # the save path may be longer: it is not wrapped
    assert all(len(line) <= 80 for line in shown.splitlines())


def test_the_rules_summary_follows_the_house_rules() -> None:
    from nomercy.tui.game import rules_summary

    classic = rules_summary(Rules.preset("classic"))
    assert (
        "No stacking: a Draw card's victim draws at once and loses the turn (K2)." in classic
        and "Draw one card" in classic
    )
    assert "Mercy" not in classic and "250" not in classic and "(N1)" not in classic
    assert "A match goes to 500 points (E4)." in classic
    assert "House rules changed here:" not in rules_summary(Rules())
