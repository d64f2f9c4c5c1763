"""Imported by the fork server of a native run: load the compiled kernels once, there.

numba loads a kernel's machine code from its cache at the kernel's first call, not at
import (about a second for the simulator's kernels). Playing one game here, in the fork
server, means every worker forked from it starts with them loaded.
"""

from __future__ import annotations

from nomercy.sim.spec import RunSpec

RunSpec(games=1, players=2, engine="native").play_chunk(0, 1)
