"""docs/rules-coverage.md lists every rule ID of RULES.md with the tests that check it.

The doc is generated from the tests themselves (a test checks the IDs in its name and at
the head of its docstring, e.g. ``"K8/M1: ..."``); regenerate it after adding tests with::

    .venv/bin/python tests/rules/test_coverage_doc.py --write
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT.parent / "shared" / "rules" / "RULES.md"
DOC = ROOT / "docs" / "rules-coverage.md"
RULE_TESTS = ROOT / "tests" / "rules"

_ID = re.compile(r"\b([CSTAWKNMUEPX])([1-9])\b")
_RANGE = re.compile(r"\b([CSTAWKNMUEPX])([1-9])-\1?([1-9])\b")
_ITEM = re.compile(r"^- \*\*(.+?)\*\*(.*)$", re.M)
_ROW = re.compile(r"^\| \*\*([A-Z][1-9])\*\* \|[^|]*\| (.*) \|$", re.M)
_TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def rule_ids(text: str) -> dict[str, str]:
    """Every rule ID defined in RULES.md (the bold head of a list item) -> its title."""
    out: dict[str, str] = {}
    for head, rest in _ITEM.findall(text):
        for part in head.split(" / "):
            match = _ID.match(part.strip())
            if match:
                title = part.strip()[len(match.group(0)) :].strip(" .")
                if not title:  # an untitled rule: its first words
                    words = rest.split()
                    title = " ".join(words[:8]) + (" ..." if len(words) > 8 else "")
                out[match.group(0)] = title.replace("|", "/")
    return out


def _ids_in(text: str) -> set[str]:
    found = {a + b for a, b in _ID.findall(text)}
    for letter, lo, hi in _RANGE.findall(text):
        found |= {f"{letter}{n}" for n in range(int(lo), int(hi) + 1)}
    return found


def ids_to_tests(folder: Path = RULE_TESTS) -> dict[str, list[str]]:
    """ID -> ``tests/rules/file.py::test_name`` for the tests that name it: in the test's
    name, or in the head of its docstring (the text before the first colon)."""
    out: dict[str, list[str]] = {}
    for path in sorted(folder.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            doc = ast.get_docstring(node) or ""
            name_ids = {a + b for a, b in _ID.findall(node.name.replace("_", " "))}
            head_ids = _ids_in(doc.split(":", 1)[0]) if ":" in doc else set()
            ref = f"{path.relative_to(ROOT).as_posix()}::{node.name}"
            for rule in sorted(name_ids | head_ids):
                out.setdefault(rule, []).append(ref)
    return out


def house_rules(rules_text: str) -> list[str]:
    """The house rules RULES.md names (in backticks), in the order of ``Rules``' fields."""
    from nomercy import Rules

    return [n for n in Rules.field_names() if re.search(rf"`{n}(`| ?=)", rules_text)]


def house_rule_tests(names: list[str], folder: Path = RULE_TESTS) -> dict[str, list[str]]:
    """House rule name -> the tests whose docstring sets it (````name=value```` or ````name````)."""
    out: dict[str, list[str]] = {n: [] for n in names}
    for path in sorted(folder.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = ast.get_docstring(node) or ""
                for n in names:
                    if re.search(rf"``{n}(=|``)", doc):
                        out[n].append(f"{path.relative_to(ROOT).as_posix()}::{node.name}")
    return out


def render(rules_text: str) -> str:
    ids = rule_ids(rules_text)
    by_id = ids_to_tests()
    lines = [
        "# Rules coverage",
        "",
        "Every rule ID of `RULES.md` (the game's specification) and the scenario tests that",
        "check it. A test checks the IDs in its name and at the head of its docstring. This",
        "file is generated; after adding tests run",
        "`.venv/bin/python tests/rules/test_coverage_doc.py --write`.",
        "`tests/rules/test_coverage_doc.py` fails when an ID has no test or a listed test is gone.",
        "",
        "The scenario tests build positions by hand through `GameState.from_dict` and act",
        "through the text form of actions (`tests/rules/builders.py`). Run them with",
        "`.venv/bin/pytest tests/rules -q`.",
        "",
        "| ID | Rule | Tests |",
        "|---|---|---|",
    ]
    for rule, title in ids.items():
        refs = "<br>".join(f"`{ref}`" for ref in by_id.get(rule, []))
        lines.append(f"| **{rule}** | {title} | {refs} |")
    lines += [
        "",
        "## House rules in their non-default values",
        "",
        "Every house rule RULES.md names, with the tests that set it (named in the docstring).",
        "",
        "| House rule | Tests |",
        "|---|---|",
    ]
    for name, refs in house_rule_tests(house_rules(rules_text)).items():
        lines.append(f"| `{name}` | {'<br>'.join(f'`{r}`' for r in refs)} |")
    lines += [
        "",
        "Section 13's presets (`no_mercy`, `classic`) and refusals in general (each",
        "`IllegalAction` names its rule and leaves `to_json()` unchanged) are checked in",
        "`tests/rules/test_presets_and_refusals.py`; every refusal in the scenario tests goes",
        "through `builders.refused`, which asserts both.",
        "",
    ]
    return "\n".join(lines)


def _rules_text() -> str:
    if not RULES_MD.is_file():
        pytest.skip(f"RULES.md not found at {RULES_MD} (the shared rules checkout is absent)")
    return RULES_MD.read_text(encoding="utf-8")


def _doc_rows() -> dict[str, list[tuple[str, str]]]:
    assert DOC.is_file(), f"{DOC} is missing: run python tests/rules/test_coverage_doc.py --write"
    rows: dict[str, list[tuple[str, str]]] = {}
    for rule, cell in _ROW.findall(DOC.read_text(encoding="utf-8")):
        rows[rule] = _TEST_REF.findall(cell)
    return rows


def _defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def test_rules_md_ids_are_the_expected_sections() -> None:
    """Every section of RULES.md contributes its IDs (guards the parser itself)."""
    ids = rule_ids(_rules_text())
    counts = {letter: sum(1 for i in ids if i[0] == letter) for letter in "CSTAWKNMUEPX"}
    assert counts == {"C": 5, "S": 4, "T": 5, "A": 6, "W": 4, "K": 8, "N": 4, "M": 4, "U": 3, "E": 4,
                      "P": 4, "X": 6}  # fmt: skip


def test_every_rule_id_is_listed_with_a_test() -> None:
    """docs/rules-coverage.md lists every rule ID of RULES.md with at least one test."""
    ids = rule_ids(_rules_text())
    rows = _doc_rows()
    missing = [rule for rule in ids if not rows.get(rule)]
    assert missing == [], f"rule IDs without a listed test: {missing}"


def test_every_house_rule_of_rules_md_has_a_test() -> None:
    """Every house rule RULES.md names is set by at least one scenario test."""
    text = _rules_text()
    names = house_rules(text)
    assert {"first_card", "stacking", "mercy_limit", "knockout_bonus_to", "target_score"} <= set(names)
    untested = [n for n, refs in house_rule_tests(names).items() if not refs]
    assert untested == [], f"house rules without a test: {untested}"


def test_every_listed_test_exists_and_names_its_rule() -> None:
    """Every test named in the doc exists in tests/, and names the rule it is listed for."""
    by_id = ids_to_tests()
    defined: dict[str, set[str]] = {}
    for rule, refs in _doc_rows().items():
        for file, name in refs:
            path = ROOT / file
            assert path.is_file(), f"{rule}: {file} does not exist"
            if file not in defined:
                defined[file] = _defined_tests(path)
            assert name in defined[file], f"{rule}: {file}::{name} does not exist"
            assert f"{file}::{name}" in by_id.get(rule, []), f"{file}::{name} does not name {rule}"


def test_doc_is_up_to_date() -> None:
    """The doc matches the tests (regenerate it with --write after adding tests)."""
    assert DOC.read_text(encoding="utf-8") == render(_rules_text()), (
        "docs/rules-coverage.md is stale: run .venv/bin/python tests/rules/test_coverage_doc.py --write"
    )


if __name__ == "__main__":
    if "--write" in sys.argv:
        DOC.parent.mkdir(exist_ok=True)
        DOC.write_text(render(RULES_MD.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {DOC}")
    else:
        print(render(RULES_MD.read_text(encoding="utf-8")))
