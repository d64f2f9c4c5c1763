"""``nomercy simulate``: play many seeded games between bots, in parallel, and summarise them.

Games run on local worker processes (``--workers``, default: every core) or on Ray
(``--ray [ADDRESS]``), on the Python engine or the native one (``--engine native``); the
rows are the same for a seed whatever runs them. ``--out`` streams
one row per game to Parquet or CSV for ``nomercy report``. Ctrl-C stops the run, and every
game that finished is still written and summarised.
"""

from __future__ import annotations

import shlex
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from nomercy.cli.options import (
    BotsOption,
    Command,
    PresetOption,
    RayOption,
    RuleOption,
    RulesFileOption,
    WorkersOption,
    flag,
    load_rules,
)
from nomercy.errors import InvalidRules
from nomercy.rules import Rules
from nomercy.sim.backends import Backend, RunResult, execute, make_backend
from nomercy.sim.report import ordinal
from nomercy.sim.runner import Row, RunSpec, game_seed
from nomercy.sim.stats import rate

__all__ = [
    "ENGINE_HELP",
    "EngineOption",
    "OptionalRayCommand",
    "Tally",
    "game_seed",
    "rules_label",
    "run_with_progress",
    "simulate",
]

RAY_LOCAL = "local"


class OptionalRayCommand(Command):
    """Lets ``--ray`` stand alone (a local Ray) or take an address: ``--ray [ADDRESS]``.

    A bare ``--ray`` (last, or followed by another option) is read as ``--ray local``
    before parsing. This is the one place the command line rewrites its arguments, and it
    has to be here: Typer has no option with an optional value. Click's way
    (``is_flag=False, flag_value=...``) is deprecated in Typer and ignored, and the parser
    Typer ships takes exactly one value after such an option; a callback or a parameter
    type only sees the value the parser already took (``-n`` of ``--ray -n 5``).
    """

    # ctx is click's Context: typer 0.2x vendors click under a private module
    # (typer._click) and older typers pass click's own, so it is typed Any to fit both.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        fixed: list[str] = []
        for i, arg in enumerate(args):
            fixed.append(arg)
            if arg == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("-")):
                fixed.append(RAY_LOCAL)
        return super().parse_args(ctx, fixed)


@dataclass
class Tally:
    """The console summary, counted as rows stream past (nothing kept per game)."""

    players: int
    games: int = 0
    wins: Counter[int] = field(default_factory=Counter)
    positions: Counter[int] = field(default_factory=Counter)
    decisions: int = 0
    cards_drawn: int = 0
    knockouts: int = 0
    rounds_with_knockout: int = 0
    largest_stack: int = 0
    endings: Counter[str] = field(default_factory=Counter)

    def add(self, rows: list[Row]) -> None:
        for row in rows:
            self.games += 1
            self.wins[row["winner"]] += 1
            self.positions[row["winner_position"]] += 1
            self.decisions += row["decisions"]
            self.cards_drawn += row["cards_drawn"]
            self.knockouts += row["knockouts"]
            self.rounds_with_knockout += row["knockouts"] > 0
            self.largest_stack = max(self.largest_stack, row["largest_stack"])
            self.endings[row["reason"]] += 1

    def print(self, console: Console, title: str) -> None:
        n = self.games
        if n == 0:
            console.print("no game finished")
            return
        table = Table(title=title)
        table.add_column("seat")
        table.add_column("wins", justify="right")
        table.add_column("win rate [95% CI]", justify="right")
        table.add_column("turn position")
        table.add_column("win rate [95% CI]", justify="right")
        for seat in range(self.players):
            table.add_row(
                f"P{seat}",
                str(self.wins[seat]),
                str(rate(self.wins[seat], n)),
                f"{ordinal(seat + 1)} to play",
                str(rate(self.positions[seat], n)),
            )
        console.print(table)
        console.print(f"decisions per game: {self.decisions / n:.1f}")
        console.print(f"cards drawn per game: {self.cards_drawn / n:.1f}")
        console.print(
            f"knock-outs per game: {self.knockouts / n:.2f}; "
            f"rounds with a knock-out: {rate(self.rounds_with_knockout, n)}"
        )
        console.print(f"largest stack seen: {self.largest_stack}")
        endings = ", ".join(f"{reason} {rate(count, n)}" for reason, count in self.endings.most_common())
        console.print(f"rounds ended: {endings}")


class _GamesPerSecond(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "- games/s", style="progress.data.speed")


def run_with_progress(
    spec: RunSpec,
    backend: Backend,
    on_rows: Any,
    console: Console,
    description: str = "games",
    show: bool = True,
    chunk_size: int | None = None,
) -> RunResult[Row]:
    """:func:`execute` under a Rich progress bar (games done, games/s, time left)."""
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _GamesPerSecond(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not show, speed_estimate_period=10) as progress:
        task = progress.add_task(description, total=spec.games)
        return execute(
            spec,
            backend,
            on_rows=on_rows,
            keep=False,
            on_progress=lambda n: progress.advance(task, n),
            chunk_size=chunk_size,
        )


def rules_label(preset: str | None, rule: list[str], rules_file: Path | None) -> str:
    """A short name for a rule set: preset, file stem and overrides (``no_mercy`` by default)."""
    parts = [preset] if preset else []
    if rules_file is not None:
        parts.append(rules_file.stem)
    parts.extend(r.replace(" ", "") for r in rule)
    return "+".join(parts) or "no_mercy"


def reproduce(
    command: str,
    games: int,
    players: int,
    seed: int,
    preset: str | None,
    rule: list[str],
    rules_file: Path | None,
    bots: str,
    extra: list[str] | None = None,
) -> str:
    """The command line that plays the same games again (workers and backend do not matter)."""
    args = [command, "--games", str(games), "--players", str(players), "--seed", str(seed)]
    if preset:
        args += ["--preset", preset]
    for item in rule:
        args += ["--rule", item]
    if rules_file is not None:
        args += ["--rules", str(rules_file)]
    args += ["--bots", bots, *(extra or [])]
    return "nomercy " + shlex.join(args)


def parse_bots(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise typer.BadParameter("name at least one bot, e.g. --bots random or --bots random,heuristic")
    return names


def make_spec(
    games: int, players: int, rules: Rules, bots: str, seed: int, label: str, engine: str = "python"
) -> RunSpec:
    """A :class:`RunSpec` from command-line values; mistakes become usage errors."""
    try:
        return RunSpec(
            games=games,
            players=players,
            rules=rules,
            bots=parse_bots(bots),
            seed=seed,
            label=label,
            engine=engine.strip().lower(),
        )
    except InvalidRules as exc:  # the table's size (S1)
        raise typer.BadParameter(str(exc).removeprefix("players: "), param_hint="--players") from None
    except ValueError as exc:
        text = str(exc)
        hint = "--bots" if "bot" in text else "--engine" if "engine" in text else None
        raise typer.BadParameter(text, param_hint=hint) from None
    except ImportError as exc:  # --engine native without the fast extra
        raise typer.BadParameter(native_missing(exc), param_hint="--engine") from None


def native_missing(exc: ImportError) -> str:
    """What to install when the native engine cannot be imported (numpy missing, or its C
    extension not built)."""
    name = exc.name or getattr(exc.__cause__, "name", None)  # nomercy.native re-raises with advice
    missing = f"{name} is missing" if name else str(exc)
    return f"the native engine needs the fast extra: pip install 'nomercy[fast]' ({missing})"


#: ``--engine``: the reference Python engine, or the native one (the ``fast`` extra).
#: Help texts are Rich markup: ``\\[`` keeps the extra's brackets.
ENGINE_HELP = (
    "what plays the games: python (default) or native (random and heuristic bots; "
    "pip install 'nomercy\\[fast]')"
)
EngineOption = Annotated[str, typer.Option("--engine", "-e", help=ENGINE_HELP)]


def backend_for(workers: int | None, ray: str | None) -> Backend:
    try:
        backend = make_backend(workers, ray)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if ray is not None:
        try:
            import ray as _ray  # noqa: F401
        except ImportError:
            raise typer.BadParameter(
                "Ray is not installed: pip install 'nomercy[ray]'", param_hint="--ray"
            ) from None
    return backend


def simulate(
    games: Annotated[int, typer.Option("--games", "-n", min=0, help="number of games")] = 1000,
    players: Annotated[int, typer.Option("--players", "-p", min=2, help="players per game")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="seed of the whole run")] = 0,
    preset: PresetOption = None,
    rule: RuleOption = [],
    rules_file: RulesFileOption = None,
    bots: BotsOption = "random",
    workers: WorkersOption = None,
    ray: RayOption = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="write one row per game: results.parquet or .csv")
    ] = None,
    engine: EngineOption = "python",
    progress: Annotated[bool, flag("--progress/--no-progress", help="show the progress bar")] = True,
    chunk_size: Annotated[
        int | None, typer.Option("--chunk-size", min=1, hidden=True, help="games per task")
    ] = None,
) -> None:
    """Play seeded games between bots and summarise them (rows to --out for 'nomercy report').

    Any bot plays here (random, heuristic, expert, ...); --engine native plays random and
    heuristic bots faster.
    """
    rules = load_rules(preset, rule, rules_file)
    spec = make_spec(games, players, rules, bots, seed, rules_label(preset, rule, rules_file), engine)
    backend = backend_for(workers, ray)
    console = Console()
    status = Console(stderr=True)
    tally = Tally(players)
    command = reproduce("simulate", games, players, seed, preset, rule, rules_file, bots)
    writer = _open_writer(out, spec, rules, command + f" --out {shlex.quote(str(out))}")
    try:

        def on_rows(rows: list[Row]) -> None:
            tally.add(rows)
            if writer is not None:
                writer.write(rows)

        started = time.perf_counter()
        try:
            result = run_with_progress(spec, backend, on_rows, status, show=progress, chunk_size=chunk_size)
        except RuntimeError as exc:  # Ray missing or unreachable
            status.print(f"error: {exc}")
            raise typer.Exit(1) from None
        elapsed = time.perf_counter() - started
    finally:
        if writer is not None:
            writer.close()
    bots_text = ",".join(dict.fromkeys(spec.bots))
    tally.print(console, f"{tally.games} games, {players} players, bots {bots_text}, rules {spec.label}")
    console.print(
        f"{tally.games / elapsed:,.0f} games/s on {backend.name} ({backend.workers} workers), "
        f"{spec.engine} engine, {elapsed:.1f} s"
    )
    if out is not None:
        console.print(f"wrote {tally.games} rows to {out}")
    if result.interrupted:
        status.print(f"interrupted: kept the {tally.games} of {games} games that finished")
        raise typer.Exit(130)


def _open_writer(out: Path | None, spec: RunSpec, rules: Rules, command: str) -> Any:
    if out is None:
        return None
    from nomercy.sim.results import ResultWriter

    meta = {
        "run_seed": spec.seed,
        "players": spec.players,
        "bots": list(spec.bots),
        "label": spec.label,
        "rules": rules.to_dict(),
        "games": spec.games,
        "command": command,
    }
    try:
        return ResultWriter(out, meta)
    except (ValueError, RuntimeError, OSError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--out") from None
