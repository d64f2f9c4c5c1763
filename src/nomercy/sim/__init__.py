"""Simulation at scale: many seeded games, parallel or on Ray, with stats and reports.

* :mod:`~nomercy.sim.spec` says what a run is (:class:`RunSpec`), its seeds and its rows;
* :mod:`~nomercy.sim.runner` plays them on the Python engine, :mod:`~nomercy.sim.native_runner`
  on the native one (the ``fast`` extra), to the same rows;
* :mod:`~nomercy.sim.backends` spreads chunks of games over processes or a Ray cluster;
* :mod:`~nomercy.sim.results` writes and reads rows (Parquet or CSV);
* :mod:`~nomercy.sim.stats` turns rows into rates with 95% intervals;
* :mod:`~nomercy.sim.report` and :mod:`~nomercy.sim.compare` make HTML and Markdown.

Every game's seed comes from ``(run seed, game index)`` alone, so a run gives the same rows
whatever the backend, the number of workers or the chunk size.

The engines are registered here, in :data:`nomercy.sim.spec.ENGINES`: importing any module
of this package runs this first, so a :class:`RunSpec` always finds them, and the spec
imports no engine (no import circle). The native runner is loaded only when a run names it,
so numpy and the compiled engine are imported only for ``--engine native``.
"""

from __future__ import annotations

from nomercy.sim import runner
from nomercy.sim.runner import play_game, run_chunk
from nomercy.sim.spec import ENGINES, Engine, RunSpec, game_seed

__all__ = ["RunSpec", "game_seed", "play_game", "run_chunk"]


def _python() -> Engine:
    return runner


def _native() -> Engine:
    from nomercy.native import Batch  # noqa: F401 - first: without numpy it says which extra to install
    from nomercy.sim import (
        native_runner,  # numpy (the fast extra) and the compiled engine: only when asked for
    )

    return native_runner


ENGINES.update(python=_python, native=_native)
