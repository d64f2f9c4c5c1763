"""The fast encoder, re-exported from :mod:`nomercy.encoding.fast`.

Kept so that the import path the research environments documented before
(``from nomercy.rl.fast_encoding import StateEncoder``) still works: the names are
``nomercy.encoding.fast``'s own objects. New code imports from ``nomercy.encoding``.
"""

from __future__ import annotations

from nomercy.encoding.fast import SECTIONS, StateEncoder, legal_index_list

__all__ = ["SECTIONS", "StateEncoder", "legal_index_list"]
