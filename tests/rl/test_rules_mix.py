"""The house rules a training run plays (``nomercy.rl.rules_mix``, ``--rules``): the draw
of ``--rules mix`` is reproducible from the seed, keeps half of each table size's rows at
``no_mercy`` and yields only tables the encoding seats (``check_table``, S1, W7). numpy
alone: these run without the train extra (tests/rl/test_train_rules_mix.py trains)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")

from nomercy.encoding import check_table  # noqa: E402
from nomercy.rl.rules_mix import MIX_GROUPS, UNVARIED, draw_rules, row_groups, run_rules  # noqa: E402
from nomercy.rules import PRESETS, Rules  # noqa: E402


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_draw_is_reproducible_and_seats_its_table(players: int) -> None:
    """S1, W7: every drawn Rules passes check_table for its table size and deals."""
    seen: set[Rules] = set()
    for seed in range(25):
        groups = row_groups(48, players, seed, "mix")
        assert groups == row_groups(48, players, seed, "mix")
        assert groups[0] == (24, Rules())  # half the rows stay at no_mercy
        assert len(groups) == 1 + MIX_GROUPS and sum(k for k, _ in groups) == 48
        for _, rules in groups[1:]:
            assert rules != Rules()
            check_table(players, rules)
            assert players * rules.hand_size + 1 <= sum(n for _, n in rules.deck)
            assert all(getattr(rules, name) == getattr(Rules(), name) for name in UNVARIED) or any(
                rules == p for p in PRESETS.values()
            )
            seen.add(rules)
    assert len(seen) > 40  # many rule sets, not a few repeated
    assert PRESETS["classic"] in seen and PRESETS["classic_112"] not in seen  # W7: refused
    assert row_groups(48, players, 1, "mix") != row_groups(48, players, 2, "mix")


def test_the_draw_skips_what_the_table_refuses() -> None:
    """S1: a variation seating at most 3 never reaches a table of 4 or more."""
    rng = np.random.default_rng(0)
    for players in (4, 5, 6):
        assert all(draw_rules(rng, players).max_players >= players for _ in range(200))


def test_a_preset_plays_every_row_and_an_unknown_name_is_refused() -> None:
    assert row_groups(48, 3, 0, "no_mercy") == [(48, Rules())]
    assert row_groups(48, 3, 0, "classic") == [(48, PRESETS["classic"])]
    with pytest.raises(ValueError, match="W7"):
        run_rules("classic_112")
