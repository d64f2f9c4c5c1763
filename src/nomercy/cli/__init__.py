"""The ``nomercy`` command line. Each sub-command lives in its own module."""

from __future__ import annotations

import typer

from nomercy.cli import rules_cmd, simulate

app = typer.Typer(
    name="nomercy",
    help="UNO Show 'em No Mercy: play, simulate and study the game. Unaffiliated with Mattel.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("simulate")(simulate.simulate)
app.command("rules")(rules_cmd.rules)


def main() -> None:
    app()
