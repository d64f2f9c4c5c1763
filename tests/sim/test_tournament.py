"""Tournaments: seat rotation, duplicate deals, statistics, determinism across workers."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from nomercy.cli import app
from nomercy.sim.tournament import parse_bots, run_tournament, seat_of, wilson


def test_wilson_interval_matches_known_values() -> None:
    # 5 of 10: 0.2366 - 0.7634; 0 of 10: 0 - 0.2775; 81 of 263: 0.2553 - 0.3662.
    for (k, n), (lo, hi) in {
        (5, 10): (0.2366, 0.7634),
        (0, 10): (0.0, 0.2775),
        (81, 263): (0.2553, 0.3662),
    }.items():
        low, high = wilson(k, n)
        assert math.isclose(low, lo, abs_tol=1e-4) and math.isclose(high, hi, abs_tol=1e-4)
    low, high = wilson(10, 10)
    assert math.isclose(high, 1.0) and math.isclose(low, 0.7225, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_narrows_with_more_games() -> None:
    widths = [wilson(n // 2, n)[1] - wilson(n // 2, n)[0] for n in (10, 100, 1000)]
    assert widths[0] > widths[1] > widths[2]
    assert math.isclose(widths[2] / 2, 1.96 * math.sqrt(0.25 / 1000), rel_tol=0.01)


def test_parse_bots() -> None:
    specs = parse_bots("expert:budget=5,heuristic*2,random")
    assert [s.name for s in specs] == ["expert", "heuristic", "heuristic", "random"]
    assert specs[0].options == (("budget", 5),)
    assert specs[0].label == "expert:budget=5"
    with pytest.raises(ValueError, match="unknown bot"):
        parse_bots("genius,random")
    with pytest.raises(ValueError, match="key=value"):
        parse_bots("expert:budget")


def test_every_bot_plays_every_seat_equally() -> None:
    for players in (2, 3, 4):
        for entry in range(players):
            seats = [seat_of(entry, game, players) for game in range(players * 3)]
            assert sorted(seats) == sorted(list(range(players)) * 3)
        for game in range(players):
            assert sorted(seat_of(e, game, players) for e in range(players)) == list(range(players))
    result = run_tournament("heuristic,random,random", games=9, players=3, seed=3)
    assert result.seat_counts == [[3, 3, 3]] * 3


def test_duplicate_deals_make_identical_bots_tie_exactly() -> None:
    """Each deal is played once per rotation: two copies of one deterministic bot split it."""
    result = run_tournament("heuristic:catch_miss=0,heuristic:catch_miss=0.0", games=40, players=2, seed=8)
    a, b = result.entries
    assert a.wins == b.wins == 20
    assert (a.points, a.caused, a.suffered) == (b.points, b.caused, b.suffered)


def test_statistics_add_up() -> None:
    result = run_tournament("heuristic,random,random,random", games=24, players=4, seed=2)
    assert sum(e.wins for e in result.entries) == result.games == 24
    assert all(e.games == 24 and e.rounds == 24 for e in result.entries)
    assert sum(e.caused for e in result.entries) <= sum(e.suffered for e in result.entries)
    assert all(e.decisions > 0 for e in result.entries)
    assert all(e.interval[0] <= e.win_rate <= e.interval[1] for e in result.entries)
    assert sum(e.points for e in result.entries) > 0


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    one = run_tournament("expert:budget=4,heuristic,random", games=6, players=3, seed=7, workers=1)
    two = run_tournament("expert:budget=4,heuristic,random", games=6, players=3, seed=7, workers=2)
    assert one.to_dict() == two.to_dict()
    other_seed = run_tournament("expert:budget=4,heuristic,random", games=6, players=3, seed=8, workers=1)
    assert other_seed.to_dict() != one.to_dict()


def test_a_local_ray_gives_the_same_results() -> None:
    """The tournament runs on the simulator's backends, Ray included."""
    pytest.importorskip("ray")
    from nomercy.sim.backends import RayBackend

    one = run_tournament("heuristic,random,heuristic:catch_miss=0", games=6, players=3, seed=4, match=True)
    ray = run_tournament(
        "heuristic,random,heuristic:catch_miss=0",
        games=6,
        players=3,
        seed=4,
        match=True,
        backend=RayBackend(address="local", workers=2),
    )
    assert ray.to_dict() == one.to_dict()


def test_matches_are_played_to_the_target() -> None:
    """E4: --match plays rounds until someone reaches the target score."""
    result = run_tournament("heuristic,random", games=4, players=2, seed=1, match=True)
    assert result.match and result.games == 4
    assert result.rounds >= 4 * 2  # nobody reaches 1000 points in one round here
    assert sum(e.wins for e in result.entries) == 4
    assert result.entries[0].points + result.entries[1].points >= 4 * 1000


def test_bad_tournaments_are_refused() -> None:
    with pytest.raises(ValueError, match="one bot per seat"):
        run_tournament("heuristic,random", games=2, players=3)
    with pytest.raises(ValueError, match="unknown option"):
        run_tournament("heuristic:depth=3,random", games=2)


def test_cli_json_output() -> None:
    runner = CliRunner()
    out = runner.invoke(
        app,
        [
            "tournament",
            "--bots",
            "heuristic,random",
            "--games",
            "4",
            "--seed",
            "1",
            "--workers",
            "1",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["games"] == 4 and [b["bot"] for b in data["bots"]] == ["heuristic", "random"]
    assert all(0 <= b["ci95"][0] <= b["win_rate"] <= b["ci95"][1] <= 1 for b in data["bots"])
    table = runner.invoke(app, ["tournament", "--bots", "heuristic,random", "--games", "2", "--workers", "1"])
    assert table.exit_code == 0 and "heuristic" in table.stdout
    bad = runner.invoke(app, ["tournament", "--bots", "heuristic,random", "--players", "3"])
    assert bad.exit_code != 0 and "one bot per seat" in bad.output
