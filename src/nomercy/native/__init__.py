"""The native engine: batches of tables played by compiled code (``pip install nomercy[fast]``).

A second implementation of the rules, never a second truth: ``nomercy.engine`` stays the
reference, and ``tests/native`` steps both side by side and checks that every state and
every set of legal actions is the same. See ``docs/engine.md``, "The native engine".

>>> from nomercy.native import Batch          # doctest: +SKIP
>>> batch = Batch(Rules(), tables=1024, players=4)
>>> batch.reset(range(1024))                  # table i dealt as new_game(4, seed=i)
>>> batch.random_play(1_000_000)              # random legal actions, auto-reset

Importing this package needs numpy (the ``fast`` extra) and the package's C extension,
``nomercy.native._engine``, which the package build compiles ahead of time (nothing
compiles at first use); without either it raises ``ImportError`` with that advice, and
nothing else in nomercy needs it.
"""

from __future__ import annotations

try:
    import numpy  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(f"nomercy.native needs numpy ({exc}): pip install 'nomercy[fast]'") from exc

from nomercy.native.batch import Batch, action_index, index_action
from nomercy.native.convert import from_state, to_state
from nomercy.native.layout import ACTIONS, MAX_PLAYERS, NUM_ACTIONS, encode_rules

__all__ = [
    "ACTIONS",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "Batch",
    "action_index",
    "encode_rules",
    "from_state",
    "index_action",
    "to_state",
]
