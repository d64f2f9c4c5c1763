"""The readable reference encoder: a seat's observation and mask from its
:class:`~nomercy.PlayerView` (``player_view(state, seat)``) alone, so nothing the seat may
not see can reach them.

Each section of :data:`~nomercy.encoding.sections.OBS_SECTIONS` has one writer here, by
name (:data:`WRITERS`); the module refuses to load when a section lacks one, and
``tests/encoding`` checks the fast and native encoders write the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

from nomercy.encoding.actions import NUM_ACTIONS, legal_indices
from nomercy.encoding.rules import rules_features
from nomercy.encoding.sections import OBS_SECTIONS, OBS_SIZE
from nomercy.encoding.version import NUM_CARDS
from nomercy.views import PlayerView

__all__ = ["WRITERS", "legal_mask", "observe"]

Floats = npt.NDArray[np.float32]
#: A section's writer: the view, and the section's slice of a zeroed observation.
Writer = Callable[[PlayerView, Floats], None]


def _hand(view: PlayerView, out: Floats) -> None:
    for card in view.hand:
        out[card.index] += 1.0


def _top(view: PlayerView, out: Floats) -> None:
    out[view.discard[-1].index] = 1.0


def _color(view: PlayerView, out: Floats) -> None:
    if view.color is not None:
        out[int(view.color)] = 1.0


def _clockwise(view: PlayerView, out: Floats) -> None:
    out[0] = 1.0 if view.direction == 1 else 0.0


def _pending_total(view: PlayerView, out: Floats) -> None:
    out[0] = view.pending_total


def _last_draw_value(view: PlayerView, out: Floats) -> None:
    out[0] = view.last_draw_value


def _decision(view: PlayerView, out: Floats) -> None:
    out[int(view.decision)] = 1.0


def _drawn(view: PlayerView, out: Floats) -> None:
    if view.drawn is not None:
        out[view.drawn.index] = 1.0


def _relative(view: PlayerView) -> list[int]:
    """The absolute seat of relative seat +k, for every k at this table."""
    assert view.seat is not None
    return [(view.seat + k) % view.players for k in range(view.players)]


def _seat_present(view: PlayerView, out: Floats) -> None:
    out[: view.players] = 1.0


def _active(view: PlayerView, out: Floats) -> None:
    for k, other in enumerate(_relative(view)):
        out[k] = 1.0 if view.active[other] else 0.0


def _hand_sizes(view: PlayerView, out: Floats) -> None:
    for k, other in enumerate(_relative(view)):
        out[k] = view.hand_sizes[other]


def _current_player(view: PlayerView, out: Floats) -> None:
    assert view.seat is not None
    if view.current_player is not None:
        out[(view.current_player - view.seat) % view.players] = 1.0


def _uno_open(view: PlayerView, out: Floats) -> None:
    assert view.seat is not None
    for open_seat in view.uno_open:
        out[(open_seat - view.seat) % view.players] = 1.0


def _discard(view: PlayerView, out: Floats) -> None:
    out[:] = np.bincount([c.index for c in view.discard], minlength=NUM_CARDS)


def _draw_pile_size(view: PlayerView, out: Floats) -> None:
    out[0] = view.draw_pile_size


def _aside_size(view: PlayerView, out: Floats) -> None:
    out[0] = view.aside_size


def _rules(view: PlayerView, out: Floats) -> None:
    out[:] = rules_features(view.rules)


#: Every section's writer, by the section's name.
WRITERS: Final[dict[str, Writer]] = {
    "hand": _hand,
    "top": _top,
    "color": _color,
    "clockwise": _clockwise,
    "pending_total": _pending_total,
    "last_draw_value": _last_draw_value,
    "decision": _decision,
    "drawn": _drawn,
    "seat_present": _seat_present,
    "active": _active,
    "hand_sizes": _hand_sizes,
    "current_player": _current_player,
    "uno_open": _uno_open,
    "discard": _discard,
    "draw_pile_size": _draw_pile_size,
    "aside_size": _aside_size,
    "rules": _rules,
}

_unknown = set(WRITERS) - {s.name for s in OBS_SECTIONS}
_missing = [s.name for s in OBS_SECTIONS if s.name not in WRITERS]
if _missing or _unknown:  # pragma: no cover - a section added without its writer
    raise ImportError(f"the reference encoder lacks {_missing} and writes unknown {sorted(_unknown)}")
#: (writer, start, stop) in the vector's order.
_PLAN: Final = tuple((WRITERS[s.name], s.start, s.stop) for s in OBS_SECTIONS)


def observe(view: PlayerView, out: Floats | None = None) -> Floats:
    """The float32 observation vector of ``view``'s seat (layout: ``OBS_SECTIONS``).

    Only the view is read, so another seat's cards or the draw pile's order cannot leak.
    """
    if view.seat is None:
        raise ValueError("observations are of a seat; a spectator view has none")
    obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        obs.fill(0.0)
    for write, start, stop in _PLAN:
        write(view, obs[start:stop])
    return obs


def legal_mask(view: PlayerView, out: npt.NDArray[np.int8] | None = None) -> npt.NDArray[np.int8]:
    """int8 mask over the table: 1 where the action is legal for the view's seat now."""
    key = (view.seat, view.players, view.legal_actions)
    cached = _MASKS.get(key)
    if cached is None:
        cached = np.zeros(NUM_ACTIONS, np.int8)
        indices = legal_indices(view)
        if indices:
            cached[indices] = 1
        cached.flags.writeable = False
        if len(_MASKS) >= _MASKS_MAX:
            _MASKS.clear()
        _MASKS[key] = cached
    if out is None:
        return cached.copy()
    out[:] = cached
    return out


# Masks by (seat, players, legal actions): the same few action sets recur all game long.
_MASKS: dict[tuple[object, ...], npt.NDArray[np.int8]] = {}
_MASKS_MAX: Final = 50_000
