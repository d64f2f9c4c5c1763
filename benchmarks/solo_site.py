"""The static site's first visit for offline play: what it downloads, compressed.

    .venv/bin/python benchmarks/solo_site.py [--json out.json]

Builds the site (``nomercy.site.site_files``, no folder written) and sums, by part, the
bytes of every file the service worker keeps (``sw-files.json``): as stored, and gzipped
(level 6, what a static host's compression typically sends; a host that does not
compress sends the first column). Pyodide's ``python_stdlib.zip`` and the engine's zip
are already compressed, and gzip gains little on them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import metadata

#: Parts of the site, by the first matching path prefix.
PARTS = (
    ("pyodide/pyodide.asm.wasm", "Pyodide: the interpreter (WebAssembly)"),
    ("pyodide/python_stdlib.zip", "Pyodide: Python's standard library"),
    ("pyodide/", "Pyodide: loader, glue, lock file"),
    ("engine/", "the engine (nomercy's Python, zipped)"),
    ("static/js/solo/", "the solo screens and worker"),
    ("static/", "the client (scripts, styles)"),
    ("i18n/", "the catalogs (en, nb)"),
    ("", "the page, options, manifest, icons, service worker"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    from nomercy.site import listing, service_worker, site_files

    files = site_files()
    files["sw.js"] = service_worker(listing(files)["version"])
    sizes: dict[str, list[int]] = {label: [0, 0, 0] for _, label in PARTS}
    for rel, item in files.items():
        data = item if isinstance(item, bytes) else Path(item).read_bytes()
        label = next(label for prefix, label in PARTS if rel.startswith(prefix))
        sizes[label][0] += 1
        sizes[label][1] += len(data)
        sizes[label][2] += len(gzip.compress(data, 6, mtime=0))
    print(f"{'part':<52}{'files':>6}{'stored kB':>11}{'gzip kB':>10}")
    for label, (count, raw, packed) in sizes.items():
        print(f"{label:<52}{count:>6}{raw / 1e3:>11.0f}{packed / 1e3:>10.0f}")
    total = [sum(v[i] for v in sizes.values()) for i in range(3)]
    print(f"{'total':<52}{total[0]:>6}{total[1] / 1e3:>11.0f}{total[2] / 1e3:>10.0f}")
    meta = metadata()
    print(f"command: {meta['command']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"parts": sizes, "total": total, "machine": meta}, indent=1))


if __name__ == "__main__":
    main()
