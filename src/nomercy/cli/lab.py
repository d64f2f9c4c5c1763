"""``nomercy report`` and ``nomercy compare``: the house-rule lab on the command line.

Thin wrappers: the work is in :mod:`nomercy.sim.report` and :mod:`nomercy.sim.compare`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from nomercy.cli.options import BotsOption, WorkersOption, flag, load_rules
from nomercy.cli.simulate import EngineOption, backend_for, make_spec, reproduce, run_with_progress
from nomercy.errors import InvalidRules
from nomercy.rules import PRESETS
from nomercy.sim.runner import Row

__all__ = ["compare", "report"]


def report(
    results: Annotated[
        Path,
        typer.Argument(
            metavar="RESULTS", help="results file from 'nomercy simulate --out' (.parquet or .csv)"
        ),
    ],
    html: Annotated[
        Path | None, typer.Option("--html", help="HTML report (default: RESULTS with .html)")
    ] = None,
    md: Annotated[
        Path | None, typer.Option("--md", help="Markdown summary (default: RESULTS with .md)")
    ] = None,
    label: Annotated[
        str | None, typer.Option("--label", help="only the games of this rule set (from compare)")
    ] = None,
) -> None:
    """Write a self-contained HTML report (figures inline) and a Markdown summary of a run."""
    from nomercy.sim.report import write_report

    try:
        html_path, md_path = write_report(results, html, md, label)
    except (OSError, ValueError, RuntimeError) as exc:
        raise typer.BadParameter(str(exc), param_hint="RESULTS") from None
    Console().print(f"wrote {html_path} and {md_path}")


def _rule_sets(
    preset: str | None, rule: list[str], files: list[Path], variants: list[str]
) -> list[tuple[str, Any]]:
    sets: list[tuple[str, Any]] = [(path.stem, load_rules(preset, rule, path)) for path in files]
    for variant in variants:
        assignments = [part.strip() for part in variant.split(",") if part.strip()]
        try:
            sets.append((",".join(assignments), load_rules(preset, [*rule, *assignments], None)))
        except InvalidRules as exc:
            raise typer.BadParameter(str(exc), param_hint="--variant") from None
    if len(sets) == 1 or not files:  # variants are changes to the base rules: it is the baseline
        sets.insert(0, ("+".join([preset or "no_mercy", *rule]), load_rules(preset, rule, None)))
    if len(sets) < 2:
        raise typer.BadParameter("give at least one --rules FILE or --variant name=value to compare")
    seen: dict[str, int] = {}
    unique = []
    for label, rules in sets:
        seen[label] = seen.get(label, 0) + 1
        unique.append((label if seen[label] == 1 else f"{label}#{seen[label]}", rules))
    return unique


def compare(
    rules_files: Annotated[
        list[Path], typer.Option("--rules", help="TOML file of house rules (repeatable)")
    ] = [],
    variant: Annotated[
        list[str],
        typer.Option(
            "--variant", "-V", help="a rule set as overrides, e.g. 'stack_color=match' (repeatable)"
        ),
    ] = [],
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="games per rule set")] = 10_000,
    players: Annotated[int, typer.Option("--players", "-p", min=2, help="players per game")] = 4,
    seed: Annotated[
        int, typer.Option("--seed", "-s", min=0, help="seed of the run (the same for every rule set)")
    ] = 0,
    preset: Annotated[
        str | None,
        typer.Option(
            "--preset", help=f"base preset of every rule set: {', '.join(PRESETS)} (default: no_mercy)"
        ),
    ] = None,
    rule: Annotated[
        list[str], typer.Option("--rule", "-r", help="override applied to every rule set (repeatable)")
    ] = [],
    bots: BotsOption = "random",
    workers: WorkersOption = None,
    ray: Annotated[
        str | None, typer.Option("--ray", metavar="[ADDRESS]", help="run on Ray (bare: a local Ray)")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="also write every game's row (.parquet/.csv)")
    ] = None,
    html: Annotated[Path, typer.Option("--html", help="HTML report with figures")] = Path("compare.html"),
    md: Annotated[
        Path | None, typer.Option("--md", help="Markdown table (default: the HTML path with .md)")
    ] = None,
    engine: EngineOption = "python",
    progress: Annotated[bool, flag("--progress/--no-progress", help="show progress bars")] = True,
) -> None:
    """Play the same seeds under several rule sets; report differences with 95% intervals.

    Rule sets are the --rules files, then the --variant overrides, in order; the first is the
    baseline. Without files, or with a single rule set, the base rules (--preset and --rule)
    are the baseline.
    """
    from nomercy.sim.compare import write_compare_report
    from nomercy.sim.results import ResultWriter

    # The report is written after every game is played: refuse now what it would need.
    missing = [m for m in ("matplotlib", "jinja2") if importlib.util.find_spec(m) is None]
    if missing:
        raise typer.BadParameter(
            f"the report needs the sim extra: pip install 'nomercy[sim]' ({', '.join(missing)} missing)",
            param_hint="--html",
        )
    sets = _rule_sets(preset, rule, rules_files, variant)
    extra = [arg for path in rules_files for arg in ("--rules", str(path))]
    extra += [arg for v in variant for arg in ("--variant", v)]
    command = reproduce("compare", games, players, seed, preset, rule, None, bots, extra)
    specs = [make_spec(games, players, rules, bots, seed, label, engine) for label, rules in sets]
    backend = backend_for(workers, ray)
    console, status = Console(), Console(stderr=True)
    rows: list[Row] = []
    interrupted = False
    writer = None
    if out is not None:
        meta = {
            "run_seed": seed,
            "players": players,
            "command": command,
            "rule_sets": {label: r.to_dict() for label, r in sets},
        }
        try:
            writer = ResultWriter(out, meta)
        except (ValueError, RuntimeError, OSError) as exc:
            raise typer.BadParameter(str(exc), param_hint="--out") from None
    try:
        for spec in specs:

            def keep(batch: list[Row]) -> None:
                rows.extend(batch)
                if writer is not None:
                    writer.write(batch)

            try:
                result = run_with_progress(spec, backend, keep, status, description=spec.label, show=progress)
            except RuntimeError as exc:  # Ray missing or unreachable
                status.print(f"error: {exc}")
                raise typer.Exit(1) from None
            if result.interrupted:
                interrupted = True
                break
    finally:
        if writer is not None:
            writer.close()
    labels = [label for label, _ in sets if any(r["rules"] == label for r in rows)]
    if len(labels) < 2:
        status.print("interrupted before two rule sets had games: nothing to compare")
        raise typer.Exit(130)
    md_path = md or html.with_suffix(".md")
    intro = [
        f"{games:,} games per rule set, {players} players, bots {bots}, run seed {seed}",
        *(f"{label}: {_changes(r)}" for label, r in sets if label in labels),
        f"command: {command}",
    ]
    tables = write_compare_report(rows, labels, html, md_path, intro)
    for section in tables:
        table = Table(title=section.title)
        for name in section.tables[0].header:
            table.add_column(name, justify="left" if name == "metric" else "right")
        for cells in section.tables[0].rows:
            table.add_row(*cells)
        console.print(table)
    console.print(f"wrote {html} and {md_path}" + (f" and {out}" if out else ""))
    if interrupted:
        status.print("interrupted: compared the games that finished")
        raise typer.Exit(130)


def _changes(rules: Any) -> str:
    changed = rules.to_dict(only_changes=True)
    return ", ".join(f"{k}={v}" for k, v in changed.items()) or "no_mercy defaults"
