"""Games of a run: seeding, rows, and the all-random shortcut against the shared bot loop."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nomercy import Rules, new_game
from nomercy.errors import InvalidRules
from nomercy.sim.runner import RunSpec, game_seed, play_game, run_chunk
from nomercy.sim.spec import ENGINES

SRC = Path(__file__).resolve().parents[2] / "src"


def test_game_seed_depends_only_on_run_seed_and_index() -> None:
    assert game_seed(3, 7) == game_seed(3, 7)
    seeds = {game_seed(3, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert game_seed(3, 7) != game_seed(4, 7)
    assert all(0 <= s < 2**63 for s in seeds)


def test_the_cli_keeps_using_the_same_game_seed() -> None:
    from nomercy.cli import simulate

    assert simulate.game_seed is game_seed


def test_shortcut_for_random_seats_makes_the_same_games_as_the_shared_bot_loop() -> None:
    spec = RunSpec(games=40, players=3, seed=5)
    for index in range(spec.games):
        assert play_game(spec, index, shortcut=True) == play_game(spec, index, shortcut=False)


def test_rows_do_not_depend_on_how_games_are_chunked(small_spec: RunSpec, small_rows: list[dict]) -> None:
    n = small_spec.games
    pieces = run_chunk(small_spec, 0, 37) + run_chunk(small_spec, 37, 38) + run_chunk(small_spec, 38, n)
    assert pieces == small_rows
    assert [row["game"] for row in small_rows] == list(range(n))


def test_a_row_describes_its_game(small_rows: list[dict]) -> None:
    """E1/M4 endings, E3 points and M1 knock-outs in the row match a replay of the game."""
    for row in small_rows[:20]:
        state = new_game(row["players"], Rules(), row["seed"])
        assert state.dealer == row["dealer"]
        assert row["first_player"] == (row["dealer"] + 1) % row["players"]  # S4
        assert row["winner_position"] == (row["winner"] - row["first_player"]) % row["players"]
        assert row["reason"] in ("played_out", "last_standing")
        assert row["knockouts"] == len(row["knocked_out"]) == len(row["knocked_out_by"])
        assert row["winner"] not in row["knocked_out"]
        if row["reason"] == "last_standing":  # M4: everyone else was knocked out
            assert row["knockouts"] == row["players"] - 1
        assert len(row["points"]) == row["players"]
        # E3 default (knockout_bonus_to="winner"): only the winner scores, 250 per knock-out at least
        assert [p for seat, p in enumerate(row["points"]) if seat != row["winner"]] == [0] * (
            row["players"] - 1
        )
        assert row["points"][row["winner"]] >= 250 * row["knockouts"]
        assert row["decisions"] > 0 and row["cards_drawn"] >= 0 and row["largest_stack"] >= 0


def test_knocker_scores_the_bonus_when_the_house_rule_says_so() -> None:
    """E3 knockout_bonus_to="knocker": 250 per knock-out goes to whoever caused it."""
    spec = RunSpec(games=60, seed=2, rules=Rules(knockout_bonus_to="knocker"))
    seen = 0
    for row in run_chunk(spec, 0, spec.games):
        for seat in range(row["players"]):
            caused = sum(1 for by in row["knocked_out_by"] if by == seat)
            if seat != row["winner"]:
                assert row["points"][seat] == 250 * caused
            seen += caused
    assert seen > 0


def test_bots_by_name_per_seat() -> None:
    spec = RunSpec(games=1, players=3, bots=("random",))
    assert spec.bots == ("random", "random", "random")
    with pytest.raises(ValueError, match="2 bots for 3 seats"):
        RunSpec(games=1, players=3, bots=("random", "random"))
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        RunSpec(games=1, players=2, bots=("random", "nobody"))
    with pytest.raises(InvalidRules, match="S1"):
        RunSpec(games=1, players=7)


def test_the_simulator_loads_the_native_engine_only_when_a_run_asks_for_it() -> None:
    """The engine registry names both engines, yet a Python run (``--engine python``)
    imports neither numba nor the native engine."""
    code = (
        "import sys; from nomercy.sim.spec import ENGINES, RunSpec; "
        "RunSpec(games=2, players=2).play_chunk(0, 2); "
        "print(sorted(ENGINES), [m for m in ('numba', 'nomercy.native', 'nomercy.sim.native_runner') "
        "if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert out.stdout.strip() == "['native', 'python'] []"


def test_an_unknown_engine_is_refused_naming_the_registered_ones() -> None:
    assert set(ENGINES) == {"python", "native"}
    with pytest.raises(ValueError, match="unknown engine 'rust': choose from python, native"):
        RunSpec(games=1, engine="rust")
