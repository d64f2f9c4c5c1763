"""Every house rule reaches the native engine or is declared not to (docs/engine.md, "The
native engine": the Python engine stays the reference, the native one must match it):
``layout.ENCODED`` and ``layout.NOT_ENCODED`` together name every ``Rules`` field, once,
so a new house rule fails here until the native side says what it does with it; the
differential (``test_differential.py``) then plays every value of every field."""

from __future__ import annotations

import numpy as np
import pytest

from nomercy import Rules
from nomercy.errors import InvalidRules
from nomercy.native import layout as L
from nomercy.native.check import field_values, rule_variants

BASES = {"no_mercy": Rules(), "classic": Rules.preset("classic")}


def _undeclared(fields: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """(fields declared nowhere, declared names that are no field, names declared twice)."""
    encoded, ignored = set(L.ENCODED), set(L.NOT_ENCODED)
    return (
        sorted(set(fields) - encoded - ignored),
        sorted((encoded | ignored) - set(fields)),
        sorted(encoded & ignored),
    )


def test_every_rules_field_is_encoded_or_declared_not_encoded() -> None:
    missing, unknown, twice = _undeclared(Rules.field_names())
    assert missing == [], (
        f"Rules fields the native engine does not declare (layout.ENCODED/NOT_ENCODED): {missing}"
    )
    assert unknown == [], f"layout declares names that are no Rules field: {unknown}"
    assert twice == [], f"declared both encoded and not encoded: {twice}"
    assert all(reason.strip() for reason in L.NOT_ENCODED.values())


def test_the_completeness_check_fails_on_a_new_or_a_removed_field() -> None:
    fields = tuple(f for f in Rules.field_names() if f != "stacking")
    assert _undeclared((*fields, "jump_in")) == (["jump_in"], ["stacking"], [])


def test_every_encoded_rule_has_a_slot_of_its_own() -> None:
    slots = [slot for slot, _ in L.ENCODED.values()]
    assert len(set(slots)) == len(slots) and all(0 <= s < L.NUM_RULES for s in slots)


@pytest.mark.parametrize("base", sorted(BASES))
def test_each_value_of_an_encoded_rule_reaches_its_slot(base: str) -> None:
    """Changing one field changes its own slot, to a value no other choice of it has, and
    no slot but its own and its companions'; a field declared not encoded changes none."""
    rules = BASES[base]
    before = L.encode_rules(rules)
    seen: dict[str, set[int]] = {}
    for label, variant in rule_variants(rules).items():
        name = label.partition("=")[0]
        after = L.encode_rules(variant)
        changed = {int(i) for i in np.flatnonzero(after != before)}
        others = {
            L.ENCODED[f][0] for f in L.ENCODED if getattr(variant, f) != getattr(rules, f) and f != name
        }
        if name in L.NOT_ENCODED:
            assert changed == others == set(), label
            continue
        slot = L.ENCODED[name][0]
        assert slot in changed and changed - {slot} <= others, label
        codes = seen.setdefault(name, {int(before[slot])})
        assert int(after[slot]) not in codes, f"{label} encodes like another value of {name}"
        codes.add(int(after[slot]))


def test_the_differential_has_values_for_every_field_and_plays_each_somewhere() -> None:
    for name in Rules.field_names():
        assert len(field_values(name)) >= 2, name
    for rule in Rules.fields():  # every choice Rules accepts, none more
        if rule.choices is not None:
            assert field_values(rule.name) == rule.choices, rule.name
    covered = {label.partition("=")[0] for base in BASES.values() for label in rule_variants(base)}
    assert covered == set(Rules.field_names())


def test_an_enum_choice_the_native_engine_does_not_know_fails_to_encode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new choice of an existing field cannot slip past as some other choice."""
    rules = Rules()
    object.__setattr__(rules, "first_card", "shuffle_back")
    with pytest.raises(InvalidRules, match=r"first_card: the native engine plays .*, not 'shuffle_back'"):
        L.encode_rules(rules)
