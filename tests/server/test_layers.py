"""The server's packages import one way: ``http`` → ``games`` → ``rooms`` → ``players`` → ``base``.

Each package may import those to its right and never one to its left, so that a change in the
edge (HTTP) never reaches the table's life, and ``base`` (settings, the wire, the tables) stands
on none of them. Every import counts: those under ``TYPE_CHECKING`` and those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nomercy.server

SERVER = Path(nomercy.server.__file__).parent
#: Lowest first: a package may import its own and those before it in this list.
ORDER = ("base", "players", "rooms", "games", "http")
#: The migrations are Alembic's scripts, run by ``base.schema``; they import no server module.
SKIP = ("migrations",)


def _imports(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """Every ``nomercy.server...`` module that ``module``'s source names, with its line."""
    out: list[tuple[int, str]] = []
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("nomercy.server")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            if not name.startswith("nomercy.server"):
                continue
            if name in ("nomercy.server", *(f"nomercy.server.{p}" for p in ORDER)):
                out += [(node.lineno, f"{name}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, name))
    return out


def _layer(module: str) -> str | None:
    """The package ``module`` belongs to (``nomercy.server.<package>...``), or None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else None


def violations(root: Path = SERVER) -> list[str]:
    """One line per import that goes against :data:`ORDER`, or module outside the packages."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in SKIP for part in rel.parts):
            continue
        module = ".".join(("nomercy", "server", *rel.with_suffix("").parts))
        if rel.parts == ("__init__.py",):
            continue  # the package's door: create_app, imported lazily from http
        own = rel.parts[0]
        if own not in ORDER:
            found.append(f"{module}: outside the five packages {ORDER}")
            continue
        for line, target in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            other = _layer(target)
            if other is None:
                found.append(f"{module}:{line} imports {target} (the top package; import the module)")
            elif other not in ORDER:
                found.append(f"{module}:{line} imports {target}, outside the five packages")
            elif ORDER.index(other) > ORDER.index(own):
                found.append(f"{module}:{line} imports {target}: {own}/ may not import {other}/")
    return found


def test_packages_import_one_way() -> None:
    assert violations() == []


def test_base_imports_none_of_the_four() -> None:
    bad = [v for v in violations() if v.startswith("nomercy.server.base")]
    assert bad == []
    for path in (SERVER / "base").glob("*.py"):
        module = "nomercy.server.base." + path.stem
        for _, target in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            assert _layer(target) == "base", f"{module} imports {target}"


def test_a_backward_import_is_found(tmp_path: Path) -> None:
    """The check itself: a planted import from base up to rooms, and a stray module, are named."""
    (tmp_path / "base").mkdir()
    (tmp_path / "rooms").mkdir()
    (tmp_path / "base" / "x.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from nomercy.server.rooms.room import Room\n"
    )
    (tmp_path / "rooms" / "y.py").write_text("def f():\n    from nomercy.server.games import kept\n")
    (tmp_path / "loose.py").write_text("")
    found = violations(tmp_path)
    assert any("nomercy.server.base.x:3 imports nomercy.server.rooms.room" in v for v in found), found
    assert any("nomercy.server.rooms.y:2 imports nomercy.server.games.kept" in v for v in found), found
    assert any(v.startswith("nomercy.server.loose: outside") for v in found), found
