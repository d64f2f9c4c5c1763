"""One seed derivation for the whole project (nomercy.seeding.derive_seed)."""

from __future__ import annotations

import doctest
import random

import pytest

import nomercy.seeding
from nomercy.match import round_seed
from nomercy.seeding import derive_seed
from nomercy.sim.runner import bot_seed, game_seed


def test_derived_seeds_keep_the_formula_that_saved_games_and_results_depend_on() -> None:
    """A saved match deals its next round, and a published run replays, only while the
    derivation stays what it was: ``Random("nomercy-KIND:PARTS").getrandbits(63)``."""
    for kind, parts in [("match", (7, 1)), ("sim", (0, 12)), ("bot", (2**62, 3)), ("tournament", (1, 0))]:
        text = f"nomercy-{kind}:" + ":".join(map(str, parts))
        assert derive_seed(kind, *parts) == random.Random(text).getrandbits(63)
    assert round_seed(7, 1) == derive_seed("match", 7, 1)
    assert game_seed(0, 12) == derive_seed("sim", 0, 12)
    assert bot_seed(5, 2) == derive_seed("bot", 5, 2)


def test_kinds_and_parts_give_independent_seeds() -> None:
    seeds = {derive_seed(kind, a, b) for kind in ("match", "sim", "bot") for a in range(5) for b in range(5)}
    assert len(seeds) == 75
    assert all(0 <= s < 2**63 for s in seeds)
    assert derive_seed("sim", 1, 23) != derive_seed("sim", 12, 3)  # parts are separated


@pytest.mark.parametrize("kind", ["", "a:b"])
def test_a_bad_kind_is_refused(kind: str) -> None:
    with pytest.raises(ValueError, match="seed kind"):
        derive_seed(kind, 1)


def test_the_module_docstring_example_runs() -> None:
    result = doctest.testmod(nomercy.seeding)
    assert result.attempted > 0 and result.failed == 0
