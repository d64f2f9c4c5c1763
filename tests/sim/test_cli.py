"""The command line: simulate (workers, bots, --ray parsing, --out), report, compare, and Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import typer.main
from typer.testing import CliRunner

from nomercy.cli import app
from nomercy.sim.results import read_results
from nomercy.sim.runner import RunSpec, run_chunk

runner = CliRunner(env={"COLUMNS": "200"})


def said(output: str) -> str:
    """The words of an output, without Rich's panel borders and line wrapping."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


def test_simulate_writes_the_same_rows_with_one_or_two_workers(tmp_path: Path) -> None:
    expected = run_chunk(RunSpec(games=40, players=3, seed=2), 0, 40)
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.csv"
        result = runner.invoke(
            app,
            ["simulate", "-n", "40", "-p", "3", "-s", "2", "-w", workers, "--out", str(out), "--no-progress"],
        )
        assert result.exit_code == 0, result.output
        assert "40 games, 3 players" in result.output
        assert "1st to play" in result.output
        assert list(read_results(out).rows()) == [dict(r, rules="no_mercy") for r in expected]


def test_simulate_seats_bots_by_name_and_labels_rules(tmp_path: Path) -> None:
    out = tmp_path / "r.parquet"
    args = ["simulate", "-n", "6", "-p", "2", "--bots", "random,random", "--rule", "stack_color=match"]
    result = runner.invoke(app, [*args, "-w", "1", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    back = read_results(out)
    assert back["bots"] == [["random", "random"]] * 6
    assert set(back["rules"]) == {"stack_color=match"}
    assert back.meta["rules"]["stack_color"] == "match"
    assert back.meta["command"].startswith("nomercy simulate")


def test_simulate_refuses_bad_input_in_game_terms(tmp_path: Path) -> None:
    cases = [
        (["--bots", "random,random", "-p", "3"], "2 bots for 3 seats"),
        (["--bots", "nobody"], "unknown bot 'nobody'"),
        (["-p", "9"], "S1"),
        (["--out", str(tmp_path / "r.txt")], ".parquet or .csv"),
        (["--rule", "stack_color=purple"], "stack_color"),
        (["-w", "0"], "at least 1"),
    ]
    for extra, message in cases:
        result = runner.invoke(app, ["simulate", "-n", "2", "--no-progress", *extra])
        assert result.exit_code == 2, (extra, result.output)
        assert message in said(result.output), (extra, result.output)
    assert not (tmp_path / "r.txt").exists()


def test_bare_ray_flag_means_a_local_ray_and_takes_an_address() -> None:
    command = typer.main.get_command(app).commands["simulate"]  # type: ignore[attr-defined]
    for args, address in [
        (["--ray"], "local"),
        (["--ray", "-n", "5"], "local"),
        (["--ray", "ray://head:10001", "-n", "5"], "ray://head:10001"),
        (["-n", "5"], None),
    ]:
        ctx = command.make_context("simulate", list(args))
        assert ctx.params["ray"] == address


def test_report_command(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    assert (
        runner.invoke(app, ["simulate", "-n", "30", "-w", "1", "--out", str(out), "--no-progress"]).exit_code
        == 0
    )
    result = runner.invoke(app, ["report", str(out), "--html", str(tmp_path / "page.html")])
    assert result.exit_code == 0, result.output
    assert "Win rate by seat" in (tmp_path / "page.html").read_text()
    assert "## Game length" in (tmp_path / "r.md").read_text()
    missing = runner.invoke(app, ["report", str(tmp_path / "nothing.parquet")])
    assert missing.exit_code == 2 and "no such results file" in said(missing.output)


def test_compare_command_on_two_rules_files(tmp_path: Path) -> None:
    (tmp_path / "any.toml").write_text('stack_color = "any"\n')
    (tmp_path / "match.toml").write_text('[rules]\nstack_color = "match"\n')
    html = tmp_path / "cmp.html"
    result = runner.invoke(
        app,
        ["compare", "--rules", str(tmp_path / "any.toml"), "--rules", str(tmp_path / "match.toml"),
         "-n", "30", "-w", "1", "--html", str(html), "--out", str(tmp_path / "all.parquet"), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "match - any" in result.output
    assert "first player wins" in (tmp_path / "cmp.md").read_text()
    assert "data:image/png;base64," in html.read_text()
    all_path = tmp_path / "all.parquet"
    rows = read_results(all_path)
    assert rows["rules"] == ["any"] * 30 + ["match"] * 30
    assert rows["seed"][:30] == rows["seed"][30:]
    one = runner.invoke(
        app, ["report", str(all_path), "--label", "match", "--html", str(tmp_path / "m.html")]
    )
    assert one.exit_code == 0, one.output
    assert "30 games" in (tmp_path / "all.md").read_text()
    assert "stack_color=match" in (tmp_path / "all.md").read_text()
    wrong = runner.invoke(app, ["report", str(all_path), "--label", "nope"])
    assert wrong.exit_code == 2 and "it has any, match" in said(wrong.output)


def test_compare_one_variant_against_the_base_rules(tmp_path: Path) -> None:
    html = tmp_path / "v.html"
    result = runner.invoke(
        app, ["compare", "--variant", "knockout_bonus_to=knocker", "-n", "20", "-w", "1", "--html", str(html),
              "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "knockout_bonus_to=knocker - no_mercy" in said(result.output)
    two = runner.invoke(
        app,
        ["compare", "-V", "stack_color=match", "-V", "draw10_stackable=false", "-n", "10", "-w", "1",
         "--html", str(html), "--no-progress"],
    )  # fmt: skip
    assert two.exit_code == 0, two.output
    assert "stack_color=match - no_mercy" in said(two.output)
    assert "draw10_stackable=false - no_mercy" in said(two.output)
    bad = runner.invoke(app, ["compare", "-n", "5", "--no-progress"])
    assert bad.exit_code == 2 and "at least one --rules FILE or --variant" in said(bad.output)


def test_ctrl_c_stops_cleanly_and_keeps_the_finished_games(tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it, with 2 workers."""
    out = tmp_path / "cut.csv"
    command = [sys.executable, "-c", "from nomercy.cli import main; main()", "simulate"]
    command += ["-n", "1000000", "-p", "4", "-s", "3", "-w", "2", "--out", str(out), "--no-progress"]
    command += ["--chunk-size", "40"]
    # Ctrl-C at its default, as in a terminal's foreground job: a test run started in the
    # background by a script (as CI may be) has SIGINT ignored, which the child would inherit.
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.stat().st_size < 30_000):
            time.sleep(0.2)
        assert out.exists() and out.stat().st_size >= 30_000, "no games finished in 60 s"
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = (stdout + stderr).decode()
    assert proc.returncode == 130, text
    assert "interrupted: kept the" in text and "Traceback" not in text
    rows = list(read_results(out).rows())
    assert 100 <= len(rows) < 1_000_000
    games = [r["game"] for r in rows]
    assert games == sorted(games) and len(set(games)) == len(games)
    spec = RunSpec(games=1_000_000, players=4, seed=3, label="no_mercy")
    for row in rows[:: max(1, len(rows) // 5)]:
        assert row == run_chunk(spec, row["game"], row["game"] + 1)[0]
