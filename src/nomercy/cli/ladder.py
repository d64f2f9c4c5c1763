"""``nomercy ladder``: rate bots and outside agents in a round-robin (see :mod:`nomercy.sim.ladder`)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from math import comb
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from nomercy.cli.options import (
    CoresOption,
    JsonOption,
    PresetOption,
    RuleOption,
    RulesFileOption,
    load_rules,
)
from nomercy.cli.simulate import backend_for
from nomercy.sim.backends import default_workers
from nomercy.sim.ladder import machine, markdown, parse_agents, run_ladder


def ladder(
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            "-a",
            help="agents, comma-separated: a bot (name:key=value sets an option), an outside agent as "
            "module:callable (its own :key=value options follow), or an entry point of the "
            "nomercy.bots group",
        ),
    ] = "random,heuristic,expert:budget=16:native=false",
    deals: Annotated[
        int, typer.Option("--deals", "-d", min=1, help="deals per pairing (each played once per seat)")
    ] = 100,
    players: Annotated[
        int, typer.Option("--players", "-p", min=2, help="seats per game: every set of that many agents")
    ] = 2,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="seed of the whole ladder")] = 0,
    workers: CoresOption = 0,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="write the ladder as JSON to this file")
    ] = None,
    md: Annotated[Path | None, typer.Option("--md", help="write the ladder as Markdown to this file")] = None,
    as_json: JsonOption = False,
    preset: PresetOption = None,
    rule: RuleOption = [],
    rules_file: RulesFileOption = None,
) -> None:
    """Rate agents in a round-robin with seat rotation and duplicate deals (OpenSkill, Wilson 95% CIs)."""
    rules = load_rules(preset, rule, rules_file)
    try:
        import openskill  # noqa: F401
    except ImportError:
        raise typer.BadParameter(
            "the ladder rates with OpenSkill, in the sim extra: pip install 'nomercy[sim]'",
            param_hint="--agents",
        ) from None
    try:
        specs = parse_agents(agents)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--agents") from None
    if len(specs) < players:
        raise typer.BadParameter(
            f"{len(specs)} agents for {players} players: name at least one agent per seat",
            param_hint="--agents",
        )
    if players > rules.max_players:
        raise typer.BadParameter(
            f"{players} players: this table seats at most {rules.max_players} (S1)", param_hint="--players"
        )
    total = comb(len(specs), players) * deals * players
    backend = backend_for(max(1, min(workers or default_workers(), total)), None)
    err = Console(stderr=True)
    start = time.perf_counter()
    show = not as_json and sys.stderr.isatty()
    try:
        if show:
            with Progress(
                TextColumn("[bold]ladder"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("games"),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            ) as bar:
                task = bar.add_task("games", total=total)
                result = run_ladder(
                    specs,
                    deals,
                    players,
                    seed,
                    rules,
                    progress=lambda k: bar.advance(task, k),
                    backend=backend,
                )
        else:
            result = run_ladder(specs, deals, players, seed, rules, backend=backend)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--agents") from None
    result.machine = machine("nomercy " + shlex.join(sys.argv[1:]))
    result.machine["wall_seconds"] = round(time.perf_counter() - start, 1)
    data = result.to_dict()
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if md is not None:
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(_markdown_file(data), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(data, indent=2))
    else:
        print_ladder(data, Console() if sys.stdout.isatty() else Console(width=140))


def _markdown_file(data: dict[str, Any]) -> str:
    meta = data["machine"]
    lines = [
        "# Agent ladder",
        "",
        *markdown(data),
        "",
        f"Ran {meta['date']} with `{meta['command']}` (nomercy {meta['nomercy']}, Python {meta['python']}) "
        f"on {meta['cpu']}, {meta['cores']} cores.",
    ]
    return "\n".join(lines) + "\n"


def print_ladder(data: dict[str, Any], console: Console) -> None:
    """The human-readable table."""
    proto = data["protocol"]
    table = Table(
        title=f"{data['games']} games, {proto['players']} players, {proto['deals_per_pairing']} deals "
        f"per pairing, seed {proto['seed']}"
    )
    for name in ("rank", "agent", "mu", "sigma", "mu - 3 sigma", "games", "win rate", "95% CI (Wilson)"):
        table.add_column(name, justify="left" if name == "agent" else "right", no_wrap=True)
    for rank, a in enumerate(data["agents"], 1):
        low, high = a["ci95"]
        table.add_row(
            str(rank),
            a["agent"],
            f"{a['mu']:.2f}",
            f"{a['sigma']:.2f}",
            f"{a['ordinal']:.2f}",
            str(a["games"]),
            f"{a['win_rate']:.1%}",
            f"{low:.1%} - {high:.1%}",
        )
    console.print(table)
