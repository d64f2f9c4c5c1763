"""Client addresses behind trusted proxies, the Host check and the Origin check.

The functions first (every header shape), then a real server: forwarded addresses
honoured from a trusted proxy only, rebound host names refused, a blocked address still
taking the seat its token proves.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from nomercy.server.base.addresses import (
    HostPolicy,
    TrustedProxies,
    client_address,
    forwarded_chain,
    forwarded_proto,
    limit_key,
    origin_allowed,
    parse_ip,
)

from .conftest import WS, create_room


def chain(*headers: tuple[str, str]) -> list[str]:
    return forwarded_chain([(k.encode(), v.encode()) for k, v in headers])


def test_header_entries_parse_to_addresses() -> None:
    assert str(parse_ip("203.0.113.7")) == "203.0.113.7"
    assert str(parse_ip("203.0.113.7:4711")) == "203.0.113.7"
    assert str(parse_ip('"[2001:db8::1]:4711"')) == "2001:db8::1"
    assert str(parse_ip("2001:db8::1")) == "2001:db8::1"
    assert str(parse_ip("::ffff:10.0.0.1")) == "10.0.0.1"
    assert parse_ip("unknown") is None and parse_ip("_hidden") is None and parse_ip("") is None


def test_forwarded_chain_from_either_header() -> None:
    assert chain(("X-Forwarded-For", "1.1.1.1, 2.2.2.2"), ("X-Forwarded-For", "3.3.3.3")) == [
        "1.1.1.1",
        "2.2.2.2",
        "3.3.3.3",
    ]
    forwarded = 'for=192.0.2.43;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.1'
    assert chain(("Forwarded", forwarded)) == ["192.0.2.43", '"[2001:db8:cafe::17]:4711"']
    # X-Forwarded-For (what nginx sets) wins over a Forwarded header the client could add.
    assert chain(("Forwarded", "for=6.6.6.6"), ("X-Forwarded-For", "1.1.1.1")) == ["1.1.1.1"]


def test_the_client_is_the_first_untrusted_hop_from_the_right() -> None:
    proxies = TrustedProxies(["127.0.0.1", "10.0.0.0/8"])
    # Not from a trusted proxy: the headers are ignored (anyone can write them).
    assert client_address("198.51.100.9", ["1.2.3.4"], proxies) == "198.51.100.9"
    # From the proxy: the address it reports.
    assert client_address("127.0.0.1", ["198.51.100.9"], proxies) == "198.51.100.9"
    # A client that prepends a fake entry gets its real address all the same.
    assert client_address("127.0.0.1", ["6.6.6.6", "198.51.100.9"], proxies) == "198.51.100.9"
    # Through two trusted proxies.
    assert client_address("127.0.0.1", ["198.51.100.9", "10.1.2.3"], proxies) == "198.51.100.9"
    # Nothing usable reported: the proxy itself is the best we know.
    assert client_address("127.0.0.1", [], proxies) == "127.0.0.1"
    assert client_address("127.0.0.1", ["unknown"], proxies) == "127.0.0.1"
    assert client_address("127.0.0.1", ["1.2.3.4"], TrustedProxies([])) == "127.0.0.1"
    assert client_address("192.0.2.1", ["1.2.3.4"], TrustedProxies(["*"])) == "1.2.3.4"
    with pytest.raises(ValueError, match="not an address"):
        TrustedProxies(["localhost"])


def test_limits_count_an_ipv6_subscriber_once() -> None:
    assert limit_key("203.0.113.7") == "203.0.113.7"
    assert limit_key("2001:db8:1:2::1") == limit_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert limit_key("2001:db8:1:3::1") != limit_key("2001:db8:1:2::1")


def test_host_names_allowed_by_default_and_by_list() -> None:
    default = HostPolicy([])
    for ok in ("localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000", "192.168.1.20", "a.localhost"):
        assert default.allows(ok), ok
    for bad in ("attacker.example", "attacker.example:8000", "", None, "local:host:x"):
        assert not default.allows(bad), bad
    listed = HostPolicy(["play.example.org", "*.games.example.org"])
    assert listed.allows("play.example.org") and listed.allows("PLAY.example.org.:443")
    assert listed.allows("eu.games.example.org") and not listed.allows("games.example.org.evil")
    assert not listed.allows("127.0.0.1") and not listed.allows("attacker.example")
    assert HostPolicy(["*"]).allows("anything.example")


def test_origin_must_name_the_allowed_host_it_talks_to() -> None:
    default = HostPolicy([])
    assert origin_allowed(None, "attacker.example", default)  # not a browser
    assert origin_allowed("http://localhost:8000", "localhost:8000", default)
    assert not origin_allowed("http://localhost:9999", "localhost:8000", default)  # another local site
    assert not origin_allowed("http://6.6.6.6", "127.0.0.1:8000", default)
    # DNS rebinding: the attacker's name resolves here; Origin and Host agree, but the name is not ours.
    assert not origin_allowed("http://attacker.example:8000", "attacker.example:8000", default)
    listed = HostPolicy(["play.example.org"])
    # Behind a proxy Host carries no port: the names must agree.
    assert origin_allowed("https://play.example.org", "play.example.org", listed)
    assert not origin_allowed("https://attacker.example", "play.example.org", listed)
    assert not origin_allowed("null", "play.example.org", listed)
    assert origin_allowed("https://other.example", "play.example.org", listed, ["https://other.example"])


def test_origin_must_use_the_scheme_of_the_socket() -> None:
    """An http:// page is not the page of a TLS site, even under the same name: a wss
    socket needs an https origin, a ws socket an http one."""
    listed = HostPolicy(["play.example.org"])
    host = "play.example.org"
    assert origin_allowed("https://play.example.org", host, listed, scheme="wss")
    assert not origin_allowed("http://play.example.org", host, listed, scheme="wss")
    assert origin_allowed("http://play.example.org", host, listed, scheme="ws")
    assert not origin_allowed("https://play.example.org", host, listed, scheme="ws")
    assert not origin_allowed("ftp://play.example.org", host, listed, scheme="ws")
    assert not origin_allowed("http://play.example.org:443", "play.example.org:443", listed, scheme="wss")


def test_the_forwarded_proto_is_the_first_named() -> None:
    def proto(*headers: tuple[str, str]) -> str | None:
        return forwarded_proto([(k.encode(), v.encode()) for k, v in headers])

    assert proto(("X-Forwarded-Proto", "https")) == "https"
    assert proto(("X-Forwarded-Proto", "HTTP, https")) == "http"
    assert proto(("Forwarded", 'for=1.2.3.4;proto="https", proto=http')) == "https"
    assert proto(("X-Forwarded-Proto", "http"), ("Forwarded", "proto=https")) == "http"
    assert proto(("X-Forwarded-Proto", "gopher")) is None
    assert proto() is None


def _socket_opens(url: str, origin: str, **headers: str) -> int:
    """The handshake's status: 101 opened, else what the server refused with."""
    try:
        with connect(url, additional_headers={"Origin": origin, **headers}, open_timeout=5):
            pass
    except InvalidStatus as refused:
        return refused.response.status_code
    return 101


def test_a_websocket_origin_must_match_the_scheme_the_client_used(start_server: Any) -> None:
    """Without a proxy the socket is ws: an https origin is refused. Behind a trusted proxy
    that reports TLS (X-Forwarded-Proto: https) the socket is wss: an http origin is
    refused; a client that is no trusted proxy cannot claim TLS."""
    plain = start_server()
    assert _socket_opens(plain.ws_url, plain.url) == 101
    assert _socket_opens(plain.ws_url, plain.url.replace("http:", "https:")) == 403
    # The header from a client that is not a trusted proxy is ignored.
    assert _socket_opens(plain.ws_url, plain.url, **{"X-Forwarded-Proto": "https"}) == 101
    proxied = start_server(NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1")
    tls = {"X-Forwarded-Proto": "https"}
    assert _socket_opens(proxied.ws_url, proxied.url.replace("http:", "https:"), **tls) == 101
    assert _socket_opens(proxied.ws_url, proxied.url, **tls) == 403
    assert _socket_opens(proxied.ws_url, proxied.url, **{"X-Forwarded-Proto": "http"}) == 101
    # The page's absolute links follow the same scheme.
    page = httpx.get(proxied.url + "/", headers=tls).text
    assert f'content="https://{proxied.url.split("//")[1]}/icon-512.png"' in page


def test_forwarded_addresses_count_only_from_trusted_proxies(start_server: Any) -> None:
    body = {"nickname": "A", "seats": 2, "bots": 1}
    trusting = start_server(NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1", NOMERCY_ROOMS_PER_MINUTE="2")
    post = lambda server, **headers: httpx.post(server.url + "/api/rooms", json=body, headers=headers)  # noqa: E731
    assert [post(trusting, **{"X-Forwarded-For": "10.0.0.1"}).status_code for _ in range(3)] == [
        200,
        200,
        429,
    ]
    assert post(trusting, **{"X-Forwarded-For": "10.0.0.2"}).status_code == 200
    assert post(trusting, Forwarded="for=10.0.0.3").status_code == 200
    assert post(trusting).status_code == 200  # the proxy's own address is a client too
    # A server that trusts no proxy ignores the headers: one address, one bucket.
    plain = start_server(NOMERCY_ROOMS_PER_MINUTE="2")
    assert [post(plain, **{"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(3)] == [
        200,
        200,
        429,
    ]


def test_rebound_host_names_are_refused_and_csp_does_not_echo_the_host(start_server: Any) -> None:
    server = start_server()
    page = httpx.get(server.url + "/")
    assert page.status_code == 200
    assert "127.0.0.1" not in page.headers["content-security-policy"]
    rebound = httpx.get(server.url + "/", headers={"Host": "attacker.example"})
    assert rebound.status_code == 400 and rebound.json()["detail"]["code"] == "bad_host"
    assert (
        httpx.post(
            server.url + "/api/rooms", json={"nickname": "A"}, headers={"Host": "x.example"}
        ).status_code
        == 400
    )
    # A WebSocket asking for the attacker's name (the socket goes to our server, as after
    # a DNS rebinding) is refused at the handshake.
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    with pytest.raises(InvalidStatus) as info:
        connect(f"ws://attacker.example:{server.port}/ws", sock=sock, open_timeout=5, proxy=None)
    assert info.value.response.status_code == 403

    named = start_server(NOMERCY_ALLOWED_HOSTS="play.example.org")
    assert httpx.get(named.url + "/", headers={"Host": "play.example.org"}).status_code == 200
    assert httpx.get(named.url + "/").status_code == 400  # by IP: not a name it answers to
    assert httpx.get(named.url + "/healthz").status_code == 200  # load balancers probe by IP


def test_a_blocked_address_still_takes_the_seat_its_token_proves(start_server: Any) -> None:
    server = start_server(NOMERCY_JOIN_FAILURES_PER_MINUTE="3")
    host = create_room(server, nickname="Ann", seats=2, bots=1)
    code, token = host["code"], host["token"]
    assert [httpx.get(f"{server.url}/api/rooms/ZZZZZ{c}").status_code for c in "2345"] == [404, 404, 404, 429]
    assert httpx.get(f"{server.url}/api/rooms/{code}").status_code == 429
    # Spectating or guessing stays blocked...
    watcher = WS(server.ws_url)
    watcher.send({"type": "hello", "room": code, "token": None})
    assert watcher.error(0)["code"] == "rate_limited"
    thief = WS(server.ws_url)
    thief.send({"type": "hello", "room": code, "token": "x" * 32})
    assert thief.error(0)["code"] == "rate_limited"
    # ...a proven seat is not.
    player = WS(server.ws_url)
    player.send({"type": "hello", "room": code, "token": token})
    assert player.wait(lambda m: m["type"] == "welcome")["seat"] == 0
    r = httpx.post(f"{server.url}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    r = httpx.post(f"{server.url}/api/rooms/{code}/start", headers={"Authorization": "Bearer wrong-token-x"})
    assert r.status_code == 429
    player.close()
