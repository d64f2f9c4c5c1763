"""The agent ladder: rating order, rotated duplicate deals, outside agents, errors, output."""

from __future__ import annotations

import json
import random
import re
import sys
from collections import defaultdict
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import nomercy.sim.ladder as ladder_module
from nomercy.actions import Action
from nomercy.sim.ladder import AgentSpec, LadderGame, markdown, parse_agents, run_ladder
from nomercy.views import PlayerView

pytest.importorskip("openskill")

runner = CliRunner(env={"COLUMNS": "200"})
#: This module, as an outside agent's ``module:callable`` names it.
HERE = __name__


class Chooser:
    """An outside agent that is not a nomercy Bot: it has ``choose`` only."""

    def __init__(self, seed: int, first: bool = False) -> None:
        self.rng = random.Random(seed)
        self.first = first

    def choose(self, view: PlayerView) -> Action:
        return view.legal_actions[0] if self.first else self.rng.choice(view.legal_actions)


def make_agent(seed: int, **options: Any) -> Chooser:
    return Chooser(seed, **options)


def not_a_bot(seed: int) -> str:
    return "hello"


NOT_CALLABLE = 3


def test_heuristic_rates_above_random_and_an_outside_agent_takes_part() -> None:
    result = run_ladder(f"random,heuristic,{HERE}:make_agent", deals=100, seed=3)
    order = [a["agent"] for a in result.agents]
    assert order[0] == "heuristic", order
    by = {a["agent"]: a for a in result.agents}
    heuristic, rand, outside = by["heuristic"], by["random"], by[f"{HERE}:make_agent"]
    # Heuristic beats random in about three games of four: over 400 games its interval is clear of 50%.
    assert heuristic["ci95"][0] > 0.5 and heuristic["mu"] > rand["mu"] and heuristic["mu"] > outside["mu"]
    assert all(a["games"] == 400 for a in result.agents) and result.games == 600
    assert sum(a["wins"] for a in result.agents) == result.games
    for a in result.agents:
        assert a["ordinal"] == pytest.approx(a["mu"] - 3 * a["sigma"])
        assert a["ci95"][0] <= a["win_rate"] <= a["ci95"][1]
        assert 0 < a["sigma"] < 25 / 3  # every game taught the model something


@pytest.mark.parametrize(
    ("agents", "players"),
    [("random,heuristic,heuristic:catch_miss=1", 2), (f"random,heuristic,{HERE}:make_agent:first=true", 3)],
)
def test_every_agent_plays_every_deal_from_every_seat(agents: str, players: int) -> None:
    games: list[LadderGame] = []
    result = run_ladder(agents, deals=4, players=players, seed=5, keep_games=games)
    seats_by_deal: dict[tuple[int, int], dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    deals_by_pairing: dict[int, set[int]] = defaultdict(set)
    for game in games:
        deals_by_pairing[game.pairing].add(game.deal)
        for entry, seat in enumerate(game.seats):
            seats_by_deal[game.pairing, game.deal][entry].add(seat)
    assert len({frozenset(d) for d in deals_by_pairing.values()}) == 1  # every pairing: the same deals
    assert all(len(d) == 4 for d in deals_by_pairing.values())
    for per_entry in seats_by_deal.values():  # each deal from every seat, by every entry
        assert all(seats == set(range(players)) for seats in per_entry.values())
    counts = {tuple(a["seat_counts"]) for a in result.agents}
    assert len(counts) == 1 and len(set(next(iter(counts)))) == 1  # every agent, every seat, equally


def test_the_same_seed_gives_the_same_table_on_any_number_of_workers() -> None:
    one = run_ladder("random,heuristic", deals=6, seed=9).to_dict()
    assert run_ladder("random,heuristic", deals=6, seed=9).to_dict() == one
    assert run_ladder("random,heuristic", deals=6, seed=9, workers=2).to_dict() == one
    assert run_ladder("random,heuristic", deals=6, seed=10).to_dict() != one


def test_outside_agents_by_module_callable_and_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_agents(f"{HERE}:make_agent:first=true,{HERE}:Chooser")[0]
    assert isinstance(spec, AgentSpec) and spec.options == (("first", True),)
    assert spec.label == f"{HERE}:make_agent:first=True"
    point = EntryPoint("mine", f"{HERE}:make_agent", ladder_module.ENTRY_POINT_GROUP)
    wanted = ladder_module.ENTRY_POINT_GROUP
    monkeypatch.setattr(ladder_module, "entry_points", lambda group: [point] if group == wanted else [])
    mine, _ = parse_agents("mine:first=true,random")
    assert isinstance(mine, AgentSpec) and mine.target == f"{HERE}:make_agent"
    assert mine.label == "mine:first=True"
    assert isinstance(mine.build(1), ladder_module.Bot)


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        ("genius,random", "unknown agent 'genius': name a bot ("),
        ("no_such_module_here:make,random", "cannot import 'no_such_module_here'"),
        (f"{HERE}:missing,random", f"module {HERE!r} has no 'missing'"),
        (f"{HERE}:NOT_CALLABLE,random", "is not callable"),
        ("random,random", "'random' is named twice"),
        ("random*2,heuristic", "each agent once"),
        ("heuristic", "at least two agents"),
        ("random,heuristic:colour=red", "unknown"),
        (f"{HERE}:make_agent:seed=3,random", "seeds come from"),
    ],
)
def test_bad_agents_get_a_clear_error(agents: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        run_ladder(agents, deals=1)


def test_an_agent_that_is_not_a_bot_is_refused_before_playing() -> None:
    with pytest.raises(ValueError, match=r"returned str, not a bot \(subclass nomercy.bots.Bot"):
        run_ladder(f"random,{HERE}:not_a_bot", deals=1)
    with pytest.raises(ValueError, match="2 agents for 3 seats"):
        run_ladder("random,heuristic", deals=1, players=3)


def test_command_prints_and_writes_json_and_markdown(tmp_path: Path) -> None:
    from nomercy.cli import app

    out, md = tmp_path / "ladder.json", tmp_path / "ladder.md"
    args = ["ladder", "-a", f"random,heuristic,{HERE}:make_agent", "-d", "3", "-s", "2", "-w", "1"]
    result = runner.invoke(app, [*args, "--out", str(out), "--md", str(md)])
    assert result.exit_code == 0, result.output
    assert "heuristic" in result.output and "95% CI (Wilson)" in result.output
    data = json.loads(out.read_text())
    assert data["protocol"]["players"] == 2 and data["protocol"]["games_per_pairing"] == 6
    assert data["protocol"]["model"]["name"] == "PlackettLuce" and data["protocol"]["model"]["tau"] == 0
    assert data["games"] == 18 and {a["agent"] for a in data["agents"]} == {
        "random",
        "heuristic",
        f"{HERE}:make_agent",
    }
    assert data["machine"]["command"].startswith("nomercy ")
    text = md.read_text()
    assert "| rank | agent | mu | sigma | ordinal (mu - 3 sigma) |" in text
    assert "\n".join(markdown(data)) in text
    printed = runner.invoke(app, [*args, "--json"])
    assert printed.exit_code == 0
    assert json.loads(printed.output)["agents"] == data["agents"]


def test_command_errors_name_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    from nomercy.cli import app

    result = runner.invoke(app, ["ladder", "-a", "genius,random", "-d", "1"])
    assert result.exit_code == 2 and "--agents" in result.output and "unknown agent 'genius'" in result.output
    result = runner.invoke(app, ["ladder", "-a", "random,heuristic", "-p", "3", "-d", "1"])
    assert result.exit_code == 2 and "2 agents for 3 players" in result.output
    monkeypatch.setitem(sys.modules, "openskill", None)
    result = runner.invoke(app, ["ladder", "-d", "1"])
    assert result.exit_code == 2 and "pip install 'nomercy[sim]'" in result.output
