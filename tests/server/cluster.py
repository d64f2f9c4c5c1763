"""Test helpers: several ``nomercy serve`` processes on one PostgreSQL behind a real nginx.

nginx (Debian's, ``/usr/sbin/nginx``) routes every request of a room to one process by
hashing the join code in the URL (``hash ... consistent``), the set-up that
``docs/deploy.md`` describes; requests without a code (creating a room, the page) go
round-robin. A process that refuses the connection is skipped (``proxy_next_upstream``).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from .conftest import FAST, free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

#: The part of the nginx configuration that docs/deploy.md gives ("Several processes").
UPSTREAM = """
map $uri $nomercy_room_in_path {{
    ~^/api/rooms/(?<code>[^/]+) $code;
    default "";
}}
map $http_upgrade $connection_upgrade {{
    default upgrade;
    "" close;
}}
upstream nomercy {{
    hash $arg_room$nomercy_room_in_path consistent;
{servers}
}}
"""

CONF = """
{user}
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
{upstream}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://nomercy;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_read_timeout 1h;
            proxy_next_upstream error timeout http_502;
            proxy_connect_timeout 2s;
        }}
    }}
}}
"""


def nginx_available() -> bool:
    return os.path.exists(NGINX)


class Nginx:
    def __init__(self, folder: Path, backends: list[int]) -> None:
        self.dir = folder
        self.port = free_port()
        servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in backends)
        conf = CONF.format(
            user="user root;" if os.geteuid() == 0 else "",
            dir=folder,
            port=self.port,
            upstream=UPSTREAM.format(servers=servers),
        )
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "nginx.conf").write_text(conf)
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=open(folder / "stderr.log", "wb"),  # noqa: SIM115
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (folder / "stderr.log").read_text()
            try:
                httpx.get(self.url + "/healthz", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("nginx did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?room={code}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Serve:
    """``nomercy serve`` (the real command) on a free loopback port."""

    def __init__(self, database_url: str, log: Path, log_level: str = "warning", **env: str) -> None:
        self.port = free_port()
        command = [
            sys.executable, "-m", "nomercy.cli", "serve", "--port", str(self.port),
            "--database-url", database_url, "--log-level", log_level,
        ]  # fmt: skip
        self.log = log
        self.proc = subprocess.Popen(
            command,
            env={**os.environ, **FAST, **env},
            stdout=subprocess.DEVNULL,
            stderr=open(log, "ab"),  # noqa: SIM115
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 30) -> Serve:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"server exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}"
                )
            try:
                if httpx.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not become ready")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
