"""E4: when a scored match ends, asked before the round is scored (Match.would_end)."""

from __future__ import annotations

import random

import pytest

from nomercy import Action, Match, Outcome, Rules


def _random_round(match: Match, rng: random.Random) -> tuple[list[tuple[int, Action]], Outcome]:
    """The actions of a random round played on a copy, and how that round ends."""
    probe = match.state.clone()
    actions: list[tuple[int, Action]] = []
    while probe.outcome is None:
        seat = probe.current_player
        assert seat is not None
        action = rng.choice(probe.legal_actions())
        probe.apply(action, seat)
        actions.append((seat, action))
    return actions, probe.outcome


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        (Rules(target_score=1000), 4),
        (Rules(target_score=600, knocked_out_return=False), 4),
        (Rules(target_score=100_000, knocked_out_return=False), 4),  # ends by elimination only
        (Rules.preset("classic").replace(target_score=150), 4),
    ],
    ids=["no_mercy", "eliminations", "last_one_left", "classic"],
)
def test_E4_would_end_says_what_scoring_the_round_does(rules: Rules, players: int) -> None:
    ended = continued = 0
    for seed in range(20):
        match = Match(players, rules, seed=seed)
        rng = random.Random(seed)
        while True:
            actions, outcome = _random_round(match, rng)
            before = match.to_json()
            verdict = match.would_end(outcome)
            assert match.to_json() == before  # asking changes nothing
            for seat, action in actions:
                match.apply(action, seat)
            assert match.state.outcome == outcome
            assert verdict == match.is_over, (seed, match.round_number, match.scores)
            if match.is_over:
                ended += 1
                break
            continued += 1
            match.next_round()
    assert ended == 20 and continued > 0


def test_would_end_refuses_an_outcome_of_another_table() -> None:
    match = Match(3, Rules(), seed=1)
    with pytest.raises(ValueError, match="3-seat match"):
        match.would_end(Outcome(0, "played_out", (), (10, 0)))
