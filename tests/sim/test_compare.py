"""nomercy compare: the same seeds under several rule sets, paired differences with intervals."""

from __future__ import annotations

from pathlib import Path

from nomercy import Rules
from nomercy.sim.compare import compare_sections, write_compare_report
from nomercy.sim.runner import RunSpec, run_chunk


def _rows(label: str, rules: Rules, games: int = 80) -> list[dict]:
    spec = RunSpec(games=games, players=4, seed=9, rules=rules, label=label)
    return run_chunk(spec, 0, games)


def test_same_seeds_under_each_rule_set() -> None:
    a = _rows("any", Rules(), 20)
    b = _rows("match", Rules(stack_color="match"), 20)
    assert [r["seed"] for r in a] == [r["seed"] for r in b]
    assert [r["dealer"] for r in a] == [r["dealer"] for r in b]


def test_knocker_bonus_moves_points_without_changing_play(tmp_path: Path) -> None:
    """E3 knockout_bonus_to: the same games are played; only who scores the 250s changes."""
    rows = _rows("winner", Rules()) + _rows("knocker", Rules(knockout_bonus_to="knocker"))
    html, md = tmp_path / "c.html", tmp_path / "c.md"
    sections = write_compare_report(rows, ["winner", "knocker"], html, md, ["test"])
    table = {cells[0]: cells for cells in sections[0].tables[0].rows}
    for same in ("knock-outs per game", "decisions per game", "first player wins"):
        assert table[same][1] == table[same][2]
        assert not table[same][3].endswith("*")
    assert table["points to non-winners"][1].startswith("0.00 ")
    assert table["points to non-winners"][3].startswith("+") and table["points to non-winners"][3].endswith(
        "*"
    )
    assert table["winner's points"][3].startswith("-") and table["winner's points"][3].endswith("*")
    page = html.read_text()
    assert page.count("data:image/png;base64,") >= 3
    assert "| points to non-winners |" in md.read_text()


def test_identical_rule_sets_show_no_difference() -> None:
    rows = _rows("a", Rules(), 40) + _rows("b", Rules(), 40)
    table = compare_sections(rows, ["a", "b"], figures=False)[0].tables[0]
    assert all(cells[3].startswith(("+0.00", "-0.00")) and not cells[3].endswith("*") for cells in table.rows)


def test_comparison_pairs_only_games_every_rule_set_finished() -> None:
    rows = _rows("a", Rules(), 30) + _rows("b", Rules(stack_color="match"), 30)[:20]
    table = compare_sections(rows, ["a", "b"], figures=False)
    assert "20 games per rule set" in table[0].text
