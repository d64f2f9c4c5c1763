"""``nomercy accounts``: the operator's view of the server's accounts (needs the ``server``
extra): list them, and remove one with its personal data (docs/deploy.md, "Removing a
user's data"); and fair play (docs/ratings.md, "Fair play"): an account's flags in the
fair-play log, voiding its rated results, recomputing the boards, and letting two accounts
play rated rooms from one address. The same database as ``nomercy serve`` and ``nomercy db``.
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
    "(its games stay, anonymised), and fair play: flags, voids, recomputes, allowed pairs. "
    "See docs/accounts.md and docs/ratings.md.",
    no_args_is_help=True,
)


def _store(database_url: str | None) -> tuple[Any, Any]:
    """The account store over the served database, once it is at the newest revision."""
    engine, schema = _engine(database_url)
    from nomercy.server.players.store import account_store

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


# -- fair play (docs/ratings.md, "Fair play") ------------------------------------------------


def _account(store: Any, name: str) -> Any:
    account = store.by_name(name)
    if account is None:
        typer.echo(f"error: no account is named {name!r}", err=True)
        raise typer.Exit(1)
    return account


@app.command("flags", cls=Command)
def flags(
    name: Annotated[str | None, typer.Argument(help="An account's name; without it, the whole log.")] = None,
    limit: Annotated[int, typer.Option(help="Show at most this many flags, newest first.", min=1)] = 50,
    database_url: DatabaseUrlOption = None,
) -> None:
    """The fair-play log, newest first: shared addresses, forfeits, aborted rounds, voids and
    games between the same accounts past the day's full count; or one account's flags."""
    import json

    from sqlalchemy import select

    from nomercy.server.players.accounts import accounts
    from nomercy.server.players.fairplay import flags_of

    engine, store = _store(database_url)
    try:
        account = _account(store, name) if name is not None else None
        with engine.connect() as conn:
            found = flags_of(conn, account.id if account is not None else None, limit)
            ids = sorted({a for f in found for a in f["accounts"]})
            names = dict(
                conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(ids))).all()
            )
    finally:
        engine.dispose()
    if not found:
        typer.echo("no flags" if account is None else f"no flags for {account.name!r}")
        return
    for f in found:
        who = ", ".join(names.get(a, f"(deleted {a[:6]})") for a in f["accounts"]) or "-"
        room, detail = f["room"] or "-", json.dumps(f["detail"], sort_keys=True)
        typer.echo(f"{_day(f['at'])}  {f['kind']:<8}  room {room:<8}  {who}  {detail}")
    typer.echo(f"{len(found)} flag(s)")


@app.command("void", cls=Command)
def void(
    name: Annotated[str, typer.Argument(help="The account whose rated results to void.")],
    yes: Annotated[bool, flag("--yes", "-y", help="Do not ask for confirmation.")] = False,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Void every rated game the account played, for everyone at its tables (what it won
    and what it gave others), and recompute the boards. The games stay; the log says so."""
    from nomercy.server.players.ratings import games_of, player_of_account, void_account

    engine, store = _store(database_url)
    try:
        account = _account(store, name)
        with engine.connect() as conn:
            n = len(games_of(conn, player_of_account(account.id)))
        if not yes and not typer.confirm(
            f"void {n} rated game(s) of {account.name!r} and recompute the boards?"
        ):
            typer.echo("nothing voided")
            raise typer.Exit(1)
        with engine.begin() as conn:
            done = void_account(conn, account.id, "operator")
    finally:
        engine.dispose()
    typer.echo(f"voided {done} rated game(s) of {account.name!r}; the boards are recomputed")


@app.command("recompute", cls=Command)
def recompute(database_url: DatabaseUrlOption = None) -> None:
    """Rebuild every board from the rated games kept, under the current rules (anchored
    bots, the fair share, the day's count between the same accounts): after an upgrade, or
    after voids made by hand."""
    from nomercy.server.players.ratings import recompute as rebuild

    engine, _ = _store(database_url)
    try:
        with engine.begin() as conn:
            done = rebuild(conn)
    finally:
        engine.dispose()
    said = ", ".join(f"{preset} {n}" for preset, n in done.items()) or "none"
    typer.echo(f"recomputed the boards from {sum(done.values())} rated game(s) ({said})")


@app.command("allow", cls=Command)
def allow(
    first: Annotated[str, typer.Argument(help="One account's name.")],
    second: Annotated[str, typer.Argument(help="The other account's name.")],
    note: Annotated[str | None, typer.Option(help="Why (kept with the allowance).")] = None,
    remove: Annotated[bool, flag("--remove", help="Take the allowance back.")] = False,
    database_url: DatabaseUrlOption = None,
) -> None:
    """Let two accounts play rated rooms from one address (friends or family on one home
    network): their rooms are rated again from their next round. --remove takes it back."""
    from nomercy.server.players import fairplay

    engine, store = _store(database_url)
    try:
        a, b = _account(store, first), _account(store, second)
        if a.id == b.id:
            typer.echo("error: name two different accounts", err=True)
            raise typer.Exit(1)
        with engine.begin() as conn:
            if remove:
                changed = fairplay.disallow(conn, a.id, b.id)
            else:
                changed = fairplay.allow(conn, a.id, b.id, note, time.time())
    finally:
        engine.dispose()
    pair = f"{a.name!r} and {b.name!r}"
    if remove:
        typer.echo(
            f"{pair} may no longer share an address in rated rooms" if changed else f"{pair} were not allowed"
        )
    else:
        typer.echo(
            f"{pair} may share an address in rated rooms" if changed else f"{pair} were allowed already"
        )
