"""The action table and observation encoding, re-exported from :mod:`nomercy.encoding`.

The encoding lives below everything that uses it, in ``nomercy.encoding`` (the bots and
the native engine use it without the RL environments). This module keeps the import path
the research environments documented before (``from nomercy.rl.encoding import observe``)
working: every name here is ``nomercy.encoding``'s own object. New code imports from
``nomercy.encoding``.
"""

from __future__ import annotations

from nomercy.encoding.actions import (
    ACTIONS,
    NUM_ACTIONS,
    action_meaning,
    action_to_index,
    index_to_action,
    legal_indices,
    seat_action,
)
from nomercy.encoding.reference import legal_mask, observe
from nomercy.encoding.sections import OBS_HIGH, OBS_SECTIONS, OBS_SIZE, ObsSection
from nomercy.encoding.version import ENV_VERSION, MAX_PLAYERS, NUM_CARDS, check_deck, check_table

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
    "action_meaning",
    "action_to_index",
    "check_deck",
    "check_table",
    "index_to_action",
    "legal_indices",
    "legal_mask",
    "observe",
    "seat_action",
]
