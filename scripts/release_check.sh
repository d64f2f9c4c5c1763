#!/usr/bin/env bash
# The release check: what a packager does with nomercy, done before they do.
#
#   scripts/release_check.sh [PYTHON]     (make release-check; .ci/run runs it)
#
# 1. python -m build: an sdist, then a wheel built from that sdist (without the mypyc
#    build of make compiled, with the native engine's C extension that every build
#    compiles: hatch_build.py), both named with nomercy.__version__.
# 2. The sdist holds LICENSE, README.md, CHANGELOG.md, pyproject.toml, hatch_build.py and
#    the native engine's C source; the wheel is tagged for this Python and platform and
#    holds every file of the package (web assets, catalogs, py.typed, the extension).
# 3. The wheel goes into a fresh virtual environment with only the core dependencies,
#    and there, run from outside the source tree: python -m nomercy --version,
#    nomercy rules, nomercy play (a dealt game, fed its input through a pipe: help, then q
#    saves and quits), nomercy replay of that save, a short tournament and simulation, and
#    the hints that the native engine and the server need their extras.
# 4. Each documented extra set in a fresh virtual environment of its own, doing what the
#    docs promise for it (scripts/extras_check.sh).
# PYTHON (default: python3) needs the build package (the dev extra). The artifacts are
# left in build/release/dist; everything else in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${1:-${PYTHON:-python3}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dist=build/release/dist
fail() { echo "release check FAILED: $*" >&2; exit 1; }
step() { echo "release check: $*"; }

version=$("$python" -c 'import re, sys
text = open("src/nomercy/__init__.py", encoding="utf-8").read()
print(re.search(r"^__version__\s*=\s*\"([^\"]+)\"", text, re.M).group(1))')
step "version $version"

rm -rf "$dist" && mkdir -p "$dist"
step "python -m build (sdist, then the wheel from it)"
HATCH_BUILD_HOOK_ENABLE_MYPYC=false "$python" -m build --outdir "$dist" . >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log"; fail "python -m build"; }
sdist=$dist/nomercy-$version.tar.gz
tag=$("$python" -c 'import sys, sysconfig
v = f"cp{sys.version_info[0]}{sys.version_info[1]}"
p = sysconfig.get_platform().replace("-", "_").replace(".", "_")
print(f"{v}-{v}-{p}")')
wheel=$dist/nomercy-$version-$tag.whl
[ -f "$sdist" ] || fail "no $sdist (built: $(ls "$dist"))"
[ -f "$wheel" ] || fail "no wheel $wheel for this platform (built: $(ls "$dist"))"

step "contents of the sdist and the wheel"
"$python" - "$sdist" "$wheel" "$version" <<'PY' || fail "contents"
import os, sys, tarfile, zipfile
sdist, wheel, version = sys.argv[1:]
top = f"nomercy-{version}/"
with tarfile.open(sdist) as tar:
    in_sdist = {name.removeprefix(top) for name in tar.getnames()}
missing = [f for f in ("LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "src/nomercy/__init__.py",
                     "hatch_build.py", "src/nomercy/native/_engine.c")
           if f not in in_sdist]
junk = sorted({n.split("/")[0] for n in in_sdist if n.startswith((".venv", "build/", "dist/"))})
with zipfile.ZipFile(wheel) as zf:
    in_wheel = set(zf.namelist())
package = [os.path.join(d, f) for d, _, fs in os.walk("src/nomercy") if "__pycache__" not in d
           for f in fs if not f.endswith((".pyc", ".so", ".c"))]  # the C is the sdist's, compiled
not_in_wheel = sorted(p for p in package if p.removeprefix("src/") not in in_wheel)
info = f"nomercy-{version}.dist-info/"
for name in ("licenses/LICENSE", "METADATA", "entry_points.txt"):
    if info + name not in in_wheel:
        not_in_wheel.append(info + name)
needed = ("nomercy/web/index.html", "nomercy/i18n/catalogs/en/terminal.json", "nomercy/py.typed")
not_in_wheel += [] if any(n.startswith("nomercy/native/_engine.") and n.endswith((".so", ".pyd"))
                          for n in in_wheel) else ["nomercy/native/_engine (the compiled extension)"]
not_in_wheel += [n for n in needed if n not in in_wheel]
for what, names in (("missing from the sdist", missing), ("in the sdist by mistake", junk),
                    ("missing from the wheel", not_in_wheel)):
    if names:
        print(f"{what}: {', '.join(names)}", file=sys.stderr)
if missing or junk or not_in_wheel:
    sys.exit(1)
print(f"  sdist: {len(in_sdist)} entries; wheel: {len(in_wheel)} files, every package file present")
PY

step "a fresh virtual environment with the wheel and the core dependencies only"
"$python" -m venv "$work/venv"
bin=$work/venv/bin
"$bin/python" -m pip install -q --disable-pip-version-check "$wheel" >"$work/pip.log" 2>&1 \
  || { tail -n 20 "$work/pip.log"; fail "pip install $wheel"; }
"$bin/python" -m pip check >/dev/null || fail "pip check"
# Nothing of the extras came with it (numpy: fast and rl; fastapi: server).
"$bin/python" -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(m) for m in ("numpy", "fastapi")))' \
  || fail "an extra's dependency was installed with the core"

cd "$work"  # away from src/, so only the installed package can be imported
export PYTHONPATH="" NO_COLOR=1 COLUMNS=100
unset NOMERCY_LANG LANGUAGE
export LANG=C.UTF-8
out=$("$bin/python" -m nomercy --version) || fail "python -m nomercy --version"
[ "$out" = "nomercy $version" ] || fail "python -m nomercy --version said '$out', not 'nomercy $version'"
[ "$("$bin/nomercy" --version)" = "nomercy $version" ] || fail "nomercy --version"
step "  python -m nomercy --version: $out"

"$bin/nomercy" rules >rules.txt || fail "nomercy rules"
grep -q "mercy_limit" rules.txt || fail "nomercy rules printed no house rules"
"$bin/nomercy" rules --preset classic >/dev/null || fail "nomercy rules --preset classic"
step "  nomercy rules: $(grep -c '│' rules.txt) lines"

printf '?\nq\n' | timeout 120 "$bin/nomercy" play --fast --seed 7 --players 3 --save "$work/game.json" \
  >play.txt 2>&1 || { tail -n 20 play.txt; fail "nomercy play"; }
grep -q "Your move\|Name a color" play.txt || { tail -n 20 play.txt; fail "nomercy play never asked for a move"; }
[ -s "$work/game.json" ] || fail "nomercy play did not save the game on q"
timeout 120 "$bin/nomercy" replay --fast "$work/game.json" >replay.txt 2>&1 \
  || { tail -n 20 replay.txt; fail "nomercy replay"; }
step "  nomercy play: dealt, asked, saved on q; nomercy replay read it back"

timeout 300 "$bin/nomercy" tournament --bots heuristic,random --games 4 --workers 1 --json >tour.json \
  || fail "nomercy tournament"
"$bin/python" -c 'import json, sys; sys.exit(json.load(open("tour.json"))["games"] != 4)' \
  || fail "nomercy tournament --json"
step "  nomercy tournament: 4 games"

"$bin/nomercy" simulate --games 20 --workers 1 --no-progress --out rows.csv >sim.txt 2>&1 \
  || { cat sim.txt; fail "nomercy simulate"; }
[ "$(wc -l <rows.csv)" -eq 21 ] || fail "nomercy simulate --out rows.csv did not write 20 rows"
step "  nomercy simulate: 20 games, 20 rows"

if "$bin/nomercy" simulate --engine native --games 1 >native.txt 2>&1; then
  fail "nomercy simulate --engine native ran without the fast extra"
fi
grep -q "nomercy\[fast\]" native.txt || { cat native.txt; fail "no hint to install the fast extra"; }
step "  nomercy simulate --engine native: asks for nomercy[fast]"
if "$bin/nomercy" serve --port 1 >serve.txt 2>&1; then
  fail "nomercy serve ran without the server extra"
fi
grep -q "nomercy\[server\]" serve.txt || { cat serve.txt; fail "no hint to install the server extra"; }
step "  nomercy serve: asks for nomercy[server]"

cd "$root"
step "each documented extra set in a fresh virtual environment (scripts/extras_check.sh)"
bash scripts/extras_check.sh "$wheel" "$python" || fail "the extras check"
step "passed: $sdist and $wheel"
