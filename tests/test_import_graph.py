"""No import circle anywhere in the package (docs/engine.md, "How the core is layered":
imports run one way).

The graph is read statically, with ``ast``, from every module under ``src/nomercy``, and
counts every import a module makes: at the top, inside a function (a deferred import
hides a circle from Python, not from a reader) and under ``TYPE_CHECKING``. A package's
``__init__`` running before its modules is not an edge: only what a module names is.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's ``__init__``) for every module under ``root``."""
    out = {}
    for path in sorted((root / "nomercy").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def _imports(name: str, path: Path, package: bool, modules: dict[str, tuple[Path, bool]]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its file."""
    here = name if package else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # from . import x, from ..y import z
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:  # from nomercy.sim import runner
                    out.add(f"{source}.{alias.name}")
                elif source in modules:
                    out.add(source)
    out.discard(name)
    return out


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    modules = _modules(root)
    return {name: _imports(name, path, package, modules) for name, (path, package) in modules.items()}


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` as ``[a, b, ..., a]``, or None if there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_whole_package_has_no_import_circle() -> None:
    graph = import_graph()
    assert len(graph) > 50 and "nomercy.sim.runner" in graph and "nomercy.native.kernels" in graph
    circle = find_circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The check is not vacuous: a circle made of a deferred, a relative and a
    type-checking import is found and printed."""
    pkg = tmp_path / "nomercy" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "nomercy" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from nomercy.sub import a\n")
    (pkg / "a.py").write_text("def f():\n    from nomercy.sub.b import g\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\nimport os\n"
    )
    (pkg / "c.py").write_text("from . import a\n")
    graph = import_graph(tmp_path)
    assert graph["nomercy.sub"] == {"nomercy.sub.a"}
    assert graph["nomercy.sub.b"] == {"nomercy.sub.c"}
    assert find_circle(graph) == ["nomercy.sub.a", "nomercy.sub.b", "nomercy.sub.c", "nomercy.sub.a"]
    (pkg / "c.py").write_text("import nomercy\n")  # b -> c -> nomercy: a chain, not a circle
    assert find_circle(import_graph(tmp_path)) is None


def _package(module: str) -> str:
    """``nomercy.bots.learned`` -> ``bots``; a core module -> ``core``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in _PACKAGES) else "core"


_PACKAGES = {"bots", "cli", "encoding", "native", "rl", "server", "sim", "tui", "web", "i18n"}
#: Packages each of these may never import: the encoding lies below everything that uses it,
#: the bots and the native engine play without the RL environments.
_NEVER: dict[str, set[str]] = {
    "encoding": {"bots", "cli", "native", "rl", "server", "sim", "tui"},
    "native": {"bots", "cli", "rl", "server", "sim", "tui"},
    "bots": {"rl"},
}


def test_the_encoding_lies_below_its_users() -> None:
    """One-way imports around the encoding (docs/rl.md): ``nomercy.encoding`` imports only the
    core; the bots and the native engine use it, never ``nomercy.rl``; ``nomercy.rl`` takes it
    from ``nomercy.encoding`` (its ``encoding`` and ``fast_encoding`` modules only re-export)."""
    graph = import_graph()
    offenders = [
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if _package(target) in _NEVER.get(_package(module), set())
    ]
    assert offenders == []
    users = {"nomercy.bots.learned", "nomercy.native.slots", "nomercy.native.encode", "nomercy.rl.single"}
    assert all(any(_package(t) == "encoding" for t in graph[m]) for m in users)
    for shim in ("nomercy.rl.encoding", "nomercy.rl.fast_encoding"):
        assert {_package(t) for t in graph[shim]} == {"encoding"}, shim
