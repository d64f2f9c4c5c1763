"""The ``rlcard`` preset and the house rule it needed (``two_player_reverse``, A2/P1).

The preset exists so that the benchmark compares our engine with RLCard's UNO on the
same game (``benchmarks/README.md`` lists what still differs). Where RLCard is installed
(the ``bench`` extra), its own legal-action lists are checked against ours.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import nomercy
from nomercy import Action, GameState, InvalidRules, InvalidState, Rules


def _state(rules: Rules, hands: list[str], discard: str, **fields: Any) -> GameState:
    return GameState.from_dict(
        {
            "rules": rules.to_dict(only_changes=True),
            "hands": [h.split() for h in hands],
            "discard_pile": discard.split(),
            "draw_pile": ["G1", "G2", "G3", "G4"],
            "current": 0,
            **fields,
        }
    )


@pytest.mark.parametrize(("value", "after"), [("self", 0), ("opponent", 1)])
def test_a2_p1_two_player_reverse(value: str, after: int) -> None:
    """A2/P1: with 2 players a Reverse is a Skip by default; 'opponent' only reverses."""
    rules = Rules.preset("classic").replace(two_player_reverse=value)
    state = _state(rules, ["RR R5 B7", "Y1 Y2"], "R3")
    state.apply(Action.parse("play RR"))
    assert state.direction == -1
    assert state.current_player == after


def test_a2_two_player_reverse_leaves_three_players_alone() -> None:
    """A2: with 3 players the next seat in the new direction plays, whatever the value."""
    for value in ("self", "opponent"):
        state = _state(Rules().replace(two_player_reverse=value), ["RR R5 B7", "Y1 Y2", "G1 G2"], "R3")
        state.apply(Action.parse("play RR"))
        assert state.current_player == 2


def test_a2_two_player_reverse_after_knockouts_counts_active_players() -> None:
    """A2/M3: two players left of three play as two: 'self' gives the turn back."""
    state = _state(Rules(), ["RR R5 B7", "", "G1 G2"], "R3", knocked_out=[1])
    state.apply(Action.parse("play RR"))
    assert state.current_player == 0


def test_two_player_reverse_is_validated() -> None:
    with pytest.raises(InvalidRules, match="two_player_reverse"):
        Rules(two_player_reverse="skip")  # type: ignore[arg-type]


def test_rlcard_preset_is_classic_with_rlcards_choices() -> None:
    """The rlcard preset keeps RLCard's game exactly, whatever the official classic preset
    becomes: the classic deck, RLCard's rule values, and where they differ from classic."""
    classic = Rules.preset("classic")
    rl = Rules.preset("rlcard")
    assert rl.deck == classic.deck and len(nomercy.full_deck(rl)) == 108
    assert rl.to_dict(only_changes=True) == {
        "deck": "classic",
        "first_card": "apply",
        "draw_rule": "one",
        "stacking": False,
        "seven_zero": False,
        "mercy_limit": None,
        "uno_calls": False,
        "two_player_reverse": "opponent",
        "last_card_draw": "apply",
        "target_score": 500,
        "wild_draw4_restricted": True,
        "play_drawn_at_once": True,
    }
    changed = {k for k, v in rl.to_dict().items() if classic.to_dict()[k] != v}
    assert changed == {
        "first_card",
        "must_play_drawn",
        "draw_when_playable",
        "wild_draw4_restricted",
        "wild_draw4_challenge",
        "uno_calls",
        "two_player_reverse",
        "play_drawn_at_once",
    }


def test_rlcard_preset_plays_out() -> None:
    """Random games end with a winner and never offer Uno calls or catches (uno_calls off)."""
    rules = Rules.preset("rlcard")
    rng = random.Random(5)
    for seed in range(40):
        state = nomercy.new_game(2, rules, seed)
        while not state.is_over:
            legal = state.legal_actions()
            assert all(not a.out_of_turn and not getattr(a, "uno", False) for a in legal)
            state.apply(rng.choice(legal))
        assert state.outcome is not None


# -- RLCard's own legal actions, where it is installed ----------------------------------

_TRAITS = {"skip": "S", "reverse": "R", "draw_2": "+2"}


def _ours(text: str) -> str:
    """RLCard's action string ('r-7', 'g-wild_draw_4', 'draw') in our text form."""
    if text == "draw":
        return "draw"
    color, trait = text.split("-")
    if trait in ("wild", "wild_draw_4"):
        return f"play {'W' if trait == 'wild' else 'W+4'} {color.upper()}"
    return f"play {color.upper()}{_TRAITS.get(trait, trait)}"


def _code(card: Any) -> str:
    if card.type == "wild":
        return "W" if card.trait == "wild" else "W+4"
    return card.color.upper() + _TRAITS.get(card.trait, card.trait)


def test_t1_rlcard_preset_matches_rlcards_legal_actions() -> None:
    """T1/T3 with wild_draw4_restricted: in RLCard's own positions both engines offer the same plays."""
    rlcard = pytest.importorskip("rlcard")
    env = rlcard.make("uno", config={"seed": 11})
    rng = random.Random(11)
    rules = Rules.preset("rlcard")
    compared = 0
    for _ in range(60):
        env.reset()
        game = env.game
        while not game.is_over():
            seat = game.round.current_player
            theirs = {_ours(a) for a in game.get_legal_actions()}
            target = game.round.target
            # Both hands: a seat still in the round holds cards (E1).
            hands = [" ".join(_code(c) for c in game.players[p].hand) for p in (0, 1)]
            try:
                state = _state(
                    rules, hands, _code(target), current=seat, color=target.color.upper(), draw_pile=[]
                )
            except InvalidState:  # RLCard's reshuffle can duplicate the top card; skip those
                state = None
            if state is not None:
                assert {str(a) for a in state.legal_actions()} == theirs
                compared += 1
            env.step(rng.choice(list(env._get_legal_actions())))
    assert compared > 1000
