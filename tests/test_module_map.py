"""docs/modules.md lists every module of the package, in its package's section.

The map is where a newcomer looks first: a module missing from it is a module no one finds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "nomercy"
MAP = ROOT / "docs" / "modules.md"

#: Each top-level part of the package and the heading of its section in the map.
SECTIONS = {
    "": "## The core",
    "i18n": "## The core",
    "bots": "## Bots",
    "server": "## Online rooms",
    "encoding": "## One encoding",
    "rl": "## Research environments",
    "sim": "## Simulation",
    "native": "## The native engine",
    "solo": "## Solo play and the static site",
    "site": "## Solo play and the static site",
    "cli": "## The command line",
    "tui": "## The command line",
}


def section(heading: str) -> str:
    text = MAP.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def listed(part: str) -> set[str]:
    """The module file names a section's tables name in their first column."""
    names: set[str] = set()
    for line in section(SECTIONS[part]).splitlines():
        if line.startswith("| ") and not line.startswith("| Module"):
            first = line.split("|")[1]
            names |= {_inside(m) for m in re.findall(r"`([\w/]+\.py)`", first)}
    return names


def _inside(written: str) -> str:
    """A module as the map writes it, less its top-level part: ``cli/play.py`` is ``play.py``;
    the server's sub-packages keep theirs (``rooms/room.py``), as names repeat between them."""
    first, _, rest = written.partition("/")
    return rest if rest and first in SECTIONS else written


def _name(rel: Path) -> str:
    """A module's path inside its top-level part (``server/rooms/room.py``: ``rooms/room.py``)."""
    return "/".join(rel.parts[1:]) if len(rel.parts) > 1 else rel.name


def modules() -> list[tuple[str, str]]:
    """(part, file name) of every module: migrations (Alembic's) and private files aside."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if "migrations" in rel.parts or (path.name.startswith("_") and path.name != "__init__.py"):
            continue
        part = rel.parts[0] if len(rel.parts) > 1 else ""
        nested = len(rel.parts) > 2 and not (part == "server" and len(rel.parts) == 3)
        if nested or part not in SECTIONS:
            raise AssertionError(f"{rel}: a package the map has no section for (add one to SECTIONS)")
        if path.name == "__init__.py" and part:
            continue  # a package's __init__ is its section's heading (a sub-package's, its table's)
        out.append((part, _name(rel)))
    return out


@pytest.mark.parametrize(("part", "name"), modules(), ids=lambda v: v or "core")
def test_every_module_is_on_the_map(part: str, name: str) -> None:
    assert name in listed(part), (
        f"{part or 'nomercy'}/{name} is missing from {SECTIONS[part]} in docs/modules.md"
    )


def test_the_map_names_no_module_that_is_gone() -> None:
    rels = [p.relative_to(PACKAGE) for p in PACKAGE.rglob("*.py")]
    present = {(r.parts[0] if len(r.parts) > 1 else "", _name(r)) for r in rels}
    for heading in set(SECTIONS.values()):
        parts = [part for part, h in SECTIONS.items() if h == heading]  # parts sharing a section
        for name in listed(parts[0]):
            assert any((part, name) in present for part in parts), (
                f"docs/modules.md lists {name}, which is gone"
            )
