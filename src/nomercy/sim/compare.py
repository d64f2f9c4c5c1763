"""``nomercy compare``: the same seeds under several rule sets, differences with 95% intervals.

Every rule set plays games ``0..N-1`` of the same run seed, so game ``i`` starts from the
same shuffle under each (as long as the deck is the same) and the rule change is the only
difference at the start. Differences are therefore paired game by game: the interval of
``B - A`` is the normal interval of the mean per-game difference, which removes much of the
luck of the deal. The first rule set is the baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomercy.rules import Rules
from nomercy.sim import plots
from nomercy.sim.report import Section, Table, ordinal, render_html, render_markdown
from nomercy.sim.results import Results
from nomercy.sim.spec import Row
from nomercy.sim.stats import Diff, Mean, Rate, mean_ci, paired_diff, rate

__all__ = ["Metric", "RuleSet", "compare_sections", "metrics_for", "write_compare_report"]


@dataclass(frozen=True)
class RuleSet:
    """A named rule set of a comparison."""

    label: str
    rules: Rules


@dataclass(frozen=True)
class Metric:
    """A per-game number; ``proportion`` metrics are 0/1 and shown as rates."""

    name: str
    value: Callable[[dict[str, Any]], float]
    proportion: bool = False


def metrics_for(players: int) -> list[Metric]:
    """What a comparison reports, per game."""
    out = [
        Metric("first player wins", lambda r: r["winner_position"] == 0, proportion=True),
        Metric("knock-outs per game", lambda r: r["knockouts"]),
        Metric("rounds with a knock-out", lambda r: r["knockouts"] > 0, proportion=True),
        Metric("rounds ended last standing (M4)", lambda r: r["reason"] == "last_standing", proportion=True),
        Metric("decisions per game", lambda r: r["decisions"]),
        Metric("cards drawn per game", lambda r: r["cards_drawn"]),
        Metric("largest stack", lambda r: r["largest_stack"]),
        Metric("a stack reached 25+", lambda r: r["largest_stack"] >= 25, proportion=True),
        Metric("winner's points", lambda r: r["points"][r["winner"]]),
        Metric("points to non-winners", lambda r: sum(r["points"]) - r["points"][r["winner"]]),
    ]
    out.extend(Metric(f"{ordinal(pos + 1)} to play wins", _wins_at(pos), True) for pos in range(1, players))
    out.extend(
        Metric(f"points per round, {ordinal(pos + 1)} to play", _points_at(pos)) for pos in range(players)
    )
    return out


def _wins_at(position: int) -> Callable[[Row], float]:
    """1 when the seat ``position`` places after the first player won the game."""
    return lambda r: r["winner_position"] == position


def _points_at(position: int) -> Callable[[Row], float]:
    """The round points of the seat ``position`` places after the first player."""
    return lambda r: r["points"][(r["first_player"] + position) % r["players"]]


def _paired(rows: Iterable[Row], labels: Sequence[str]) -> dict[str, list[Row]]:
    """Rows per label, restricted to the game indexes every label has, in game order."""
    by_label: dict[str, dict[int, Row]] = {label: {} for label in labels}
    for row in rows:
        if row["rules"] in by_label:
            by_label[row["rules"]][row["game"]] = row
    missing = [label for label, rows in by_label.items() if not rows]
    if missing:
        raise ValueError(f"no games for rule set(s) {', '.join(missing)}")
    common = sorted(set.intersection(*(set(rows) for rows in by_label.values())))
    return {label: [rows[i] for i in common] for label, rows in by_label.items()}


def _estimate(values: list[float], proportion: bool) -> Rate | Mean:
    return rate(int(sum(values)), len(values)) if proportion else mean_ci(values)


def _fmt(x: Rate | Mean) -> str:
    return str(x)


def _fmt_diff(d: Diff, proportion: bool) -> str:
    mark = " *" if d.significant else ""
    if proportion:
        return f"{d.diff:+.2%} [{d.low:+.2%}, {d.high:+.2%}]{mark}"
    return f"{d.diff:+.2f} [{d.low:+.2f}, {d.high:+.2f}]{mark}"


def compare_sections(
    games: Results | Iterable[Row], labels: Sequence[str], figures: bool = True
) -> list[Section]:
    """The comparison table (baseline = first label) and its figures, from rows or a results file."""
    rows = _paired(games.rows() if isinstance(games, Results) else games, labels)
    players = rows[labels[0]][0]["players"]
    metrics = metrics_for(players)
    values = {label: {m.name: [float(m.value(r)) for r in rows[label]] for m in metrics} for label in labels}
    estimates = {
        m.name: {label: _estimate(values[label][m.name], m.proportion) for label in labels} for m in metrics
    }
    base = labels[0]
    header = ["metric", f"{base} (baseline)"]
    for label in labels[1:]:
        header += [label, f"{label} - {base} [95% CI]"]
    table_rows = []
    for m in metrics:
        cells = [m.name, _fmt(estimates[m.name][base])]
        for label in labels[1:]:
            d = paired_diff(values[base][m.name], values[label][m.name])
            cells += [_fmt(estimates[m.name][label]), _fmt_diff(d, m.proportion)]
        table_rows.append(cells)
    n = len(rows[base])
    sec = Section(
        "differences",
        "Differences between rule sets",
        f"{n:,} games per rule set on the same seeds (game i is dealt from the same shuffle under "
        "every rule set). Values: rates with Wilson 95% intervals, means with normal 95% intervals. "
        "Differences are paired by game (normal 95% interval of the mean per-game difference); "
        "* marks an interval that excludes 0.",
    )
    sec.tables.append(Table(header, table_rows))
    out = [sec]
    if figures:
        key = [m.name for m in metrics[:10]]
        sec.images.append(
            plots.small_multiples({name: estimates[name] for name in key}, "Rule sets side by side (95% CI)")
        )
        positions = [ordinal(p + 1) for p in range(players)]
        win_names = ["first player wins"] + [f"{ordinal(p + 1)} to play wins" for p in range(1, players)]
        point_names = [f"points per round, {ordinal(p + 1)} to play" for p in range(players)]
        fig = Section("by-position", "Win rate and points by turn position")
        fig.images.append(
            plots.grouped_rates(
                {label: [estimates[w][label] for w in win_names] for label in labels},
                positions,
                "Win rate by turn position (95% CI)",
                "win rate",
                1 / players,
            )
        )
        fig.images.append(
            plots.grouped_rates(
                {label: [estimates[p][label] for p in point_names] for label in labels},
                positions,
                "Mean points per round by turn position (95% CI)",
                "points",
                None,
                percent=False,
            )
        )
        out.append(fig)
    return out


def write_compare_report(
    results: Results | list[Row], labels: Sequence[str], html_path: Path, md_path: Path, intro: list[str]
) -> list[Section]:
    """Write the comparison as HTML (with figures) and Markdown; returns the table sections."""
    title = "nomercy rule comparison: " + " vs ".join(labels)
    html_path.parent.mkdir(parents=True, exist_ok=True)
    html_path.write_text(render_html(title, intro, compare_sections(results, labels)), encoding="utf-8")
    tables = compare_sections(results, labels, figures=False)
    md_path.write_text(render_markdown(title, intro, tables), encoding="utf-8")
    return tables
