"""nomercy report: an HTML page with every section and its figures inline, and a Markdown summary."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from nomercy.sim.report import write_report
from nomercy.sim.results import Results, write_results
from nomercy.sim.runner import Row
from nomercy.sim.stats import summarize

SECTIONS = {
    "win-rate-by-seat": "Win rate by seat",
    "game-length": "Game length",
    "knock-outs": "Knock-outs and how rounds end",
    "largest-stacks": "Largest stacks",
    "points": "Points per round",
    "win-rate-by-bot": "Win rate by bot",
}


def test_report_has_every_section_with_embedded_figures(tmp_path: Path, small_rows: list[Row]) -> None:
    results = tmp_path / "run.parquet"
    write_results(results, small_rows, {"run_seed": 11, "command": "nomercy simulate -n 120 -s 11"})
    html_path, md_path = write_report(results)
    assert html_path == tmp_path / "run.html" and md_path == tmp_path / "run.md"
    html = html_path.read_text()
    for anchor, title in SECTIONS.items():
        assert f'<section id="{anchor}">' in html
        assert title in html
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) >= 6
    assert all(base64.b64decode(data).startswith(b"\x89PNG") for data in images)
    assert "http://" not in html and "https://" not in html  # self-contained
    assert "nomercy simulate -n 120 -s 11" in html


def test_markdown_summary_carries_the_numbers(tmp_path: Path, small_rows: list[Row]) -> None:
    results = tmp_path / "run.csv"
    write_results(results, small_rows)
    _, md_path = write_report(results, md_path=tmp_path / "summary.md")
    md = md_path.read_text()
    for title in SECTIONS.values():
        assert f"## {title}" in md
    summary = summarize(Results.from_rows(small_rows))
    wins = [int(line.split("|")[3]) for line in md.splitlines() if re.match(r"\| P\d \|", line)]
    assert wins == [r.k for r in summary.win_by_seat]
    assert sum(wins) == len(small_rows)
    assert str(summary.knockouts) in md  # knock-outs per game with its interval
    assert "data:image" not in md
