"""How a hand is shown and numbered: grouped by color, playable cards numbered 1, 2, ...

The screen and the input parser share this order, so that ``3`` always means the card
the screen marked ``3``. Which cards are playable is the core's word
(:func:`nomercy.decisions.decisions`).
"""

from __future__ import annotations

from nomercy.cards import Card, Color
from nomercy.decisions import Choice, Decisions, decisions
from nomercy.views import PlayerView

#: Group order on screen: the four colors, then the wild cards.
GROUPS: tuple[Color | None, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE, None)


def sort_key(card: Card) -> tuple[int, int]:
    return (4 if card.color is None else int(card.color), int(card.face))


def grouped(hand: tuple[Card, ...] | list[Card]) -> list[tuple[Color | None, list[Card]]]:
    """The hand as (color, sorted cards) groups, empty groups left out; wilds last."""
    out: list[tuple[Color | None, list[Card]]] = []
    for group in GROUPS:
        cards = sorted((c for c in hand if c.color is group), key=sort_key)
        if cards:
            out.append((group, cards))
    return out


def plays_of(d: Decisions, card: Card) -> list[Choice]:
    """The legal plays of ``card`` (its colors, Seven targets, with and without Uno)."""
    return d.plays_of(card)


def playable(view: PlayerView, d: Decisions | None = None) -> list[Card]:
    """The distinct playable cards in screen order; their position + 1 is their number."""
    d = d or decisions(view)
    legal = {c.card for c in d.of_kind("play")}
    seen: list[Card] = []
    for _group, cards in grouped(view.hand):
        for card in cards:
            if card in legal and card not in seen:
                seen.append(card)
    return seen
