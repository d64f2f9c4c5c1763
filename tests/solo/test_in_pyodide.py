"""The solo table in real Pyodide (WebAssembly CPython) under Node, as the page runs it:
Pyodide's npm package, the engine's zip unpacked, ``nomercy.solo.worker`` imported, a
match played to its end. The same match played here natively ends alike (scores, winner,
the last round's record), and its record replays with the engine: the page's Python is
the same game as the server's."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nomercy.record import GameRecord, replay
from nomercy.site import bundle, pyodide_dir
from nomercy.solo.table import SoloTable

from .play import NO_WAIT

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")
PYODIDE = pyodide_dir()
#: Bots that do not search: the same choices on every Python. The searching levels sum
#: floats, and Python 3.12 made ``sum()`` of floats exact-rounded: Pyodide's newer Python
#: may estimate a playout's value a last bit apart and choose another card; the game it
#: plays is still the engine's (its records replay here, below).
BOTS = ["casual", "careful", "stacker"]
SEARCHING = ["strong", "expert", "gambler:level=strong"]

pytestmark = pytest.mark.skipif(
    NODE is None or PYODIDE is None,
    reason="needs Node.js and Pyodide's npm package: apt-get install nodejs npm, then 'npm ci' "
    "(make pyodide) in the repository",
)


def play_natively() -> SoloTable:
    """The match the Node script plays: the person always takes its first choice that is
    not a call or a catch."""
    t = SoloTable({"name": "Ada", "bots": BOTS, "mode": "match", "seed": 12, "delays": NO_WAIT})
    while not t.finished:
        if t.due() >= 0:
            t.advance()
            continue
        choices = t.state_message([])["decisions"]["choices"]
        plain = [c for c in choices if c["kind"] not in ("uno", "catch")] or choices
        [answer, *_] = t.receive({"type": "action", "action": plain[0]["action"], "version": t.version})
        assert answer["type"] != "error", answer
    return t


def in_pyodide(tmp_path: Path, bots: list[str]) -> dict[str, Any]:
    """The Node script's match (``pyodide_round.mjs``): its last line, parsed."""
    assert NODE is not None and PYODIDE is not None
    engine = tmp_path / "nomercy.zip"
    engine.write_bytes(bundle())
    done = subprocess.run(
        [NODE, str(HERE / "pyodide_round.mjs"), str(PYODIDE), str(engine), json.dumps(bots)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    page: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert page["first"] == ["welcome", "state", "chat_history"]
    return page


def test_a_match_in_pyodide_ends_as_it_does_natively(tmp_path: Path) -> None:
    page = in_pyodide(tmp_path, BOTS)
    assert page["status"] == "finished"
    native = play_natively()
    kept = native.kept()
    assert page["scores"] == native.match.scores
    assert page["winner"] == native.winner()
    assert page["rounds"] == len(kept)
    assert [json.loads(text) for text in page["records"]] == kept
    assert page["frames"] == len(kept[-1]["actions"]) + 1


def test_the_searching_bots_rounds_in_pyodide_replay_with_the_engine(tmp_path: Path) -> None:
    """E1-E4: every round the page kept (the strong and expert bots searching in Pyodide)
    replays here to the result the page announced, and the match's scores add up."""
    page = in_pyodide(tmp_path, SEARCHING)
    assert page["status"] == "finished" and len(page["records"]) == len(page["rounds_played"])
    totals = [0] * (1 + len(SEARCHING))
    for text, played in zip(page["records"], page["rounds_played"], strict=True):
        state = replay(GameRecord.from_json(text))
        assert state.outcome is not None
        assert (state.outcome.winner, list(state.outcome.points)) == (played["winner"], played["points"])
        totals = [a + b for a, b in zip(totals, state.outcome.points, strict=True)]
    assert totals == page["scores"]
