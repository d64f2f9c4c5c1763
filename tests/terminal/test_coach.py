"""The coach in ``nomercy play``: ``a`` (or ``hint``, ``advice``, ``tips``) gives the
expert's suggestion and its estimated win chance, only when every other seat is a bot; the
save and the replay say a hint was used. Python playouts (``--coach-python``): no native
compile in these tests."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from nomercy import GameState, Rules
from nomercy.tui.game import Game
from nomercy.tui.replay import load_replayable, replay
from nomercy.tui.session import Session, new_session

Spawn = Callable[[list[str]], pexpect.spawn]
MOVE = "Your move"
HINT = r"The coach suggests: (.+?) \(estimated chance to win the round: (\d+)% ± (\d+)\)"


def test_a_gives_a_hint_the_save_and_the_replay_say_so(spawn: Spawn, scenario: Path, tmp_path: Path) -> None:
    """The scenario's first decision: P0 faces a Draw 2 (K2) with a Wild Draw 6 to stack."""
    save = tmp_path / "save.json"
    args = ["play", "--bots", "first", "--fast", "--name", "Ana", "--start-state", str(scenario)]
    child = spawn([*args, "--save", str(save), "--coach-python"])
    child.expect(MOVE)
    child.sendline("a")
    child.expect("The coach is thinking")
    child.expect(HINT)
    action, win = child.match.group(1), int(child.match.group(2))
    assert re.fullmatch(r"Take 2 cards|Play W\+6, naming (red|yellow|green|blue)", action) and 0 <= win <= 100
    child.expect("record notes the hint")
    child.expect(MOVE)  # the same decision, still the person's
    child.sendline("t")
    child.expect(re.escape("You took the stack: 2 cards"))
    child.expect(MOVE)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    data = json.loads(save.read_text(encoding="utf-8"))
    assert data["hints"] == [[0, 0]] and data["actions"][0] == [0, "take"]
    watch = spawn(["replay", str(save), "--fast"])
    watch.expect(re.escape("The coach gave 1 hint(s) in this round."))
    watch.expect("the coach gave P0 Ana a hint here")
    watch.expect("You took the stack")
    watch.expect(pexpect.EOF)


def test_the_coach_speaks_norwegian(spawn: Spawn, scenario: Path, tmp_path: Path) -> None:
    args = ["play", "--bots", "first", "--fast", "--lang", "nb", "--start-state", str(scenario)]
    child = spawn([*args, "--save", str(tmp_path / "s.json"), "--coach-python"])
    child.expect("Ditt trekk")
    child.sendline("tips")
    child.expect(r"Treneren foreslår: .+ \(beregnet sjanse for å vinne runden: \d+ % ± \d+\)")
    child.sendline("q")
    child.expect(pexpect.EOF)


@pytest.mark.usefixtures("test_bots")
def test_no_hint_when_another_seat_is_a_person(tmp_path: Path, scenario: Path) -> None:
    """Where a hint could help one person against another, the coach is not offered."""
    start = GameState.from_json(scenario.read_text(encoding="utf-8"))
    made = new_session(3, start.rules, ["first"], 1, "Ana", False, start)
    people = Session(0, made.names, [None, made.specs[1], None], False, started=made.started)
    answers = iter(["a", "q"])
    out = io.StringIO()
    game = Game(people, Console(file=out, width=100), tmp_path / "s.json", 0, lambda _: next(answers))
    game.coach_native = False
    game.run()
    assert "The coach is offered only when every other seat is a bot." in out.getvalue()
    assert people.hints == []
    assert "hints" not in json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))


@pytest.mark.usefixtures("test_bots")
def test_a_hinted_match_round_keeps_the_hint_in_its_record(tmp_path: Path) -> None:
    session = new_session(2, Rules(), ["first"], 3, "Ana", True)
    while session.state.current != 0:
        session.apply(session.state.legal_actions()[0], session.state.current or 0)
    session.note_hint(0)
    assert session.match is not None and session.match.record.hints == [(0, len(session.round_actions))]
    path = tmp_path / "m.json"
    session.save(path)
    again = Session.load(path)
    assert again.hints == session.hints
    shown = io.StringIO()
    replay(load_replayable(path), Console(file=shown, width=100), delay=0)
    assert "The coach gave 1 hint(s) in this round." in shown.getvalue()


@pytest.mark.usefixtures("test_bots")
def test_at_a_color_prompt_hint_asks_the_coach_and_g_still_names_green(tmp_path: Path) -> None:
    """W4: the Roulette's victim names a color; ``hint`` there is the coach, ``g`` green."""
    start = GameState.from_dict(
        {
            "hands": [["B7", "B8"], ["Y6", "Y7"], ["WCR", "Y4", "Y3"]],
            "discard_pile": ["R5"],
            "current": 2,
            "draw_pile": ["R0", "B1", "G4", "Y1", "Y2"],
        }
    )
    session = new_session(3, start.rules, ["first"], 1, "Ana", False, start)
    answers = iter(["hint", "g", "q"])
    out = io.StringIO()
    game = Game(session, Console(file=out, width=200), tmp_path / "s.json", 0, lambda _: next(answers))
    game.coach_native = False
    game.run()
    assert re.search(r"The coach suggests: (red|yellow|green|blue) \(estimated chance", out.getvalue())
    assert (
        session.round_actions[1] == (0, session.round_actions[1][1])
        and str(session.round_actions[1][1]) == "color G"
    )
    assert session.hints == [(0, 1)]
