"""Research environments: PettingZoo, Gymnasium, OpenSpiel and a batched numpy env.

Install with ``pip install nomercy[rl]``. Importing this package registers

- Gymnasium: ``gymnasium.make("nomercy/NoMercy-v1", players=2, opponents="random")``
- PettingZoo: ``pettingzoo.make("aec", "nomercy/NoMercy-v1", players=4)``, or
  ``nomercy.rl.pettingzoo.env(players=4)``

OpenSpiel registers on ``import nomercy.rl.openspiel_game`` (it loads pyspiel):
``pyspiel.load_game("python_nomercy", {"players": 4})``.

Every environment uses the one action table and observation encoding of
:mod:`nomercy.rl.encoding` (``docs/rl.md``), whose version is :data:`ENV_VERSION`.
"""

from __future__ import annotations

import warnings

import gymnasium

from nomercy.rl.encoding import (
    ACTIONS,
    ENV_VERSION,
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SECTIONS,
    OBS_SIZE,
    action_meaning,
    action_to_index,
    index_to_action,
    legal_mask,
    observe,
)
from nomercy.rl.gymnasium_env import GYM_ENV_ID, NoMercyEnv
from nomercy.rl.vector_env import VectorEnv

__all__ = [
    "ACTIONS",
    "ENV_VERSION",
    "GYM_ENV_ID",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "OBS_SECTIONS",
    "OBS_SIZE",
    "NoMercyEnv",
    "VectorEnv",
    "action_meaning",
    "action_to_index",
    "index_to_action",
    "legal_mask",
    "observe",
]

if GYM_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ENV_ID, entry_point="nomercy.rl.gymnasium_env:NoMercyEnv")

try:  # PettingZoo's registry (pettingzoo >= 1.27); older versions have none
    import pettingzoo as _pz

    _register = getattr(_pz, "register", None)
    if _register is not None and "nomercy/NoMercy-v1" not in _pz.aec_registry:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _register("aec", "nomercy/NoMercy-v1", entry_point="nomercy.rl.pettingzoo_env:env")
except ImportError:  # pragma: no cover - the rl extra installs it
    pass
