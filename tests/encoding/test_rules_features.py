"""The house rules as an input (the observation's ``rules`` section, encoding 3): every
field of :class:`~nomercy.Rules` is encoded or left out with a reason, each encoded field's
entries follow that field alone, and every encoder writes the same numbers."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from nomercy import Rules
from nomercy.cards import CLASSIC_DECK
from nomercy.encoding import OBS_SECTIONS, OBS_SIZE
from nomercy.encoding.rules import LEFT_OUT, RULES_FEATURES, RULES_SIZE, SCALES, rules_features
from nomercy.errors import InvalidRules
from nomercy.rules import RuleField

FIELDS = {f.name: f for f in Rules.fields()}
ENCODED = {f.name: f for f in RULES_FEATURES}


def _other_values(rule: RuleField) -> list[Any]:
    """Values of ``rule`` other than its default, each valid on some base rules."""
    if rule.type == "bool":
        return [not rule.default]
    if rule.type == "choice":
        assert rule.choices is not None
        return [c for c in rule.choices if c != rule.default]
    if rule.type == "deck":
        return [CLASSIC_DECK]
    assert isinstance(rule.default, int)
    return [rule.default + 1, *([None] if rule.nullable else [])]


def _changed(name: str, value: Any) -> tuple[Rules, Rules]:
    """Base rules and the same with ``name`` set to ``value``: the default rules, or those
    without stacking where a rule needs that (W6)."""
    for base in (Rules(), Rules(stacking=False), Rules.preset("classic").replace(wild_draw4_challenge=False)):
        try:
            return base, base.replace(**{name: value})
        except InvalidRules:
            continue
    raise AssertionError(f"no base rules take {name}={value!r}")


def _cases() -> list[Any]:
    return [
        pytest.param(name, value, id=f"{rule.rule_id} {name}={value if rule.type != 'deck' else 'classic'}")
        for name, rule in FIELDS.items()
        for value in _other_values(rule)
    ]


def test_every_rules_field_is_encoded_or_left_out_with_a_reason() -> None:
    """A new house rule fails here until the encoding gives it entries or a reason."""
    assert set(ENCODED) | set(LEFT_OUT) == set(FIELDS)
    assert not set(ENCODED) & set(LEFT_OUT)
    assert all(reason.strip() for reason in LEFT_OUT.values())
    assert [f.name for f in RULES_FEATURES] == [n for n in FIELDS if n in ENCODED]  # declaration order


def test_the_features_tile_the_section() -> None:
    starts = [f.start for f in RULES_FEATURES]
    assert starts[0] == 0
    assert all(f.stop == g.start for f, g in itertools.pairwise(RULES_FEATURES))
    assert RULES_FEATURES[-1].stop == RULES_SIZE == len(rules_features(Rules()))


def test_the_rules_section_comes_last_so_the_others_keep_their_offsets() -> None:
    last = OBS_SECTIONS[-1]
    assert last.name == "rules" and last.size == RULES_SIZE and last.stop == OBS_SIZE
    assert "nomercy.encoding.rules" in last.meaning


@pytest.mark.parametrize(("name", "value"), _cases())
def test_a_fields_entries_follow_that_field_alone(name: str, value: Any) -> None:
    """Changing one house rule changes its own entries (none of another field's); a field
    left out changes nothing."""
    base, changed = _changed(name, value)
    before, after = rules_features(base), rules_features(changed)
    if name in LEFT_OUT:
        assert before == after
        return
    own = ENCODED[name]
    assert before[own.start : own.stop] != after[own.start : own.stop]
    others = [i for i in range(RULES_SIZE) if not own.start <= i < own.stop]
    assert [before[i] for i in others] == [after[i] for i in others]


@pytest.mark.parametrize("name", [n for n, r in FIELDS.items() if r.type == "choice" and n in ENCODED])
def test_a_choice_is_one_hot(name: str) -> None:
    own = ENCODED[name]
    choices = FIELDS[name].choices
    assert choices is not None and own.size == len(choices)
    for i, choice in enumerate(choices):
        try:
            _, rules = _changed(name, choice)
        except AssertionError:
            continue
        entries = rules_features(rules)[own.start : own.stop]
        assert entries == [1.0 if j == i else 0.0 for j in range(own.size)]


def test_numbers_are_scaled_and_mercy_limit_says_whether_it_is_set() -> None:
    """S2 hand_size, U2 uno_penalty and M1 mercy_limit stay near [0, 1]; M1's None is 'not set'."""
    mercy = ENCODED["mercy_limit"]
    on = rules_features(Rules(mercy_limit=25))[mercy.start : mercy.stop]
    off = rules_features(Rules(mercy_limit=None))[mercy.start : mercy.stop]
    assert on == [1.0, 25 / SCALES["mercy_limit"]] and off == [0.0, 0.0]
    for name in ("hand_size", "uno_penalty"):
        entry = ENCODED[name].start
        assert rules_features(Rules())[entry] == getattr(Rules(), name) / SCALES[name]
    for preset in ("no_mercy", "classic", "rlcard"):
        entries = rules_features(Rules.preset(preset))
        assert 0.0 <= min(entries) <= max(entries) <= 2.0


def test_the_deck_is_the_copies_of_each_card_kind() -> None:
    """C3: the deck's entries sum to its cards / 4, for the no_mercy and classic decks."""
    deck = ENCODED["deck"]
    for rules in (Rules(), Rules.preset("classic")):
        entries = rules_features(rules)[deck.start : deck.stop]
        assert sum(entries) * 4 == sum(n for _, n in rules.deck)
