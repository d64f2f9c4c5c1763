"""``nomercy tournament``: measure bots against each other (see :mod:`nomercy.sim.tournament`)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from nomercy.cli.options import (
    CoresOption,
    JsonOption,
    PresetOption,
    RayOption,
    RuleOption,
    RulesFileOption,
    flag,
    load_rules,
)
from nomercy.cli.simulate import backend_for
from nomercy.sim.backends import default_workers
from nomercy.sim.tournament import TournamentResult, parse_bots, run_tournament


def tournament(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="one bot per seat, comma-separated; name*K repeats, name:key=value sets an option "
            "(e.g. expert:budget=300,heuristic*3); one name alone plays itself on every seat "
            "(2 seats, or --players N)",
        ),
    ] = "expert,heuristic,random,random",
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="games (or matches with --match)")
    ] = 2000,
    players: Annotated[
        int | None, typer.Option("--players", "-p", min=2, help="players (default: one per bot)")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="seed of the whole run")] = 0,
    workers: CoresOption = 0,
    ray: RayOption = None,
    match: Annotated[bool, flag("--match", help="play full scored matches to the target score (E4)")] = False,
    as_json: JsonOption = False,
    preset: PresetOption = None,
    rule: RuleOption = [],
    rules_file: RulesFileOption = None,
) -> None:
    """Play bots against each other with seat rotation; print win rates with 95% intervals."""
    rules = load_rules(preset, rule, rules_file)
    try:
        specs = parse_bots(bots)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots") from None
    if len(specs) == 1:  # a bot against itself: on every seat
        specs = specs * (players if players is not None else 2)
    players = players if players is not None else len(specs)
    if len(specs) != players:
        raise typer.BadParameter(
            f"{len(specs)} bots for {players} players: name one bot per seat (name*K repeats)",
            param_hint="--bots",
        )
    if players > rules.max_players:
        raise typer.BadParameter(
            f"{players} players: this table seats at most {rules.max_players} (S1)", param_hint="--players"
        )
    backend = backend_for(max(1, min(workers or default_workers(), games)), ray)
    err = Console(stderr=True)
    show = not as_json and sys.stderr.isatty()
    unit = "matches" if match else "games"
    try:
        if show:
            with Progress(
                TextColumn("[bold]tournament"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(unit),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            ) as bar:
                task = bar.add_task(unit, total=games)
                result = run_tournament(
                    specs,
                    games,
                    players,
                    seed,
                    rules,
                    match=match,
                    progress=lambda k: bar.advance(task, k),
                    backend=backend,
                )
        else:
            result = run_tournament(specs, games, players, seed, rules, match=match, backend=backend)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    except RuntimeError as exc:  # Ray missing, unreachable, or refusing this driver
        err.print(f"error: {exc}", markup=False, highlight=False)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        # Piped output is not cut to 80 columns: the table is the result.
        print_result(result, Console() if sys.stdout.isatty() else Console(width=140))


def print_result(result: TournamentResult, console: Console) -> None:
    """The human-readable table."""
    mode = "matches" if result.match else "games"
    table = Table(title=f"{result.games} {mode}, {result.players} players, seed {result.seed}")
    table.add_column("bot", no_wrap=True)
    table.add_column("match wins" if result.match else "wins", justify="right")
    table.add_column("win rate", justify="right", no_wrap=True)
    table.add_column("95% CI (Wilson)", justify="right", no_wrap=True)
    table.add_column("pts/round", justify="right")
    table.add_column("KOs caused", justify="right")
    table.add_column("KOs suffered", justify="right")
    table.add_column("decisions/match" if result.match else "decisions/game", justify="right")
    for e in result.entries:
        low, high = e.interval
        table.add_row(
            e.label,
            str(e.wins),
            f"{e.win_rate:.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{e.points / e.rounds:.1f}" if e.rounds else "-",
            str(e.caused),
            str(e.suffered),
            f"{e.decisions / e.games:.1f}",
        )
    console.print(table)
    if result.match:
        console.print(f"rounds per match: {result.rounds / result.games:.1f}")
    if result.games % result.players:
        console.print(
            f"note: {result.games} is not a multiple of {result.players}: seats are not played equally often"
        )
