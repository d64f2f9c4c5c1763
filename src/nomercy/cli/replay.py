"""``nomercy replay``: watch a saved or finished game again, move by move."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from nomercy.cli.options import flag
from nomercy.tui.replay import load_replayable, replay
from nomercy.tui.session import SaveError


def replay_cmd(
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="a save file of nomercy play, a saved match or a game record"),
    ],
    speed: Annotated[float, typer.Option("--speed", min=0.0, help="seconds between moves")] = 0.4,
    fast: Annotated[bool, flag("--fast", help="no pauses")] = False,
    reveal: Annotated[bool, flag("--reveal", help="show every hand and every card drawn")] = False,
) -> None:
    """Show a game move by move, as the person at the table saw it."""
    console = Console(highlight=False)
    try:
        replay(load_replayable(file), console, delay=0.0 if fast else speed, reveal=reveal)
    except SaveError as exc:
        console.print(Text.assemble(("Error: ", "bold red"), str(exc)), soft_wrap=True)
        raise typer.Exit(1) from None
