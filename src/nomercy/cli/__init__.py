"""The ``nomercy`` command line. Each sub-command lives in its own module."""

from __future__ import annotations

from typing import Annotated

import typer

from nomercy import __version__
from nomercy.cli import accounts, db, rules_cmd, simulate, site
from nomercy.cli.lab import compare, report
from nomercy.cli.ladder import ladder
from nomercy.cli.options import Command, Group, flag
from nomercy.cli.play import play
from nomercy.cli.replay import replay_cmd
from nomercy.cli.review import review_cmd
from nomercy.cli.serve import serve
from nomercy.cli.tournament import tournament
from nomercy.extras import MissingExtra

app = typer.Typer(
    name="nomercy",
    cls=Group,
    help="UNO Show 'em No Mercy: play, simulate and study the game. Unaffiliated with Mattel.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"nomercy {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        flag("--version", "-V", callback=_print_version, is_eager=True, help="print the version and exit"),
    ] = False,
) -> None:
    """UNO Show 'em No Mercy: play, simulate and study the game. Unaffiliated with Mattel."""


app.command("simulate", cls=simulate.OptionalRayCommand)(simulate.simulate)
app.command("rules", cls=Command)(rules_cmd.rules)
app.command("tournament", cls=simulate.OptionalRayCommand)(tournament)
app.command("report", cls=Command)(report)
app.command("ladder", cls=Command)(ladder)
app.command("compare", cls=simulate.OptionalRayCommand)(compare)
app.command("play", cls=Command)(play)
app.command("replay", cls=Command)(replay_cmd)
app.command("review", cls=Command)(review_cmd)
app.command("serve", cls=Command)(serve)
app.add_typer(db.app, name="db")
app.add_typer(accounts.app, name="accounts")
app.add_typer(site.app, name="site")


def main() -> None:
    """The command line; a feature whose extra is missing says so in one line, no traceback."""
    try:
        app()
    except MissingExtra as exc:
        typer.echo(f"error: {exc}", err=True)
        raise SystemExit(1) from None
