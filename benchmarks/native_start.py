"""The native engine on a fresh install: build, first decision, memory, install size.

    .venv/bin/python benchmarks/native_start.py [--seconds 1] [--json PATH]

How the native kernels reach machine code, measured on one slice of the engine (deal four
seats, then random legal play to the end of each round: ``Batch.reset``, ``random_play``,
``legal_mask``), from the same Python kernel source:

- ``C (ahead of time)``: ``scripts/native_c.py``'s translation, ``_engine.c``, compiled
  by gcc as the package build does (``hatch_build.py``: on x86-64 a portable build and
  one for x86-64-v3 processors); the builds' wall time and the compiler's peak memory,
  then a fresh process: import to first decision, its peak memory, and random play's
  decisions/s.
- ``numba (JIT)``, when numba is installed (it is no longer a dependency): the same
  Python kernels under ``numba.njit`` in a fresh process with an empty cache, as the
  engine ran before: import and compile to first decision, peak memory, decisions/s.

Then a player's first wait and the expert's speed: in fresh processes, with numpy
importable and with numpy blocked (a plain install: the expert's native playouts need only
the compiled extension), the expert bot's first decision (wall time, peak memory) and its
searched decisions' playouts per second (CPU time, the same seeded decisions on both).
And what the native path adds to an install: for a player (the expert's playouts) the
compiled extension alone, which every wheel carries; for research (``Batch``, the vector
environments, the simulator: the ``fast`` extra) numpy too. numba and llvmlite are listed
when installed, for comparison. Times are wall clock (compiling is one process);
decisions/s is CPU time.

Targets: first decision within 5 s of import, peak memory at most 500 MB, the fast path
adds at most 60 MB.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import metadata  # benchmarks/machine.py

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "nomercy" / "native" / "_engine.c"
TARGET_FIRST_S = 5.0
TARGET_RSS_MB = 500.0
TARGET_INSTALL_MB = 60.0

#: The slice, in a fresh process: first decision, then random play for ``seconds`` of CPU.
#: With ``numba`` as argv[2], the Python kernels are put under numba.njit first (the
#: engine as it was), every module's names rebound to the compiled dispatchers.
_SLICE = r"""
import os, resource, sys, time
t0 = time.perf_counter()
if sys.argv[2] == "numba":
    os.environ["NOMERCY_NATIVE_SOURCE"] = "1"
    import importlib
    import numba
    mods = [importlib.import_module("nomercy.native." + m)
            for m in ("kernels", "heuristic", "encode", "sim", "vector", "playout", "policy")]
    from nomercy.native import _compiled
    jit = {}
    for kind, fn in _compiled.SOURCES:
        if kind == "kernel":
            jit[id(fn)] = numba.njit(cache=True, _nrt=False)(fn)
        else:
            jit[id(fn)] = numba.njit(cache=True, _nrt=False, inline="always")(fn)
    for m in mods:
        for name, value in list(vars(m).items()):
            if id(value) in jit:
                setattr(m, name, jit[id(value)])
    for kind, fn in _compiled.SOURCES:  # a kernel inlined elsewhere is its own copy
        for name, value in list(fn.__globals__.items()):
            if id(value) in jit:
                fn.__globals__[name] = jit[id(value)]
from nomercy import Rules
from nomercy.native import Batch
b = Batch(Rules(), 16, 4)
b.reset(range(16))
b.random_play(100)
b.legal_mask(0)
first = time.perf_counter() - t0
seconds = float(sys.argv[1])
n = 0
start = time.process_time()
while time.process_time() - start < seconds:
    b.random_play(20000, seed=n, first_game_seed=n)
    n += 20000
rate = n / (time.process_time() - start)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(first, rss, rate)
"""


def run_slice(engine: str, seconds: float, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _SLICE, str(seconds), engine],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    first, rss, rate = (float(x) for x in out.stdout.split()[-3:])
    return {"first_decision_s": first, "peak_rss_mb": rss, "decisions_per_s": rate}


#: A player's first wait: the expert bot's first decision, its playouts on the native engine;
#: then its playouts per second (CPU) over the searched decisions of seeded 4-player deals.
#: With "plain" as argv[1], numpy cannot be imported (a plain install).
_EXPERT = r"""
import resource, sys, time
if sys.argv[1] == "plain":
    sys.modules["numpy"] = None
t0 = time.perf_counter()
from nomercy import new_game
from nomercy.bots import make
from nomercy.views import player_view
state = new_game(4, seed=3)
bot = make("expert", seed=1, native=True)
bot.choose(player_view(state, state.current))
first = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
playouts = 0
start = time.process_time()
for seed in range(40):
    state = new_game(4, seed=seed)
    bot = make("expert", seed=seed, native=True)
    bot.choose(player_view(state, state.current))
    playouts += bot.last_playouts
cpu = time.process_time() - start
numpy = "numpy" in sys.modules and sys.modules["numpy"] is not None
print(first, rss, playouts / cpu, int(numpy))
"""


def expert_first(env: dict[str, str], plain: bool = False) -> dict[str, float]:
    """The expert's first decision and playouts/s in a fresh process (``plain``: no numpy)."""
    out = subprocess.run(
        [sys.executable, "-c", _EXPERT, "plain" if plain else "numpy"], env=env, capture_output=True,
        text=True, check=True, cwd=tempfile.gettempdir(),
    )  # fmt: skip
    first, rss, rate, numpy = (float(x) for x in out.stdout.split()[-4:])
    return {"first_decision_s": first, "peak_rss_mb": rss, "playouts_per_s": rate, "numpy_loaded": numpy}


_GCC = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True)
wall = time.perf_counter() - t
print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""


def build_c() -> dict[str, float]:
    """Compile _engine.c as hatch_build.py does (every variant), into scratch files."""
    sys.path.insert(0, str(ROOT))
    import hatch_build

    wall = rss = size = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in hatch_build.variants():
            target = Path(tmp, name + ".so")
            wrapped = [sys.executable, "-c", _GCC, *hatch_build.compile_command(target, extra)]
            out = subprocess.run(wrapped, capture_output=True, text=True, check=True)
            w, r = (float(x) for x in out.stdout.split()[-2:])
            wall, rss, size = wall + w, max(rss, r), size + target.stat().st_size / 2**20
    return {"build_s": wall, "build_peak_rss_mb": rss, "extension_mb": size}


def installed_mb(dist: str) -> float | None:
    """The installed size of a distribution: the files its RECORD lists."""
    try:
        files = importlib.metadata.distribution(dist).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    total = 0
    for f in files:
        path = Path(str(f.locate()))
        if path.is_file():
            total += path.stat().st_size
    return total / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds of random play per engine")
    parser.add_argument("--no-numba", action="store_true", help="skip the numba candidate even if installed")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    candidates: dict[str, dict[str, float]] = {}
    c = build_c()
    c.update(run_slice("c", args.seconds, env))
    candidates["C (ahead of time)"] = c
    expert = expert_first(env)
    expert_plain = expert_first(env, plain=True)
    has_numba = importlib.util.find_spec("numba") is not None
    if has_numba and not args.no_numba:
        with tempfile.TemporaryDirectory() as cache:
            candidates["numba (JIT, empty cache)"] = run_slice(
                "numba", args.seconds, {**env, "NUMBA_CACHE_DIR": cache}
            )
    sizes = {name: installed_mb(name) for name in ("numpy", "numba", "llvmlite")}
    fast_mb = (sizes["numpy"] or 0.0) + c["extension_mb"]
    player_mb = c["extension_mb"]  # the expert's playouts need no numpy

    print("nomercy native engine on a fresh install: slice = deal 16 tables of 4, random play")
    print()
    print(
        f"{'candidate':<26} {'build s':>8} {'build MB':>9} {'first s':>8} {'peak MB':>8} {'decisions/s':>12}"
    )
    for name, f in candidates.items():
        build = (
            f"{f['build_s']:8.1f} {f['build_peak_rss_mb']:9.0f}" if "build_s" in f else f"{'-':>8} {'-':>9}"
        )
        print(
            f"{name:<26} {build} {f['first_decision_s']:8.2f} {f['peak_rss_mb']:8.0f} "
            f"{f['decisions_per_s']:12,.0f}"
        )
    print()
    for name, mb in sizes.items():
        print(f"installed {name}: {'not installed' if mb is None else f'{mb:.1f} MB'}")
    print(f"the compiled extension (every build): {c['extension_mb']:.2f} MB")
    mark = "ok" if player_mb <= TARGET_INSTALL_MB else "ABOVE TARGET"
    print(
        f"a player's fast path (the expert's native playouts: the extension, no numpy) adds "
        f"{player_mb:.2f} MB (target {TARGET_INSTALL_MB:.0f}) {mark}"
    )
    print(f"the research extra `fast` (numpy, extension) adds {fast_mb:.1f} MB")
    first, rss = c["first_decision_s"], c["peak_rss_mb"]
    mark = "ok" if first <= TARGET_FIRST_S else "SLOW"
    print(f"first decision {first:.2f} s (target <= {TARGET_FIRST_S:.0f} s): {mark}")
    mark = "ok" if rss <= TARGET_RSS_MB else "HIGH"
    print(f"peak memory {rss:.0f} MB (target <= {TARGET_RSS_MB:.0f} MB): {mark}")
    for label, e in (("numpy installed", expert), ("no numpy", expert_plain)):
        print(
            f"the expert bot ({label}): first decision {e['first_decision_s']:.2f} s, peak memory "
            f"{e['peak_rss_mb']:.0f} MB, {e['playouts_per_s']:,.0f} playouts/s"
        )
    print()
    python = os.path.relpath(sys.executable)
    extra = " --no-numba" if args.no_numba else ""
    print(f"reproduce: {python} benchmarks/native_start.py --seconds {args.seconds:g}{extra}")
    if args.json:
        out = {
            "candidates": candidates,
            "expert_first_decision": expert,
            "expert_first_decision_no_numpy": expert_plain,
            "installed_mb": sizes,
            "fast_path_mb": fast_mb,
            "player_path_mb": player_mb,
            "machine": metadata(),
        }
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
