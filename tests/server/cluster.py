"""Test helpers: several ``nomercy serve`` processes on one PostgreSQL behind a real nginx.

nginx (Debian's, ``/usr/sbin/nginx``) routes every request of a room to one process by
hashing the join code in the URL (``hash ... consistent``): the site is
``deploy/nginx/nomercy.conf`` itself, which ``docs/deploy.md`` describes, with one server
line per process and plain HTTP. Requests without a code (creating a room, the page) go
round-robin. A process that refuses the connection is skipped (``proxy_next_upstream``).
nginx sets ``X-Forwarded-For``; the processes trust it from 127.0.0.1 only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

import needs
from patience import START_SECONDS, answers, wait_until_ready

from .conftest import FAST, free_port
from .nginxconf import site_config

NGINX = needs.NGINX_PATH or "/usr/sbin/nginx"

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
    include {dir}/site.conf;
}}
"""


class Nginx:
    def __init__(self, folder: Path, backends: list[int]) -> None:
        self.dir = folder
        self.port = free_port()
        conf = CONF.format(user="user root;" if os.geteuid() == 0 else "", dir=folder)
        folder.mkdir(parents=True, exist_ok=True)
        # The deployed site itself, in plain HTTP on self.port (its TLS server, certificate-less).
        (folder / "site.conf").write_text(site_config(backends, self.port, free_port()))
        (folder / "nginx.conf").write_text(conf)
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=open(folder / "stderr.log", "wb"),  # noqa: SIM115
        )
        stderr = folder / "stderr.log"
        wait_until_ready(self.proc, answers(self.url + "/healthz", None), "nginx", stderr.read_text)

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

    def __init__(
        self, database_url: str, log: Path, log_level: str = "warning", port: int | None = None, **env: str
    ) -> None:
        self.port = free_port() if port is None else port  # a port again: the process restarted
        command = [
            sys.executable, "-m", "nomercy.cli", "serve", "--port", str(self.port),
            "--database-url", database_url, "--log-level", log_level,
            "--forwarded-allow-ips", "127.0.0.1",  # nginx forwards the client's address
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

    def wait_ready(self, timeout: float = START_SECONDS) -> Serve:
        """Wait until ``/readyz`` answers 200; a process that never gets there is stopped."""
        wait_until_ready(
            self.proc, self.ready, f"nomercy serve on port {self.port}", self.log.read_text, timeout
        )
        return self

    def ready(self) -> bool:
        try:
            return httpx.get(self.url + "/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a test may have frozen it: it would not hear SIGTERM
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
