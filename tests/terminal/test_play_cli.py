"""``nomercy play`` / ``nomercy replay`` as installed: defaults, bad files and bad options."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from nomercy import bots

Spawn = Callable[[list[str]], pexpect.spawn]


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m nomercy.cli ARGS``: the same program as the ``nomercy`` script."""
    return subprocess.run(
        [sys.executable, "-m", "nomercy.cli", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_the_installed_command_starts_with_default_bots_and_q_saves(
    tmp_path: Path, term_env: dict[str, str]
) -> None:
    exe = Path(sys.executable).with_name("nomercy")
    if not exe.exists():
        pytest.skip("the nomercy script is not installed next to this Python")
    child = pexpect.spawn(
        str(exe),
        ["play", "--seed", "5", "--fast"],
        env=term_env,
        encoding="utf-8",
        timeout=30,
        dimensions=(24, 80),
    )
    expected = "heuristic" if "heuristic" in bots.available() else "random"
    child.expect(f"P1 {'Casual' if expected == 'heuristic' else 'Random'}")  # its level, not its engine
    child.expect("Your move|Name a color")
    child.sendline("q")
    child.expect("Game saved to (\\S+)")
    saved = json.loads(Path(child.match.group(1)).read_text(encoding="utf-8"))
    child.expect(pexpect.EOF)
    assert [seat and seat["name"] for seat in saved["bots"]] == [None, expected, expected, expected]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not a nomercy save file (it is not JSON)"),
        ('{"format": "something.else"}', "not a nomercy save file"),
        ('{"format": "nomercy.session", "format_version": 9}', "save format version 9 is not supported"),
        ('{"format": "nomercy.session", "format_version": 1, "human": 0}', "the saved game is damaged"),
    ],
)
@pytest.mark.parametrize("command", ["play --resume", "replay"])
def test_a_corrupt_or_foreign_save_file_gets_a_clear_error(
    tmp_path: Path, term_env: dict[str, str], content: str, message: str, command: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    result = run([*command.split(), str(bad)], term_env)
    assert result.returncode == 1
    out = result.stdout + result.stderr
    assert "Error:" in out and message in out and str(bad) in out
    assert "Traceback" not in out


def test_a_damaged_move_list_is_refused(tmp_path: Path, term_env: dict[str, str], scenario: Path) -> None:
    save = {
        "format": "nomercy.session",
        "format_version": 1,
        "human": 0,
        "names": ["Ana", "random", "random"],
        "bots": [None, {"name": "random", "seed": 1}, {"name": "random", "seed": 2}],
        "match_mode": False,
        "start_state": json.loads(scenario.read_text(encoding="utf-8")),
        "actions": [[0, "play B1"]],
    }
    bad = tmp_path / "moves.json"
    bad.write_text(json.dumps(save), encoding="utf-8")
    result = run(["play", "--resume", str(bad)], term_env)
    assert result.returncode == 1
    assert "action 0 (play B1 by P0)" in result.stdout and "K4" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_missing_file_and_bad_options(tmp_path: Path, term_env: dict[str, str]) -> None:
    missing = run(["play", "--resume", str(tmp_path / "nope.json")], term_env)
    assert missing.returncode == 1 and "cannot read" in missing.stdout
    unknown = run(["play", "--bots", "nobody", "--fast"], term_env)
    assert unknown.returncode == 2 and "unknown bot 'nobody'" in unknown.stderr
    crowded = run(["play", "--players", "9"], term_env)
    assert crowded.returncode == 2 and "seats 2 to 6 (S1)" in crowded.stderr
    rule = run(["play", "--rule", "mercy_limit=-3"], term_env)
    assert rule.returncode == 2 and "mercy_limit" in rule.stderr
    for result in (missing, unknown, crowded, rule):
        assert "Traceback" not in result.stdout + result.stderr


def test_a_finished_game_is_not_resumed_but_replayed(tmp_path: Path, spawn: Spawn, scenario: Path) -> None:
    save = tmp_path / "done.json"
    data = json.loads(scenario.read_text(encoding="utf-8"))
    data["hands"][0] = ["R+4"]  # the person's last card answers the stack and wins (E1, E2)
    position = tmp_path / "last.json"
    position.write_text(json.dumps(data), encoding="utf-8")
    child = spawn(["play", "--bots", "first", "--fast", "--start-state", str(position), "--save", str(save)])
    child.expect("Your move")
    child.sendline("1")
    child.expect("wins the round")
    child.expect(pexpect.EOF)
    child = spawn(["play", "--resume", str(save)])
    child.expect("that game is over; watch it with: nomercy replay")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    child = spawn(["replay", "--fast", "--reveal", str(save)])
    child.expect("You played R\\+4")
    child.expect("P0 You played their last card and wins the round")
    child.expect(pexpect.EOF)


def test_the_game_speaks_norwegian_with_lang_or_the_environment(
    tmp_path: Path, spawn: Spawn, scenario: Path, term_env: dict[str, str]
) -> None:
    """--lang nb, or LANG=nb_NO.UTF-8: the table, the rules summary (r), an explanation and
    the save message in Norwegian; card codes and rule IDs as they are. --lang xx is refused."""
    child = spawn(["play", "--lang", "nb", "--bots", "first", "--fast", "--start-state", str(scenario)])
    child.expect("Hånden din")
    child.expect("Ditt trekk")
    child.sendline("r")
    child.expect("slått ut av runden \\(M1\\)")
    child.sendline("zz")
    child.expect("er verken et kort eller en tast")
    child.sendline("q")
    child.expect("Spillet er lagret i")
    child.expect(pexpect.EOF)
    env = {**term_env, "LANG": "nb_NO.UTF-8"}
    program = Path(__file__).with_name("program.py")
    child = pexpect.spawn(
        sys.executable,
        [str(program), "play", "--bots", "first", "--fast", "--start-state", str(scenario)],
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(24, 80),
    )
    child.expect("Ditt trekk")
    child.sendline("q")
    child.expect(pexpect.EOF)
    refused = run(["play", "--lang", "xx"], term_env)
    assert refused.returncode == 2 and "not a language of this game" in refused.stderr
