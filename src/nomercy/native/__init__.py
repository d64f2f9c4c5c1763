"""The native engine: batches of tables played by compiled code (``pip install nomercy[fast]``).

A second implementation of the rules, never a second truth: ``nomercy.engine`` stays the
reference, and ``tests/native`` steps both side by side and checks that every state and
every set of legal actions is the same. See ``docs/engine.md``, "The native engine".

>>> from nomercy.native import Batch          # doctest: +SKIP
>>> batch = Batch(Rules(), tables=1024, players=4)
>>> batch.reset(range(1024))                  # table i dealt as new_game(4, seed=i)
>>> batch.random_play(1_000_000)              # random legal actions, auto-reset

Its batched APIs (``Batch``, the vector environments, the simulator) need numpy (the
``fast`` extra); the expert bot's playouts (:mod:`nomercy.native.search`) need only the
package's C extension, ``nomercy.native._engine``, which the package build compiles ahead
of time into every wheel (nothing compiles at first use). Without numpy, the names below
raise ``ImportError`` with that advice on first use, and nothing else in nomercy needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nomercy.native.batch import Batch
    from nomercy.native.convert import from_state, to_state
    from nomercy.native.layout import encode_rules
    from nomercy.native.slots import ACTIONS, MAX_PLAYERS, NUM_ACTIONS, action_index, index_action

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

_HOME = {
    "ACTIONS": "slots",
    "MAX_PLAYERS": "slots",
    "NUM_ACTIONS": "slots",
    "Batch": "batch",
    "action_index": "slots",
    "encode_rules": "layout",
    "from_state": "convert",
    "index_action": "slots",
    "to_state": "convert",
}


def __getattr__(name: str) -> Any:
    """The batched API, imported on first use (so that ``nomercy.native.search`` needs no numpy)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'nomercy.native' has no attribute {name!r}")
    if home in ("batch", "layout"):
        try:
            import numpy  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                f"nomercy.native.{name} needs numpy ({exc}): pip install 'nomercy[fast]'"
            ) from exc
    import importlib

    value = getattr(importlib.import_module(f"nomercy.native.{home}"), name)
    globals()[name] = value
    return value
