"""House rules for training: one preset for every row, or a mix drawn from the seed.

``python -m nomercy.rl.train --rules NAME`` plays every row at a preset (``no_mercy``, the
default, ``classic`` or ``rlcard``); ``--rules mix`` keeps half of each table size's rows
at ``no_mercy`` and gives the other half, in :data:`MIX_GROUPS` groups, a Rules each drawn
by :func:`draw_rules`: another preset or a variation of ``no_mercy``, one to
:data:`MAX_CHANGES` fields changed to values the differential tests play
(:func:`nomercy.native.check.field_values`; not the :data:`UNVARIED` ones). A draw the RL tables cannot seat
(:func:`~nomercy.encoding.check_table`), that ``Rules`` refuses, or whose deal does not fit
the deck, is drawn again, so every draw plays.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from nomercy.encoding import check_table
from nomercy.errors import InvalidRules
from nomercy.rules import PRESETS, Rules

__all__ = [
    "MIX",
    "MIX_GROUPS",
    "MIX_PRESET_SHARE",
    "MIX_SHARE",
    "UNVARIED",
    "draw_rules",
    "row_groups",
    "run_rules",
]

#: The ``--rules`` value that draws a mix.
MIX: Final = "mix"
#: Share of each table size's rows that play a drawn Rules (the rest play ``no_mercy``).
MIX_SHARE: Final = 0.5
#: Groups of drawn rows per table size, each its own Rules.
MIX_GROUPS: Final = 4
#: Share of the draws that are another whole preset (the rest vary ``no_mercy``).
MIX_PRESET_SHARE: Final = 0.25
#: Most fields one variation of ``no_mercy`` changes.
MAX_CHANGES: Final = 3
#: Fields a variation leaves alone: they change no round (a match's scoring and who is
#: dealt back in) or only who may sit at the table.
UNVARIED: Final = ("max_players", "target_score", "knockout_bonus_to", "knocked_out_return")


def run_rules(name: str) -> Rules | None:
    """The Rules of every row for ``--rules name`` (a preset name or alias), or ``None``
    for the mix; :class:`ValueError` for a name that is neither or a preset the tables
    cannot seat (``classic_112``'s Wild Shuffle Hands)."""
    if name == MIX:
        return None
    try:
        rules = Rules.preset(name)
    except InvalidRules as e:
        raise ValueError(f"--rules: {MIX!r} or a preset: {e}") from None
    check_table(2, rules)
    return rules


def _seats(players: int, rules: Rules) -> bool:
    """Whether a table of ``players`` can play ``rules``: the encoding seats it and the deal fits."""
    try:
        check_table(players, rules)
    except ValueError:
        return False
    return players * rules.hand_size + 1 <= sum(n for _, n in rules.deck)


def _variation(rng: np.random.Generator) -> Rules:
    """``no_mercy`` with one to :data:`MAX_CHANGES` fields changed (may raise InvalidRules)."""
    from nomercy.native.check import field_values  # every value the differential plays

    names = [f.name for f in Rules.fields() if f.name not in UNVARIED]
    base = Rules()
    changes: dict[str, Any] = {}
    for i in rng.choice(len(names), size=int(rng.integers(1, MAX_CHANGES + 1)), replace=False):
        name = names[int(i)]
        values = [v for v in field_values(name) if v != getattr(base, name)]
        changes[name] = values[int(rng.integers(len(values)))]
    return base.replace(**changes)


def draw_rules(rng: np.random.Generator, players: int) -> Rules:
    """One Rules other than ``no_mercy`` that a table of ``players`` plays: a preset
    (:data:`MIX_PRESET_SHARE` of the draws) or a variation of ``no_mercy``."""
    presets = sorted(k for k, r in PRESETS.items() if r != Rules() and _seats(players, r))
    while True:
        if rng.random() < MIX_PRESET_SHARE:
            rules = PRESETS[presets[int(rng.integers(len(presets)))]]
        else:
            try:
                rules = _variation(rng)
            except InvalidRules:
                continue
        if rules != Rules() and _seats(players, rules):
            return rules


def row_groups(rows: int, players: int, seed: int, name: str) -> list[tuple[int, Rules]]:
    """The rows of one table size as (rows, Rules) groups for ``--rules name``: one group
    at a preset, or for the mix :data:`MIX_SHARE` of them in :data:`MIX_GROUPS` drawn
    groups after a ``no_mercy`` group, drawn from ``seed`` and ``players``."""
    rules = run_rules(name)
    if rules is not None:
        return [(rows, rules)]
    rng = np.random.default_rng([seed, players])
    drawn = round(rows * MIX_SHARE)
    groups = min(MIX_GROUPS, drawn)
    out = [(rows - drawn, Rules())] if rows > drawn else []
    out += [(drawn // groups + (g < drawn % groups), draw_rules(rng, players)) for g in range(groups)]
    return out
