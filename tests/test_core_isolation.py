"""The core imports nothing outside the standard library and never an adapter, and its layers import
only downwards (docs/engine.md, "How the core is layered")."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "nomercy"


def test_core_modules_import_only_the_standard_library_and_nomercy() -> None:
    offenders = []
    for path in sorted(CORE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "nomercy" and top not in sys.stdlib_module_names and top != "__future__":
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_core_never_imports_an_adapter() -> None:
    adapters = (
        "nomercy.cli",
        "nomercy.bots",
        "nomercy.server",
        "nomercy.rl",
        "nomercy.sim",
        "nomercy.native",
    )
    for path in sorted(CORE.glob("*.py")):
        if path.name == "__main__.py":  # python -m nomercy: runs the command line, imported by nothing
            continue
        text = path.read_text(encoding="utf-8")
        for adapter in adapters:
            assert f"from {adapter}" not in text and f"import {adapter}" not in text, (path.name, adapter)


#: The core's layers, lowest first (docs/engine.md): a module imports only from its own layer
#: or below, never from above, and never a private name of another module.
LAYERS: dict[str, int] = {
    # value types, and the one-line error of a missing extra
    **dict.fromkeys(("errors", "extras", "cards", "rules", "actions", "events", "intervals"), 0),
    "state": 1,  # data and its JSON codec
    **dict.fromkeys(("dealing", "tables", "engine"), 2),  # the rules
    "views": 3,  # what a seat sees
    **dict.fromkeys(("record", "match", "seeding", "testing"), 4),  # built on them
    **dict.fromkeys(("decisions", "summary", "narration"), 4),  # what a seat may decide, the rules in words
    "__init__": 5,
    "__main__": 5,
    # The encoding for learning (a package): the action table and the observation's sections
    # over the engine and views; the native engine, the bots and the RL adapters use it.
    "encoding": 5,
    # The native engine (a package, optional): above the engine and views it mirrors and
    # checks itself against, and the encoding it implements; nothing in the core imports it.
    "native": 6,
}
#: The adapters: the core never imports them, and the native engine neither.
ADAPTERS = ("cli", "bots", "server", "rl", "sim", "tui", "web")


def _core_imports(path: Path) -> list[tuple[str, list[str]]]:
    """(imported core module, imported names) for every import of ``path``, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nomercy"):
            parts = node.module.split(".")
            if len(parts) == 1:  # from nomercy import engine
                for alias in node.names:
                    out.append((alias.name, []))
            else:
                out.append((parts[1], [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("nomercy."):
                    out.append((alias.name.split(".")[1], []))
    return out


def test_core_imports_run_one_way_down_the_layers() -> None:
    """No circle and no upward import, even inside a function; no private name crosses."""
    offenders = []
    for path in sorted(CORE.glob("*.py")):
        assert path.stem in LAYERS, f"{path.name}: give the new core module a layer in LAYERS"
        for module, names in _core_imports(path):
            if module not in LAYERS:
                continue  # an adapter: test_core_never_imports_an_adapter
            if LAYERS[module] > LAYERS[path.stem]:
                offenders.append(f"{path.name} imports {module} from a layer above")
            private = [n for n in names if n.startswith("_") and n != "__version__"]
            if private:
                offenders.append(f"{path.name} imports private {private} from {module}")
    assert offenders == []


def test_no_import_circle_inside_a_layer() -> None:
    graph = {
        path.stem: {m for m, _ in _core_imports(path) if m in LAYERS and m != path.stem}
        for path in CORE.glob("*.py")
    }
    seen: dict[str, int] = {}

    def visit(node: str, trail: tuple[str, ...]) -> None:
        if seen.get(node) == 1:
            raise AssertionError("import circle: " + " -> ".join((*trail, node)))
        if seen.get(node) == 2:
            return
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, (*trail, node))
        seen[node] = 2

    for node in sorted(graph):
        visit(node, ())


def test_legal_actions_and_apply_are_real_methods() -> None:
    """Defined in the class body, not patched onto it at import time."""
    from nomercy.engine import GameState

    assert "legal_actions" in GameState.__dict__ and "apply" in GameState.__dict__


def test_the_native_engine_imports_only_the_layers_below_it() -> None:
    """nomercy.native sits on the core (its engine, views and value types), imports no
    adapter and no private name of the core: the reference never depends on it."""
    offenders = []
    for path in sorted((CORE / "native").glob("*.py")):
        for module, names in _core_imports(path):
            if module == "native":
                continue
            if module in ADAPTERS:
                offenders.append(f"native/{path.name} imports the adapter {module}")
            elif module not in LAYERS or LAYERS[module] >= LAYERS["native"]:
                offenders.append(f"native/{path.name} imports {module}, not a layer below it")
            private = [n for n in names if n.startswith("_")]
            if private:
                offenders.append(f"native/{path.name} imports private {private} from {module}")
    assert offenders == []
    assert (CORE / "native" / "kernels.py").exists()


def test_the_encoding_imports_only_the_layers_below_it() -> None:
    """nomercy.encoding sits on the core (engine, views, value types) and below every user
    of it: it imports no adapter, not the native engine and no private name of the core."""
    offenders = []
    for path in sorted((CORE / "encoding").glob("*.py")):
        for module, names in _core_imports(path):
            if module == "encoding":
                continue
            if module not in LAYERS or LAYERS[module] >= LAYERS["encoding"]:
                offenders.append(f"encoding/{path.name} imports {module}, not a layer below it")
            private = [n for n in names if n.startswith("_")]
            if private:
                offenders.append(f"encoding/{path.name} imports private {private} from {module}")
    assert offenders == []
    assert (CORE / "encoding" / "actions.py").exists()
