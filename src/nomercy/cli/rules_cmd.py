"""``nomercy rules``: every house rule with its default and the rule it decides."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from nomercy.errors import InvalidRules
from nomercy.rules import GROUPS, PRESETS, Rules


def rules(
    preset: Annotated[
        str, typer.Option("--preset", help=f"show the values of this preset: {', '.join(PRESETS)}")
    ] = "no_mercy",
) -> None:
    """Print the house rules, their values in a preset, and what each decides."""
    try:
        chosen = Rules.preset(preset)
    except InvalidRules as exc:
        raise typer.BadParameter(str(exc).removeprefix("preset: "), param_hint="--preset") from None
    table = Table(title=f"House rules ({preset}); presets: {', '.join(PRESETS)}")
    table.add_column("group")
    table.add_column("rule")
    table.add_column("value")
    table.add_column("what it decides")
    values = chosen.to_dict()
    for field in sorted(Rules.fields(), key=lambda f: GROUPS.index(f.group)):
        table.add_row(field.group, field.name, str(values[field.name]), field.doc)
    Console().print(table)
