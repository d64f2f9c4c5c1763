"""``nomercy site build DIR``: the solo game as a folder any static host serves.

No Python runs on the host: the engine runs in the page (Pyodide). See docs/offline.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nomercy.cli.options import Command, Group

app = typer.Typer(
    cls=Group,
    help="The static site: the solo game against the bots, with no server (docs/offline.md).",
    no_args_is_help=True,
)


@app.command("build", cls=Command)
def build(
    folder: Annotated[Path, typer.Argument(help="The folder to write (created; earlier files replaced).")],
    server: Annotated[
        str | None,
        typer.Option("--server", help="A nomercy server's URL that the site links to for online play."),
    ] = None,
) -> None:
    """Write the site: the client, the engine's zip, Pyodide's core files, the manifest and icons."""
    from nomercy.site import SiteError
    from nomercy.site import build as write

    if server is not None and not server.startswith(("https://", "http://")):
        raise typer.BadParameter("the server's URL begins with https:// (or http://)", param_hint="--server")
    try:
        sizes = write(folder, server)
    except SiteError as exc:
        typer.echo(f"nomercy site build: {exc}", err=True)
        raise typer.Exit(1) from None
    total = sum(sizes.values())
    typer.echo(f"{len(sizes)} files, {total / 1e6:.1f} MB, in {folder}")
    typer.echo(f"engine/nomercy.zip: {sizes['engine/nomercy.zip'] / 1e3:.0f} kB")
    typer.echo("serve the folder with any static file server, e.g. python -m http.server -d " + str(folder))
