"""Shared fixtures: one small seeded run, played once per test session."""

from __future__ import annotations

import pytest

from nomercy.sim.runner import Row, RunSpec, run_chunk


@pytest.fixture(scope="session")
def small_spec() -> RunSpec:
    return RunSpec(games=120, players=4, seed=11)


@pytest.fixture(scope="session")
def small_rows(small_spec: RunSpec) -> list[Row]:
    """120 random-bot games of four players (about a second)."""
    return run_chunk(small_spec, 0, small_spec.games)
