"""``nomercy play`` driven through a pseudo-terminal with scripted keystrokes.

The round starts from ``scenario.json`` (3 players; P1 and P2 are the predictable
``first`` bots of ``program.py``): the person faces a Draw 2 (K2), types nonsense and a
card that cannot answer a stack (K4), takes the stack, plays a Wild Draw 6 and names a
color (T5, W2), plays a Seven and picks a target (N1), forgets to call Uno and is caught
(U1, U2), and wins by a Discard All that empties the hand (A5, E1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pexpect

MOVE = "Your move"


Spawn = Callable[[list[str]], pexpect.spawn]


def start(spawn: Spawn, scenario: Path, save: Path) -> pexpect.spawn:
    args = ["play", "--bots", "first", "--fast", "--name", "Ana", "--start-state", str(scenario)]
    return spawn([*args, "--save", str(save)])


def first_half(child: pexpect.spawn) -> None:
    """From the deal to the person's turn after the Seven."""
    child.expect("STACK \\+2")
    child.expect(MOVE)
    child.sendline("zz")
    child.expect("'zz' is not a card or a key")
    child.expect(MOVE)  # the same prompt again, nothing lost
    child.sendline("b1")
    child.expect(re.escape("only a Draw card answers it"))
    child.expect(MOVE)
    child.sendline("t")
    child.expect(re.escape("You took the stack: 2 cards"))
    child.expect(MOVE)
    child.sendline("w+6")
    child.expect("Color to name for W\\+6")
    child.sendline("x")
    child.expect("'x' is not a color")
    child.expect("Color to name for W\\+6")
    child.sendline("g")
    child.expect("You played W\\+6 and named green")
    child.expect(re.escape("took the stack: 6 cards"))
    child.expect(MOVE)
    child.sendline("g7")
    child.expect("Swap hands with whom\\?")
    child.sendline("0")
    child.expect("That is you")
    child.expect("Swap hands with whom\\?")
    child.sendline("2")
    child.expect("You and P2 \\w+ swapped hands")
    child.expect(MOVE)


def second_half(child: pexpect.spawn) -> None:
    """From there to the end of the round."""
    child.sendline("b5")
    child.expect(MOVE)
    child.sendline("b6")  # leaves one card, and no Uno call
    child.expect(re.escape("caught you without UNO: +2 cards"))
    child.expect(MOVE)
    child.sendline("yda")
    child.expect("You also discarded Y9 Y7")
    child.expect("P0 Ana played their last card and wins the round, scoring 36 points")
    child.expect("nomercy replay")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def saved_actions(path: Path) -> list[list[object]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "nomercy.session"
    return data["actions"]


def test_a_whole_round_with_every_kind_of_decision(
    tmp_path: Path, spawn: Spawn, scenario: Path, term_env: dict[str, str]
) -> None:
    save = tmp_path / "game.json"
    child = start(spawn, scenario, save)
    first_half(child)
    second_half(child)
    data = json.loads(save.read_text(encoding="utf-8"))
    assert data["finished"] is True
    actions = [text for _seat, text in data["actions"]]
    assert "take" in actions and "play W+6 G" in actions and "play G7 @2" in actions
    assert [1, "catch 0"] in data["actions"]  # U2: the bot caught the person


def test_save_with_ctrl_c_and_resume_continues_exactly(
    tmp_path: Path, spawn: Spawn, scenario: Path, term_env: dict[str, str]
) -> None:
    whole = tmp_path / "whole.json"
    child = start(spawn, scenario, whole)
    first_half(child)
    second_half(child)

    save = tmp_path / "broken.json"
    child = start(spawn, scenario, save)
    first_half(child)
    child.sendintr()  # Ctrl-C at the prompt saves
    child.expect("Game saved to")
    child.expect("nomercy play --resume")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert json.loads(save.read_text(encoding="utf-8"))["finished"] is False

    child = spawn(["play", "--fast", "--resume", str(save)])
    child.expect("You played G7 at P2 \\w+. You and P2 \\w+ swapped hands")  # the last moves, as seen before
    child.expect("P2 \\w+ played B8")
    child.expect("game resumed after \\d+ moves")
    child.expect(MOVE)
    second_half(child)
    assert saved_actions(save) == saved_actions(whole)


def test_q_saves_under_the_data_directory_and_replay_shows_it(
    tmp_path: Path, spawn: Spawn, scenario: Path, term_env: dict[str, str]
) -> None:
    child = spawn(["play", "--bots", "first", "--fast", "--start-state", str(scenario)])
    child.expect(MOVE)
    child.sendline("t")
    child.expect(MOVE)
    child.sendline("q")
    child.expect("Game saved to (\\S+)")
    path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    assert path.is_relative_to(Path(term_env["XDG_DATA_HOME"]))
    assert path.exists()

    child = spawn(["replay", "--fast", str(path)])
    child.expect(re.escape("You took the stack: 2 cards"))
    child.expect("P1 \\w+ played R3")
    child.expect("saved here, in the middle of the round")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
