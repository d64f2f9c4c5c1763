"""One encoding of the game for learning, below everything that uses it: the action table,
the observation's named sections, their version, and the encoders that implement them.

- :mod:`~nomercy.encoding.version`: :data:`ENV_VERSION`, the table's extent
  (:data:`MAX_PLAYERS`, :data:`NUM_CARDS`) and the tables it refuses (``check_table``);
- :mod:`~nomercy.encoding.actions`: the one action table (:data:`ACTIONS`), seats written
  as offsets from the actor, and the conversions both ways;
- :mod:`~nomercy.encoding.sections`: the observation declared once as named sections
  (:data:`OBS_SECTIONS`);
- :mod:`~nomercy.encoding.rules`: the house rules as numbers, the last section (every
  ``Rules`` field encoded or left out with its reason);
- :mod:`~nomercy.encoding.reference`: the readable encoder, from a ``PlayerView``;
- :mod:`~nomercy.encoding.fast`: the same numbers from a ``GameState``, for stepping.

The native engine's encoder (``nomercy.native.encode``) is the third implementation. The
RL environments (``nomercy.rl``), the learned bot (``nomercy.bots.learned``) and the
native engine import this package; it imports only the core (and numpy, for the two
encoders). The first four modules need the standard library only, and so does importing
this package: :func:`observe`, :func:`legal_mask` and :class:`StateEncoder` load numpy
on first use. ``docs/rl.md`` lists both tables (``python -m nomercy.encoding.docs``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nomercy.encoding.actions import (
    ACTIONS,
    NUM_ACTIONS,
    action_meaning,
    action_to_index,
    index_to_action,
    legal_indices,
    seat_action,
)
from nomercy.encoding.sections import OBS_HIGH, OBS_SECTIONS, OBS_SIZE, ObsSection
from nomercy.encoding.version import ENV_VERSION, MAX_PLAYERS, NUM_CARDS, check_deck, check_table
from nomercy.extras import require

if TYPE_CHECKING:
    from nomercy.encoding.fast import StateEncoder, legal_index_list
    from nomercy.encoding.reference import legal_mask, observe

__all__ = [
    "ACTIONS",
    "ENV_VERSION",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "OBS_HIGH",
    "OBS_SECTIONS",
    "OBS_SIZE",
    "ObsSection",
    "StateEncoder",
    "action_meaning",
    "action_to_index",
    "check_deck",
    "check_table",
    "index_to_action",
    "legal_index_list",
    "legal_indices",
    "legal_mask",
    "observe",
    "seat_action",
]

#: The names that need numpy, and their module.
_NUMPY_HOME = {
    "observe": "reference",
    "legal_mask": "reference",
    "StateEncoder": "fast",
    "legal_index_list": "fast",
}


def __getattr__(name: str) -> Any:
    """The encoders, imported on first use (so that the tables need no numpy)."""
    home = _NUMPY_HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'nomercy.encoding' has no attribute {name!r}")
    require("numpy", "learned", f"nomercy.encoding.{name}")
    value = getattr(importlib.import_module(f"nomercy.encoding.{home}"), name)
    globals()[name] = value
    return value
