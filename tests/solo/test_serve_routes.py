"""``nomercy serve`` offers solo play from its own pages: the engine's zip, Pyodide's core
files, the service worker and its list, at the same paths as a static site; every listed
file is served; the worker script alone may run WebAssembly and Pyodide's eval."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from nomercy.site import bundle, pyodide_dir

pytest.importorskip("fastapi")

pytestmark = pytest.mark.skipif(
    pyodide_dir() is None, reason="needs Pyodide's npm package: npm ci (make pyodide)"
)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from nomercy.server import create_app
    from nomercy.server.base.settings import Settings

    with TestClient(create_app(Settings(database_url="sqlite://", allowed_hosts=("testserver",)))) as c:
        yield c


def test_the_engine_pyodide_and_the_service_worker_are_served(client: Any) -> None:
    zipped = client.get("/engine/nomercy.zip")
    assert zipped.status_code == 200 and zipped.content == bundle()
    found = pyodide_dir()
    assert found is not None
    loader = client.get("/pyodide/pyodide.mjs")
    assert loader.status_code == 200 and loader.content == (found / "pyodide.mjs").read_bytes()
    assert loader.headers["content-type"].startswith("text/javascript")
    assert client.get("/pyodide/pyodide.asm.wasm").headers["content-type"] == "application/wasm"
    for missing in ("/pyodide/README.md", "/pyodide/..%2Fpackage.json", "/pyodide/nothing.js"):
        assert client.get(missing).status_code == 404, missing
    listing = client.get("/sw-files.json").json()
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and f'const VERSION = "{listing["version"]}";' in worker.text
    assert "engine/nomercy.zip" in listing["files"] and "static/js/solo/worker.js" in listing["files"]
    assert "index.html" not in listing["files"]
    for path in listing["files"]:
        assert client.get("/" + path).status_code == 200, path


def test_only_the_worker_script_may_compile_webassembly(client: Any) -> None:
    page = client.get("/").headers["content-security-policy"]
    worker = client.get("/static/js/solo/worker.js").headers["content-security-policy"]
    assert "wasm-unsafe-eval" not in page and "unsafe-eval" not in page
    assert "'wasm-unsafe-eval'" in worker and "frame-ancestors 'none'" in worker
