"""The observation, declared once as named sections (as OpenSpiel's observers declare
their ``pieces``): each section's name, size and meaning, and from them its place in the
float32 vector.

Every encoder writes exactly these sections, by name: the readable reference
(:mod:`nomercy.encoding.reference`, from a :class:`~nomercy.PlayerView`), the fast one the
environments step with (:mod:`nomercy.encoding.fast`, from a ``GameState``) and the
native one (``nomercy.native.encode``, from a native table, given :data:`START`). The
``rules`` section is constant for a table: its numbers come from
:func:`nomercy.encoding.rules.rules_features`, computed once per rules.
``tests/encoding`` fails when any of them lacks a section or writes one this list lacks.

Seats are relative to the observer (entry 0 of a per-seat section is the observer
itself). The standard library only; any change bumps ``ENV_VERSION``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from nomercy.encoding.rules import RULES_SIZE
from nomercy.encoding.version import MAX_PLAYERS, NUM_CARDS
from nomercy.state import Decision

__all__ = ["OBS_HIGH", "OBS_SECTIONS", "OBS_SIZE", "START", "ObsSection", "section_names"]


@dataclass(frozen=True, slots=True)
class ObsSection:
    """A slice of the observation vector and what it means."""

    name: str
    start: int
    size: int
    meaning: str

    @property
    def stop(self) -> int:
        return self.start + self.size


#: (name, size, meaning) of every section, in the vector's order.
_SPEC: Final = (
    ("hand", NUM_CARDS, "own hand: copies held of each card kind (Card.index order)"),
    ("top", NUM_CARDS, "top card of the discard pile, one-hot by card kind"),
    ("color", 4, "color in play, one-hot R Y G B (all 0 while a wild's color is unnamed)"),
    ("clockwise", 1, "1 when play goes clockwise (increasing seats), 0 otherwise"),
    ("pending_total", 1, "cards the deciding player faces in a stack (K1)"),
    ("last_draw_value", 1, "value of the last Draw card of the pending stack (K2)"),
    ("decision", len(Decision), "pending decision, one-hot: " + ", ".join(d.label for d in Decision)),
    ("drawn", NUM_CARDS, "the card this seat just drew and must play (T2), one-hot"),
    ("seat_present", MAX_PLAYERS, "relative seat +k exists at this table"),
    ("active", MAX_PLAYERS, "relative seat +k is still in the round (not knocked out, M3)"),
    ("hand_sizes", MAX_PLAYERS, "cards held by relative seat +k"),
    ("current_player", MAX_PLAYERS, "one-hot: relative seat +k decides now"),
    ("uno_open", MAX_PLAYERS, "multi-hot: relative seat +k may be caught (U2)"),
    ("discard", NUM_CARDS, "copies of each card kind in the discard pile (all were played face up)"),
    ("draw_pile_size", 1, "cards in the draw pile"),
    ("aside_size", 1, "cards of knocked-out hands set aside (M2)"),
    # Appended last, so that every section before it keeps its offset (encoding 3).
    (
        "rules",
        RULES_SIZE,
        "the house rules (nomercy.encoding.rules): a bool 0/1, a choice one-hot, a number scaled, "
        "mercy_limit as set and scaled, the deck as copies of each card kind / 4",
    ),
)


def _sections() -> tuple[ObsSection, ...]:
    out: list[ObsSection] = []
    start = 0
    for name, size, meaning in _SPEC:
        out.append(ObsSection(name, start, size, meaning))
        start += size
    return tuple(out)


OBS_SECTIONS: Final = _sections()
OBS_SIZE: Final = OBS_SECTIONS[-1].stop
#: Each section's first index, by name.
START: Final = {s.name: s.start for s in OBS_SECTIONS}
#: Upper bound of every observation entry (for Box spaces): no count exceeds a deck.
OBS_HIGH: Final = 1000.0


def section_names() -> tuple[str, ...]:
    """The sections' names, in the vector's order."""
    return tuple(s.name for s in OBS_SECTIONS)
