"""One typed services object: no module of the server reads ``app.state`` by an attribute name.

The services are stored on the application once and read back by one function, both in
:mod:`nomercy.server.base.services`; routes receive them (or their package's part, a
``Protocol``) through ``Annotated`` dependencies, so that a type checker sees every use.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path
from typing import Any

from fastapi.routing import APIRoute

import nomercy.server
from nomercy.server.base import services as base_services
from nomercy.server.base.settings import Settings

SERVER = Path(nomercy.server.__file__).parent
#: The one module allowed to touch ``app.state``: it stores the services and returns them.
KEEPER = Path(base_services.__file__)


def state_reads(source: str) -> list[int]:
    """Lines where code (not a string or a comment) names ``<something>.state`` after ``app``."""
    names = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type in (tokenize.NAME, tokenize.OP)
    ]
    return [
        names[i].start[0]
        for i in range(len(names) - 2)
        if (names[i].string, names[i + 1].string, names[i + 2].string) == ("app", ".", "state")
    ]


def test_only_the_keeper_touches_app_state() -> None:
    found = [
        f"{path.relative_to(SERVER)}:{line}"
        for path in sorted(SERVER.rglob("*.py"))
        if path != KEEPER
        for line in state_reads(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_finds_a_read() -> None:
    """The check itself: a route that reads ``request.app.state.manager`` is found, a docstring
    that mentions it is not."""
    source = '"""request.app.state is not read here."""\nx = request.app.state.manager\n'
    assert state_reads(source) == [2]
    assert state_reads(Path(KEEPER).read_text(encoding="utf-8")) != []  # the keeper does


#: The functions that hand out the services (or a package's part of them): a route receives
#: what they give as a parameter, never by calling one itself or through a helper of its module.
ACCESSORS = {
    "services_of",
    "installed",
    "services",
    "players",
    "players_if_started",
    "ratings_part",
    "kept_games",
    "rooms_part",
}
#: The packages whose routes are checked; every route of the first three serves from the services.
ROUTED = ("players", "games", "rooms", "http")
SERVED = ("players", "games", "rooms")
ROUTE_DECORATORS = {"get", "post", "put", "patch", "delete", "api_route", "websocket"}


def _called(fn: ast.AST) -> set[str]:
    """The names a function calls (``f(...)`` and ``x.f(...)`` alike), its nested functions included."""
    return {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(fn)
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))
    }


def _is_route(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in ROUTE_DECORATORS
        for d in fn.decorator_list
    )


def routes_reaching_services(source: str) -> list[str]:
    """The routes of a module that reach the services in their body: by calling an accessor,
    or a function of the same module that does (followed to any depth)."""
    tree = ast.parse(source)
    functions = {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    calls = {name: _called(fn) for name, fn in functions.items()}
    reaching = {name for name, called in calls.items() if called & ACCESSORS and name not in ACCESSORS}
    grown = True
    while grown:
        more = {name for name, called in calls.items() if called & reaching} - reaching - ACCESSORS
        reaching |= more
        grown = bool(more)
    return sorted(name for name in reaching if _is_route(functions[name]))


def test_routes_take_their_services_as_parameters() -> None:
    found = [
        f"{path.relative_to(SERVER)}:{name}"
        for package in ROUTED
        for path in sorted((SERVER / package).glob("*.py"))
        for name in routes_reaching_services(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def _dependency_calls(dependant: Any) -> set[Any]:
    """Every dependency a route's ``dependant`` lists, to any depth."""
    found: set[Any] = set()
    for sub in dependant.dependencies:
        found.add(sub.call)
        found |= _dependency_calls(sub)
    return found


def api_routes(routes: list[Any]) -> list[APIRoute]:
    """The app's routes, into included routers too (newer FastAPI keeps each included router
    as one entry that holds the original router)."""
    found: list[APIRoute] = []
    for r in routes:
        inner = getattr(r, "original_router", None)
        if isinstance(r, APIRoute):
            found.append(r)
        elif inner is not None:
            found += api_routes(inner.routes)
    return found


def test_every_served_route_lists_its_services_dependency() -> None:
    from nomercy.server.games.kept import kept_games
    from nomercy.server.http.app import create_app
    from nomercy.server.http.services import services
    from nomercy.server.players.deps import players
    from nomercy.server.players.ratings import ratings_part
    from nomercy.server.rooms.deps import rooms_part

    given = {services, players, ratings_part, kept_games, rooms_part}
    routes = [
        r for r in api_routes(create_app(Settings()).routes) if r.endpoint.__module__.split(".")[2] in SERVED
    ]
    assert len(routes) > 30  # the app's routes were found
    missing = [f"{r.path} {sorted(r.methods)}" for r in routes if not _dependency_calls(r.dependant) & given]
    assert missing == []


def test_the_websocket_takes_its_services_as_a_parameter() -> None:
    """``/ws`` (added with ``add_api_websocket_route``, so no decorator marks it) lists the
    services dependency too, and its module reaches the services nowhere else."""
    from fastapi.routing import APIWebSocketRoute

    from nomercy.server.http import ws
    from nomercy.server.http.app import create_app
    from nomercy.server.http.services import services

    found = [r for r in create_app(Settings()).routes if isinstance(r, APIWebSocketRoute) and r.path == "/ws"]
    assert len(found) == 1
    assert services in _dependency_calls(found[0].dependant)
    source = Path(ws.__file__).read_text(encoding="utf-8")
    assert "services(" not in source and "services_of(" not in source


def test_the_route_check_finds_a_helper() -> None:
    """The check itself: a route that calls a helper that calls ``players(request)`` is found;
    one that takes the services as a parameter, and a plain helper, are not."""
    source = (
        "def _store(request):\n    return players(request).accounts\n"
        "def _deeper(request):\n    return _store(request)\n"
        "@router.get('/a')\nasync def a(request):\n    return _deeper(request)\n"
        "@router.get('/b')\nasync def b(p: PlayersDep):\n    return p.accounts\n"
        "@router.post('/c')\nasync def c(request):\n    return kept_games(request).games\n"
    )
    assert routes_reaching_services(source) == ["a", "c"]
