"""The offline app in Chromium: the first visit's download, the time to the first card
offline (cold and warm), and each bot's time per decision in the page.

    .venv/bin/python benchmarks/offline_app.py [--site DIR] [--decisions 40] [--runs 3] [--json out.json]

The site is ``nomercy site build``'s folder (built into a temporary folder unless
``--site`` names one), served by ``python -m http.server`` on 127.0.0.1, opened in
Debian's headless Chromium through Playwright (as ``tests/browser/test_offline.py``).

- **First visit**: every response the browser receives while the page opens and its
  service worker keeps the app (``sw-files.json``), by part: the bytes as received from
  this server (which does not compress), and the same files gzipped at level 6, which is
  what a compressing static host sends (GitHub Pages, Codeberg Pages, Netlify do).
- **Time to the first card, offline**: from opening the page to the first card of the
  hand drawn, after a click on "Play offline" as soon as the page is ready. *Cold*: a
  browser started anew on a profile where the app was installed (nothing of the engine
  in memory, the compiled WebAssembly from the browser's code cache at best); *warm*: the
  same page opened again in that running browser. The median of ``--runs``.
- **Bots in the page**: ``benchmarks/solo_bots.py``'s measurement (its ``MEASURE`` code,
  the same bots, seeds and tables), run by Pyodide in the page, beside the same
  measurement in this Python natively.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata
from solo_bots import MEASURE, SPECS, native

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
#: Parts of the site, by the first matching path prefix.
PARTS = (
    ("pyodide/pyodide.asm.wasm", "Pyodide: the interpreter (WebAssembly)"),
    ("pyodide/python_stdlib.zip", "Pyodide: Python's standard library"),
    ("pyodide/", "Pyodide: loader, glue, lock file"),
    ("engine/", "the engine (nomercy's Python, zipped)"),
    ("i18n/", "the catalogs (both languages)"),
    ("static/", "the client (modules, style, solo screens, worker)"),
    ("", "the page, service worker, manifest, icons, options"),
)


def part_of(path: str) -> str:
    return next(name for prefix, name in PARTS if path.startswith(prefix))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(folder: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def ready(page: Any) -> None:
    page.wait_for_selector("html[data-ready]", state="attached")


def first_visit(pw: Any, url: str, folder: Path, profile: Path) -> dict[str, Any]:
    """Open the site once (network on) on a new profile and let the service worker keep it."""
    context = pw.chromium.launch_persistent_context(
        str(profile),
        executable_path=CHROMIUM,
        args=ARGS,
        headless=True,
        viewport={"width": 1280, "height": 800},
    )
    got: list[tuple[str, int]] = []

    def finished(request: Any) -> None:
        sizes = request.sizes()
        got.append((request.url, int(sizes["responseBodySize"]) + int(sizes["responseHeadersSize"])))

    context.on("requestfinished", finished)
    page = context.new_page()
    page.goto(url)
    ready(page)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=300_000)
    page.wait_for_timeout(1000)
    context.close()
    parts: dict[str, dict[str, int]] = {}
    for address, received in got:
        path = address[len(url) :].split("?")[0] or "index.html"
        if path.endswith("/"):
            path += "index.html"
        row = parts.setdefault(part_of(path), {"requests": 0, "received": 0, "gzipped": 0})
        row["requests"] += 1
        row["received"] += received
        file = folder / path
        if file.is_file():
            row["gzipped"] += len(gzip.compress(file.read_bytes(), 6))
    return parts


def to_first_card(context: Any, url: str) -> dict[str, float]:
    page = context.new_page()
    began = time.perf_counter()
    page.goto(url)
    ready(page)
    at_ready = time.perf_counter() - began
    page.click("#solo-start")
    page.wait_for_selector("#hand .card", timeout=300_000)
    at_card = time.perf_counter() - began
    page.close()
    return {"ready_s": at_ready, "first_card_s": at_card}


def offline_starts(pw: Any, url: str, profile: Path, runs: int) -> dict[str, list[dict[str, float]]]:
    cold: list[dict[str, float]] = []
    warm: list[dict[str, float]] = []
    for _ in range(runs):
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_offline(True)
        cold.append(to_first_card(context, url))
        warm.append(to_first_card(context, url))
        context.close()
    return {"cold": cold, "warm": warm}


PAGE_MEASURE = """async ([code, specs, decisions, seed]) => {
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", location.href).href);
  const py = await loadPyodide({ indexURL: new URL("pyodide/", location.href).href });
  const zip = await (await fetch("engine/nomercy.zip")).arrayBuffer();
  py.unpackArchive(new Uint8Array(zip), "zip", { extractDir: "/lib/nomercy-engine" });
  py.runPython("import sys\\nsys.path.insert(0, '/lib/nomercy-engine')");
  py.runPython(code);
  const out = py.globals.get("measure")(py.toPy(specs), decisions, seed);
  // The page's clock: Chromium coarsens performance.now() (to 0.1 ms without cross-origin
  // isolation), and Python's perf_counter reads it; the smallest step seen is its tick.
  let tick = Infinity;
  for (let i = 0, last = performance.now(); i < 200000 && tick === Infinity; i++) {
    const now = performance.now();
    if (now > last) tick = now - last;
    last = now;
  }
  return [out, py.runPython("import sys; sys.version.split()[0]"), tick];
}"""


def bots_in_page(
    pw: Any, url: str, specs: list[str], decisions: int, seed: int
) -> tuple[dict[str, Any], str]:
    """solo_bots.py's measurement, run by the site's own Pyodide in a Chromium page."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    page = browser.new_page()
    page.set_default_timeout(3_600_000)
    page.goto(url)
    ready(page)
    figures, version, tick = page.evaluate(PAGE_MEASURE, [MEASURE, specs, decisions, seed])
    browser.close()
    return json.loads(figures), f"{version}, its clock ticking in {tick:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a folder nomercy site build wrote (else built here)")
    parser.add_argument("--runs", type=int, default=3, help="cold and warm starts measured")
    parser.add_argument("--decisions", type=int, default=40, help="decisions timed per bot")
    parser.add_argument("--bots", default=",".join(SPECS), help="comma-separated bot specs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if CHROMIUM is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    specs = [s for s in args.bots.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.site
        if folder is None:
            folder = Path(tmp) / "site"
            subprocess.run([sys.executable, "-m", "nomercy", "site", "build", str(folder)], check=True)
        with served(folder) as url, sync_playwright() as pw:
            profile = Path(tmp) / "profile"
            download = first_visit(pw, url, folder, profile)
            starts = offline_starts(pw, url, profile, args.runs)
            page, version = bots_in_page(pw, url, specs, args.decisions, args.seed) if specs else ({}, "")
    here = native(specs, args.decisions, args.seed) if specs else {}

    print("first visit (network on, the service worker keeping the app), by part:")
    print(f"{'part':<52}{'requests':>9}{'received KB':>13}{'gzip-6 KB':>11}")
    for _, name in PARTS:
        row = download.get(name)
        if row:
            print(
                f"{name:<52}{row['requests']:>9}{row['received'] / 1024:>13.0f}{row['gzipped'] / 1024:>11.0f}"
            )
    total = {k: sum(r[k] for r in download.values()) for k in ("requests", "received", "gzipped")}
    print(f"{'total':<52}{total['requests']:>9}{total['received'] // 1024:>13}{total['gzipped'] // 1024:>11}")
    print(f"\nopening the installed app offline to the first card dealt (median of {args.runs}), s:")
    for kind in ("cold", "warm"):
        rows = starts[kind]
        print(
            f"  {kind}: page ready {statistics.median(r['ready_s'] for r in rows):.2f}, "
            f"first card {statistics.median(r['first_card_s'] for r in rows):.2f} "
            f"(runs: {', '.join(format(r['first_card_s'], '.2f') for r in rows)})"
        )
    if specs:
        print(f"\ntime per decision, ms ({args.decisions} decisions each), in the page and natively:")
        print(
            f"{'bot':<22}{'page median':>12}{'page p99':>10}{'native median':>15}{'native p99':>12}{'x':>7}"
        )
        for spec in specs:
            p, n = page[spec], here[spec]
            ratio = p["median_ms"] / max(n["median_ms"], 1e-9)
            print(
                f"{spec:<22}{p['median_ms']:>12.2f}{p['p99_ms']:>10.2f}"
                f"{n['median_ms']:>15.2f}{n['p99_ms']:>12.2f}{ratio:>7.1f}"
            )
        print(f"Pyodide's Python {version}")
    meta = metadata()
    print(f"command: {meta['command']}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "download": download,
                    "starts": starts,
                    "page": page,
                    "native": here,
                    "pyodide_python": version,
                    "machine": meta,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
