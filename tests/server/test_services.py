"""One typed services object: no module of the server reads ``app.state`` by an attribute name.

The services are stored on the application once and read back by one function, both in
:mod:`nomercy.server.base.services`; routes receive them (or their package's part, a
``Protocol``) through ``Annotated`` dependencies, so that a type checker sees every use.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import nomercy.server
from nomercy.server.base import services as base_services

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
