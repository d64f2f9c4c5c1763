"""``nomercy db``: move the server's database schema (needs the ``server`` extra).

The same database as ``nomercy serve``: ``--database-url``, else ``NOMERCY_DATABASE_URL``,
else SQLite in the user's data directory. SQLAlchemy and Alembic are imported only when a
command runs.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from nomercy.cli.options import Command, Group, flag

app = typer.Typer(
    cls=Group,
    help="The server's database schema: see which revision it is at, upgrade it, downgrade it. "
    "Back the database up before an upgrade or a downgrade (docs/deploy.md, Upgrading).",
    no_args_is_help=True,
)

#: ``--database-url`` of every database command (``db``, ``accounts``).
DatabaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="SQLAlchemy URL, as for nomercy serve (default: NOMERCY_DATABASE_URL, else SQLite in "
        "your data dir).",
    ),
]


def _engine(database_url: str | None) -> tuple[Any, Any]:
    try:
        from sqlalchemy import create_engine

        from nomercy.server.base import schema
        from nomercy.server.base.settings import Settings
    except ImportError as exc:  # not a wrong option: a missing extra
        typer.echo(
            f"error: the server needs its extra: pip install 'nomercy[server]' ({exc.name} is missing)",
            err=True,
        )
        raise typer.Exit(1) from None
    url = Settings.from_env(database_url=database_url).resolved_database_url()
    return create_engine(url), schema


def _name(revision: str | None) -> str:
    return revision or "none (empty database)"


@app.command("current", cls=Command)
def current(database_url: DatabaseUrlOption = None) -> None:
    """Print the database's schema revision and the newest this nomercy serves."""
    engine, schema = _engine(database_url)
    try:
        found = schema.current(engine)
    finally:
        engine.dispose()
    newest = schema.head()
    note = "up to date" if found == newest else "run: nomercy db upgrade"
    if found not in (None, newest, schema.UNVERSIONED) and not schema.known(found):
        note = "migrated by a newer nomercy"
    typer.echo(f"database: {_name(found)}\nthis nomercy: {newest} ({note})")


@app.command("upgrade", cls=Command)
def upgrade(
    revision: Annotated[str, typer.Argument(help="Revision to reach (default: the newest).")] = "head",
    database_url: DatabaseUrlOption = None,
) -> None:
    """Migrate the schema up; 0.1.0's tables are adopted as they are, and its processes keep running."""
    engine, schema = _engine(database_url)
    try:
        before, after = schema.upgrade(engine, revision)
    except Exception as exc:
        typer.echo(f"error: upgrade failed, nothing was changed: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()
    typer.echo(f"database: {_name(before)} -> {_name(after)}")


@app.command("downgrade", cls=Command)
def downgrade(
    revision: Annotated[
        str,
        typer.Argument(help="Revision to reach: one step back by default; 0001 is nomercy 0.1.0's schema."),
    ] = "-1",
    yes: Annotated[
        bool, flag("--yes", "-y", help="Do not ask: drop what the listed revisions added.")
    ] = False,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Migrate the schema down for an earlier release, with every server stopped.

    It lists what is lost first (the tables later revisions added, with their rows: accounts,
    ratings, the daily secret...; the rooms the earlier release cannot continue, which end)
    and asks, unless --yes. Back the database up first (docs/deploy.md, Going back).
    """
    engine, schema = _engine(database_url)

    def confirm(plan: Any) -> bool:
        for line in plan.lines():
            typer.echo(line)
        if yes:
            return True
        try:
            return bool(typer.confirm("Back the database up first. Downgrade now?", default=False))
        except (typer.Abort, EOFError):  # no one to answer (no terminal, stdin closed)
            typer.echo()
            typer.echo("error: nobody answered: pass --yes to downgrade without asking", err=True)
            raise typer.Exit(1) from None

    try:
        before, after = schema.downgrade(engine, revision, confirm)
    except typer.Exit:
        raise
    except schema.DatabaseBusy as exc:
        typer.echo(f"error: {exc}. Nothing was changed.", err=True)
        raise typer.Exit(1) from None
    except Exception as exc:
        typer.echo(f"error: downgrade failed, nothing was changed: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()
    if before == after:
        typer.echo("nothing was changed")
        raise typer.Exit(1)
    typer.echo(f"database: {_name(before)} -> {_name(after)}")


@app.command("prune-games", cls=Command)
def prune_games(
    days: Annotated[
        float | None,
        typer.Option(
            "--days",
            min=0.0,
            help="Delete the kept games that ended more than this many days ago (default: the serve "
            "setting, --keep-games-days / NOMERCY_KEEP_GAMES_DAYS, 90).",
        ),
    ] = None,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Delete old kept games (records, reviews, hints); a running server prunes by itself too."""
    import time

    from nomercy.server.base.settings import Settings
    from nomercy.server.games.store import GameStore

    engine, schema = _engine(database_url)
    keep = Settings.from_env(keep_games_days=days).keep_games_days
    try:
        found = schema.current(engine)
        if found != schema.head():
            typer.echo(
                f"error: the database is at revision {_name(found)}: run nomercy db upgrade first", err=True
            )
            raise typer.Exit(1)
        if keep <= 0:
            typer.echo("games are kept forever (0 days): nothing pruned")
            return
        gone = GameStore(engine).prune(time.time() - keep * 86400)
    finally:
        engine.dispose()
    typer.echo(f"pruned {gone} game(s) that ended more than {keep:g} day(s) ago")
