#!/usr/bin/env bash
# The extras check: each documented extra set (docs/install.md, "The extras") installed from
# the wheel into a fresh virtual environment of its own, and there, run from outside the
# source tree, what the docs promise for it; without it, the one-line message that names it.
#
#   scripts/extras_check.sh WHEEL [PYTHON]      (scripts/release_check.sh runs it)
#
# EXTRAS_CHECKED below is the list; tests/test_extras.py fails when pyproject.toml declares an
# extra that is neither checked here nor in EXTRAS_NOT_CHECKED (with the reason).
set -euo pipefail
wheel=$(realpath "$1")
python=${2:-python3}
case $python in */*) python=$(realpath "$python") ;; esac  # a path still holds after the cd below
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "extras check FAILED: $*" >&2; exit 1; }
step() { echo "extras check: $*"; }

# The sets a user installs, each one venv. Space-separated; a set is comma-separated extras.
EXTRAS_CHECKED="core learned fast rl rl,fast sim server ray bench"
# Not installed here: dev and docs are for a clone (make test and make docs install them);
# train pulls torch, whose default build is gigabytes of CUDA (CI installs a CPU build and
# runs the training smoke test in the suite).
EXTRAS_NOT_CHECKED="dev docs train"

cd "$work"  # away from src/: only the installed package can be imported
export PYTHONPATH="" NO_COLOR=1 COLUMNS=200 LANG=C.UTF-8
unset NOMERCY_LANG LANGUAGE

venv_for() {  # venv_for SET: a fresh venv with the wheel and that set's extras; prints its bin
  local set=$1 dir="$work/venv-${1//,/-}"
  "$python" -m venv "$dir"
  local spec="$wheel"
  [ "$set" = core ] || spec="$wheel[$set]"
  "$dir/bin/python" -m pip install -q --disable-pip-version-check "$spec" >"$dir.pip.log" 2>&1 \
    || { tail -n 20 "$dir.pip.log" >&2; fail "pip install nomercy[$set]"; }
  "$dir/bin/python" -m pip check >/dev/null || fail "pip check in nomercy[$set]"
  echo "$dir/bin"
}

# expect_extra BIN EXTRA COMMAND...: the command fails with a short message naming the extra
# (its one line, or the command line's usage error around it), never a traceback.
expect_extra() {
  local bin=$1 extra=$2; shift 2
  if "$@" >out.txt 2>&1; then fail "'$*' ran without the $extra extra"; fi
  grep -q "pip install 'nomercy\[$extra\]'" out.txt || { cat out.txt; fail "'$*' did not name the $extra extra"; }
  ! grep -q Traceback out.txt && [ "$(grep -c . out.txt)" -le 6 ] \
    || { cat out.txt; fail "'$*' printed more than a short message"; }
}

check_core() {
  local bin=$1
  expect_extra "$bin" learned "$bin/nomercy" play --bots learned --seed 1
  expect_extra "$bin" learned "$bin/nomercy" tournament --bots learned,heuristic --games 2 --workers 1
  expect_extra "$bin" sim "$bin/nomercy" simulate --games 2 --workers 1 --no-progress --out rows.parquet
  expect_extra "$bin" sim "$bin/nomercy" ladder --agents heuristic,random --deals 1
  expect_extra "$bin" fast "$bin/nomercy" simulate --engine native --games 1
  expect_extra "$bin" server "$bin/nomercy" serve --port 1
  # A Python import says it in its last line (the traceback is Python's own).
  if "$bin/python" -c 'import nomercy.rl' 2>out.txt; then fail "import nomercy.rl without the rl extra"; fi
  tail -n 1 out.txt | grep -q "MissingExtra: .*pip install 'nomercy\[rl\]'" || { cat out.txt; fail "import nomercy.rl"; }
}

check_learned() {
  "$1/nomercy" tournament --bots learned,heuristic --games 2 --workers 1 --json >t.json || fail "learned bot"
}

check_fast() {
  "$1/python" - <<'PY' || fail "nomercy.native.Batch"
from nomercy.native import Batch
from nomercy.rules import Rules
batch = Batch(Rules(), tables=8, players=3)
batch.reset(range(8))
batch.random_play(2_000)
PY
  "$1/nomercy" simulate --engine native --games 20 --workers 1 --no-progress --out rows.csv >/dev/null \
    || fail "nomercy simulate --engine native"
  [ "$(wc -l <rows.csv)" -eq 21 ] || fail "nomercy simulate --engine native wrote no 20 rows"
}

check_rl() {
  "$1/python" - <<'PY' || fail "the rl extra's environments"
import gymnasium
import nomercy.rl  # registers the ids
from nomercy.rl.pettingzoo import env as pz_env
env = gymnasium.make("nomercy/NoMercy-v3", players=2, opponents="random")
obs, info = env.reset(seed=1)
mask = info["action_mask"]
obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
aec = pz_env(players=3)
aec.reset(seed=2)
import pyspiel
import nomercy.rl.openspiel_game  # registers python_nomercy
game = pyspiel.load_game("python_nomercy", {"players": 3})
state = game.new_initial_state()
state.apply_action(state.legal_actions()[0]) if not state.is_chance_node() else None
PY
}

check_rl_fast() {
  "$1/python" - <<'PY' || fail "NativeVectorEnv with nomercy[rl,fast]"
import numpy as np
from nomercy.rl.native_vector import NativeVectorEnv
venv = NativeVectorEnv(8, players=2, rules="no_mercy", opponents="random")
obs, masks = venv.reset(seed=0)
actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
venv.step(actions)
venv.close()
PY
}

check_sim() {
  local bin=$1
  "$bin/nomercy" simulate --games 20 --workers 1 --no-progress --out rows.parquet >/dev/null || fail "Parquet rows"
  "$bin/nomercy" report rows.parquet --html report.html --md report.md >/dev/null || fail "nomercy report"
  [ -s report.html ] && [ -s report.md ] || fail "nomercy report wrote nothing"
  "$bin/nomercy" ladder --agents heuristic,random --deals 2 --workers 1 --out ladder.json >/dev/null \
    || fail "nomercy ladder"
  [ -s ladder.json ] || fail "nomercy ladder wrote nothing"
  "$bin/python" -c 'import openskill, matplotlib, jinja2, pyarrow' || fail "the sim extra's packages"
}

check_server() {
  local bin=$1 port
  port=$("$bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$bin/nomercy" serve --port "$port" --database-url "sqlite:///$work/rooms.sqlite3" >serve.log 2>&1 &
  local pid=$! ok=""
  for _ in $(seq 1 600); do
    if "$bin/python" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/healthz', timeout=2)" \
      2>/dev/null; then ok=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -n "$ok" ] || { tail -n 20 serve.log; fail "nomercy serve did not answer /healthz"; }
}

check_ray() {
  "$1/python" -c 'import ray' || fail "import ray"
}

check_bench() {
  "$1/python" -c 'import rlcard; rlcard.make("uno").reset()' || fail "rlcard's UNO"
}

sets=${EXTRAS_ONLY:-$EXTRAS_CHECKED}  # EXTRAS_ONLY="sim server": a few, while developing
for set in $sets; do
  bin=$(venv_for "$set")
  case $set in
    core) check_core "$bin" ;;
    learned) check_learned "$bin" ;;
    fast) check_fast "$bin" ;;
    rl) check_rl "$bin" ;;
    rl,fast) check_rl_fast "$bin" ;;
    sim) check_sim "$bin" ;;
    server) check_server "$bin" ;;
    ray) check_ray "$bin" ;;
    bench) check_bench "$bin" ;;
    *) fail "no check for the set $set" ;;
  esac
  step "nomercy[$set]: installed alone and does what the docs say"
  rm -rf "$work/venv-${set//,/-}"
done
step "passed: $sets (not here: $EXTRAS_NOT_CHECKED)"
