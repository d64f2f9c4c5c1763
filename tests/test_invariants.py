"""Invariants that must hold in every position of thousands of seeded random games.

The checks themselves are the public :func:`nomercy.testing.check_random_games` (its
docstring lists them: card conservation, the Mercy limit, legal actions, refusals, views,
JSON round trip, clones, replay). Here they run for both presets, for 2-6 players and for
the house-rule mixes of :data:`nomercy.testing.RULE_MIXES`; the costlier checks (illegal
actions, views, forks) on a subset of games so that this file stays well under 90 s on
one core. The last tests show that the checker does catch a broken invariant.
"""

from __future__ import annotations

import doctest
import random
from dataclasses import replace

import pytest

import nomercy.testing
from nomercy import Action, GameState, Rules, new_game
from nomercy.errors import IllegalAction
from nomercy.testing import (
    LIGHT,
    RULE_MIXES,
    Checks,
    InvariantError,
    RandomPlayer,
    check_random_games,
    check_refusal,
)

PLAYERS = (2, 3, 4, 5, 6)
PRESETS = ("no_mercy", "classic", "classic_112")
#: Every mix that is not a preset: each keeps every invariant too.
MIXES = sorted(name for name in RULE_MIXES if name not in PRESETS)

CASES = [(name, p) for name in PRESETS for p in PLAYERS]
LIGHT_GAMES = 150  # per preset and player count: 1500 games with the every-step checks
HEAVY_GAMES = 6  # per preset and player count, with every check at every step
HEAVY = Checks(illegal_per_step=8, views=True, fork_every=25, catch_rate=0.0)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_random_games_keep_every_invariant(preset: str, players: int) -> None:
    """C3, M1, T4, E1: thousands of random games, checked after every step."""
    summary = check_random_games(RULE_MIXES[preset], players, LIGHT_GAMES, seed=0, checks=LIGHT)
    assert summary.games == LIGHT_GAMES == sum(summary.winners.values())
    assert set(summary.winners) <= set(range(players))
    assert summary.steps > LIGHT_GAMES


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_illegal_actions_views_and_forks(preset: str, players: int) -> None:
    """Refused actions change nothing; views hide other hands; JSON and clones play on."""
    summary = check_random_games(RULE_MIXES[preset], players, HEAVY_GAMES, seed=1000, checks=HEAVY)
    assert summary.refusals >= 8 * summary.steps


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_out_of_turn_catches(preset: str, players: int) -> None:
    """U2: catches (and late Uno calls) by non-deciding seats, injected at random."""
    check_random_games(RULE_MIXES[preset], players, 40, seed=2000, checks=replace(LIGHT, catch_rate=0.5))


@pytest.mark.parametrize("name", MIXES)
@pytest.mark.parametrize("players", PLAYERS)
def test_house_rules_combined(name: str, players: int) -> None:
    """Several non-default house rules at once keep every invariant."""
    rules = RULE_MIXES[name]
    check_random_games(rules, players, 25, seed=3000, checks=replace(LIGHT, catch_rate=0.3))
    check_random_games(rules, players, 2, seed=3100, checks=replace(HEAVY, illegal_per_step=6, fork_every=20))


def test_catches_happen_and_late_calls_happen() -> None:
    """The catch injection really exercises U2 (else the tests above would prove little)."""
    summary = check_random_games(Rules(), 4, 40, seed=0, checks=replace(LIGHT, catch_rate=0.5))
    assert summary.out_of_turn["catch"] > 0 and summary.out_of_turn["uno"] > 0, summary.out_of_turn
    assert check_random_games(Rules(), 4, 40, seed=0, checks=LIGHT).out_of_turn == {}


# -- the checker catches what it claims to --------------------------------------------------


class _Thief:
    """Plays at random but, from ``step`` on, moves cards where the rules never would."""

    def __init__(self, step: int, steal: bool) -> None:
        self.step, self.steal, self.calls = step, steal, 0
        self.player = RandomPlayer()

    def __call__(self, state: GameState, rng: random.Random) -> tuple[int | None, Action]:
        self.calls += 1
        if self.calls == self.step:
            seat = state.current_player
            assert seat is not None
            if self.steal:  # a card vanishes from the draw pile
                state.draw_pile.pop()
            else:  # the deciding seat is dealt past the Mercy limit without being knocked out
                limit = state.rules.mercy_limit
                assert limit is not None
                while len(state.hands[seat]) <= limit and state.draw_pile:
                    state.hands[seat].append(state.draw_pile.pop())
        return self.player(state, rng)


@pytest.mark.parametrize(("steal", "rule"), [(True, "C3"), (False, "M1")])
def test_a_broken_invariant_names_a_seed_that_replays_it(steal: bool, rule: str) -> None:
    with pytest.raises(InvariantError) as caught:
        check_random_games(Rules(), 3, 5, seed=40, checks=LIGHT, policy=_Thief(step=7, steal=steal))
    error = caught.value
    assert isinstance(error, AssertionError)
    assert error.seed == 40 and error.step == 7, (error.seed, error.step)  # checked after the 7th action
    message = str(error)
    assert f"({rule})" in message and "game seed 40" in message
    assert "check_random_games(Rules.from_dict({}), players=3, games=1, seed=40" in message
    with pytest.raises(InvariantError) as again:  # the named call breaks the same way
        check_random_games(Rules(), 3, 1, seed=40, checks=LIGHT, policy=_Thief(step=7, steal=steal))
    assert str(again.value) == message


class _LeakyRefusal:
    """A state whose refusals change it: what check_refusal exists to catch."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def to_json(self) -> str:
        return self.state.to_json()

    def apply(self, action: Action, seat: int | None = None) -> list[object]:
        self.state.step += 1
        raise IllegalAction("no")


def test_refusals_that_change_the_state_are_caught() -> None:
    state = new_game(4, Rules(), 5)
    illegal = next(
        a for a in map(Action.parse, ("take", "pass", "color R", "uno")) if a not in state.legal_actions()
    )
    assert isinstance(check_refusal(state, illegal), IllegalAction)
    with pytest.raises(InvariantError, match="changed the state"):
        check_refusal(_LeakyRefusal(state), illegal)  # type: ignore[arg-type]
    with pytest.raises(InvariantError, match="applied but is not in legal_actions"):
        check_refusal(state, state.legal_actions()[0])


def test_the_module_docstring_example_runs() -> None:
    result = doctest.testmod(nomercy.testing)
    assert result.attempted > 0 and result.failed == 0


#: Positions with nothing left to draw (an empty draw pile, the discard pile only its top
#: card, nothing set aside), one for each decision that may draw.
DRY: list[dict[str, object]] = [
    {"hands": [["G9", "R1"], ["B8"]], "discard_pile": ["W+6"], "color": "R", "decision": "stack",
     "pending": {"total": 6, "last_value": 6, "by": 1}},
    {"rules": {"preset": "classic"}, "hands": [["G2"], ["B2", "B3"], ["Y1", "Y2"]], "discard_pile": ["W+4"],
     "color": "G", "current": 1, "decision": "challenge", "pending": {"total": 4, "last_value": 4, "by": 0},
     "challenge": {"color": "R", "cards": 1}},
    {"hands": [["G9"], ["B8"]], "discard_pile": ["R5"]},
    {"hands": [["G9"], ["B8", "B7"]], "discard_pile": ["WCR"], "current": 1, "decision": "roulette",
     "roulette_by": 0},
    {"hands": [["G9"], ["B8", "B7"]], "discard_pile": ["R5"], "current": 1, "uno_open": [0]},
]  # fmt: skip


@pytest.mark.parametrize("data", DRY)
def test_T4_every_action_yields_an_event_even_with_nothing_left_to_draw(data: dict[str, object]) -> None:
    """T4: every legal action of every seat yields at least one event, also where it draws
    nothing (a take of a pending total yields ``passed``, as a draw does)."""
    base = GameState.from_dict(data)
    tried = 0
    for seat in range(base.players):
        for action in base.legal_actions(seat):
            state = base.clone()
            assert state.apply(action, seat), f"{action} by P{seat} yielded no event"
            tried += 1
    assert tried >= 1
