"""Per-game result rows on disk: Parquet (Arrow) or CSV, chosen by the file's suffix.

One row per game (see :data:`COLUMNS`). Seats are numbers 0..players-1; lists hold one
entry per seat (``bots``, ``points``) or per knock-out in the order they happened
(``knocked_out`` and ``knocked_out_by``, where -1 means self-caused, e.g. drawing until
playable). In CSV a list is its values separated by spaces. Parquet files also carry the
run's settings (rules, seed, command) as JSON in the schema metadata under ``nomercy``.

Writing streams: rows are buffered and written in row groups, so a run of millions of games
never holds them all in memory, and closing the writer (also after Ctrl-C) leaves a
complete, readable file.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from nomercy.extras import require
from nomercy.sim.spec import Row

__all__ = ["COLUMNS", "ResultWriter", "Results", "file_format", "read_results", "write_results"]

#: Column name -> type: ``int``, ``str``, ``list[int]`` or ``list[str]``.
COLUMNS: dict[str, str] = {
    "game": "int",  # index of the game in its run
    "seed": "int",  # the game's own seed (nomercy.new_game(players, rules, seed) deals it again)
    "rules": "str",  # label of the rule set (compare runs several)
    "players": "int",
    "bots": "list[str]",  # bot name per seat
    "dealer": "int",
    "first_player": "int",  # the seat that played first (S4)
    "winner": "int",
    "winner_position": "int",  # 0 = the first player won, 1 = the second in turn order, ...
    "reason": "str",  # played_out (E1) or last_standing (M4)
    "decisions": "int",  # actions applied, out-of-turn ones included
    "cards_drawn": "int",  # every card that went into a hand after the deal
    "largest_stack": "int",  # the largest pending draw total reached (K1), 0 if none
    "knockouts": "int",
    "knocked_out": "list[int]",  # seats, in the order they were knocked out (M1)
    "knocked_out_by": "list[int]",  # who caused each knock-out (E3); -1 = self-caused
    "catches": "int",  # players caught without calling Uno (U2)
    "reshuffles": "int",  # new draw piles (T4)
    "points": "list[int]",  # round points per seat (E3)
}

FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def file_format(path: Path) -> str:
    """``parquet`` or ``csv`` from the suffix; anything else is refused with the choices."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"{path}: results are written as .parquet or .csv, not {path.suffix or 'no suffix'!r}"
        )
    return fmt


def _arrow() -> Any:
    require("pyarrow.parquet", "sim", "Parquet files (or write .csv)")
    return require("pyarrow", "sim", "Parquet files (or write .csv)")


def _schema(pa: Any, meta: dict[str, Any] | None) -> Any:
    types = {
        "int": pa.int64(),
        "str": pa.string(),
        "list[int]": pa.list_(pa.int32()),
        "list[str]": pa.list_(pa.string()),
    }
    metadata = {b"nomercy": json.dumps(meta).encode()} if meta else None
    return pa.schema([(name, types[kind]) for name, kind in COLUMNS.items()], metadata=metadata)


class ResultWriter:
    """Streams rows to ``path`` (``.parquet`` or ``.csv``); use as a context manager."""

    def __init__(self, path: Path | str, meta: dict[str, Any] | None = None, batch: int = 50_000) -> None:
        self.path = Path(path)
        self.format = file_format(self.path)
        self.meta = meta or {}
        self.batch = batch
        self.count = 0
        self._buffer: list[Row] = []
        self._parquet: Any = None
        self._csv_file: Any = None
        self._csv: Any = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.format == "parquet":
            pa = _arrow()
            self._pa = pa
            self._schema = _schema(pa, self.meta)
            self._parquet = pa.parquet.ParquetWriter(str(self.path), self._schema, compression="zstd")
        else:
            self._csv_file = self.path.open("w", newline="", encoding="utf-8")
            self._csv = csv.writer(self._csv_file)
            self._csv.writerow(COLUMNS)

    def write(self, rows: Iterable[Row]) -> None:
        if self.format == "csv":
            for row in rows:
                self._csv.writerow(_csv_cell(row[name]) for name in COLUMNS)
                self.count += 1
            return
        self._buffer.extend(rows)
        if len(self._buffer) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:
            table = self._pa.Table.from_pylist(self._buffer, schema=self._schema)
            self._parquet.write_table(table)
            self.count += len(self._buffer)
            self._buffer = []

    def close(self) -> None:
        if self._parquet is not None:
            self._flush()
            self._parquet.close()
            self._parquet = None
        if self._csv_file is not None:
            self._csv_file.close()
            self._csv_file = None

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _csv_cell(value: Any) -> Any:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return value


def write_results(path: Path | str, rows: Iterable[Row], meta: dict[str, Any] | None = None) -> int:
    """Write all ``rows`` to ``path``; returns how many."""
    with ResultWriter(path, meta) as writer:
        writer.write(rows)
    return writer.count


@dataclass
class Results:
    """Rows read back, column by column (lists of Python values), plus the run's settings."""

    columns: dict[str, list[Any]]
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.columns["game"]) if self.columns else 0

    def __getitem__(self, name: str) -> list[Any]:
        return self.columns[name]

    def rows(self) -> Iterator[Row]:
        names = list(self.columns)
        for values in zip(*(self.columns[n] for n in names), strict=True):
            yield dict(zip(names, values, strict=True))

    def where(self, name: str, value: Any) -> Results:
        """The games whose column ``name`` equals ``value`` (e.g. one rule set)."""
        keep = [i for i, v in enumerate(self.columns[name]) if v == value]
        return Results({k: [col[i] for i in keep] for k, col in self.columns.items()}, self.meta)

    @classmethod
    def from_rows(cls, rows: Iterable[Row], meta: dict[str, Any] | None = None) -> Results:
        columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
        for row in rows:
            for name in COLUMNS:
                columns[name].append(row[name])
        return cls(columns, meta or {})


def read_results(path: Path | str) -> Results:
    """Read a results file written by :class:`ResultWriter` (checks that it is one)."""
    path = Path(path)
    fmt = file_format(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such results file")
    if fmt == "parquet":
        pa = _arrow()
        table = pa.parquet.read_table(str(path))
        _check_columns(path, table.column_names)
        raw = (table.schema.metadata or {}).get(b"nomercy")
        return Results(table.to_pydict(), json.loads(raw) if raw else {})
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        _check_columns(path, header or [])
        assert header is not None
        parse = [_parser(COLUMNS.get(name, "str")) for name in header]
        columns: dict[str, list[Any]] = {name: [] for name in header}
        lists = [columns[name] for name in header]
        for line_no, record in enumerate(reader, start=2):
            if len(record) != len(header):
                raise ValueError(f"{path}:{line_no}: {len(record)} fields, expected {len(header)}")
            for out, conv, cell in zip(lists, parse, record, strict=True):
                out.append(conv(cell))
    return Results(columns, {})


def _check_columns(path: Path, names: list[str]) -> None:
    missing = [name for name in COLUMNS if name not in names]
    if missing:
        raise ValueError(f"{path}: not a nomercy results file (missing columns: {', '.join(missing)})")


def _parser(kind: str) -> Any:
    if kind == "int":
        return int
    if kind == "list[int]":
        return lambda cell: [int(v) for v in cell.split()]
    if kind == "list[str]":
        return lambda cell: cell.split()
    return str
