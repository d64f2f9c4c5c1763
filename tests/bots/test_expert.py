"""The expert bot: legal, reproducible, reads only its view, searches only when it must."""

from __future__ import annotations

import random

from nomercy import Action, Card, GameState, Play, new_game
from nomercy.bots import make
from nomercy.bots.runner import play_round
from nomercy.views import player_view

from .helpers import position


def random_positions(count: int, seed: int) -> list[GameState]:
    """Positions reached by random play, over 2-5 players and all decision kinds."""
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        players = rng.randint(2, 5)
        state = new_game(players, seed=rng.getrandbits(32))
        stop = rng.randint(0, 60)
        for _ in range(stop):
            if state.current is None:
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.current is not None:
            out.append(state)
    return out


def test_expert_never_picks_an_illegal_action() -> None:
    for i, state in enumerate(random_positions(60, seed=11)):
        seat = state.current
        assert seat is not None
        view = player_view(state, seat)
        action = make("expert", seed=i, budget=12).choose(view)
        assert action in view.legal_actions, (state.to_json(), action)
        state.clone().apply(action)


def test_expert_is_deterministic_for_a_seed() -> None:
    positions = random_positions(15, seed=5)
    first = [make("expert", seed=9, budget=16).choose(player_view(s, s.current)) for s in positions]
    again = [make("expert", seed=9, budget=16).choose(player_view(s, s.current)) for s in positions]
    assert first == again
    log: list[list[str]] = [[], []]
    for k in range(2):
        state = new_game(3, seed=4)
        bots = [make("expert", seed=1, budget=6), make("heuristic", seed=2), make("expert", seed=3, budget=6)]
        play_round(state, bots, lambda seat, a, ev, k=k: log[k].append(f"{seat}:{a}"))
    assert log[0] == log[1] and len(log[0]) > 5


def test_expert_returns_at_once_when_one_action_is_sensible() -> None:
    """One legal action (or one play offered with and without Uno, U1): no playouts."""
    bot = make("expert", seed=1, budget=50)
    only = position(["R1 B2 G3", "Y1 Y2 Y3", "G1 G2 G4", "B1 B3 B4"], discard="R5")
    assert bot.choose(player_view(only, 0)) == Play(Card.parse("R1"))
    assert bot.last_playouts == 0
    call = position(["R1 B2", "Y1 Y2 Y3", "G1 G2 G4", "B1 B3 B4"], discard="R5")
    assert bot.choose(player_view(call, 0)) == Play(Card.parse("R1"), uno=True)
    assert bot.last_playouts == 0
    choice = position(["R1 R2 B2", "Y1 Y2 Y3", "G1 G2 G4", "B1 B3 B4"], discard="R5")
    bot.choose(player_view(choice, 0))
    assert 0 < bot.last_playouts <= 50


def test_expert_finds_the_winning_stack() -> None:
    """M4 + K3: a Wild Draw 10 on +2 knocks out the last opponent (17 + 12 >= 25).

    With ``draw10_stackable`` off nothing answers the Wild Draw 10, so it wins for sure.
    """
    big = "Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y6 Y6 Y8 Y8 Y9 Y9 G1 G1 G2"
    s = position(
        ["B+2 W+10 G4 G6 G8 B1", big],
        discard="R+2 R5",
        pending={"total": 2, "last_value": 2, "by": 1},
        decision="stack",
        rules={"draw10_stackable": False},
    )
    action = make("expert", seed=3, budget=40).choose(player_view(s, 0))
    assert isinstance(action, Play) and action.card == Card.parse("W+10")


def test_expert_budget_and_options_are_checked() -> None:
    import pytest

    with pytest.raises(ValueError, match="budget"):
        make("expert", budget=0)
    with pytest.raises(ValueError, match="ms"):
        make("expert", ms=-5)
    with pytest.raises(ValueError, match="unknown option"):
        make("expert", budgit=5)
    with pytest.raises(ValueError, match="catch_miss"):
        make("heuristic", catch_miss=2)


def test_expert_ms_budget_stops_the_search() -> None:
    """A tiny time limit still returns a legal action (ms budgets are not reproducible)."""
    s = random_positions(1, seed=2)[0]
    view = player_view(s, s.current)
    bot = make("expert", seed=1, budget=100_000, ms=5)
    assert bot.choose(view) in view.legal_actions
    assert bot.last_playouts < 100_000


def test_expert_always_calls_and_catches() -> None:
    """U1/U2: the expert catches every forgetful player by default."""
    s = position(["R1 R2 R3", "Y1", "G1 G2 G3", "B1 B2 B3"], discard="R5", current=2, uno_open=1)
    assert make("expert", seed=1).react(player_view(s, 0)) == Action.parse("catch 1")
    assert make("expert", seed=1).react(player_view(s, 1)) == Action.parse("uno")


def test_expert_plays_without_the_fast_extra() -> None:
    """Without numpy the expert still plays out natively (the compiled extension needs no
    numpy), and never imports numpy; native=False keeps the Python playouts."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from nomercy import new_game\n"
        "from nomercy.bots import make\n"
        "from nomercy.bots.runner import play_round\n"
        "bots = [make('expert', seed=1, budget=8), make('heuristic', seed=2)]\n"
        "assert bots[0].native\n"
        "assert play_round(new_game(2, seed=5), bots).outcome is not None\n"
        "assert make('expert', native=True).native\n"
        "assert not make('expert', native=False).native\n"
        "assert 'numpy' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_expert_infer_option_chooses_the_worlds() -> None:
    """``infer`` (default true) follows other seats' draws; false keeps the card memory alone."""
    import pytest

    from nomercy.bots.inference import HandInference
    from nomercy.bots.memory import CardMemory

    assert isinstance(make("expert").memory, HandInference)  # type: ignore[attr-defined]
    plain = make("expert", infer=False).memory  # type: ignore[attr-defined]
    assert isinstance(plain, CardMemory) and not isinstance(plain, HandInference)
    with pytest.raises(ValueError, match="infer"):
        make("expert", infer="yes")


def test_expert_colors_option_searches_every_color_of_its_wild() -> None:
    """T5: with ``colors`` the heuristic's wild play is searched naming each color."""
    from nomercy.bots.expert import _other_colors
    from nomercy.bots.heuristic import score_actions, table_from_view

    s = position(["W+6 R1 R2 B3", "Y1 Y2 Y4"], discard="G5")
    view = player_view(s, 0)
    ranked = score_actions(table_from_view(view), view.legal_actions)
    pick = ranked[0][1]
    assert isinstance(pick, Play) and pick.card == Card.parse("W+6")
    extra = _other_colors(pick, ranked, [pick])
    assert {a.color for a in extra if isinstance(a, Play)} | {pick.color} == {
        a.color for a in view.legal_actions if isinstance(a, Play)
    }
    assert _other_colors(Action.parse("draw"), ranked, []) == []
    bot = make("expert", seed=1, budget=40, colors=True)
    assert bot.choose(view) in view.legal_actions
