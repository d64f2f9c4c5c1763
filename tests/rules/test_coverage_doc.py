"""The rules in ``docs/rules.md``, their tests, and the code agree.

``docs/rules.md`` is the game's specification. This module reads it (rule IDs from the
bold heads of its list items, house rules from the table of section 13) and checks that:

- ``docs/rules-coverage.md`` lists every rule ID with the scenario tests that check it,
  and fails, never skips, when an ID has no test;
- every house rule is set by at least one scenario test;
- every field of :class:`nomercy.Rules` has its row, with its default and its value in
  each preset, so the document cannot drift from the code.

``docs/rules-coverage.md`` is generated from the tests themselves (a test checks the IDs in
its name and at the head of its docstring, e.g. ``"K8/M1: ..."``); regenerate it after
adding tests with::

    .venv/bin/python tests/rules/test_coverage_doc.py --write
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

from nomercy import Rules
from nomercy.rules import PRESETS

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "rules.md"
DOC = ROOT / "docs" / "rules-coverage.md"
RULE_TESTS = ROOT / "tests" / "rules"

_ID = re.compile(r"\b([CSTAWKNMUEPX])([1-9])\b")
_RANGE = re.compile(r"\b([CSTAWKNMUEPX])([1-9])-\1?([1-9])\b")
_ITEM = re.compile(r"^- \*\*(.+?)\*\*(.*)$", re.M)
_SECTION = re.compile(r"^## (\d+)\. .*?(?: \(([A-Z])\))?$", re.M)
# A row of section 13's table: | `name` | rule | values | `default` | `preset` | ... |
_HOUSE_ROW = re.compile(r"^\| `(\w+)` \| ([^|]*) \| ([^|]*) \|((?: `[^`|]*` \|)+)$", re.M)
_HOUSE_HEAD = re.compile(r"^\| House rule \| Rule \| Values \|((?: `\w+`[^|]*\|)+)$", re.M)
_ROW = re.compile(r"^\| \*\*([A-Z][1-9])\*\* \|[^|]*\| (.*) \|$", re.M)
_TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _rules_text() -> str:
    assert SPEC.is_file(), f"{SPEC} is missing: it is the game's specification"
    return SPEC.read_text(encoding="utf-8")


def rule_ids(text: str) -> dict[str, str]:
    """Every rule ID docs/rules.md defines (the bold head of a list item) -> its title."""
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


def house_rule_table(text: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """Section 13's table: the preset names of its columns, and for each house rule its
    cells: ``rule``, ``values`` and, per preset, the value as written (JSON)."""
    head = _HOUSE_HEAD.search(text)
    assert head, "docs/rules.md has no house rule table (| House rule | Rule | Values | `preset` ...)"
    presets = re.findall(r"`(\w+)`", head.group(1))
    rows: dict[str, dict[str, str]] = {}
    for name, rule, values, cells in _HOUSE_ROW.findall(text):
        written = re.findall(r"`([^`]*)`", cells)
        assert len(written) == len(presets), f"{name}: {len(written)} values for {len(presets)} presets"
        assert name not in rows, f"house rule {name} has two rows"
        rows[name] = {"rule": rule.strip(), "values": values.strip()}
        rows[name].update(zip(presets, written, strict=True))
    return presets, rows


def house_rules(text: str) -> list[str]:
    """The house rules docs/rules.md defines, in the order of its table."""
    return list(house_rule_table(text)[1])


def _ids_in(text: str) -> set[str]:
    found = {a + b for a, b in _ID.findall(text)}
    for letter, lo, hi in _RANGE.findall(text):
        found |= {f"{letter}{n}" for n in range(int(lo), int(hi) + 1)}
    return found


def _test_functions(folder: Path) -> list[tuple[str, ast.FunctionDef]]:
    out = []
    for path in sorted(folder.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out.append((path.relative_to(ROOT).as_posix(), node))
    return out


def ids_to_tests(folder: Path = RULE_TESTS) -> dict[str, list[str]]:
    """ID -> ``tests/rules/file.py::test_name`` for the tests that name it: in the test's
    name, or in the head of its docstring (the text before the first colon)."""
    out: dict[str, list[str]] = {}
    for file, node in _test_functions(folder):
        doc = ast.get_docstring(node) or ""
        name_ids = {a + b for a, b in _ID.findall(node.name.replace("_", " "))}
        head_ids = _ids_in(doc.split(":", 1)[0]) if ":" in doc else set()
        for rule in sorted(name_ids | head_ids):
            out.setdefault(rule, []).append(f"{file}::{node.name}")
    return out


def house_rule_tests(names: list[str], folder: Path = RULE_TESTS) -> dict[str, list[str]]:
    """House rule name -> the tests whose docstring sets it (````name=value```` or ````name````)."""
    out: dict[str, list[str]] = {n: [] for n in names}
    for file, node in _test_functions(folder):
        doc = ast.get_docstring(node) or ""
        for n in names:
            if re.search(rf"``{n}(=|``)", doc):
                out[n].append(f"{file}::{node.name}")
    return out


def render(rules_text: str) -> str:
    ids = rule_ids(rules_text)
    by_id = ids_to_tests()
    lines = [
        "# Rules coverage",
        "",
        "Every rule ID of [`docs/rules.md`](rules.md) (the game's specification) and the",
        "scenario tests that check it. A test checks the IDs in its name and at the head of",
        "its docstring. This file is generated; after adding tests run",
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
        "Every house rule of `docs/rules.md` (section 13), with the tests that set it (named in",
        "the docstring).",
        "",
        "| House rule | Tests |",
        "|---|---|",
    ]
    for name, tests in house_rule_tests(house_rules(rules_text)).items():
        lines.append(f"| `{name}` | {'<br>'.join(f'`{r}`' for r in tests)} |")
    lines += [
        "",
        "Section 13's presets (`no_mercy`, `classic`, `rlcard`) and refusals in general (each",
        "`IllegalAction` names its rule and leaves `to_json()` unchanged) are checked in",
        "`tests/rules/test_presets_and_refusals.py`; every refusal in the scenario tests goes",
        "through `builders.refused`, which asserts both. That section 13's table gives every",
        "field of `Rules` with its default and its value in each preset is checked by",
        "`tests/rules/test_coverage_doc.py`.",
        "",
    ]
    return "\n".join(lines)


def _doc_rows() -> dict[str, list[tuple[str, str]]]:
    assert DOC.is_file(), f"{DOC} is missing: run python tests/rules/test_coverage_doc.py --write"
    rows: dict[str, list[tuple[str, str]]] = {}
    for rule, cell in _ROW.findall(DOC.read_text(encoding="utf-8")):
        rows[rule] = _TEST_REF.findall(cell)
    return rows


def _defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def _same_value(base: Rules, name: str, written: str) -> bool:
    """Whether ``written`` (a JSON value from the table) is ``base``'s value of ``name``."""
    value: Any = json.loads(written)
    return bool(getattr(base.replace(**{name: value}), name) == getattr(base, name))


def test_rules_md_sections_and_ids() -> None:
    """Sections 1 to 14 in the spec's order, each with its letter and as many rule IDs as
    it should have, numbered from 1 (guards the parser and the document's layout)."""
    text = _rules_text()
    sections = _SECTION.findall(text)
    assert [int(n) for n, _ in sections] == list(range(1, 15))
    assert "".join(letter for _, letter in sections) == "CSTAWKNMUEPX"
    ids = rule_ids(text)
    counts = {letter: sum(1 for i in ids if i[0] == letter) for letter in "CSTAWKNMUEPX"}
    assert counts == {"C": 5, "S": 4, "T": 5, "A": 6, "W": 8, "K": 8, "N": 4, "M": 4, "U": 3, "E": 4,
                      "P": 4, "X": 6}  # fmt: skip
    assert all(int(i[1]) <= counts[i[0]] for i in ids), ids
    assert all(title and not title.endswith("...") for title in ids.values()), "every rule has a title"


def _project_files() -> list[Path]:
    """The project's code and prose that may cite rule IDs (docs/rules.md aside)."""
    files = [ROOT / "README.md"]
    for folder in ("src/nomercy", "tests", "benchmarks", "examples", "docs"):
        for suffix in ("*.py", "*.md", "*.js", "*.html"):
            files += (ROOT / folder).rglob(suffix)
    return sorted(f for f in set(files) if f != SPEC and ".venv" not in f.parts)


def test_every_rule_id_cited_in_the_project_is_defined() -> None:
    """Every rule ID cited in code, tests or docs (in a refusal's message, a test's name)
    is one that docs/rules.md defines. Section 11's letter is left out, since the same
    letter and a number also name a seat. An SVG path's data is left out: its commands
    (a letter and a number) are drawing, not rules."""
    defined = set(rule_ids(_rules_text()))
    cited: dict[str, set[str]] = {}
    for path in _project_files():
        # SVG path data ("M 5 5" and the like: move to a point) is drawing, not a citation
        text = re.sub(r'\bd="[^"]*"', "", path.read_text(encoding="utf-8"))
        for rule in re.findall(r"(?<![\w-])[CSTAWKNMUEX][1-9](?![\w+])", text):
            cited.setdefault(rule, set()).add(path.relative_to(ROOT).as_posix())
    assert {"K3", "U1", "W4", "X6"} <= set(cited)  # the scan does find citations
    undefined = {rule: sorted(files) for rule, files in cited.items() if rule not in defined}
    assert undefined == {}, f"rule IDs cited but not defined in docs/rules.md: {undefined}"


def test_every_rule_id_is_listed_with_a_test() -> None:
    """docs/rules-coverage.md lists every rule ID of docs/rules.md with at least one test."""
    ids = rule_ids(_rules_text())
    rows = _doc_rows()
    missing = [rule for rule in ids if not rows.get(rule)]
    assert missing == [], f"rule IDs without a listed test: {missing}"


def test_every_house_rule_has_a_test() -> None:
    """Every house rule of docs/rules.md is set by at least one scenario test."""
    names = house_rules(_rules_text())
    assert {"first_card", "stacking", "mercy_limit", "knockout_bonus_to", "target_score"} <= set(names)
    untested = [n for n, refs in house_rule_tests(names).items() if not refs]
    assert untested == [], f"house rules without a test: {untested}"


def test_every_rules_field_is_documented_with_its_default_and_presets() -> None:
    """Every field of ``Rules`` (read at run time) has a row in section 13's table whose
    default and preset values are the code's; every row is a field, every preset a column."""
    presets, rows = house_rule_table(_rules_text())
    fields = Rules.field_names()
    assert presets[0] == "no_mercy" and sorted(presets) == sorted(PRESETS)
    missing = [name for name in fields if name not in rows]
    assert missing == [], f"house rules missing from docs/rules.md section 13: {missing}"
    unknown = [name for name in rows if name not in fields]
    assert unknown == [], f"docs/rules.md documents house rules that Rules lacks: {unknown}"
    wrong = []
    for name in fields:
        row = rows[name]
        assert re.fullmatch(r"[A-Z][1-9](-[A-Z]?[1-9])?(, [A-Z][1-9](-[A-Z]?[1-9])?)*", row["rule"]), row
        for preset in presets:
            code = PRESETS[preset]
            if not _same_value(code, name, row[preset]):
                wrong.append(f"{name} in {preset}: doc {row[preset]}, code {getattr(code, name)!r}")
    assert wrong == [], "docs/rules.md section 13 disagrees with Rules:\n" + "\n".join(wrong)
    assert all(_same_value(Rules(), name, rows[name]["no_mercy"]) for name in fields)


def test_every_house_rule_is_named_in_its_rule() -> None:
    """Each house rule is named (in backticks) in the section of the first rule its row
    points to, so the table and the rules' own words cannot drift apart."""
    text = _rules_text()
    _, rows = house_rule_table(text)
    defined = set(rule_ids(text))
    sections = re.split(r"^## ", text, flags=re.M)
    for name, row in rows.items():
        cited = _ids_in(row["rule"])
        assert cited and cited <= defined, f"{name}: its rule column cites {sorted(cited - defined)}"
        first = row["rule"].split(",")[0].split("-")[0].strip()
        section = "".join(s for s in sections if f"- **{first} " in s)
        assert f"`{name}`" in section, f"{name}: not named in the section of {first}"


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
        DOC.write_text(render(_rules_text()), encoding="utf-8")
        print(f"wrote {DOC}")
    else:
        print(render(_rules_text()))
