"""The house rules as numbers: the ``rules`` section of the observation, declared once.

A network trained at one table of rules sees only their effects; to train one network for
many house rules it must see the rules themselves. Every :class:`~nomercy.Rules` field is
either encoded here or left out with its reason (:data:`LEFT_OUT`), and ``tests/encoding``
fails when a field is neither, so a new house rule cannot be forgotten:

- a bool is one entry, 0 or 1;
- a choice (``Literal``) is one entry per option, one-hot, in the option order of
  :meth:`Rules.fields`;
- a whole number is one entry divided by its scale (:data:`SCALES`), so that sensible
  values stay near [0, 1];
- ``mercy_limit`` (a number or ``None``) is an entry "has a limit" and the scaled limit
  (0 without one);
- the deck is the copies of each card kind (``Card.index`` order, :data:`NUM_CARDS`
  entries) divided by 4. A kind past the table (W7's Wild Shuffle Hands) has no entry:
  ``check_deck`` refuses such a deck before anything is encoded.

The standard library only, like :mod:`nomercy.encoding.sections`; any change bumps
``ENV_VERSION``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from nomercy.cards import Card
from nomercy.encoding.version import NUM_CARDS
from nomercy.rules import RuleField, Rules

__all__ = [
    "DECK_SCALE",
    "LEFT_OUT",
    "RULES_FEATURES",
    "RULES_SIZE",
    "SCALES",
    "RuleFeature",
    "rules_features",
]

#: Fields that do not change how a round is played from a seat, and why they are left out.
LEFT_OUT: Final[dict[str, str]] = {
    "max_players": "S1: the most seats a table may have; the table's own seats are seat_present",
    "knockout_bonus_to": "E3: who scores a knock-out's 250 points, after the round",
    "target_score": "E4: the score that ends a match; an observation is of one round",
    "knocked_out_return": "E4: whether the knocked out are dealt back in for a match's next round",
}
#: The divisor of each whole-number field (``mercy_limit``'s limit included).
SCALES: Final[dict[str, float]] = {"hand_size": 10.0, "uno_penalty": 4.0, "mercy_limit": 25.0}
#: The divisor of a card kind's copies in the deck.
DECK_SCALE: Final = 4.0


@dataclass(frozen=True, slots=True)
class RuleFeature:
    """The entries of one field, from ``start`` (within the section), and their labels."""

    name: str
    kind: str
    start: int
    labels: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.labels)

    @property
    def stop(self) -> int:
        return self.start + self.size


def _labels(rule: RuleField) -> tuple[str, ...]:
    """One label per entry of ``rule``."""
    if rule.type == "deck":
        return tuple(f"deck {Card.ALL[i].code}" for i in range(NUM_CARDS))
    if rule.type == "bool":
        return (rule.name,)
    if rule.type == "choice":
        assert rule.choices is not None
        return tuple(f"{rule.name}={c}" for c in rule.choices)
    if rule.name not in SCALES:  # pragma: no cover - a new number needs its scale
        raise TypeError(f"Rules.{rule.name}: give the rules encoding its scale (SCALES) or leave it out")
    scaled = f"{rule.name}/{SCALES[rule.name]:g}"
    return (f"{rule.name} is set", scaled) if rule.nullable else (scaled,)


def _features() -> tuple[RuleFeature, ...]:
    out: list[RuleFeature] = []
    start = 0
    for rule in Rules.fields():
        if rule.name in LEFT_OUT:
            continue
        labels = _labels(rule)
        out.append(RuleFeature(rule.name, rule.type, start, labels))
        start += len(labels)
    return tuple(out)


#: Every encoded field's entries, in the section's order (the fields' declaration order).
RULES_FEATURES: Final = _features()
#: Entries of the ``rules`` section.
RULES_SIZE: Final = RULES_FEATURES[-1].stop


@functools.lru_cache(maxsize=64)
def _cached(rules: Rules) -> tuple[float, ...]:
    out = [0.0] * RULES_SIZE
    for f in RULES_FEATURES:
        value = getattr(rules, f.name)
        if f.kind == "deck":
            for code, count in value:
                index = Card.parse(code).index
                if index < NUM_CARDS:
                    out[f.start + index] += count / DECK_SCALE
        elif f.kind == "bool":
            out[f.start] = 1.0 if value else 0.0
        elif f.kind == "choice":
            out[f.start + f.labels.index(f"{f.name}={value}")] = 1.0
        elif f.size == 2:  # a number that may be None: "is set", then the scaled number
            if value is not None:
                out[f.start] = 1.0
                out[f.start + 1] = value / SCALES[f.name]
        else:
            out[f.start] = value / SCALES[f.name]
    return tuple(out)


def rules_features(rules: Rules) -> list[float]:
    """The ``rules`` section's entries for ``rules`` (:data:`RULES_SIZE` floats)."""
    return list(_cached(rules))
