"""``nomercy report RESULTS``: one self-contained HTML page (figures inline) and a Markdown summary.

The report is a list of :class:`Section` values, each with tables and figures; the same
sections render to HTML (through a jinja2 template, figures as base64 PNG) and to Markdown
(tables only), so the two always agree.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from nomercy.errors import NoMercyError
from nomercy.extras import require
from nomercy.rules import Rules
from nomercy.sim import plots
from nomercy.sim.results import Results, read_results
from nomercy.sim.stats import Summary, summarize

__all__ = ["Section", "Table", "build_sections", "render_html", "render_markdown", "write_report"]


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    id: str
    title: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def build_sections(summary: Summary, results: Results, figures: bool = True) -> list[Section]:
    """Every section of a one-run report."""
    s = summary
    most = len(s.win_by_seat)
    fair = 1 / most if len(s.players) == 1 else None
    seats = [f"P{i}" for i in range(most)]
    positions = [ordinal(i + 1) for i in range(most)]
    out: list[Section] = []

    sec = Section(
        "win-rate-by-seat",
        "Win rate by seat and by turn position (first-player advantage)",
        "The dealer is drawn at random for every game and the player on the dealer's left starts "
        "(S4), so a seat's win rate mixes all turn positions; the turn position (1st = the first "
        "player) isolates the first-player advantage. Intervals are Wilson 95%.",
    )
    sec.tables.append(
        Table(
            ["seat", "bot", "wins", "win rate [95% CI]", "turn position", "win rate [95% CI]"],
            [
                [
                    seats[i],
                    s.bots[i] if s.bots else "mixed",
                    str(s.win_by_seat[i].k),
                    str(s.win_by_seat[i]),
                    positions[i],
                    str(s.win_by_position[i]),
                ]
                for i in range(most)
            ],
        )
    )
    if figures:
        sec.images.append(
            plots.grouped_rates(
                {"by seat": s.win_by_seat, "by turn position (P0 = 1st to play)": s.win_by_position},
                seats,
                "Win rate with 95% intervals",
                "win rate",
                fair,
            )
        )
    out.append(sec)

    decisions = results["decisions"]
    sec = Section(
        "game-length",
        "Game length",
        "Decisions are every action applied, out-of-turn catches and Uno calls included.",
    )
    quartiles = _quantiles(decisions)
    sec.tables.append(
        Table(
            ["measure", "mean [95% CI]", "median", "10th-90th percentile", "max"],
            [
                [
                    "decisions per game",
                    str(s.decisions),
                    str(quartiles[1]),
                    f"{quartiles[0]}-{quartiles[2]}",
                    str(max(decisions)),
                ],
                ["cards drawn per game", str(s.cards_drawn), "", "", str(max(results["cards_drawn"]))],
                ["Uno catches per game", str(s.catches), "", "", str(max(results["catches"]))],
            ],
        )
    )
    if figures:
        sec.images.append(plots.histogram(decisions, "Decisions per game", "decisions"))
    out.append(sec)

    sec = Section(
        "knock-outs",
        "Knock-outs and how rounds end",
        "A player holding the Mercy limit (25) or more is knocked out (M1); a round ends when a "
        "player plays their last card (played_out, E1) or one player is left (last_standing, M4).",
    )
    sec.tables.append(
        Table(
            ["measure", "value [95% CI]"],
            [["knock-outs per game", str(s.knockouts)], ["rounds with a knock-out", str(s.any_knockout)]]
            + [[f"rounds ended {reason}", str(r)] for reason, r in s.endings.items()]
            + [
                [f"knock-outs {cause}", f"{count} ({count / max(1, sum(s.knockout_causes.values())):.1%})"]
                for cause, count in sorted(s.knockout_causes.items())
            ],
        )
    )
    sec.tables.append(
        Table(
            ["knock-outs in the game", "games", "share"],
            [[str(k), str(c), f"{c / s.games:.1%}"] for k, c in sorted(s.knockout_counts.items())],
        )
    )
    if figures:
        sec.images.append(
            plots.counts(
                {
                    "knock-outs per game": s.knockout_counts,
                    "how rounds end": {reason: r.k for reason, r in s.endings.items()},
                },
                "Knock-outs and endings",
            )
        )
    out.append(sec)

    stacks = results["largest_stack"]
    sec = Section(
        "largest-stacks",
        "Largest stacks",
        "The largest pending draw total (K1) each game reached; 0 when no Draw card was played.",
    )
    q = _quantiles(stacks)
    sec.tables.append(
        Table(
            ["mean [95% CI]", "median", "10th-90th percentile", "max", "games with a stack of 25+"],
            [
                [
                    str(s.largest_stack),
                    str(q[1]),
                    f"{q[0]}-{q[2]}",
                    str(max(stacks)),
                    f"{sum(1 for x in stacks if x >= 25) / s.games:.1%}",
                ]
            ],
        )
    )
    if figures:
        sec.images.append(
            plots.histogram(stacks, "Largest stack per game", "cards", bins=max(1, min(60, max(stacks) + 1)))
        )
    out.append(sec)

    sec = Section(
        "points",
        "Points per round",
        "Round points (E3): the winner scores the cards left in the other active hands plus 250 per "
        "knock-out (or the knocker scores the 250 with knockout_bonus_to = knocker).",
    )
    sec.tables.append(
        Table(
            ["", "mean points per round [95% CI]"],
            [["the round's winner", str(s.winner_points)]]
            + [[f"seat P{i}", str(m)] for i, m in enumerate(s.points_by_seat)]
            + [[f"{positions[i]} to play", str(m)] for i, m in enumerate(s.points_by_position)],
        )
    )
    if figures:
        winner_points = [pts[w] for pts, w in zip(results["points"], results["winner"], strict=True)]
        sec.images.append(plots.histogram(winner_points, "Points scored by the round's winner", "points"))
        sec.images.append(
            plots.bars_with_ci(
                {f"{positions[i]} to play": m for i, m in enumerate(s.points_by_position)},
                "Mean points per round by turn position (95% CI)",
                "points",
                percent=False,
            )
        )
    out.append(sec)

    sec = Section(
        "win-rate-by-bot",
        "Win rate by bot",
        "Games won per seat a bot occupied; with P players the fair share is 1/P.",
    )
    sec.tables.append(
        Table(
            ["bot", "seats played", "wins", "win rate [95% CI]"],
            [[name, str(r.n), str(r.k), str(r)] for name, r in s.win_by_bot.items()],
        )
    )
    if figures:
        sec.images.append(
            plots.bars_with_ci(dict(s.win_by_bot), "Win rate by bot (95% CI)", "win rate", True)
        )
    out.append(sec)
    return out


def _quantiles(values: Sequence[int]) -> tuple[int, int, int]:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[int(0.1 * (n - 1))], ordered[int(0.5 * (n - 1))], ordered[int(0.9 * (n - 1))]


def _template() -> Any:
    jinja2 = require("jinja2", "sim", "reports")
    text = resources.files("nomercy.sim").joinpath("templates/report.html.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return env.from_string(text)


def render_html(title: str, intro: list[str], sections: list[Section]) -> str:
    return str(
        _template().render(
            title=title,
            intro=intro,
            sections=sections,
            generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )


def render_markdown(title: str, intro: list[str], sections: list[Section]) -> str:
    lines = [f"# {title}", ""]
    lines.extend(f"- {line}" for line in intro)
    for sec in sections:
        lines += ["", f"## {sec.title}", ""]
        if sec.text:
            lines += [sec.text, ""]
        for table in sec.tables:
            lines.append("| " + " | ".join(_md(c) for c in table.header) + " |")
            lines.append("|" + "|".join("---" for _ in table.header) + "|")
            lines.extend("| " + " | ".join(_md(c) for c in row) + " |" for row in table.rows)
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _md(cell: str) -> str:
    return html.escape(cell, quote=False).replace("|", "\\|") or " "


def describe_run(results: Results, summary: Summary) -> list[str]:
    """The lines under a report's title: what was played, under which rules, how to redo it."""
    meta = results.meta
    lines = [
        f"{summary.games:,} games; players: {', '.join(map(str, summary.players))}; "
        f"rule sets: {', '.join(summary.labels)}",
        "bots by seat: " + (", ".join(f"P{i} {b}" for i, b in enumerate(summary.bots)) or "mixed"),
    ]
    if "run_seed" in meta:
        lines.append(f"run seed: {meta['run_seed']}")
    rules = meta.get("rules") or meta.get("rule_sets", {}).get(
        summary.labels[0] if len(summary.labels) == 1 else ""
    )
    if rules:
        lines.append("house rules changed from no_mercy: " + _changes(rules))
    if "command" in meta:
        lines.append(f"command: {meta['command']}")
    return lines


def _changes(rules: dict[str, Any]) -> str:
    try:
        changed = Rules.from_dict(rules).to_dict(only_changes=True)
    except NoMercyError:
        return "(unreadable rules in the file's metadata)"
    return ", ".join(f"{k}={v}" for k, v in changed.items()) or "none"


def write_report(
    results_path: Path, html_path: Path | None = None, md_path: Path | None = None, label: str | None = None
) -> tuple[Path, Path]:
    """Read ``results_path``; write the HTML report and the Markdown summary next to it.

    ``label`` keeps only the games of one rule set (a file written by ``nomercy compare``).
    """
    results = read_results(results_path)
    if label is not None:
        labels = sorted(set(results["rules"]))
        results = results.where("rules", label)
        if not len(results):
            raise ValueError(f"no games of rule set {label!r} in {results_path}: it has {', '.join(labels)}")
    summary = summarize(results)
    html_path = html_path or results_path.with_suffix(".html")
    md_path = md_path or results_path.with_suffix(".md")
    title = f"nomercy simulation report: {results_path.name}" + (f" ({label})" if label else "")
    intro = describe_run(results, summary)
    sections = build_sections(summary, results)
    html_path.write_text(render_html(title, intro, sections), encoding="utf-8")
    md_path.write_text(
        render_markdown(title, intro, build_sections(summary, results, False)), encoding="utf-8"
    )
    return html_path, md_path
