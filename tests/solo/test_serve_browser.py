"""Solo play from ``nomercy serve``'s own pages, in headless Chromium: the page loads the
engine from the server (``nomercy.server.http.solo``), deals, and a round is played to
its end by clicks, with no request to another host and no error logged (a Content
Security Policy that refused Pyodide's WebAssembly or eval would log one)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import needs

sync_api = pytest.importorskip("playwright.sync_api")

from browser.test_browser import Pages, browser  # noqa: E402
from browser.test_offline import ROUND_OVER, play_until, ready  # noqa: E402
from nomercy.site import pyodide_dir  # noqa: E402
from server.conftest import free_port  # noqa: E402

pytestmark = [
    pytest.mark.solo_game,  # run alone by make test, as tests/browser/test_offline.py is
    needs.CHROMIUM,
    pytest.mark.skipif(pyodide_dir() is None, reason="needs Pyodide's npm package: npm ci (make pyodide)"),
]

__all__ = ["browser"]

QUICK = '{"delays": {"bot_delay": 0.05, "reaction_delay": 0.3, "between_rounds": 1}}'


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``nomercy serve`` on a free port, with a database of its own."""
    import httpx

    folder = tmp_path_factory.mktemp("serve")
    port = free_port()
    log = open(folder / "serve.log", "wb")  # noqa: SIM115 (closed with the server)
    database = f"sqlite:///{folder / 'rooms.db'}"
    command = [sys.executable, "-m", "nomercy", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen([*command, "--database-url", database], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, Path(folder / "serve.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


def test_a_solo_round_from_the_servers_own_pages(browser: Any, served: str) -> None:
    pages = Pages(browser)
    context = browser.new_context()
    pages.contexts.append(context)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.on("console", lambda m: pages._error(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: pages._error(str(exc)))
    page.add_init_script(f"localStorage.setItem('nomercy:solo:overrides', {QUICK!r})")
    try:
        page.goto(served)
        ready(page)
        page.evaluate("document.getElementById('solo-panel').open = true")
        page.wait_for_selector("#solo-levels select >> nth=2", timeout=60_000)
        page.click("#solo-start")
        page.wait_for_selector("#hand .card", timeout=180_000)
        assert page.evaluate("nomercy.store.get().room.seats.map((s) => s.kind)") == [
            "human",
            "bot",
            "bot",
            "bot",
        ]
        play_until(page, ROUND_OVER)
        assert page.evaluate("nomercy.store.get().room.match_winner") is not None
        assert any(url.endswith("/engine/nomercy.zip") for url in requests)
        assert all(url.startswith(served) for url in requests), [
            u for u in requests if not u.startswith(served)
        ]
        assert pages.errors == []
    finally:
        context.close()
