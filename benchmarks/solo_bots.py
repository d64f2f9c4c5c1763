"""Each bot of the solo table: its time per decision natively and in Pyodide.

    .venv/bin/python benchmarks/solo_bots.py [--decisions 200] [--pyodide] [--json out.json]

The bots the page offers (``nomercy.solo.table.make_bot``: the searching levels play out
in Python, ``native=False``, as the page must), each deciding for three seats of a
four-seat solo table (the person at seat 0 takes its first choice) until it has made
``--decisions`` decisions: the median and p99 of ``choose``. ``--pyodide`` runs the same
measurement in Pyodide (WebAssembly CPython) under Node.js, from ``node_modules/pyodide``
and the engine's zip (``nomercy.site.bundle``): the interpreter the page runs, without
the browser around it. The expert plays ``PAGE_EXPERT_BUDGET`` playouts per decision in
the page (160 on the server): its cost here is what chose that budget.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata

#: The bots measured: every level and character the page offers.
SPECS = (
    "random",
    "careful",
    "beginner",
    "casual",
    "strong",
    "expert",
    "stacker",
    "hoarder",
    "gambler",
    "stacker:level=strong",
)

#: Run as it is natively and in Pyodide: measures the bots, returns JSON text.
MEASURE = r"""
import json, statistics, time
from nomercy.solo.table import SoloTable

def measure(specs, decisions, seed):
    out = {}
    for spec in specs:
        times = []
        game = 0
        while len(times) < decisions:
            t = SoloTable({"bots": [spec] * 3, "seed": seed + game, "mode": "round",
                           "delays": {"bot_delay": 0, "reaction_delay": 0, "between_rounds": 0}})
            for bot in t.bots[1:]:
                original = bot.choose
                def timed(view, original=original):
                    began = time.perf_counter()
                    action = original(view)
                    times.append(time.perf_counter() - began)
                    return action
                bot.choose = timed
            while not t.finished and len(times) < decisions:
                if t.due() >= 0:
                    t.advance()
                    continue
                choices = t.state_message([])["decisions"]["choices"]
                plain = [c for c in choices if c["kind"] not in ("uno", "catch")] or choices
                t.receive({"type": "action", "action": plain[0]["action"], "version": t.version})
            game += 1
        times = sorted(times[:decisions])
        out[spec] = {"decisions": len(times), "median_ms": round(1000 * statistics.median(times), 3),
                     "p99_ms": round(1000 * times[min(len(times) - 1, int(0.99 * len(times)))], 3)}
    return json.dumps(out)
"""

NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";
const [dir, zip, code, args] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: dir + path.sep });
py.unpackArchive(new Uint8Array(readFileSync(zip)), "zip", { extractDir: "/lib/nomercy-engine" });
py.runPython("import sys\nsys.path.insert(0, '/lib/nomercy-engine')");
py.runPython(readFileSync(code, "utf8"));
const [specs, decisions, seed] = JSON.parse(args);
console.log(py.globals.get("measure")(py.toPy(specs), decisions, seed));
console.log(py.runPython("import sys; sys.version.split()[0]"));
"""


def native(specs: list[str], decisions: int, seed: int) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    exec(MEASURE, scope)  # noqa: S102 - our own measurement, run alike in Pyodide
    result: dict[str, Any] = json.loads(scope["measure"](specs, decisions, seed))
    return result


def in_pyodide(specs: list[str], decisions: int, seed: int) -> tuple[dict[str, Any], str]:
    """The same measurement in Pyodide under Node (its Python version beside it)."""
    from nomercy.site import bundle, pyodide_dir

    node, found = shutil.which("node"), pyodide_dir()
    if node is None or found is None:
        raise SystemExit("--pyodide needs Node.js and Pyodide's npm package (npm ci)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "nomercy.zip").write_bytes(bundle())
        (folder / "measure.py").write_text(MEASURE)
        (folder / "run.mjs").write_text(NODE_SCRIPT)
        done = subprocess.run(
            [node, str(folder / "run.mjs"), str(found), str(folder / "nomercy.zip"),
             str(folder / "measure.py"), json.dumps([specs, decisions, seed])],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    *_, figures, version = done.stdout.strip().splitlines()
    return json.loads(figures), version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=200, help="decisions timed per bot")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default=",".join(SPECS), help="comma-separated bot specs")
    parser.add_argument("--pyodide", action="store_true", help="also in Pyodide under Node.js")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if args.decisions < 1:
        parser.error("--decisions must be at least 1")
    specs = [s for s in args.bots.split(",") if s]
    from nomercy.solo.table import PAGE_EXPERT_BUDGET

    here = native(specs, args.decisions, args.seed)
    page: dict[str, Any] = {}
    version = None
    if args.pyodide:
        page, version = in_pyodide(specs, args.decisions, args.seed)
    print(
        f"time per decision, ms (4 seats, {args.decisions} decisions each; "
        f"expert: {PAGE_EXPERT_BUDGET} playouts)"
    )
    head = f"{'bot':<22}{'native median':>14}{'native p99':>12}"
    if page:
        head += f"{'Pyodide median':>16}{'Pyodide p99':>13}{'ratio':>7}"
    print(head)
    for spec in specs:
        line = f"{spec:<22}{here[spec]['median_ms']:>14.2f}{here[spec]['p99_ms']:>12.2f}"
        if page:
            ratio = page[spec]["median_ms"] / max(here[spec]["median_ms"], 1e-9)
            line += f"{page[spec]['median_ms']:>16.2f}{page[spec]['p99_ms']:>13.2f}{ratio:>7.1f}"
        print(line)
    meta = metadata()
    if version:
        print(f"Pyodide's Python {version}")
    print(f"command: {meta['command']}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"native": here, "pyodide": page, "pyodide_python": version, "machine": meta}, indent=1
            )
        )


if __name__ == "__main__":
    main()
