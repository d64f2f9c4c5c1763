"""Imported by the fork server of a native run: load the compiled kernels once, there.

The kernels are a C extension compiled ahead of time, loaded at import in milliseconds;
playing one game here, in the fork server, means every worker forked from it starts with
the extension, numpy and the engine's modules loaded and their first call made.
"""

from __future__ import annotations

from nomercy.sim.spec import RunSpec

RunSpec(games=1, players=2, engine="native").play_chunk(0, 1)
