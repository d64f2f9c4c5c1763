"""The same rows whatever runs the games: this process, 2 worker processes, or a local Ray."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import pytest

from nomercy.sim.backends import (
    InProcess,
    LocalProcesses,
    RayBackend,
    cannot_reach_message,
    chunk_ranges,
    execute,
    make_backend,
    ray_token_source,
    use_ray_token,
)
from nomercy.sim.runner import Row, RunSpec, run_chunk

SPEC = RunSpec(games=90, players=3, seed=21, bots=("random", "random", "random"))


@pytest.fixture(scope="module")
def reference() -> list[Row]:
    return run_chunk(SPEC, 0, SPEC.games)


def test_chunks_cover_every_game_once() -> None:
    for games, workers in [(0, 2), (1, 4), (90, 2), (10_001, 3), (5_000_000, 16)]:
        chunks = chunk_ranges(games, workers)
        assert [i for a, b in chunks for i in range(a, b)] == list(range(games))
        assert all(1 <= b - a <= 1000 for a, b in chunks)


def test_backend_choice() -> None:
    assert isinstance(make_backend(1), InProcess)
    assert isinstance(make_backend(2), LocalProcesses)
    assert isinstance(make_backend(2, ray="local"), RayBackend)
    with pytest.raises(ValueError, match="at least 1"):
        make_backend(0)


def test_one_and_two_workers_give_identical_rows(reference: list[Row]) -> None:
    one = execute(SPEC, make_backend(1))
    two = execute(SPEC, make_backend(2), chunk_size=7)  # uneven chunks finish out of order
    assert one.complete and two.complete
    assert one.rows == reference
    assert two.rows == reference


def test_local_ray_gives_identical_rows(reference: list[Row]) -> None:
    pytest.importorskip("ray")
    result = execute(SPEC, RayBackend(address="local", workers=2), chunk_size=15)
    assert result.complete
    assert result.rows == reference


class _StopsAfter:
    """Yields some chunks out of order, then the user presses Ctrl-C."""

    name = "stub"
    workers = 1

    def __init__(self, finished: list[tuple[int, int]]) -> None:
        self.finished = finished

    def imap(
        self, spec: RunSpec, chunks: list[tuple[int, int]]
    ) -> Generator[tuple[tuple[int, int], list[Row]]]:
        for chunk in self.finished:
            yield chunk, run_chunk(spec, *chunk)
        raise KeyboardInterrupt


def test_ctrl_c_keeps_every_finished_chunk_in_game_order(reference: list[Row]) -> None:
    streamed: list[Row] = []
    result = execute(SPEC, _StopsAfter([(10, 20), (0, 10), (40, 50)]), on_rows=streamed.extend, chunk_size=10)
    assert result.interrupted and not result.complete
    assert result.played == 30
    assert [r["game"] for r in result.rows] == [*range(20), *range(40, 50)]
    assert result.rows == reference[:20] + reference[40:50] == streamed


def test_other_bots_play_through_the_shared_loop_in_worker_processes() -> None:
    """A seat that is not the random bot goes through nomercy.bots.runner in each worker."""
    from nomercy.bots import available

    others = sorted((name for name in available() if name != "random"), key=lambda n: n != "heuristic")
    if not others:
        pytest.skip("no bot other than random is registered")
    spec = RunSpec(games=8, players=3, seed=5, bots=("random", others[0], "random"))
    rows = execute(spec, make_backend(2), chunk_size=3).rows
    assert rows == run_chunk(spec, 0, spec.games)
    assert all(row["bots"] == ["random", others[0], "random"] for row in rows)


def test_the_ray_token_is_looked_for_where_ray_looks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RAY_AUTH_TOKEN, then RAY_AUTH_TOKEN_PATH (that file only), then ~/.ray/auth_token."""
    for var in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert ray_token_source() is None
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("t" * 64)
    assert ray_token_source() == "~/.ray/auth_token"
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "missing"))
    assert ray_token_source() is None  # Ray reads only that file then
    (tmp_path / "missing").write_text("u" * 64)
    assert ray_token_source() == str(tmp_path / "missing")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "v" * 64)
    assert ray_token_source() == "RAY_AUTH_TOKEN"
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert use_ray_token() is None  # an explicit mode is obeyed


def test_a_refused_driver_is_told_what_to_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    refused = ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379")
    none = cannot_reach_message("10.0.0.5:6379", refused, None)
    assert none.startswith("cannot start or reach Ray at '10.0.0.5:6379': Failed to connect")
    assert "No Ray token was found" in none and "ray get-auth-token" in none
    presented = cannot_reach_message("10.0.0.5:6379", refused, "~/.ray/auth_token")
    assert "presented the Ray token from ~/.ray/auth_token" in presented
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("t" * 64)
    assert "set RAY_AUTH_MODE=token" in cannot_reach_message("10.0.0.5:6379", refused, None)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert "Unset RAY_AUTH_MODE" in cannot_reach_message("10.0.0.5:6379", refused, None)
    assert "\n" not in cannot_reach_message("local", RuntimeError("no\nmore"), None)
