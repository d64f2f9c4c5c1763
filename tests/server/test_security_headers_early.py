"""Every HTTP answer carries the security headers, the ones made before any route too.

The front door (``bad_host``), the body limit (``too_large``, ``bad_json``) and Starlette's
handler of an unexpected error answer outside the routes; each is asked for here, in
process, and must carry the same headers as a page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("fastapi")

from nomercy.server import Settings, create_app
from nomercy.server.http.headers import SECURITY_HEADERS

if TYPE_CHECKING:
    from starlette.testclient import TestClient

HOST = "play.example.org"


@pytest.fixture
def client(sqlite_url: str) -> Iterator[TestClient]:
    from starlette.testclient import TestClient  # imported here: its import warns

    app = create_app(Settings(database_url=sqlite_url, allowed_hosts=(HOST,)))

    async def boom() -> Any:
        raise RuntimeError("a bug")  # an error no handler expects

    app.add_api_route("/api/boom", boom)
    with TestClient(app, base_url=f"http://{HOST}", raise_server_exceptions=False) as c:
        yield c


def secured(answer: Any) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers.get(name) == value, (answer.status_code, name, dict(answer.headers))


pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def test_a_page_and_an_api_answer_carry_the_headers(client: TestClient) -> None:
    """The yardstick: the answers routes make."""
    secured(client.get("/"))
    secured(client.get("/api/options"))
    static = client.get("/static/style.css")
    secured(static)
    assert static.headers["cache-control"] == "no-cache"


def test_a_refused_host_name_carries_the_headers(client: TestClient) -> None:
    answer = client.get("/", headers={"Host": "attacker.example"})
    assert answer.status_code == 400 and answer.json()["detail"]["code"] == "bad_host"
    secured(answer)


def test_a_body_too_large_carries_the_headers(client: TestClient) -> None:
    answer = client.post("/api/rooms", content=b'{"nickname": "' + b"a" * 20_000 + b'"}')
    assert answer.status_code == 413 and answer.json()["detail"]["code"] == "too_large"
    secured(answer)


def test_json_nested_too_deep_carries_the_headers(client: TestClient) -> None:
    answer = client.post("/api/rooms", content=b"[" * 100 + b"]" * 100)
    assert answer.status_code == 400 and answer.json()["detail"]["code"] == "bad_json"
    secured(answer)


def test_an_internal_error_carries_the_headers_and_says_so_in_json(client: TestClient) -> None:
    answer = client.get("/api/boom")
    assert answer.status_code == 500
    assert answer.json()["detail"]["code"] == "server_error"
    assert "a bug" not in answer.text  # the error's own words stay in the log
    secured(answer)
