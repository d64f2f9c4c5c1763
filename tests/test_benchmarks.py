"""The benchmark scripts run and print what they promise (no timing is asserted here)."""

from __future__ import annotations

import importlib.util
import json
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nomercy

ROOT = Path(__file__).resolve().parent.parent


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    """Run a benchmark script (some play for minutes of a busy 2-core machine)."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def _run(*args: str) -> str:
    """A benchmark script that must succeed; its stdout."""
    done = _script(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _refused(*args: str) -> str:
    """A benchmark script that must refuse its options (argparse's exit 2); its stderr."""
    done = _script(*args)
    assert done.returncode == 2, done.stderr
    return done.stderr


def test_engine_benchmark_prints_every_case_the_targets_and_the_command(tmp_path: Path) -> None:
    out_file = tmp_path / "bench.json"
    out = _run(
        "benchmarks/engine.py", "--seconds", "0.05", "--repeat", "1", "--warmup", "0", "--json", str(out_file)
    )
    for case in ("no_mercy", "classic", "rlcard"):
        assert case in out
    assert "no_mercy 4p decisions/s:" in out
    build = "compiled (mypyc)" if nomercy.cards.COMPILED else "pure Python"
    assert f"engine: {build}" in out
    assert "reproduce: " in out and "benchmarks/engine.py --seconds 0.05" in out
    data = json.loads(out_file.read_text())
    rows = {(r["case"], r["players"]): r for r in data["results"]}
    assert {("no_mercy", 2), ("no_mercy", 4), ("no_mercy", 6), ("classic", 2), ("rlcard", 2)} <= set(rows)
    for row in rows.values():
        assert row["games"] >= 1 and row["decisions"] >= row["games"]
    _assert_machine(data, "benchmarks/engine.py --seconds 0.05")
    try:
        import rlcard  # noqa: F401
    except ImportError:
        assert "RLCard not installed" in out
    else:
        assert ("RLCard uno", 2) in rows
        assert "classic_2p_vs_rlcard" in data["summary"] and "rlcard_2p_vs_rlcard" in data["summary"]
        assert "rlcard 2p games/s vs RLCard env.run games/s:" in out and "(target >= 10x)" in out


def _tables() -> Any:
    """benchmarks/tables.py as a module."""
    spec = importlib.util.spec_from_file_location("tables", ROOT / "benchmarks" / "tables.py")
    assert spec is not None and spec.loader is not None
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    return tables


def _assert_machine(data: dict[str, Any], command: str) -> None:
    """A benchmark's JSON says how and where it ran, for the table beside its figures."""
    meta = data["machine"]
    assert command in meta["command"] and "--json" in meta["command"]
    assert meta["cores"] >= 1 and meta["cpu"] and meta["python"].startswith(platform.python_version())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", meta["date"])
    assert meta["nomercy"] == nomercy.__version__


def test_doc_tables_are_the_committed_results() -> None:
    """Every figures table in the README and the docs is what benchmarks/tables.py renders
    from benchmarks/results/: a figure typed by hand, or a result refreshed without its
    docs, fails here."""
    tables = _tables()
    texts = {p: p.read_text(encoding="utf-8") for p in tables.doc_files(ROOT)}
    assert sum(text.count("<!-- table:") for text in texts.values()) >= 5
    for path, text in texts.items():
        assert tables.update(text, ROOT / "benchmarks" / "results") == text, (
            f"run benchmarks/tables.py: {path}"
        )


def test_tables_check_finds_a_stale_table_and_rewrites_it(tmp_path: Path) -> None:
    tables = _tables()
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    shutil.copy(ROOT / "benchmarks" / "results" / "engine.json", results)
    doc = tmp_path / "README.md"
    doc.write_text(
        "# Speed\n\n<!-- table:engine -->\n| no_mercy | 4 | 1 | 999,999 |\n<!-- /table:engine -->\nend\n"
    )
    assert tables.main(["--check", "--root", str(tmp_path)]) == 1
    assert "999,999" in doc.read_text()
    assert tables.main(["--root", str(tmp_path)]) == 0
    text = doc.read_text()
    assert (
        "999,999" not in text
        and "| no_mercy | 4 |" in text
        and text.endswith("<!-- /table:engine -->\nend\n")
    )
    meta = json.loads((results / "engine.json").read_text())["machine"]
    assert f"`{meta['command']}`" in text and meta["cpu"] in text
    assert tables.main(["--check", "--root", str(tmp_path)]) == 0
    doc.write_text("<!-- table:nothing -->\n<!-- /table:nothing -->\n")
    with pytest.raises(SystemExit, match="unknown table 'nothing'"):
        tables.main(["--check", "--root", str(tmp_path)])


def test_rl_benchmark_writes_every_case_as_json(tmp_path: Path) -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    out_file = tmp_path / "rl.json"
    args = ["--seconds", "0.02", "--repeat", "1", "--warmup", "0", "--json", str(out_file)]
    out = _run("benchmarks/rl.py", *args)
    data = json.loads(out_file.read_text())
    cases = [r["case"] for r in data["results"]]
    assert "PettingZoo AEC, no_mercy, 4 players" in cases and all(case in out for case in cases)
    assert all(r["steps_per_s"] > 0 and r["rounds_per_s"] >= 0 for r in data["results"])
    _assert_machine(data, "benchmarks/rl.py --seconds 0.02")
    assert "| PettingZoo AEC, no_mercy, 4 players |" in _tables().render("rl", tmp_path)


def test_simulate_benchmark_writes_every_case_as_json(tmp_path: Path) -> None:
    out_file = tmp_path / "simulate.json"
    args = ["--games", "8", "--repeat", "1", "--no-ray", "--no-native", "--json", str(out_file)]
    out = _run("benchmarks/simulate.py", *args)
    data = json.loads(out_file.read_text())
    assert [r["case"] for r in data["results"]] == ["1 worker", "2 workers"] and "best:" in out
    assert data["results"][0]["speed_up"] == 1.0 and data["results"][0]["games_per_cpu_s"] > 0
    assert data["results"][1]["games_per_cpu_s"] is None  # its workers' CPU is not this process's
    assert (data["games"], data["players"], data["preset"]) == (8, 4, "no_mercy")
    _assert_machine(data, "benchmarks/simulate.py --games 8")
    assert "| 2 workers |" in _tables().render("simulate", tmp_path)


def test_review_calibration_writes_its_reliability_table(tmp_path: Path) -> None:
    out_file = tmp_path / "review_calibration.json"
    args = ["--rounds", "3", "--per-round", "2", "--worlds", "2", "--python", "--json", str(out_file)]
    out = _run("benchmarks/review_calibration.py", *args)
    data = json.loads(out_file.read_text())
    assert data["positions"] == 6 == sum(r["positions"] for r in data["rows"])
    for row in data["rows"]:
        low, high = row["ci95"]
        assert row["bin"][0] <= row["predicted"] <= row["bin"][1] and low <= row["observed"] <= high
    assert "Brier score" in out and "reproduce: " in out and data["native"] is False
    _assert_machine(data, "benchmarks/review_calibration.py --rounds 3")
    assert "6 positions (2 at most per round) of 3 `heuristic`" in _tables().render(
        "review_calibration", tmp_path
    )
    assert "--rounds and --per-round must be >= 1" in _refused(
        "benchmarks/review_calibration.py", "--rounds", "0"
    )


def test_review_speed_prints_the_python_figure_and_the_command(tmp_path: Path) -> None:
    out_file = tmp_path / "review_speed.json"
    args = ["--decisions", "30", "--worlds", "2", "--no-native", "--json", str(out_file)]
    out = _run("benchmarks/review_speed.py", *args)
    data = json.loads(out_file.read_text())
    assert [c["native"] for c in data["cases"]] == [False] and data["pass"] is None
    assert 30 <= data["round"]["decisions"] <= 33 and data["cases"][0]["playouts"] > 0
    assert "Python: " in out and "not measured" in out and "reproduce: " in out
    _assert_machine(data, "benchmarks/review_speed.py --decisions 30")
    assert "| Python | 2 |" in _tables().render("review_speed", tmp_path)
    assert "--worlds and --python-worlds >= 2" in _refused("benchmarks/review_speed.py", "--worlds", "1")


def test_engine_benchmark_refuses_bad_options() -> None:
    assert "--seconds must be > 0" in _refused("benchmarks/engine.py", "--seconds", "0")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="no valgrind (.ci/run installs it)")
def test_instruction_count_prints_a_positive_figure_and_the_command() -> None:
    out = _run("benchmarks/instructions.py", "--preset", "rlcard", "--players", "2", "--games", "2")
    figure = re.search(r"rlcard 2p, (pure Python|compiled \(mypyc\)): ([\d,]+) instructions/decision", out)
    assert figure, out
    assert int(figure[2].replace(",", "")) > 1000
    assert "reproduce: " in out and "benchmarks/instructions.py --preset rlcard --players 2 --games 2" in out


def test_fingerprint_is_deterministic() -> None:
    """Two runs hash the same games to the same digest, one line per case."""
    runs = [_run("benchmarks/fingerprint.py", "--games", "2") for _ in range(2)]
    digests = [[line.split()[1] for line in out.splitlines() if line.startswith("overall")] for out in runs]
    assert len(digests[0]) == 1 and len(digests[0][0]) == 64
    assert digests[0] == digests[1]
    assert runs[0].count(" steps ") >= 10


def test_room_updates_benchmark_prints_its_figures_and_command() -> None:
    pytest.importorskip("fastapi")
    out = _run("benchmarks/room_updates.py", "--spectators", "6", "--batch", "3", "--timeout", "60")
    assert "spectator storm: 6 spectators" in out and "server CPU" in out
    assert "joined / refused       6 / 0" in out
    assert "reproduce: python benchmarks/room_updates.py --spectators 6 --batch 3 --timeout 60" in out


def test_native_start_benchmark_prints_the_build_first_decision_and_sizes(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="the native engine needs the fast extra")
    out_file = tmp_path / "native_start.json"
    out = _run("benchmarks/native_start.py", "--seconds", "0.05", "--no-numba", "--json", str(out_file))
    for line in (
        "C (ahead of time)",
        "installed numpy: ",
        "a player's fast path (the expert's native playouts: the extension, no numpy) adds",
        "the research extra `fast` (numpy, extension) adds",
        "first decision ",
        "peak memory ",
        "the expert bot (numpy installed): first decision ",
        "the expert bot (no numpy): first decision ",
    ):
        assert line in out
    assert "reproduce: " in out and "benchmarks/native_start.py --seconds 0.05 --no-numba" in out
    data = json.loads(out_file.read_text())
    c = data["candidates"]["C (ahead of time)"]
    assert c["build_s"] > 0 and c["first_decision_s"] > 0 and c["decisions_per_s"] > 0
    assert data["fast_path_mb"] >= c["extension_mb"] > 0
    assert data["expert_first_decision"]["first_decision_s"] > 0
    _assert_machine(data, "benchmarks/native_start.py --seconds 0.05")
    assert "| C (ahead of time) |" in _tables().render("native_start", tmp_path)


def test_native_benchmark_prints_every_ratio_and_the_command(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="the native engine needs the fast extra")
    out_file = tmp_path / "native.json"
    args = ["--seconds", "0.05", "--repeat", "1", "--tables", "2", "--json", str(out_file)]
    out = _run("benchmarks/native.py", *args)
    for line in (
        "native no_mercy 4p",
        "python no_mercy 4p",
        "native rlcard 2p",
        "single table 4p",
        "no_mercy 4p decisions/s: ",
    ):
        assert line in out
    assert "reproduce: " in out and "benchmarks/native.py --seconds 0.05 --repeat 1 --tables 2" in out
    data = json.loads(out_file.read_text())
    cases = {r["case"]: r for r in data["results"]}
    assert {"native no_mercy 4p", "python no_mercy 4p", "native heuristic 4p"} <= set(cases)
    assert all(r["decisions_per_s"] > r["games_per_s"] > 0 for r in cases.values())
    assert data["ratios"]["no_mercy_4p_decisions"] > 0 and data["ratios"]["single_table_4p_decisions"] > 0
    _assert_machine(data, "benchmarks/native.py --seconds 0.05")
    assert "| native no_mercy 4p |" in _tables().render("native", tmp_path)


def test_expert_native_benchmark_prints_both_speeds_and_both_tournaments(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="the native engine needs the fast extra")
    out_file = tmp_path / "expert.json"
    args = ["--workers", "1", "--decisions", "2", "--budget", "20", "--games-2p", "2", "--games-4p", "4"]
    args += ["--games-python", "2", "--worlds", "3"]
    out = _run("benchmarks/expert_native.py", *args, "--ms", "5", "10", "--json", str(out_file))
    for line in ("python ", "native ", "native / python: ", "2 players", "4 players (2 each)", "new side"):
        assert line in out
    assert "ms=5    new   mean" in out and "ms=10   today mean" in out
    assert "command: " in out and "benchmarks/expert_native.py --workers 1" in out
    data = json.loads(out_file.read_text())
    assert data["speed"]["python"]["playouts"] == data["speed"]["native"]["playouts"] > 0
    assert data["sampling"]["uniform"]["per_s"] > 0 and data["sampling"]["inferred"]["per_s"] > 0
    assert [t["ms"] for t in data["timing"]] == [5, 10]
    assert all(
        t[side]["decisions"] == 2 and t[side]["mean_ms"] > 0
        for t in data["timing"]
        for side in ("new", "today")
    )
    assert [c["games"] for c in data["tournaments"]] == [2, 4, 2, 2, 4, 2]
    assert "10 ms, 2 players" in data["tournaments"][3]["title"]


def test_expert_ceiling_prints_every_mode_and_the_command() -> None:
    pytest.importorskip("numpy", reason="the native engine needs the fast extra")
    out = _run("benchmarks/expert_ceiling.py", "--games", "4", "--budget", "20")
    for mode in ("view", "draws", "hands", "all"):
        assert re.search(rf"^  {mode} +\d+/4 ", out, re.M), out
    assert "reproduce: " in out and "benchmarks/expert_ceiling.py --games 4 --budget 20" in out
    assert "--games must be even" in _refused("benchmarks/expert_ceiling.py", "--games", "3")


def test_expert_ceiling_worlds_are_the_true_state_or_its_hands() -> None:
    """``all`` plays out the true state itself; ``hands`` keeps every hand but not the
    order of the draw pile or the seed that keys its reshuffles."""
    import importlib.util
    import random

    spec = importlib.util.spec_from_file_location("expert_ceiling", ROOT / "benchmarks" / "expert_ceiling.py")
    assert spec is not None and spec.loader is not None
    ceiling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ceiling)
    state = nomercy.new_game(2, seed=5)
    rng = random.Random(1)
    world = ceiling._Truth(state, "all", 0).deal(rng)
    assert world is not state and world.to_json() == state.to_json()
    shown = ceiling._Truth(state, "hands", 0).deal(rng)
    assert shown.hands == state.hands and shown.discard == state.discard
    assert sorted(c.index for c in shown.draw_pile) == sorted(c.index for c in state.draw_pile)
    assert shown.draw_pile != state.draw_pile and shown.seed != state.seed
    draws = ceiling._Truth(state, "draws", 0).deal(rng)
    assert draws.hands[0] == state.hands[0] and len(draws.hands[1]) == len(state.hands[1])
    assert [c for c in draws.hands[1] if c.is_draw] == [c for c in state.hands[1] if c.is_draw]
    assert draws.hands[1] != state.hands[1]
    unseen = sorted(c.index for c in state.hands[1] + state.draw_pile)
    assert sorted(c.index for c in draws.hands[1] + draws.draw_pile) == unseen


def test_tune_policy_prints_the_weights_both_duels_and_the_command() -> None:
    pytest.importorskip("numpy", reason="the native engine needs the fast extra")
    out = _run("benchmarks/tune_policy.py", "--deals-2p", "40", "--deals-4p", "10")
    assert "command: " in out and "--deals-2p 40" in out
    assert "stack_base" in out and "roulette_base" in out
    assert "2 players: tuned seat won " in out and "/80 " in out
    assert "4 players: tuned seat won " in out and "/40 " in out
    tuned = _run(
        "benchmarks/tune_policy.py", "--tune", "--iterations", "2", "--games", "40", "--deals-2p", "5"
    )
    assert "step    0:" in tuned and "step    1:" in tuned and "tuned weights" in tuned
    assert "against TUNED_WEIGHTS" not in tuned
    onward = _run(
        "benchmarks/tune_policy.py", "--tune", "--from-tuned", "--iterations", "1", "--games", "40",
        "--gain", "1", "--deals-2p", "5", "--deals-4p", "2",
    )  # fmt: skip
    assert "step    0:" in onward and "tuned again against TUNED_WEIGHTS" in onward
    assert onward.count("2 players: tuned seat won ") == 2 and "/10 " in onward
    # One step at gain 1 moves a weight by a factor of 1.8 at most: from TUNED_WEIGHTS'
    # Color Roulette weight (about 152), never near the reference's 3.
    roulette = next(line.split() for line in onward.splitlines() if line.split()[:1] == ["roulette_base"])
    assert float(roulette[1]) == 3.0 and float(roulette[2]) > 50
    assert "give --tune too" in _refused("benchmarks/tune_policy.py", "--from-tuned")


def test_differential_run_counts_what_it_compared() -> None:
    pytest.importorskip("numpy", reason="the native engine needs the fast extra")
    out = _run("benchmarks/differential.py", "--decisions", "10")
    assert "native == reference: " in out and "no difference" in out
    assert "command: " in out and "--decisions 10" in out


def test_findings_script_prints_every_question_and_the_command() -> None:
    pytest.importorskip("numpy", reason="the native heuristic needs the fast extra")
    out = _run("benchmarks/findings.py", "--games", "40", "--positions", "4", "--playouts", "2")
    assert "40 games per rule set, run seed 2026" in out
    for heading in ("## 1. First-player", "## 2. Knock-outs", "## 6. Facing a stack", "## 7. Cards"):
        assert heading in out
    for variant in ("stack_color=match", "draw10_stackable=false", "knockout_bonus_to=knocker"):
        assert f"## {variant} against no_mercy" in out
    assert "| 1st to play | " in out and "| Wild Draw 10 | " in out
    assert "4 positions (one per game" in out and "2 playouts of each choice" in out
    # scoring only: the same play, so the paired difference of decisions is exactly 0
    knocker = out.split("## knockout_bonus_to=knocker")[1].split("##")[0]
    assert "games with the same number of decisions under both: 40 of 40" in knocker
    assert "reproduce: python benchmarks/findings.py --games 40 --seed 2026 --positions 4 --playouts 2" in out


def test_findings_script_refuses_bad_sizes() -> None:
    pytest.importorskip("numpy", reason="the native heuristic needs the fast extra")
    assert "--games must be >= 1" in _refused("benchmarks/findings.py", "--games", "0")


def test_browser_frames_benchmark_prints_both_moments_and_the_command() -> None:
    """One unthrottled run of each moment: the figures and the command come out."""
    pytest.importorskip("fastapi")
    pytest.importorskip("playwright.sync_api")
    import shutil

    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed")
    out = _run("benchmarks/browser_frames.py", "--runs", "1", "--throttle", "1")
    assert "big draw" in out and "swap" in out and "dropped" in out
    assert "command: .venv/bin/python benchmarks/browser_frames.py" in out


def test_learned_benchmark_prints_every_pairing_its_time_and_the_command(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="the learned bot plays with numpy")
    out_file = tmp_path / "learned.json"
    args = ["--workers", "1", "--games-2p", "4", "--games-4p", "4", "--games-expert", "2"]
    args += ["--games-3p", "3", "--games-5p", "5", "--games-6p", "0"]  # 0 leaves the case out
    args += ["--games-random", "2", "--games-prior", "2", "--ms", "2", "--decisions", "20"]
    done = _script("benchmarks/learned.py", *args, "--json", str(out_file))
    assert done.returncode in (0, 1), done.stderr  # 1: the target not met (a few games cannot meet it)
    for line in ("learned vs heuristic, 2 players", "learned vs 3 heuristic", "learned vs expert", "median "):
        assert line in done.stdout
    assert "nomercy tournament --bots learned,heuristic --players 2 --games 4 --seed 1" in done.stdout
    data = json.loads(out_file.read_text())
    assert [c["games"] for c in data["tournaments"]] == [4, 3, 4, 5, 2, 2, 2]
    assert [c["players"] for c in data["tournaments"]] == [2, 3, 4, 5, 2, 2, 2]
    assert data["decision_time"]["network_median_us"] > 0
    assert "learned:search=true:ms=2:budget=100000,expert:ms=2:budget=100000" in done.stdout
    assert data["decision_time"]["decisions_timed"] >= 20 and data["decision_time"]["median_us"] > 0
    _assert_machine(data, "benchmarks/learned.py --workers 1")
    assert "| learned vs heuristic, 2 players | 4 |" in _tables().render("learned", tmp_path)


def test_upload_health_benchmark_prints_healthz_under_uploads_and_the_command() -> None:
    pytest.importorskip("fastapi")
    args = ("--seconds", "2", "--clients", "3", "--seats", "10", "--probe-ms", "50", "--seed", "1")
    out = _run("benchmarks/upload_health.py", *args)
    assert re.search(r"record: classic, 10 seats, \d+ moves", out), out
    assert re.search(r"/healthz idle: +p50 +[\d.]+ ms +p99 +[\d.]+ ms", out), out
    assert re.search(r"/healthz under load: +p50 +[\d.]+ ms +p99 +[\d.]+ ms", out), out
    assert re.search(r"uploads: .*replayed [1-9]", out), out  # the uploads were replayed
    assert "reproduce: python benchmarks/upload_health.py " + " ".join(args) in out
