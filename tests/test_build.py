"""Which build of the core runs: the plain sources, or the mypyc-compiled wheel.

``make test`` runs the suite on the editable install, where a stray compiled module left
in ``src/`` would silently run instead of the source being edited; ``make test-compiled``
runs the core's tests again on the compiled wheel (``NOMERCY_EXPECT_COMPILED=1``), where
a module quietly falling back to Python would hide a packaging fault.
"""

from __future__ import annotations

import os

import pytest

import nomercy
from nomercy import actions, cards, engine, state, views

EXPECT_COMPILED = os.environ.get("NOMERCY_EXPECT_COMPILED") == "1"


@pytest.mark.parametrize("module", [cards, actions, state, engine, views], ids=lambda m: m.__name__)
def test_core_module_runs_as_built(module: object) -> None:
    path = getattr(module, "__file__", "")
    assert path.endswith(".py") is not EXPECT_COMPILED, path
    assert nomercy.cards.COMPILED is EXPECT_COMPILED


def test_cards_and_actions_stay_immutable_in_either_build() -> None:
    card = nomercy.Card.parse("R7")
    with pytest.raises(AttributeError):
        card.color = nomercy.Color.BLUE  # type: ignore[misc]
    play = nomercy.Action.parse("play R7")
    with pytest.raises(AttributeError):
        play.uno = True  # type: ignore[misc]
    assert card.color is nomercy.Color.RED and str(play) == "play R7"


def test_cards_hash_and_compare_by_identity_in_either_build() -> None:
    red7, again = nomercy.Card.parse("R7"), nomercy.Card(nomercy.Color.RED, nomercy.Face.SEVEN)
    assert red7 is again and {red7: 1}[again] == 1
    blue7 = nomercy.Card.parse("B7")
    assert red7 != blue7 and sorted([blue7, red7], key=nomercy.Card.sort_key)[0] is red7
    with pytest.raises(TypeError):  # cards define no ordering: sort with an explicit key
        _ = red7 < blue7  # type: ignore[operator]


def test_a_non_action_is_refused_and_changes_nothing_in_either_build() -> None:
    """Plain Python refuses it as an unknown action; compiled code checks the argument's
    type first (TypeError). Either way the state is untouched."""
    state = nomercy.new_game(players=2, seed=3)
    before = state.to_json()
    with pytest.raises((nomercy.IllegalAction, TypeError)):
        state.apply("play R7")  # type: ignore[arg-type]
    assert state.to_json() == before
