"""Seeds derived from other seeds: one function for the whole project.

A match deals each round from a seed derived from the match's, a simulation each game
from the run's, a tournament each deal and each bot from the tournament's. They all go
through :func:`derive_seed`, so that a derived seed depends on its parts alone: never on
the process, the platform, ``PYTHONHASHSEED`` or how the games are split among workers
(``random.Random`` seeds from a string through SHA-512).

>>> derive_seed("match", 7, 1) == derive_seed("match", 7, 1) != derive_seed("match", 7, 2)
True
"""

from __future__ import annotations

import random

__all__ = ["derive_seed"]


def derive_seed(kind: str, *parts: int) -> int:
    """A 63-bit seed for ``kind`` (a name space: ``"match"``, ``"sim"``...) and ``parts``.

    Different kinds never share a stream: the seed of game 3 of a simulation is not the
    seed of round 3 of a match with the same seed.
    """
    if not kind or ":" in kind:
        raise ValueError(f"a seed kind is a non-empty name without ':', got {kind!r}")
    return random.Random(f"nomercy-{kind}:" + ":".join(str(int(p)) for p in parts)).getrandbits(63)
