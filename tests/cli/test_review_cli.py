"""``nomercy review`` on saved games: the table in both languages, the JSON form, one seat,
and bad files refused with the step that failed (Python playouts, few worlds)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nomercy.actions import Action
from nomercy.bots import make
from nomercy.bots.runner import play_round
from nomercy.cli import app
from nomercy.match import Match
from nomercy.record import GameRecord

runner = CliRunner(env={"COLUMNS": "200"})
FAST = ["--worlds", "2", "--python"]


def said(output: str) -> str:
    return " ".join(output.split())


@pytest.fixture(scope="module")
def record() -> GameRecord:
    record, state = GameRecord.start(3, seed=21)
    bots = [make("heuristic", seed=seat) for seat in range(3)]

    def apply(action: Action, seat: int) -> Any:
        record.add(seat, action)
        return state.apply(action, seat)

    play_round(state, bots, apply=apply)
    return record


@pytest.fixture
def saved(tmp_path: Path, record: GameRecord) -> Path:
    path = tmp_path / "round.json"
    path.write_text(record.to_json(), encoding="utf-8")
    return path


def test_the_table_names_every_column_and_each_seats_total(saved: Path, record: GameRecord) -> None:
    result = runner.invoke(app, ["review", str(saved), *FAST, "--lang", "en"])
    assert result.exit_code == 0, result.output
    out = said(result.output)
    assert f"Review of a round of {len(record.actions)} actions, won by P" in out
    assert "move seat position chosen win expert its win loss" in out
    assert re.search(r"P0: \d+ decisions? estimated, estimated loss \d+ points of win chance in all", out)
    assert "In red: the costliest decisions." in out


def test_the_table_speaks_norwegian(saved: Path) -> None:
    result = runner.invoke(app, ["review", str(saved), *FAST, "--lang", "nb"])
    assert result.exit_code == 0, result.output
    out = said(result.output)
    assert "Gjennomgang av en runde med" in out and "trekk plass stilling valgt vinnersjanse eksperten" in out
    # The choices in Norwegian words, as the game offers them; never the record's notation.
    assert "Legg " in out and not re.search(r"\b(?:play|color|draw|take) ", out), out
    assert "dens seier" not in out and "trukne verdener" not in out


def test_json_is_the_documented_format_and_one_seat_is_only_that_seat(saved: Path) -> None:
    result = runner.invoke(app, ["review", str(saved), *FAST, "--json", "--seat", "2"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["format"] == "nomercy.review" and data["format_version"] == 1
    assert data["decisions"] and {d["seat"] for d in data["decisions"]} == {2}
    assert data["settings"]["worlds"] == 2 and data["settings"]["native"] is False
    assert data["hints"] == []
    again = runner.invoke(app, ["review", str(saved), *FAST, "--json", "--seat", "2"])
    assert json.loads(again.output) == data  # the same seed, the same review


def test_a_saved_match_and_a_hinted_round_are_reviewed(tmp_path: Path, record: GameRecord) -> None:
    match = Match(3, record.rules, seed=4)
    for _ in range(6):
        match.apply(match.state.legal_actions()[0])
    hinted = GameRecord.from_dict(record.to_dict())
    hinted.hints.append((1, 3))
    path = tmp_path / "hinted.json"
    path.write_text(hinted.to_json(), encoding="utf-8")
    result = runner.invoke(app, ["review", str(path), *FAST, "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "The coach gave 1 hint in this round." in said(result.output)
    path.write_text(match.to_json(), encoding="utf-8")
    result = runner.invoke(app, ["review", str(path), *FAST, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["winner"] is None and data["actions"] == 6  # the round in play, not yet ended


def test_a_seat_not_at_the_table_is_refused(saved: Path) -> None:
    result = runner.invoke(app, ["review", str(saved), *FAST, "--seat", "5"])
    assert result.exit_code == 2 and "seat 5: this round seats P0 to P2" in said(result.output)


@pytest.mark.parametrize(
    ("content", "step"),
    [
        (None, "reading the file failed"),
        (b"x" * (4 * 1024 * 1024 + 1), "reading the file failed: 4194305 bytes is too large"),
        (b"\xff\xfe{", "parsing its JSON failed"),
        (b'{"format": "nomercy.record"', "parsing its JSON failed"),
        (b"[1, 2]", "loading the game failed"),
        (b'{"format": "nomercy.record", "format_version": 9}', "loading the game failed"),
        (b'{"format": "nomercy.record", "format_version": 2, "players": 2}', "loading the game failed"),
    ],
)
def test_a_bad_file_names_the_step_that_fails(tmp_path: Path, content: bytes | None, step: str) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_bytes(content)
    result = runner.invoke(app, ["review", str(path), *FAST, "--lang", "en"])
    assert result.exit_code == 1
    assert f"Cannot review {path}: {step}" in said(result.output)


def test_an_unreplayable_record_names_its_first_illegal_action(tmp_path: Path, record: GameRecord) -> None:
    data = record.to_dict()
    data["actions"][5] = [data["actions"][5][0], "challenge"]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["review", str(path), *FAST])
    assert result.exit_code == 1
    out = said(result.output)
    assert "replaying its actions failed: record action 5 (challenge by P" in out


def test_a_save_file_of_nomercy_play_is_reviewed_with_its_names(tmp_path: Path) -> None:
    """A round played from a hand-built state: the save holds the start and the actions."""
    from nomercy import GameState
    from nomercy.tui.session import new_session

    start = GameState.from_dict(
        {
            "hands": [["R7", "B8", "G2", "R2"], ["R3", "R4", "G5"]],
            "discard_pile": ["R5"],
            "draw_pile": ["Y1"] * 1,
        }
    )
    session = new_session(2, start.rules, ["heuristic"], 1, "Ana", False, start)
    session.apply(Action.parse("play R2"), 0)
    session.note_hint(1)
    path = tmp_path / "save.json"
    session.save(path)
    result = runner.invoke(app, ["review", str(path), *FAST, "--lang", "en"])
    assert result.exit_code == 0, result.output
    out = said(result.output)
    assert "Review of a round of 1 action, won by nobody yet" in out and "P0 Ana" in out
    # The row shows the position it was decided in (top card, hand), the choice in words.
    assert re.search(r"1 P0 Ana R5, 4 cards Play R2", out), out
    assert "The coach gave 1 hint in this round." in out


def test_each_row_shows_the_stack_it_was_decided_under(tmp_path: Path) -> None:
    """K1: a decision made facing a total says so, in each language."""
    from nomercy import GameState
    from nomercy.tui.session import new_session

    start = GameState.from_dict(
        {
            "hands": [["R+2", "B+2", "G7", "Y3"], ["R3", "R4", "G5"]],
            "discard_pile": ["G+2", "R5"],
            "color": "G",
            "decision": "stack",
            "pending": {"total": 2, "last_value": 2, "by": 1},
            "draw_pile": ["Y1", "Y2", "Y4", "Y5", "Y6", "Y7"],
        }
    )
    session = new_session(2, start.rules, ["heuristic"], 1, "Ana", False, start)
    session.apply(Action.parse("play B+2"), 0)
    path = tmp_path / "save.json"
    session.save(path)
    for lang, row in (
        ("en", r"1 P0 Ana G\+2, 4 cards, \+2 Play B\+2"),
        ("nb", r"1 P0 Ana G\+2, 4 kort, \+2 Legg B\+2"),
    ):
        result = runner.invoke(app, ["review", str(path), *FAST, "--lang", lang])
        assert result.exit_code == 0, result.output
        out = said(result.output)
        assert re.search(row, out), out
