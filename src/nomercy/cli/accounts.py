"""``nomercy accounts``: the operator's view of the server's accounts (needs the ``server``
extra): list them, and remove one with its personal data (docs/deploy.md, "Removing a
user's data"). The same database as ``nomercy serve`` and ``nomercy db``.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from nomercy.cli.db import DatabaseUrlOption, _engine, _name
from nomercy.cli.options import Command, Group, flag

app = typer.Typer(
    cls=Group,
    help="The server's player accounts: list them, remove one and its personal data "
    "(its games stay, anonymised). See docs/accounts.md.",
    no_args_is_help=True,
)


def _store(database_url: str | None) -> tuple[Any, Any]:
    """The account store over the served database, once it is at the newest revision."""
    engine, schema = _engine(database_url)
    from nomercy.server.players import account_store

    found = schema.current(engine)
    if found != schema.head():
        engine.dispose()
        typer.echo(
            f"error: the database is at revision {_name(found)}: run nomercy db upgrade first", err=True
        )
        raise typer.Exit(1)
    # The server's own store: a removal deletes the ratings and daily results too, as the
    # player's own "delete the account" does.
    return engine, account_store(engine)


def _day(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(seconds)) if seconds is not None else "never"


@app.command("list", cls=Command)
def list_accounts(database_url: DatabaseUrlOption = None) -> None:
    """Every account, oldest first: name, created (UTC), passkeys, last sign-in, open sessions, games."""
    engine, store = _store(database_url)
    try:
        found = store.summaries()
    finally:
        engine.dispose()
    if not found:
        typer.echo("no accounts")
        return
    width = max(4, *(len(s.account.name) for s in found))
    typer.echo(f"{'name':<{width}}  created (UTC)     passkeys  last sign-in      sessions  games")
    for s in found:
        typer.echo(
            f"{s.account.name:<{width}}  {_day(s.account.created_at):<16}  {s.passkeys:>8}  "
            f"{_day(s.last_sign_in):<16}  {s.sessions:>8}  {s.games:>5}"
        )
    typer.echo(f"{len(found)} account(s)")


@app.command("remove", cls=Command)
def remove(
    name: Annotated[
        str, typer.Argument(help="The account's name (as shown; letter case and look-alikes match).")
    ],
    yes: Annotated[bool, flag("--yes", "-y", help="Do not ask for confirmation.")] = False,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Delete an account: its name, passkeys, sessions, ratings and daily results. Its kept
    games stay for the other players, its seats renamed "Player N" and unlinked."""
    engine, store = _store(database_url)
    try:
        account = store.by_name(name)
        if account is None:
            typer.echo(f"error: no account is named {name!r}", err=True)
            raise typer.Exit(1)
        summary = next(s for s in store.summaries() if s.account.id == account.id)
        what = (
            f"account {account.name!r}: {summary.passkeys} passkey(s), {summary.sessions} open session(s), "
            f"{summary.games} kept game seat(s) to anonymise"
        )
        if not yes and not typer.confirm(f"remove {what}?"):
            typer.echo("nothing removed")
            raise typer.Exit(1)
        store.delete(account.id)
    finally:
        engine.dispose()
    typer.echo(f"removed {what}")
