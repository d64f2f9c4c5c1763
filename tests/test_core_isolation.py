"""The core imports nothing outside the standard library (DESIGN.md)."""

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
    adapters = ("nomercy.cli", "nomercy.bots", "nomercy.server", "nomercy.rl", "nomercy.sim")
    for path in sorted(CORE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for adapter in adapters:
            assert f"from {adapter}" not in text and f"import {adapter}" not in text, (path.name, adapter)
