"""``nomercy replay`` reads every kind of game file and hides what the person never saw."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from nomercy import Match
from nomercy.bots import make
from nomercy.bots.runner import step
from nomercy.events import Drew
from nomercy.tui.replay import load_replayable, replay


def shown(path: Path, reveal: bool = False) -> str:
    out = io.StringIO()
    replay(load_replayable(path), Console(file=out, width=100, color_system=None), delay=0, reveal=reveal)
    return out.getvalue()


def test_a_match_and_a_bare_record_replay_move_by_move(tmp_path: Path) -> None:
    match = Match(3, seed=3)
    bots = [make("random", seed=i) for i in range(3)]
    drawn: list[tuple[int, tuple[str, ...]]] = []
    for _ in range(6):
        for result in step(match.state, bots, apply=match.apply):
            drawn += [
                (e.seat, tuple(c.code for c in e.cards or ()))
                for e in result.events
                if type(e) is Drew and e.reason != "roulette"
            ]
    (tmp_path / "match.json").write_text(match.to_json(), encoding="utf-8")
    (tmp_path / "record.json").write_text(match.record.to_json(), encoding="utf-8")
    for name in ("match.json", "record.json"):
        text = shown(tmp_path / name)
        numbered = re.findall(r"^\s+(\d+) P\d", text, re.M)
        assert [int(n) for n in numbered] == list(range(1, len(match.record.actions) + 1))
        assert "in the middle of the round" in text
        assert "Replay of round 1" in text if name == "match.json" else "Replay of a round" in text
    # Nobody sat at seat 0 as a person here: drawn cards stay hidden unless revealed.
    hidden, revealed = shown(tmp_path / "record.json"), shown(tmp_path / "record.json", reveal=True)
    assert any(cards for _, cards in drawn)
    for _seat, cards in drawn:
        if cards:
            noun = "card" if len(cards) == 1 else "cards"
            assert f"{len(cards)} {noun}: {' '.join(cards)}" in " ".join(revealed.split())
            assert f"{noun}: {' '.join(cards)}" not in " ".join(hidden.split())
