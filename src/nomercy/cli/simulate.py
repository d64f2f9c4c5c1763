"""``nomercy simulate``: play many games between random players and summarise them."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from nomercy.cli.options import load_rules
from nomercy.engine import new_game
from nomercy.events import Drew
from nomercy.rules import Rules


@dataclass
class Summary:
    """Totals over many games."""

    games: int = 0
    wins: Counter[int] = field(default_factory=Counter)
    decisions: int = 0
    cards_drawn: int = 0
    knockouts: int = 0
    endings: Counter[str] = field(default_factory=Counter)


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run: independent of how games are split up."""
    return random.Random(f"nomercy-sim:{seed}:{index}").getrandbits(63)


def play_random_game(players: int, rules: Rules, seed: int, summary: Summary) -> None:
    state = new_game(players, rules, seed)
    chooser = random.Random(seed)
    while state.current is not None:
        for event in state.apply(chooser.choice(state.legal_actions())):
            if type(event) is Drew:
                summary.cards_drawn += event.count
        summary.decisions += 1
    outcome = state.outcome
    assert outcome is not None
    summary.games += 1
    summary.wins[outcome.winner] += 1
    summary.knockouts += len(outcome.knocked_out)
    summary.endings[outcome.reason] += 1


def simulate(
    games: int = typer.Option(1000, "--games", "-n", min=1, help="number of games"),
    players: int = typer.Option(4, "--players", "-p", min=2, help="players per game"),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="seed of the whole run"),
    preset: str | None = typer.Option(None, help="rules preset: no_mercy (default) or classic"),
    rule: list[str] = typer.Option([], "--rule", "-r", help="house rule override name=value (repeatable)"),
    rules_file: Path | None = typer.Option(None, "--rules", help="TOML file of house rules"),
) -> None:
    """Play random games and print a summary: wins by seat, game length, knock-outs."""
    rules = load_rules(preset, rule, rules_file)
    if players > rules.max_players:
        raise typer.BadParameter(f"{players} players: this table seats at most {rules.max_players} (S1)")
    summary = Summary()
    for index in range(games):
        play_random_game(players, rules, game_seed(seed, index), summary)
    print_summary(summary, players)


def print_summary(summary: Summary, players: int) -> None:
    console = Console()
    n = summary.games
    table = Table(title=f"{n} games, {players} players")
    table.add_column("seat")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    for seat in range(players):
        wins = summary.wins[seat]
        table.add_row(f"P{seat}", str(wins), f"{wins / n:.1%}")
    console.print(table)
    console.print(f"decisions per game: {summary.decisions / n:.1f}")
    console.print(f"cards drawn per game: {summary.cards_drawn / n:.1f}")
    console.print(f"knock-outs per game: {summary.knockouts / n:.2f}")
    endings = ", ".join(f"{reason} {count / n:.1%}" for reason, count in summary.endings.most_common())
    console.print(f"rounds ended: {endings}")
