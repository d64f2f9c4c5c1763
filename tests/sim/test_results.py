"""Result files: Parquet and CSV round trips, streaming, and clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from nomercy.sim.backends import execute
from nomercy.sim.results import COLUMNS, Results, ResultWriter, read_results, write_results
from nomercy.sim.runner import Row, RunSpec

from .test_backends import _StopsAfter


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_round_trip(tmp_path: Path, small_rows: list[Row], suffix: str) -> None:
    path = tmp_path / f"results{suffix}"
    meta = {"run_seed": 11, "command": "nomercy simulate -n 120"}
    assert write_results(path, small_rows, meta) == len(small_rows)
    back = read_results(path)
    assert list(back.rows()) == small_rows
    assert list(back.columns) == list(COLUMNS)
    if suffix == ".parquet":
        assert back.meta == meta


def test_parquet_streams_in_row_groups(tmp_path: Path, small_rows: list[Row]) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "r.parquet"
    with ResultWriter(path, batch=50) as writer:
        for start in range(0, len(small_rows), 10):
            writer.write(small_rows[start : start + 10])
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    assert list(read_results(path).rows()) == small_rows


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_file_cut_short_by_ctrl_c_is_complete_and_readable(tmp_path: Path, suffix: str) -> None:
    spec = RunSpec(games=60, players=3, seed=4)
    path = tmp_path / f"cut{suffix}"
    with ResultWriter(path) as writer:
        result = execute(spec, _StopsAfter([(0, 10), (10, 20)]), on_rows=writer.write, chunk_size=10)
    assert result.interrupted
    assert [r["game"] for r in read_results(path).rows()] == list(range(20))


def test_refusals(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.parquet or \.csv"):
        ResultWriter(tmp_path / "r.json")
    with pytest.raises(FileNotFoundError, match="no such results file"):
        read_results(tmp_path / "missing.csv")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a nomercy results file"):
        read_results(other)


def test_where_selects_a_rule_set(small_rows: list[Row]) -> None:
    relabelled = [dict(r, rules="b") if r["game"] % 2 else r for r in small_rows]
    results = Results.from_rows(relabelled)
    assert len(results.where("rules", "b")) == len(small_rows) // 2
