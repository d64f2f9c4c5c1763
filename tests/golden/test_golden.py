"""Golden games: a change of behaviour shows up here as a diff that someone must explain.

Each ``*.json`` beside this file holds a seeded game's every action and every event
(``tests/golden/regenerate.py`` writes them). Replaying the actions must give the same
events, step by step, and the same final state. If a change is meant, run
``.venv/bin/python tests/golden/regenerate.py`` and explain the diff in the commit.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from nomercy import Action, GameRecord, GameState, Rules, new_game, replay
from nomercy.engine import started_event

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.glob("*.json"))


def _regenerate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nomercy_golden_regenerate", HERE / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "nomercy.golden" and data["format_version"] == 1
    return data


def test_every_golden_game_is_checked_in() -> None:
    regenerate = _regenerate()
    assert sorted(regenerate.path_of(spec).name for spec in regenerate.SPECS) == [p.name for p in FILES]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_game_replays_identically(path: Path) -> None:
    data = _load(path)
    rules = Rules.from_dict(data["rules"])
    state = new_game(data["players"], rules, data["seed"], data["dealer"])
    assert started_event(state).to_dict() == data["started"]
    record = GameRecord(rules, data["players"], data["seed"], data["dealer"])
    for i, step in enumerate(data["steps"]):
        action = Action.parse(step["action"])
        events = [e.to_dict() for e in state.apply(action, step["seat"])]
        assert events == step["events"], f"{path.name}: step {i} ({step['action']} by P{step['seat']})"
        record.add(step["seat"], action)
    assert state.is_over
    assert state.to_dict() == data["final_state"]
    assert GameState.from_dict(data["final_state"]) == state
    assert replay(GameRecord.from_json(record.to_json())) == state


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_game_is_what_regenerate_writes(path: Path) -> None:
    """The same seeded choices still lead to this game (so no new action became legal)."""
    regenerate = _regenerate()
    spec = next(s for s in regenerate.SPECS if regenerate.path_of(s) == path)
    assert regenerate.render(regenerate.play(spec)) == path.read_text(encoding="utf-8")


def test_the_golden_games_show_every_kind_of_event() -> None:
    """Together they exercise stacks, knock-outs, Roulette, Sevens, Zeros, catches, reshuffles."""
    kinds: set[str] = set()
    for path in FILES:
        for step in _load(path)["steps"]:
            for event in step["events"]:
                kinds.add(event["type"] + (":" + event["reason"] if event["type"] == "drew" else ""))
    expected = {
        "played", "discarded_all", "drew:draw", "drew:stack", "drew:roulette", "drew:uno_penalty",
        "drew:penalty", "passed", "reshuffled", "color_named", "skipped", "reversed", "stack",
        "hands_swapped", "hands_passed", "knocked_out", "uno", "caught", "round_over",
    }  # fmt: skip
    assert expected <= kinds, expected - kinds
