"""Every face of a house rule knows every field of ``Rules`` (DESIGN.md: a twin is checked
for completeness). ``Rules.fields()`` is the one list; each face here is read as it is
shown or checked elsewhere (the server's options, the create form's groups, ``nomercy
rules``, section 13 of ``docs/rules.md``, the native engine's declarations, the
differential's variants, the catalogs' words in English and Norwegian) and must name
every field with the same group, rule ID, key and choices. A new house rule is then one
field with its metadata, and the faces that do not know it fail here; the last test shows
that each face does fail on a field it has never heard of.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from nomercy.rules import GROUPS, PRESETS, RuleField, Rules

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "src" / "nomercy" / "i18n" / "catalogs"
LOBBY = ROOT / "src" / "nomercy" / "web" / "js" / "lobby.js"

#: What a face says of each field it knows: name -> {attribute: value}.
Seen = dict[str, dict[str, object]]


def _on_form(field: RuleField) -> bool:
    """The host's form sets every rule but the deck (a table takes a preset's deck)."""
    return field.type != "deck"


# -- the faces ------------------------------------------------------------------------------


def server_options() -> Seen:
    pytest.importorskip("fastapi")
    from nomercy.server.base.options import rules_options

    return {
        r["name"]: {
            "group": r["group"],
            "rule_id": r["rule_id"],
            "key": r["key"],
            "type": r["type"],
            "choices": tuple(r["choices"]) if r["choices"] else None,
            "default": r["default"],
        }
        for r in rules_options()
    }


def form_groups() -> Seen:
    """The create form's fieldsets, as lobby.js's ``ruleGroups`` makes them from the
    server's options (run by Node)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    pytest.importorskip("fastapi")
    from nomercy.server.base.options import rules_options

    script = (
        f"import {{ ruleGroups }} from {json.dumps(LOBBY.as_uri())};\n"
        f"const groups = ruleGroups({json.dumps(rules_options())});\n"
        "console.log(JSON.stringify(groups.map(([g, rs]) => [g, rs.map((r) => r.name)])));\n"
    )
    out = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True, timeout=60
    )
    groups: list[tuple[str, list[str]]] = json.loads(out.stdout)
    order = [g for g, _ in groups]
    assert order == [g for g in GROUPS if g in order], f"the form's groups out of the core's order: {order}"
    assert len(order) == len(set(order)), f"a group shown twice: {order}"
    return {name: {"group": group} for group, names in groups for name in names}


def cli_rules() -> Seen:
    from typer.testing import CliRunner

    from nomercy.cli import app

    result = CliRunner(env={"COLUMNS": "400"}).invoke(app, ["rules"])
    assert result.exit_code == 0, result.output
    seen: Seen = {}
    for line in result.output.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) == 6 and re.fullmatch(r"[a-z0-9_]+", cells[2]) and cells[2] != "rule":
            seen[cells[2]] = {"group": cells[1], "rule_id": cells[4].partition(":")[0]}
    return seen


def docs_table() -> Seen:
    """Section 13 of docs/rules.md: each row's rule column and the choices it lists."""
    from rules.test_coverage_doc import SPEC, house_rule_table

    _, rows = house_rule_table(SPEC.read_text(encoding="utf-8"))
    seen: Seen = {}
    for name, row in rows.items():
        values = row["values"]
        # Only a row that lists its choices alone: no flag, no number, no deck table.
        listed = values != "`true`, `false`" and "whole number" not in values and "table" not in values
        seen[name] = {
            "rule_id": row["rule"],
            "choices": frozenset(re.findall(r'`"([^"`]*)"`', values)) if listed else None,
            "nullable": "`null`" in values,
        }
    return seen


def native_declarations() -> Seen:
    """The fields the native engine encodes or says why it need not, and for an encoded
    choice field the choices its encoder takes (a new choice must be given a code)."""
    pytest.importorskip("numpy")
    from nomercy.native import layout

    choices = {f.name: f.choices for f in Rules.fields() if f.choices is not None}
    seen: Seen = {name: {} for name in layout.NOT_ENCODED}
    for name, (_, code) in layout.ENCODED.items():
        seen[name] = {}
        if name in choices:
            seen[name]["choices"] = frozenset(c for c in choices[name] if _encodes(code, c))
    return seen


def _encodes(code: Callable[[Any], int], value: object) -> bool:
    try:
        code(value)
    except ValueError:
        return False
    return True


def differential_variants() -> Seen:
    """The fields the differential changes, one at a time, off either base it plays."""
    pytest.importorskip("numpy")
    from nomercy.native.check import rule_variants

    bases = (Rules(), Rules.preset("classic"))
    return {label.partition("=")[0]: {} for base in bases for label in rule_variants(base)}


def catalog_words(lang: str) -> Seen:
    """The house rules a language has words for: a label, a help line, each value's name."""
    keys: set[str] = set()
    for part in CATALOGS.joinpath(lang).glob("*.json"):
        keys |= set(json.loads(part.read_text(encoding="utf-8")))
    seen: Seen = {}
    for key in keys:
        found = re.fullmatch(r"rule\.(\w+)\.label", key)
        if found and f"rule.{found.group(1)}.help" in keys:
            name = found.group(1)
            values = frozenset(k.rpartition(".")[2] for k in keys if k.startswith(f"rule.{name}.value."))
            seen[name] = {"key": f"rule.{name}", "choices": values or None}
    return seen


#: face -> (what it knows, which fields it must know, what it says of one).
FACES: dict[str, tuple[Callable[[], Seen], Callable[[RuleField], bool], Callable[[RuleField], Seen]]] = {
    "server options": (
        server_options,
        _on_form,
        lambda f: {
            f.name: {
                "group": f.group,
                "rule_id": f.rule_id,
                "key": f.key,
                "type": f.type,
                "choices": f.choices,
                "default": f.default,
            }
        },
    ),
    "create form": (form_groups, _on_form, lambda f: {f.name: {"group": f.group}}),
    "nomercy rules": (
        cli_rules,
        lambda f: True,
        lambda f: {f.name: {"group": f.group, "rule_id": f.rule_id}},
    ),
    "docs/rules.md": (
        docs_table,
        lambda f: True,
        lambda f: {
            f.name: {
                "rule_id": f.rule_id,
                "choices": frozenset(f.choices) if f.choices else None,
                "nullable": f.nullable,
            }
        },
    ),
    "native layout": (
        native_declarations,
        lambda f: True,
        lambda f: {f.name: {"choices": frozenset(f.choices)} if f.choices else {}},
    ),
    "differential": (differential_variants, lambda f: True, lambda f: {f.name: {}}),
    "catalog en": (
        lambda: catalog_words("en"),
        lambda f: True,
        lambda f: {f.name: {"key": f.key, "choices": frozenset(f.choices) if f.choices else None}},
    ),
    "catalog nb": (
        lambda: catalog_words("nb"),
        lambda f: True,
        lambda f: {f.name: {"key": f.key, "choices": frozenset(f.choices) if f.choices else None}},
    ),
}


def disagreements(face: str, fields: Sequence[RuleField], seen: Seen | None = None) -> list[str]:
    """What ``face`` gets wrong about ``fields``: a field it lacks, a name it knows that is no
    field, an attribute it shows otherwise than ``Rules.fields()``."""
    read, must_know, says = FACES[face]
    seen = read() if seen is None else seen
    wanted: Seen = {}
    for f in fields:
        if must_know(f):
            wanted.update(says(f))
    out = [f"{face} does not know {name}" for name in wanted if name not in seen]
    out += [f"{face} knows {name}, which is no house rule" for name in seen if name not in wanted]
    for name in wanted.keys() & seen.keys():
        for attr, value in wanted[name].items():
            if seen[name].get(attr) != value:
                out.append(f"{face}: {name}.{attr} is {seen[name].get(attr)!r}, Rules says {value!r}")
    return out


@pytest.mark.parametrize("face", sorted(FACES))
def test_every_face_knows_every_house_rule(face: str) -> None:
    problems = disagreements(face, Rules.fields())
    assert problems == [], "\n".join(problems)


def test_a_field_no_face_has_heard_of_fails_every_face() -> None:
    """The check is not vacuous: a new house rule (and a removed one) fails each face."""
    jump_in = RuleField(
        "jump_in", "bool", None, False, False, None, "special", "T4", "rule.jump_in", "T4: jump in"
    )
    fields = Rules.fields()
    for face in FACES:
        read = FACES[face][0]
        seen = read()
        assert f"{face} does not know jump_in" in disagreements(face, (*fields, jump_in), seen), face
        assert f"{face} knows stacking, which is no house rule" in disagreements(
            face, [f for f in fields if f.name != "stacking"], seen
        ), face


def test_a_new_choice_fails_each_face_that_lists_choices_of_its_own() -> None:
    """S3: a choice added to ``first_card`` needs its row in the docs, its words and its
    native code (the server and the form take the choices from ``Rules.fields()``)."""
    fields = [
        dataclasses.replace(f, choices=(*f.choices, "shuffle_back"))
        if f.name == "first_card" and f.choices
        else f
        for f in Rules.fields()
    ]
    for face in ("docs/rules.md", "native layout", "catalog en", "catalog nb"):
        problems = disagreements(face, fields)
        assert [p for p in problems if p.startswith(f"{face}: first_card.choices")] == problems != [], face


def test_the_metadata_is_whole() -> None:
    """Each field has a group of GROUPS, a rule ID its doc starts with, its catalog key,
    choices exactly where its type is a choice (its default one of them), and a minimum
    exactly where it is a whole number, which each preset keeps; every group is used."""
    fields = Rules.fields()
    assert [f.name for f in fields] == [f.name for f in dataclasses.fields(Rules)]
    assert {f.group for f in fields} == set(GROUPS)
    for f in fields:
        assert f.doc.startswith(f"{f.rule_id}: ") and f.key == f"rule.{f.name}", f
        assert (f.choices is not None) == (f.type == "choice"), f
        assert (f.minimum is not None) == (f.type == "int"), f
        if f.choices is not None:
            assert f.default in f.choices and len(set(f.choices)) == len(f.choices) >= 2, f
        for preset in PRESETS.values():
            value: Any = getattr(preset, f.name)
            if f.type == "int" and not (f.nullable and value is None):
                assert isinstance(value, int) and value >= (f.minimum or 0), f


def test_the_catalogs_name_every_group() -> None:
    for lang in ("en", "nb"):
        keys: set[str] = set()
        for part in CATALOGS.joinpath(lang).glob("*.json"):
            keys |= set(json.loads(part.read_text(encoding="utf-8")))
        groups = {k.removeprefix("rules.group.") for k in keys if k.startswith("rules.group.")}
        assert groups == set(GROUPS), lang


def test_the_choices_validate_and_the_minimum_is_the_least_accepted() -> None:
    """K5/S1: ``Rules`` accepts exactly the choices and whole numbers its fields declare."""
    from nomercy.errors import InvalidRules

    base = Rules(mercy_limit=None, hand_size=1)
    for f in Rules.fields():
        if f.choices is not None:
            for choice in f.choices:
                assert getattr(base.replace(**{f.name: choice}), f.name) == choice
            with pytest.raises(InvalidRules, match=f.name):
                base.replace(**{f.name: "no_such_choice"})
        if f.minimum is not None:
            assert getattr(base.replace(**{f.name: f.minimum}), f.name) == f.minimum
            with pytest.raises(InvalidRules, match=f.name):
                base.replace(**{f.name: f.minimum - 1})
