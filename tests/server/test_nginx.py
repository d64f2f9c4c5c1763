"""The server behind Debian's real nginx, configured by ``deploy/nginx/nomercy.conf``.

The test runs the very file that ``docs/deploy.md`` tells operators to install, changing
only its ports and certificate (each change must match exactly once, so an edit of the
file that the test no longer understands fails here instead of drifting). nginx runs
unprivileged-style: its own prefix, pid, logs and temp folders under ``tmp_path``, on
loopback ports. Clients connect from two loopback addresses, 127.0.0.1 and 127.0.0.2, so
nginx reports two different clients and the server must keep their limits apart.

Skipped only where nginx or openssl is not installed; CI installs both (``.ci/run``)
and there the skip is an error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

import needs
from patience import wait_until_ready

from .conftest import ServerProcess, free_port
from .nginxconf import ROOT, SITE, site_config

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
OPENSSL = shutil.which("openssl")
HOST = "play.example.org"

pytestmark = needs.NGINX


class Nginx:
    """nginx -p PREFIX -c PREFIX/nginx.conf in the foreground (daemon off)."""

    def __init__(self, prefix: Path, app_port: int) -> None:
        assert NGINX and OPENSSL, "CI installs nginx and openssl (.ci/run)"
        self.prefix = prefix
        self.https_port = free_port()
        self.http_port = free_port()
        self.cert, self.key = prefix / "cert.pem", prefix / "key.pem"
        subprocess.run(
            [
                OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", str(self.key), "-out", str(self.cert), "-days", "2",
                "-subj", f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST}",
            ],
            check=True,
            capture_output=True,
        )  # fmt: skip
        for folder in ("logs", "temp"):
            (prefix / folder).mkdir()
        (prefix / "site.conf").write_text(
            site_config([app_port], self.https_port, self.http_port, self.cert, self.key)
        )
        temp = prefix / "temp"
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read the test's files
        (prefix / "nginx.conf").write_text(
            f"""{user}daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/logs/access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {prefix}/site.conf;
}}
"""
        )
        self.proc = subprocess.Popen(
            [
                NGINX,
                "-p",
                str(prefix),
                "-c",
                str(prefix / "nginx.conf"),
                "-e",
                str(prefix / "logs" / "error.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_until_ready(self.proc, self.listening, "nginx", (prefix / "logs" / "error.log").read_text)

    def listening(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.https_port), timeout=1).close()
        except OSError:
            return False
        return True

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.cert))
        ctx.check_hostname = False  # we connect to 127.0.0.1; the chain is still verified
        return ctx

    def http(self, source: str) -> httpx.Client:
        """A client connecting from ``source`` (a loopback address), asking for HOST."""
        return httpx.Client(
            base_url=f"https://127.0.0.1:{self.https_port}",
            headers={"Host": HOST},
            transport=httpx.HTTPTransport(local_address=source, verify=self.ssl_context()),
            timeout=10,
            trust_env=False,
        )

    def websocket(self, source: str, origin: str | None = f"https://{HOST}") -> ClientConnection:
        sock = socket.create_connection(
            ("127.0.0.1", self.https_port), timeout=10, source_address=(source, 0)
        )
        return connect(  # a context manager that the tests close by hand
            f"wss://{HOST}:{self.https_port}/ws",
            sock=sock,
            ssl=self.ssl_context(),
            server_hostname=HOST,
            origin=origin,
            proxy=None,
            open_timeout=10,
        ).__enter__()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture
def proxied(start_server: Any, tmp_path: Path) -> Iterator[tuple[ServerProcess, Nginx]]:
    server = start_server(
        NOMERCY_ALLOWED_HOSTS=HOST,
        NOMERCY_FORWARDED_ALLOW_IPS="127.0.0.1",
        NOMERCY_ROOMS_PER_MINUTE="2",
        NOMERCY_JOIN_FAILURES_PER_MINUTE="3",
    )
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    nginx = Nginx(prefix, server.port)
    yield server, nginx
    nginx.stop()


def receive_until(ws: ClientConnection, kind: str, timeout: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == kind:
            return msg  # type: ignore[no-any-return]


def test_ci_installs_nginx() -> None:
    if os.environ.get("CI") == "true":
        assert NGINX and OPENSSL, "CI must install nginx and openssl (.ci/run)"


def test_a_game_over_tls_and_websocket_through_nginx(proxied: tuple[ServerProcess, Nginx]) -> None:
    _server, nginx = proxied
    with nginx.http("127.0.0.2") as client:
        page = client.get("/")
        assert page.status_code == 200 and "nomercy" in page.text.lower()
        assert HOST not in page.headers["content-security-policy"]
        # HSTS, on every answer over TLS (errors too), for at least a year.
        for answer in (page, client.get("/api/rooms/ZZZZZZ")):
            hsts = answer.headers.get_list("strict-transport-security")
            assert len(hsts) == 1, (answer.status_code, hsts)
            assert int(re.fullmatch(r"max-age=(\d+)", hsts[0])[1]) >= 365 * 86400  # type: ignore[index]
        host = client.post("/api/rooms", json={"nickname": "Ann", "seats": 2, "bots": 1, "seed": 5}).json()
        code, token = host["code"], host["token"]
        ws = nginx.websocket("127.0.0.2")
        ws.send(json.dumps({"type": "hello", "room": code, "token": token}))
        assert receive_until(ws, "welcome")["seat"] == 0
        started = client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
        assert started.status_code == 200, started.text
    # Play until the game has moved on by a few actions (the bot answers through nginx too).
    version = 0
    while version < 4:
        state = receive_until(ws, "state")
        version = state["version"]
        view = state["view"]
        if view is not None and view["current_player"] == 0 and view["outcome"] is None:
            legal = [a for a in view["legal_actions"] if a != "uno"]
            ws.send(json.dumps({"type": "action", "action": legal[0], "version": version}))
        elif view is not None and view["outcome"] is not None:
            break
    ws.close()


def test_each_client_behind_nginx_has_its_own_limits(proxied: tuple[ServerProcess, Nginx]) -> None:
    """Two clients reach the server through one proxy: their buckets stay apart, a client's
    own X-Forwarded-For is ignored, and a blocked address still takes its proven seat."""
    _server, nginx = proxied
    body = {"nickname": "A", "seats": 2, "bots": 1}
    with nginx.http("127.0.0.1") as one, nginx.http("127.0.0.2") as two:
        first = [one.post("/api/rooms", json=body) for _ in range(3)]
        assert [r.status_code for r in first] == [200, 200, 429]
        # Lying about the address does not help: nginx replaces the header.
        spoofed = one.post("/api/rooms", json=body, headers={"X-Forwarded-For": "10.9.9.9"})
        assert spoofed.status_code == 429
        # The other client has its own bucket.
        assert two.post("/api/rooms", json=body).status_code == 200

        # Guessing codes blocks the guesser only...
        code, token = first[0].json()["code"], first[0].json()["token"]
        guesses = [one.get(f"/api/rooms/ZZZZZ{c}").status_code for c in "2345"]
        assert guesses == [404, 404, 404, 429]
        assert one.get(f"/api/rooms/{code}").status_code == 429
        assert two.get(f"/api/rooms/{code}").status_code == 200
        # ...and never refuses a valid seat token, over HTTP or WebSocket.
        ws = nginx.websocket("127.0.0.1")
        ws.send(json.dumps({"type": "hello", "room": code, "token": token}))
        assert receive_until(ws, "welcome")["seat"] == 0
        ws.close()
        started = one.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
        assert started.status_code == 200, started.text


def test_nginx_passes_the_host_and_the_server_refuses_other_names(
    proxied: tuple[ServerProcess, Nginx],
) -> None:
    _server, nginx = proxied
    with nginx.http("127.0.0.1") as client:
        rebound = client.get("/", headers={"Host": "attacker.example"})
        assert rebound.status_code == 400 and rebound.json()["detail"]["code"] == "bad_host"
    with pytest.raises(Exception, match="403"):
        nginx.websocket("127.0.0.1", origin="https://attacker.example")
    # A page of the same name over plain HTTP is not the TLS site's page (nginx reports
    # the scheme in X-Forwarded-Proto; the server believes it from nginx only).
    with pytest.raises(Exception, match="403"):
        nginx.websocket("127.0.0.1", origin=f"http://{HOST}")
    redirect = httpx.get(
        f"http://127.0.0.1:{nginx.http_port}/join/ABCDEF", headers={"Host": HOST}, trust_env=False
    )
    assert redirect.status_code == 301 and redirect.headers["location"] == f"https://{HOST}/join/ABCDEF"


UNIT = ROOT / "deploy" / "systemd" / "nomercy.service"
#: Several processes: one instance per port (nomercy@1 on 8001, ...).
TEMPLATE = ROOT / "deploy" / "systemd" / "nomercy@.service"


def test_the_deploy_guide_shows_the_tested_files() -> None:
    """docs/deploy.md carries deploy/nginx/nomercy.conf and the systemd units verbatim."""
    guide = (ROOT / "docs" / "deploy.md").read_text()
    assert SITE.read_text().strip() in guide
    assert UNIT.read_text().strip() in guide
    assert TEMPLATE.read_text().strip() in guide


def _directives(path: Path) -> dict[str, str]:
    """``Key=value`` lines of a unit (continuation lines joined), comments left out."""
    text = re.sub(r"\\\n\s*", " ", path.read_text())
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def test_the_template_unit_keeps_every_setting_of_the_single_unit() -> None:
    """A process copied from the template is not limited to 1,024 sockets, nor less
    sandboxed than the single process: it differs only where an instance must."""
    single, template = _directives(UNIT), _directives(TEMPLATE)
    assert single["LimitNOFILE"] == template["LimitNOFILE"] == "65536"
    differ = {k for k in single if template.get(k) != single[k]}
    assert differ == {"Description", "ExecStart"}, differ
    assert "--port 800%i" in template["ExecStart"]


@needs.SYSTEMD_ANALYZE
@pytest.mark.parametrize("path", [UNIT, TEMPLATE], ids=lambda p: p.name)
def test_the_systemd_unit_is_valid(tmp_path: Path, path: Path) -> None:
    """systemd's own checker accepts the unit (its ExecStart pointed at this nomercy; the
    template as its instance 1)."""
    nomercy = Path(sys.executable).with_name("nomercy")
    text = path.read_text()
    assert text.count("/opt/nomercy/venv/bin/nomercy") == 1
    unit = tmp_path / path.name.replace("@.", "@1.")
    unit.write_text(text.replace("/opt/nomercy/venv/bin/nomercy", str(nomercy)))
    if "@" in path.name:
        (tmp_path / path.name).write_text(unit.read_text())  # the template an instance names
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    # The flags it passes exist.
    helptext = subprocess.run([str(nomercy), "serve", "--help"], capture_output=True, text=True).stdout
    for flag in re.findall(r"(--[a-z-]+)", text.split("ExecStart=", 1)[1].split("\nRestart", 1)[0]):
        assert flag in helptext, flag


def test_record_files_up_to_the_server_limit_pass_nginx_and_larger_bodies_get_its_json(
    proxied: tuple[ServerProcess, Nginx],
) -> None:
    """nginx's body limit for the replay route is the server's (NOMERCY_MAX_RECORD_BYTES),
    and what nginx refuses itself comes in the server's JSON with its security headers."""
    from nomercy.record import GameRecord
    from nomercy.server.base.settings import Settings
    from nomercy.server.http.headers import SECURITY_HEADERS

    limit = Settings().max_record_bytes
    record, _state = GameRecord.start(2, seed=3)
    text = record.to_json().encode()
    with nginx_client(proxied) as client:
        # A legal file near the limit (JSON allows the spaces): the server replays it.
        near = text + b" " * (limit - len(text))
        replayed = client.post("/api/records/replay", content=near)
        assert replayed.status_code == 200, replayed.text[:300]
        assert replayed.json()["record"]["seed"] == record.seed
        for url, body, step in (
            ("/api/records/replay", near + b" ", "read"),  # one byte over
            ("/api/rooms", b"{" + b" " * Settings().max_body_bytes + b"}", None),
        ):
            refused = client.post(url, content=body)
            assert refused.status_code == 413, refused.text[:300]
            assert refused.headers["content-type"].startswith("application/json")
            detail = refused.json()["detail"]
            assert detail["code"] == "too_large" and detail.get("step") == step, detail
            for name, value in SECURITY_HEADERS.items():
                assert refused.headers.get(name) == value, (url, name)
            assert len(refused.headers.get_list("strict-transport-security")) == 1


def test_the_plain_http_redirect_names_the_configured_server_not_the_client_host(
    proxied: tuple[ServerProcess, Nginx],
) -> None:
    _server, nginx = proxied
    url = f"http://127.0.0.1:{nginx.http_port}/join/ABCDEF"
    redirect = httpx.get(url, headers={"Host": "attacker.example"}, trust_env=False)
    assert redirect.status_code == 301
    assert redirect.headers["location"] == f"https://{HOST}/join/ABCDEF"


def nginx_client(proxied: tuple[ServerProcess, Nginx]) -> httpx.Client:
    return proxied[1].http("127.0.0.1")
