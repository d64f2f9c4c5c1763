"""Simulation at scale: many seeded games, parallel or on Ray, with stats and reports.

* :mod:`~nomercy.sim.runner` plays games from a :class:`RunSpec` into result rows;
* :mod:`~nomercy.sim.backends` spreads chunks of games over processes or a Ray cluster;
* :mod:`~nomercy.sim.results` writes and reads rows (Parquet or CSV);
* :mod:`~nomercy.sim.stats` turns rows into rates with 95% intervals;
* :mod:`~nomercy.sim.report` and :mod:`~nomercy.sim.compare` make HTML and Markdown.

Every game's seed comes from ``(run seed, game index)`` alone, so a run gives the same rows
whatever the backend, the number of workers or the chunk size.
"""

from __future__ import annotations

from nomercy.sim.runner import RunSpec, game_seed, play_game, run_chunk

__all__ = ["RunSpec", "game_seed", "play_game", "run_chunk"]
