"""The command line as a new user meets it: every help text shows what it says, every
preset is offered, and a mistake names the option and what to write instead."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest
import typer.main
from rich.text import Text
from typer.testing import CliRunner

import nomercy.sim
from nomercy.cli import app
from nomercy.cli.simulate import native_missing
from nomercy.rules import PRESETS

runner = CliRunner(env={"COLUMNS": "200"})
# click's Group and Option, whichever click Typer uses (newer Typers vendor their own).
COMMAND: Any = typer.main.get_command(app)
COMMANDS = sorted(COMMAND.commands)


def said(output: str) -> str:
    """The words of an output, without Rich's panel borders and line wrapping."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


def helps(name: str) -> list[str]:
    command = COMMAND.commands[name]
    texts = [command.help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    return [text for text in texts if text]


@pytest.mark.parametrize("name", COMMANDS)
def test_no_help_text_loses_its_brackets_to_rich_markup(name: str) -> None:
    """Typer renders help as Rich markup: an unescaped ``[fast]`` or ``[default: x]`` vanishes."""
    for text in helps(name):
        assert Text.from_markup(text).plain == text.replace("\\[", "["), text


def test_simulate_help_names_the_extra_and_the_native_bots() -> None:
    result = runner.invoke(app, ["simulate", "--help"])
    assert result.exit_code == 0
    text = said(result.output)
    assert "pip install 'nomercy[fast]'" in text
    assert "random and heuristic bots" in text
    assert "random bots)" not in text


@pytest.mark.parametrize("name", ["simulate", "tournament", "play", "compare", "rules"])
def test_preset_help_offers_every_preset(name: str) -> None:
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if re.match(r"│ +--preset ", line))
    for preset in PRESETS:
        assert preset in line, f"{name} --preset does not offer {preset}"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help(name: str) -> None:
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0 and f"Usage: nomercy {name}" in result.output
    assert "Traceback" not in result.output


#: Every help page: the top level, each command, and each command of a group (db, accounts).
PAGES = [[], *([name] for name in COMMANDS)] + [
    [name, sub] for name in COMMANDS for sub in sorted(getattr(COMMAND.commands[name], "commands", {}))
]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: " ".join(page) or "nomercy")
def test_flags_show_no_value_type_in_help(page: list[str]) -> None:
    """A flag takes no value: help shows none after it (no ``<bool>``), --help's own included,
    while an option that takes a value still shows its type."""
    command = COMMAND
    for name in page:
        command = command.commands[name]
    result = runner.invoke(app, [*page, "--help"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("--help" in line for line in lines)
    assert not [line for line in lines if "<bool>" in line]
    flags = [p for p in command.params if getattr(p, "is_flag", False) and not p.hidden]
    for param in flags:
        assert param.metavar == "", f"{' '.join(page)} {param.opts}: declare it with options.flag()"


def test_a_valued_option_keeps_its_type_in_help() -> None:
    result = runner.invoke(app, ["simulate", "--help"])
    assert "<int>" in result.output and "<str>" in result.output


def test_version_is_listed_in_the_top_level_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "--version" in result.output


def test_tournament_of_one_bot_plays_it_against_itself() -> None:
    result = runner.invoke(app, ["tournament", "--bots", "heuristic", "-n", "2", "-w", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["players"] == 2
    assert [e["bot"] for e in data["bots"]] == ["heuristic #1", "heuristic #2"]


def test_tournament_of_one_bot_fills_the_table_it_is_given() -> None:
    result = runner.invoke(app, ["tournament", "-b", "random", "-p", "3", "-n", "3", "-w", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["players"] == 3


def test_tournament_too_few_bots_says_what_to_write() -> None:
    result = runner.invoke(app, ["tournament", "-b", "heuristic,random", "-p", "3", "-n", "3"])
    assert result.exit_code == 2
    assert "name one bot per seat (name*K repeats)" in said(result.output)


@pytest.mark.parametrize("package", ["numpy", "nomercy.native._engine"])
def test_native_engine_without_the_fast_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, package: str
) -> None:
    for module in [m for m in sys.modules if m.startswith(("nomercy.native", "nomercy.sim.native_runner"))]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, package, None)  # importing it now fails as if not installed (or built)
    monkeypatch.delattr(nomercy.sim, "native_runner", raising=False)
    result = runner.invoke(app, ["simulate", "--engine", "native", "-n", "1", "-w", "1", "--no-progress"])
    assert result.exit_code == 2
    text = said(result.output)
    assert "Invalid value for --engine" in text
    assert (
        f"the native engine needs the fast extra: pip install 'nomercy[fast]' ({package} is missing)" in text
    )
    assert "Traceback" not in text


def test_native_missing_names_the_module() -> None:
    assert native_missing(ModuleNotFoundError("No module named 'numpy'", name="numpy")).endswith(
        "pip install 'nomercy[fast]' (numpy is missing)"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--preset", "nope"], "Invalid value for --preset: unknown preset 'nope': use one of"),
        (["tournament", "--preset", "nope"], "Invalid value for --preset: unknown preset"),
        (["rules", "--preset", "nope"], "Invalid value for --preset: unknown preset"),
        (["simulate", "-p", "9"], "Invalid value for --players: 9 players: this table seats 2 to 6 (S1)"),
        (["tournament", "-b", "random", "-p", "9"], "Invalid value for --players: 9 players"),
        (["play", "--players", "9"], "Invalid value for --players: 9 players: a table seats 2 to 6 (S1)"),
        (["play", "--players", "3", "-b", "random,random,random"], "3 bots for 2 seats"),
        (["simulate", "--bots", "nobody"], "Invalid value for --bots: unknown bot 'nobody': choose from"),
        (["simulate", "--bots", "random,random,random", "-p", "2"], "Invalid value for --bots: 3 bots for 2"),
        (["simulate", "--engine", "warp"], "Invalid value for --engine: unknown engine 'warp'"),
        (["simulate", "--rule", "nonsense"], "Invalid value for --rule: nonsense: expected name=value"),
        (["simulate", "--rule", "no_such=1"], "Invalid value for --rule: no_such: no such house rule"),
        (["simulate", "--rules", "/no/such/rules.toml"], "Invalid value for --rules: cannot read /no/such"),
    ],
)
def test_a_mistake_names_its_option(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in said(result.output)
    assert "Traceback" not in result.output


def test_compare_without_the_sim_extra_refuses_before_playing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = runner.invoke(app, ["compare", "-V", "stack_color=match", "-n", "100000", "--no-progress"])
    assert result.exit_code == 2
    assert "Invalid value for --html: the report needs the sim extra: pip install 'nomercy[sim]'" in said(
        result.output
    )


def test_simulate_on_ray_without_ray_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    result = runner.invoke(app, ["simulate", "--ray", "-n", "2"])
    assert result.exit_code == 2
    assert "Invalid value for --ray: Ray is not installed: pip install 'nomercy[ray]'" in said(result.output)


def test_serve_without_the_server_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 1
    assert "error: the server needs its extra: pip install 'nomercy[server]' (uvicorn is missing)" in said(
        result.output
    )
