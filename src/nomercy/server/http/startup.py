"""What ``nomercy serve`` tells the operator as it starts: where to point a browser, and
warnings about how it listens.

The address it names must be one the server answers: once ``--allowed-hosts`` is given,
``localhost`` and IP addresses are refused (``400 bad_host``), so the hint names an
allowed host instead; behind a trusted proxy (``--forwarded-allow-ips``), the public
``https://`` address the proxy serves.
"""

from __future__ import annotations

import ipaddress
import logging

from nomercy.server.base.settings import Settings


def loopback(host: str) -> bool:
    """Does ``host`` (the address to listen on) accept connections from this machine only?"""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def browser_url(host: str, port: int, settings: Settings) -> str:
    """An address a browser can open that this server answers to."""
    entries = [e.strip().lower().rstrip(".") for e in settings.allowed_hosts if e.strip()]
    if not entries or "*" in entries:  # localhost and IP addresses are answered
        shown = "localhost" if loopback(host) else host
        return f"http://{shown}:{port}/"
    exact = [e for e in entries if not e.startswith("*.")]
    # The first name listed (without a port); only wildcards: a name under the first.
    name = exact[0].split(":")[0] if exact else "NAME" + entries[0][1:]
    if settings.forwarded_allow_ips:
        return f"https://{name}/"  # through the proxy, which terminates TLS
    return f"http://{name}:{port}/"


def startup_lines(host: str, port: int, settings: Settings) -> list[tuple[int, str]]:
    """The lines to show at startup, each with its level (warnings first, the hint last)."""
    lines: list[tuple[int, str]] = []
    if not loopback(host):
        lines.append((logging.WARNING, f"listening on {host}: other machines can reach this server"))
        if not settings.allowed_hosts:
            lines.append(
                (
                    logging.WARNING,
                    "only IP addresses and localhost are answered; give --allowed-hosts for a host name",
                )
            )
    url = browser_url(host, port, settings)
    lines.append((logging.INFO, f"nomercy: open {url} in a browser (Ctrl-C stops)"))
    return lines
