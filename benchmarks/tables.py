"""The figures tables of the docs, generated from the benchmarks' JSON so that they cannot drift.

Each benchmark that feeds a doc writes its figures with ``--json`` into
``benchmarks/results/NAME.json`` (with the command, the date and the machine it ran on).
A doc holds a table between two markers::

    <!-- table:engine -->
    ... generated: do not edit ...
    <!-- /table:engine -->

and this script writes each table from its JSON, with the command and the machine under
it. ``--check`` changes nothing and exits 1 when a doc's table differs from what its JSON
gives (``tests/test_benchmarks.py`` runs it), so a figure edited by hand, or a JSON
refreshed without its docs, fails the tests.

    python benchmarks/tables.py            # rewrite every table from benchmarks/results/
    python benchmarks/tables.py --check    # exit 1 if any table is stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: The files that may hold tables, relative to the repository's root.
DOCS = ("README.md", "docs/*.md", "benchmarks/README.md")
MARKER = re.compile(r"(<!-- table:([a-z_]+) -->\n)(.*?)(<!-- /table:\2 -->)", re.S)


def _n(x: float) -> str:
    """A rate: thousands separated, no decimals (one decimal under 100)."""
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _x(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}x"


def _rows(header: list[str], align: str, rows: list[list[str]]) -> list[str]:
    """A markdown table; ``align`` has one letter per column, ``l`` or ``r``."""
    rule = ["---:" if a == "r" else "---" for a in align]
    return ["| " + " | ".join(r) + " |" for r in [header, rule, *rows]]


def engine(data: dict[str, Any]) -> list[str]:
    rows = [
        [
            r["case"],
            str(r["players"]),
            _n(r["games_per_s"]),
            _n(r["decisions_per_s"]),
            f"{r['decisions'] / r['games']:.1f}",
        ]
        for r in data["results"]
    ]
    lines = _rows(["case", "players", "games/s", "decisions/s", "decisions/game"], "lrrrr", rows)
    summary = data["summary"]
    lines += ["", f"Core build: {summary['build']}; time: process {data['clock'].upper()} time, best repeat."]
    if "rlcard_2p_vs_rlcard" in summary:
        lines.append(
            f"`rlcard` preset, 2 players, games/s over RLCard's `env.run`: "
            f"{summary['rlcard_2p_vs_rlcard']:.1f}x."
        )
    return lines


def native(data: dict[str, Any]) -> list[str]:
    rows = [[r["case"], _n(r["games_per_s"]), _n(r["decisions_per_s"])] for r in data["results"]]
    lines = _rows(["case (one core)", "games/s", "decisions/s"], "lrr", rows)
    names = {
        "no_mercy_4p_decisions": "native / Python engine, `no_mercy` 4 players, decisions/s",
        "single_table_4p_decisions": "one table stepped from Python / Python engine, 4 players, decisions/s",
        "rlcard_2p_games": "native / Python engine, `rlcard` 2 players, games/s",
        "heuristic_4p_games": "native / Python heuristic games (`nomercy.sim`), 4 players, games/s",
        "rlcard_2p_games_vs_rlcard": "native `rlcard` 2 players / RLCard's `env.run`, games/s",
    }
    #: The ratios to the C reference (target 0.6x), by CPU time and by instructions.
    to_c = {
        "rlcard_2p_games_vs_c": "native / C reference, `rlcard` 2 players, games/s",
        "no_mercy_4p_decisions_vs_c": "native / C reference, `no_mercy` 4 players, decisions/s",
        "rlcard_2p_instructions_c_over_native": "C reference / native, instructions, `rlcard` 2 players",
        "no_mercy_4p_instructions_c_over_native": "C reference / native, instructions, `no_mercy` 4 players",
    }
    lines.append("")
    lines += [f"- {names[k]}: {v:.1f}x" for k, v in data["ratios"].items() if k in names]
    lines += [f"- {to_c[k]}: {v:.2f}x" for k, v in data["ratios"].items() if k in to_c]
    counts = data.get("instructions", {})
    lines += [
        f"- instructions a decision (callgrind), {case}: native {c['native']:,.0f}, C reference {c['C']:,.0f}"
        for case, c in counts.items()
    ]
    return lines


def native_start(data: dict[str, Any]) -> list[str]:
    """``benchmarks/native_start.py``: the candidates on one slice, and the install size."""
    rows = []
    for name, f in data["candidates"].items():
        build = (f"{f['build_s']:.1f}", f"{f['build_peak_rss_mb']:.0f}") if "build_s" in f else ("-", "-")
        rows.append(
            [
                name,
                *build,
                f"{f['first_decision_s']:.2f}",
                f"{f['peak_rss_mb']:.0f}",
                _n(f["decisions_per_s"]),
            ]
        )
    header = ["candidate", "build s", "build MB", "first decision s", "peak MB", "decisions/s"]
    lines = _rows(header, "lrrrrr", rows)
    sizes = ", ".join(f"{k} {v:.1f} MB" for k, v in data["installed_mb"].items() if v is not None)
    lines += [
        "",
        f"Installed sizes: {sizes}; the compiled extension "
        f"{data['candidates']['C (ahead of time)']['extension_mb']:.2f} MB. "
        f"The `fast` path adds {data['fast_path_mb']:.1f} MB (numpy and the extension).",
    ]
    if "player_path_mb" in data:
        lines[-1] = lines[-1].replace("The `fast` path adds", "The research extra `fast` adds") + (
            f" A player's fast path, the expert's native playouts, needs no numpy: it adds "
            f"{data['player_path_mb']:.2f} MB, the extension that every wheel carries."
        )
    expert = data.get("expert_first_decision")
    if expert:
        lines[-1] += (
            f" The expert bot's first decision (native playouts) in a fresh process: "
            f"{expert['first_decision_s']:.2f} s, {expert['peak_rss_mb']:.0f} MB."
        )
    plain = data.get("expert_first_decision_no_numpy")
    if expert and plain:
        lines[-1] += (
            f" Its searched decisions: {_n(expert['playouts_per_s'])} playouts/s with numpy installed, "
            f"{_n(plain['playouts_per_s'])} without numpy (first decision {plain['first_decision_s']:.2f} s, "
            f"{plain['peak_rss_mb']:.0f} MB)."
        )
    return lines


def rl(data: dict[str, Any]) -> list[str]:
    rows = [
        [r["case"], _n(r["steps_per_s"]), _n(r["rounds_per_s"]), _x(r["vs_rlcard"])] for r in data["results"]
    ]
    lines = _rows(["case", "steps/s", "rounds/s", "x RLCard"], "lrrr", rows)
    lines += [
        "",
        f"Time: process {data['clock'].upper()} time unless marked (wall), best of {data['repeat']}.",
    ]
    return lines


def simulate(data: dict[str, Any]) -> list[str]:
    rows = [
        [
            r["case"],
            _n(r["games_per_s"]),
            f"x{r['speed_up']:.2f}",
            "" if r["games_per_cpu_s"] is None else _n(r["games_per_cpu_s"]),
        ]
        for r in data["results"]
    ]
    lines = _rows(["case", "games/s (wall)", "speed-up", "games per CPU-second"], "lrrr", rows)
    lines += [
        "",
        f"{data['games']:,} `{data['preset']}` games of {data['players']} players ({data['bots']} bots) "
        f"per run, best of {data['repeat']}; every case produced the same rows. Games per CPU-second "
        "is left blank where worker processes did the work (their CPU is not this process's).",
    ]
    return lines


def bots(data: dict[str, Any]) -> list[str]:
    rows = []
    for case in data["tournaments"]:
        first = case["result"]["bots"][0]
        low, high = first["ci95"]
        rows.append(
            [
                case["title"].split(". ", 1)[-1],
                f"{case['games']:,}",
                _pct(first["wins"] / first["games"]),
                f"{_pct(low)} - {_pct(high)}",
                f"> {case['bar']:.0%}",
                "pass" if case["pass"] else "**fail**",
            ]
        )
    header = ["first bot against the others", "games", "first bot's wins", "95% CI", "bar", "result"]
    lines = _rows(header, "lrrrll", rows)
    t = data["decision_time"]
    lines += [
        "",
        f"The expert's time per decision at its default budget ({t['budget']} playouts), one core, "
        f"{t['decisions_timed']} decisions with a choice: CPU median {t['cpu_median_s'] * 1000:.0f} ms, "
        f"p90 {t['cpu_p90_s'] * 1000:.0f} ms; wall median {t['wall_median_s'] * 1000:.0f} ms "
        f"(bar: median under 500 ms: {'pass' if t['pass'] else '**fail**'}).",
    ]
    return lines


def learned(data: dict[str, Any]) -> list[str]:
    """``benchmarks/learned.py``: the learned bot's wins in each pairing, its fair share,
    and the target (2 players against the heuristic, lower bound above 50%)."""
    rows = []
    for case in data["tournaments"]:
        first = case["result"]["bots"][0]
        low, high = first["ci95"]
        rows.append(
            [
                case["title"].split(". ", 1)[-1],
                f"{case['games']:,}",
                _pct(first["wins"] / first["games"]),
                f"{_pct(low)} - {_pct(high)}",
                f"{case['bar']:.0%}",
                "yes" if case["pass"] else "no",
            ]
        )
    header = ["learned against", "games", "learned's wins", "95% CI", "fair share", "lower bound above it"]
    lines = _rows(header, "lrrrrl", rows)
    target = data["tournaments"][0]
    t = data["decision_time"]
    lines += [
        "",
        f"Target (the network alone against the heuristic, 2 players, 95% lower bound above 50%): "
        f"{'met' if target['pass'] else '**not met**'}. Time per decision "
        f"({t['parameters']:,} parameters, numpy, {t['decisions_timed']} decisions): "
        f"median {t['median_us']:.0f} us, p90 {t['p90_us']:.0f} us"
        + (
            f"; the network alone: median {t['network_median_us']:.0f} us."
            if "network_median_us" in t
            else "."
        ),
    ]
    return lines


def ladder(data: dict[str, Any]) -> list[str]:
    """``nomercy ladder --out benchmarks/results/ladder.json``: the command's own Markdown."""
    from nomercy.sim.ladder import markdown

    return markdown(data)


def review_calibration(data: dict[str, Any]) -> list[str]:
    """``benchmarks/review_calibration.py``: predicted win chance against the observed share."""
    rows = [
        [
            f"{r['bin'][0]:.0%} - {r['bin'][1]:.0%}",
            f"{r['positions']:,}",
            _pct(r["predicted"]),
            _pct(r["observed"]),
            f"{_pct(r['ci95'][0])} - {_pct(r['ci95'][1])}",
        ]
        for r in data["rows"]
    ]
    lines = _rows(["predicted", "positions", "mean predicted", "observed wins", "95% Wilson"], "lrrrr", rows)
    engine = "native" if data["native"] else "Python"
    lines += [
        "",
        f"{data['positions']:,} positions ({data['per_round']} at most per round) of {data['rounds']:,} "
        f"`{data['bots']}` self-play rounds of 2, 3 and 4 players; {data['worlds']} sampled worlds per "
        f"estimate, {engine} playouts. Brier score {data['brier']:.4f} (always the fair share: "
        f"{data['brier_base_rate']:.4f}); expected calibration error {data['ece']:.3f}.",
    ]
    return lines


def review_speed(data: dict[str, Any]) -> list[str]:
    """``benchmarks/review_speed.py``: one four-player round reviewed, native and in Python."""
    r = data["round"]
    rows = []
    for c in data["cases"]:
        cpu = f"{c['cpu_s']:.1f} s"
        if c.get("cpu_s_scaled") is not None and c["cpu_s_scaled"] != c["cpu_s"]:
            cpu += f" ({c['cpu_s_scaled']:.0f} s scaled to the native worlds)"
        rows.append(
            [
                "native" if c["native"] else "Python",
                str(c["worlds"]),
                f"{c['estimated']} of {c['decisions']}",
                f"{c['playouts']:,}",
                cpu,
                _n(c["playouts"] / c["cpu_s"]),
            ]
        )
    header = ["engine", "worlds", "decisions estimated", "playouts", "CPU time (one core)", "playouts/s"]
    lines = _rows(header, "lrrrrr", rows)
    verdict = {True: "pass", False: "**fail**", None: "not measured"}[data["pass"]]
    lines += [
        "",
        f"A four-player `no_mercy` round of heuristic self-play (seed {r['seed']}, {r['decisions']} turn "
        f"decisions), every seat reviewed; playouts to the end of the round (depth {data['depth']}); "
        f"the native engine warm. Target: native review in at most {data['target_s']:.0f} s: {verdict}.",
    ]
    return lines


#: Table name -> its renderer; the JSON is benchmarks/results/NAME.json.
RENDERERS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "engine": engine,
    "native": native,
    "native_start": native_start,
    "rl": rl,
    "simulate": simulate,
    "bots": bots,
    "learned": learned,
    "ladder": ladder,
    "levels": ladder,  # the bot levels' ladder (docs/bots.md), the same command's Markdown
    "characters": ladder,  # the characters against the level they play at (docs/bots.md)
    "review_calibration": review_calibration,
    "review_speed": review_speed,
}


def machine_line(meta: dict[str, Any]) -> str:
    """Where, when and how the figures were measured."""
    load = meta.get("load_average")
    load_text = ", ".join(f"{x:.2f}" for x in load) if load else "unknown"
    return (
        f"Measured {meta['date']} with `{meta['command']}` (nomercy {meta['nomercy']}, "
        f"Python {meta['python']}) on {meta['cpu']}, {meta['cores']} cores, "
        f"load average {load_text} (1, 5, 15 min) at the end of the run."
    )


def render(name: str, results: Path) -> str:
    """The text between the markers of table ``name``: blank lines around it, so that
    every Markdown reader sees the table apart from the markers (HTML comments)."""
    path = results / f"{name}.json"
    if name not in RENDERERS:
        raise SystemExit(f"unknown table {name!r}: known are {', '.join(sorted(RENDERERS))}")
    if not path.exists():
        raise SystemExit(f"table {name!r}: no {path} (run its benchmark with --json {path})")
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = ["", *RENDERERS[name](data), "", machine_line(data["machine"]), ""]
    return "\n".join(lines) + "\n"


def update(text: str, results: Path) -> str:
    """``text`` with every table between markers rewritten from its JSON."""
    return MARKER.sub(lambda m: m[1] + render(m[2], results) + m[4], text)


def doc_files(root: Path) -> list[Path]:
    return sorted({p for pattern in DOCS for p in root.glob(pattern)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table is stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository's root")
    args = parser.parse_args(argv)
    results = args.root / "benchmarks" / "results"
    stale = []
    for path in doc_files(args.root):
        text = path.read_text(encoding="utf-8")
        new = update(text, results)
        if new != text:
            stale.append(path.relative_to(args.root))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(str(p) for p in stale)
        print(f"stale tables in {names}: run python benchmarks/tables.py", file=sys.stderr)
        return 1
    for path in stale:
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
