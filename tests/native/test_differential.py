"""The native engine plays exactly the reference game (a second implementation, never a
second truth; docs/engine.md, "The native engine"): stepped side by side from the same
seeds, and from positions written into a table (reloaded and determinized ones), the
converted native table equals the reference state after every action and every seat's
legal actions are the same set.

CI runs it over about a million decisions in 50 batches, one per (rules, players), and
a few short games for every value of every house rule (``check.rule_variants``: the
``no_mercy`` and ``classic`` presets with one field changed, each field's every choice,
both of a flag, a few numbers); ``benchmarks/differential.py`` runs the same check at
any size, on several processes (``NOMERCY_DIFFERENTIAL_GAMES`` scales these tests too).
"""

from __future__ import annotations

import os

import pytest

from nomercy import Rules
from nomercy.testing import BASE_MIXES, deal_cases

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

from nomercy.native.check import Tally, check_games, rule_variants

#: Games per (rules, player count). The default, over the 50 cases, compares about 1.1
#: million decisions (about 160 s of CPU); NOMERCY_DIFFERENTIAL_GAMES=4 is a quick look.
GAMES = int(os.environ.get("NOMERCY_DIFFERENTIAL_GAMES", "120"))

#: Every mix but the 112-card deck's, whose Wild Shuffle Hands (W7) the native engine
#: refuses (tests/native/test_twins_refuse_w7.py).
MIXES = {**BASE_MIXES, "rlcard": Rules.preset("rlcard")}
CASES = deal_cases(MIXES)


@pytest.mark.parametrize(("mix", "players"), CASES, ids=[f"{m}-{p}p" for m, p in CASES])
def test_native_steps_equal_the_reference(mix: str, players: int) -> None:
    tally = check_games(MIXES[mix], players, range(1000 * players, 1000 * players + GAMES))
    assert tally.games == GAMES and tally.decisions >= GAMES


#: Decisions compared per (rule variant, player count), for each of about 70 variants and
#: two player counts: fresh seeds until this many (No Mercy rounds are short, often 30 to
#: 100 steps, so that is dozens of them), and at most ``VARIANT_STEPS`` of each game (the
#: long rounds of classic rules are a prefix). Half as many missed a wrong Uno penalty
#: and a wrong Uno timing fed to the kernels (catches are rare in random play); this many
#: found both, in about 20 s of CPU over all the variants.
VARIANT_DECISIONS = 16 * GAMES
VARIANT_STEPS = 300
BASES = {"no_mercy": Rules(), "classic": Rules.preset("classic")}
VARIANTS = {f"{base}:{label}": rules for base in BASES for label, rules in rule_variants(BASES[base]).items()}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_value_of_every_house_rule_plays_as_the_reference(variant: str) -> None:
    """One field off a preset's value at a time, so a rule the mixes never change alone
    (or a new one, which ``rule_variants`` takes from ``Rules``) is met all the same."""
    rules = VARIANTS[variant]
    for players in sorted({2, min(4, rules.max_players)}):
        if players * rules.hand_size + 1 > sum(n for _, n in rules.deck):
            continue
        tally = Tally()
        seed = 100 * players
        while tally.decisions < VARIANT_DECISIONS:
            check_games(rules, players, [seed], tally=tally, max_steps=VARIANT_STEPS)
            seed += 1
        assert tally.games == seed - 100 * players


def test_the_variants_play_every_value_rules_fields_declares() -> None:
    """Each choice of every choice field and both values of every flag (``Rules.fields()``)
    is played: as a variant off a base, or as a base's own value."""
    for field in Rules.fields():
        values = field.choices if field.choices is not None else (False, True) if field.type == "bool" else ()
        for value in values:
            label = f"{field.name}={value}"
            in_base = any(getattr(base, field.name) == value for base in BASES.values())
            in_variant = any(v.endswith(f":{label}") for v in VARIANTS)
            assert in_base or in_variant, f"the differential never plays {label}"


def test_the_check_finds_a_difference() -> None:
    """The check is not vacuous: a native table changed behind its back is reported."""
    from nomercy import new_game
    from nomercy.native import Batch
    from nomercy.native import layout as L
    from nomercy.native.check import Mismatch, _compare

    batch = Batch(Rules(), 1, 3)
    batch.deal(0, 11)
    ref = new_game(3, Rules(), 11)
    _compare(batch, 0, ref, "dealt")
    batch.tables[0, L.DIRECTION] = -1
    with pytest.raises(Mismatch, match="direction"):
        _compare(batch, 0, ref, "changed")
    batch.deal(0, 11)
    ref.apply(ref.legal_actions()[0])  # the reference moves on, the table does not
    with pytest.raises(Mismatch):
        _compare(batch, 0, ref, "behind")


def test_a_tally_counts_what_was_checked() -> None:
    tally = check_games(Rules(), 4, [3], reload_every=5, determinize_every=7, tally=Tally())
    assert tally.games == 1 and tally.decisions > 0
    assert tally.reloads >= tally.decisions // 7 - 1 and tally.determinized >= 1
