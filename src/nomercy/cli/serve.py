"""``nomercy serve``: the online rooms and the browser game (needs the ``server`` extra).

FastAPI and uvicorn are imported only when the command runs, so the rest of the command
line works without the extra installed.
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (0.0.0.0 to let other machines in).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db (default: SQLite in your "
            "data dir).",
        ),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option("--allow-origin", help="Another web origin allowed to open WebSockets (repeatable)."),
    ] = None,
    allowed_hosts: Annotated[
        str | None,
        typer.Option(
            "--allowed-hosts",
            help="Comma-separated host names this server answers to, e.g. play.example.org "
            "(*.example.org for subdomains). Default: localhost and IP addresses only.",
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            help="Comma-separated proxy addresses or networks (e.g. 127.0.0.1) whose X-Forwarded-For / "
            "Forwarded headers name the real client. Default: none, the headers are ignored.",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "info",
    log_format: Annotated[
        str | None,
        typer.Option("--log-format", help="text or json (one JSON object per line, with room and seat)."),
    ] = None,
    lease_seconds: Annotated[
        float | None,
        typer.Option(
            "--lease-seconds",
            min=1.0,
            help="Several processes on PostgreSQL: how long a room's lease lasts unrenewed (default 10).",
        ),
    ] = None,
    keep_games_days: Annotated[
        float | None,
        typer.Option(
            "--keep-games-days",
            min=0.0,
            help="Days each finished round is kept for its replay and review (default 90; 0: forever).",
        ),
    ] = None,
) -> None:
    """Serve online rooms: create a room in the browser, share the code, play.

    An empty database is created; an older schema is refused: back it up, run nomercy db upgrade.
    """
    try:
        import uvicorn

        from nomercy.server import Settings, create_app
        from nomercy.server.base.logs import announce
        from nomercy.server.base.schema import SchemaMismatch, check_url
        from nomercy.server.http.process import CONNECTIONS_SECONDS, Server
        from nomercy.server.http.startup import startup_lines
        from nomercy.server.rooms.leases import DatabaseInUse, lock_sqlite
    except ImportError as exc:  # not a wrong option: a missing extra
        typer.echo(
            f"error: the server needs its extra: pip install 'nomercy[server]' ({exc.name} is missing)",
            err=True,
        )
        raise typer.Exit(1) from None
    settings = Settings.from_env(
        database_url=database_url,
        allowed_origins=tuple(allow_origin or ()) or None,
        allowed_hosts=_split(allowed_hosts),
        forwarded_allow_ips=_split(forwarded_allow_ips),
        lease_seconds=lease_seconds,
        keep_games_days=keep_games_days,
        log_format=log_format,
        log_level=log_level,
    )
    try:
        from nomercy.server.base.addresses import TrustedProxies

        TrustedProxies(settings.forwarded_allow_ips)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--forwarded-allow-ips") from None
    if settings.log_format not in ("text", "json"):
        raise typer.BadParameter("--log-format: text or json")
    try:
        lock_sqlite(settings.resolved_database_url())  # SQLite serves one process
    except DatabaseInUse as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    try:  # an empty database is created; an older schema is refused (nomercy db upgrade)
        check_url(settings.resolved_database_url())
    except SchemaMismatch as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    app = create_app(settings)
    for level, line in startup_lines(host, port, settings):  # JSON lines in JSON log mode
        announce(line, settings.log_format, level, err=level >= logging.WARNING)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ws_max_size=64 * 1024,
        log_level=log_level,
        # Forwarding headers are read by the app itself (X-Forwarded-For and Forwarded, from
        # --forwarded-allow-ips only), so uvicorn's own reading stays off.
        proxy_headers=False,
        timeout_graceful_shutdown=CONNECTIONS_SECONDS,  # one step of the bounded shutdown
        # Every WebSocket hears from the server every 2 s: the proxy takes 6 s of silence for a
        # frozen process (deploy/nginx/nomercy.conf, location = /ws).
        ws_ping_interval=2.0,
        # JSON lines: the app formats uvicorn's loggers too (nomercy.server.base.logs).
        log_config=None if settings.log_format == "json" else uvicorn.config.LOGGING_CONFIG,
    )
    # On SIGTERM: not ready, rooms handed over (leases released), then connections closed.
    Server(config, app).run()


def _split(value: str | None) -> tuple[str, ...] | None:
    """``a, b`` -> ("a", "b"); None when the option was not given (the environment decides)."""
    if value is None:
        return None
    return tuple(x.strip() for x in value.split(",") if x.strip())
