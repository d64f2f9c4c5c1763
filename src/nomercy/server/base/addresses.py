"""Who is asking and under which name: the client's address behind trusted proxies, and
the ``Host`` and ``Origin`` checks.

Behind a reverse proxy every connection comes from the proxy, so per-address limits
would put every player in one bucket. The proxy names the client in ``X-Forwarded-For``
(or RFC 7239 ``Forwarded``), but anybody can send those headers: they are believed only
from the proxies listed in ``Settings.forwarded_allow_ips``, walking the chain from the
right (the hop nearest the server) past trusted proxies to the first address that is
not one. :class:`FrontDoor` (an ASGI middleware) puts that address in the request's
``client``, so every limit downstream keys on the real client, and the scheme a trusted
proxy reports (``X-Forwarded-Proto``) in its ``scheme``.

The ``Host`` check stops DNS rebinding: a hostile page whose name is made to resolve to
this server would otherwise be "same origin" with it. By default only ``localhost`` and
IP addresses are answered (a rebinding attack needs a name of its own); a public server
lists its names in ``Settings.allowed_hosts``.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from nomercy.server.base.protocol import ErrorCode
from nomercy.server.base.settings import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Paths a load balancer probes by IP address: answered whatever the ``Host``.
HOST_CHECK_EXEMPT = frozenset({"/healthz", "/livez", "/readyz", "/metrics"})

_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def parse_ip(text: str) -> IPAddress | None:
    """An address from a header entry: ``1.2.3.4``, ``1.2.3.4:5``, ``[::1]:5``, ``::1``,
    quoted or not; None for anything else (``unknown``, obfuscated names)."""
    text = text.strip().strip('"').strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def limit_key(address: str) -> str:
    """The key per-address limits count under: the address, or for IPv6 its /64 network
    (one subscriber is handed a whole /64, and could otherwise take a fresh address for
    every attempt)."""
    ip = parse_ip(address)
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


class TrustedProxies:
    """The proxies whose forwarding headers are believed (addresses, networks or ``*``)."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.any = False
        self.networks: list[Network] = []
        for entry in entries:
            entry = entry.strip()
            if entry == "*":
                self.any = True
            elif entry:
                try:
                    self.networks.append(ipaddress.ip_network(entry, strict=False))
                except ValueError:
                    raise ValueError(f"forwarded_allow_ips: {entry!r} is not an address or network") from None

    def __bool__(self) -> bool:
        return self.any or bool(self.networks)

    def trusts(self, address: str) -> bool:
        if self.any:
            return True
        ip = parse_ip(address)
        return ip is not None and any(ip in net for net in self.networks)


def forwarded_chain(headers: Iterable[tuple[bytes, bytes]]) -> list[str]:
    """The client chain a proxy reported, leftmost (the original client) first.

    ``X-Forwarded-For`` when present (what nginx sets), else the ``for=`` of each
    ``Forwarded`` element. Repeated headers are joined in order.
    """
    xff: list[str] = []
    forwarded: list[str] = []
    for name, value in headers:
        key = name.lower()
        if key == b"x-forwarded-for":
            xff.extend(part.strip() for part in value.decode("latin-1").split(","))
        elif key == b"forwarded":
            for element in value.decode("latin-1").split(","):
                for pair in element.split(";"):
                    k, _, v = pair.strip().partition("=")
                    if k.strip().lower() == "for":
                        forwarded.append(v.strip())
    return [x for x in (xff or forwarded) if x]


def forwarded_proto(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The scheme the client used as the proxy reported it (``http`` or ``https``): the
    first ``X-Forwarded-Proto`` value (what nginx sets), else the first ``Forwarded``
    ``proto=``; None when neither names one of the two."""
    xfp: str | None = None
    forwarded: str | None = None
    for name, value in headers:
        key = name.lower()
        if key == b"x-forwarded-proto" and xfp is None:
            xfp = value.decode("latin-1").split(",")[0].strip().lower()
        elif key == b"forwarded" and forwarded is None:
            for pair in value.decode("latin-1").split(",")[0].split(";"):
                k, _, v = pair.strip().partition("=")
                if k.strip().lower() == "proto":
                    forwarded = v.strip().strip('"').lower()
    proto = xfp if xfp is not None else forwarded
    return proto if proto in ("http", "https") else None


def client_address(peer: str | None, chain: list[str], trusted: TrustedProxies) -> str | None:
    """The real client: walk ``chain`` from the right while the hop we stand on is trusted.

    A peer that is not a trusted proxy is the client (its headers are ignored). The walk
    stops at the first untrusted address, or at an entry that is not an address (then the
    last trusted hop is the best we know).
    """
    if peer is None or not trusted.trusts(peer):
        return peer
    address = peer
    for hop in reversed(chain):
        if not trusted.trusts(address):
            break
        ip = parse_ip(hop)
        if ip is None:
            break
        address = str(ip)
    return address


def _split_host(value: str | None) -> tuple[str | None, int | None]:
    """``(hostname, port)`` of a ``Host`` header value; (None, None) when malformed."""
    if not value:
        return None, None
    try:
        parts = urlsplit("//" + value.strip())
        name, port = parts.hostname, parts.port
    except ValueError:
        return None, None
    if not name:
        return None, None
    return name.rstrip(".").lower(), port


class HostPolicy:
    """Which ``Host`` names the server answers to (see the module docstring)."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.any = False
        self.names: set[str] = set()
        self.suffixes: list[str] = []
        for entry in allowed:
            entry = entry.strip().lower().rstrip(".")
            if entry == "*":
                self.any = True
            elif entry.startswith("*."):
                self.suffixes.append(entry[1:])
            elif entry:
                name, _ = _split_host(entry)
                self.names.add(name or entry)

    @property
    def default(self) -> bool:
        return not (self.any or self.names or self.suffixes)

    def allows(self, host: str | None) -> bool:
        name, _ = _split_host(host)
        if name is None:
            return False
        if self.any:
            return True
        if self.default:
            return name == "localhost" or name.endswith(".localhost") or _is_ip(name)
        return name in self.names or any(name.endswith(s) for s in self.suffixes)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_allowed(
    origin: str | None,
    host: str | None,
    policy: HostPolicy,
    extra: Iterable[str] = (),
    scheme: str | None = None,
) -> bool:
    """May a page from ``origin`` open a WebSocket here (cross-site WebSocket hijacking)?

    Yes without ``Origin`` (not a browser, which could forge it anyway), for an origin
    listed in ``extra``, or when the origin names the same host as ``Host`` and that host
    is allowed (so a rebound name fails with the ``Host`` check), over the same security:
    an ``https`` page for a ``wss`` socket, an ``http`` page for a ``ws`` one (``scheme``:
    the socket's, as the client used it; behind a trusted proxy, its forwarded proto). A
    page served over plain HTTP is not the page of a TLS site, even under the same name.
    The port is compared when ``Host`` carries one (a proxy's ``$host`` does not).
    """
    if origin is None:
        return True
    if origin in extra:
        return True
    if not policy.allows(host):
        return False
    try:
        parts = urlsplit(origin)
        origin_name, origin_port = parts.hostname, parts.port
    except ValueError:
        return False
    if scheme is not None and parts.scheme != ("https" if scheme in ("https", "wss") else "http"):
        return False
    name, port = _split_host(host)
    if origin_name is None or origin_name.rstrip(".").lower() != name:
        return False
    if port is not None:
        return (origin_port or _DEFAULT_PORTS.get(parts.scheme)) == port
    return True


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class FrontDoor:
    """ASGI middleware: resolve the real client address, refuse unknown ``Host`` names."""

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.proxies = TrustedProxies(settings.forwarded_allow_ips)
        self.hosts = HostPolicy(settings.allowed_hosts)

    async def __call__(self, scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        if client and self.proxies:
            real = client_address(client[0], forwarded_chain(scope["headers"]), self.proxies)
            if real != client[0]:
                scope = {**scope, "client": (real, 0)}
            # The scheme the client used (TLS ends at the proxy): believed from a trusted
            # proxy only, it is what the page's links and the WebSocket Origin check see.
            proto = forwarded_proto(scope["headers"]) if self.proxies.trusts(client[0]) else None
            if proto is not None:
                if scope["type"] == "websocket":
                    proto = "wss" if proto == "https" else "ws"
                scope = {**scope, "scheme": proto}
        if scope["path"] not in HOST_CHECK_EXEMPT and not self.hosts.allows(
            _header(scope["headers"], b"host")
        ):
            await refuse(
                scope, receive, send, 400, ErrorCode.BAD_HOST, "this server does not answer to that host name"
            )
            return
        await self.app(scope, receive, send)


async def refuse(
    scope: Mapping[str, Any],
    receive: Any,
    send: Any,
    status: int,
    code: str,
    message: str,
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Answer an HTTP request with the API's error body, or refuse a WebSocket handshake."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
        return
    body = json.dumps({"detail": {"code": code, "message": message, **(extra or {})}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
