"""Research environments: PettingZoo, Gymnasium, OpenSpiel and a batched numpy env.

Install with ``pip install nomercy[rl]``. Importing this package registers

- Gymnasium: ``gymnasium.make("nomercy/NoMercy-v3", players=2, opponents="random")``
- PettingZoo: ``pettingzoo.make("aec", "nomercy/NoMercy-v3", players=4)``, or
  ``nomercy.rl.pettingzoo.env(players=4)``

The ids end in ``-v{ENV_VERSION}``; the former ``nomercy/NoMercy-v1`` and ``-v2`` are no
longer made (encoding 3 added the rules to the observation).

OpenSpiel registers on ``import nomercy.rl.openspiel_game`` (it loads pyspiel):
``pyspiel.load_game("python_nomercy", {"players": 4})``.

Every environment uses the one action table and observation encoding of
:mod:`nomercy.rl.encoding` (``docs/rl.md``), whose version is :data:`ENV_VERSION`.
"""

from __future__ import annotations

import warnings

from nomercy.extras import MissingExtra

try:
    import gymnasium
    import numpy  # noqa: F401 - the encodings' arrays
except ImportError as _missing:
    raise MissingExtra("nomercy.rl (the research environments)", "rl", _missing.name) from None

from nomercy.encoding import (
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
from nomercy.rl.gymnasium_env import DEPRECATED_GYM_IDS, GYM_ENV_ID, NoMercyEnv
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

_GYM_IDS = {GYM_ENV_ID: "nomercy.rl.gymnasium_env:NoMercyEnv", **DEPRECATED_GYM_IDS}
for _id, _entry in _GYM_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_entry)

try:  # PettingZoo's registry (pettingzoo >= 1.27); older versions have none
    import pettingzoo as _pz

    from nomercy.rl.pettingzoo_env import DEPRECATED_PZ_IDS, PZ_ENV_ID

    _register = getattr(_pz, "register", None)
    if _register is not None:
        for _id, _entry in {PZ_ENV_ID: "nomercy.rl.pettingzoo_env:env", **DEPRECATED_PZ_IDS}.items():
            if _id not in _pz.aec_registry:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _register("aec", _id, entry_point=_entry)
except ImportError:  # pragma: no cover - the rl extra installs it
    pass
