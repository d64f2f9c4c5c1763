"""A concise way to set up hand-made positions and act on them by text.

Positions go through the public ``GameState.from_dict`` (the hand-built state format),
actions through ``Action.parse`` (the text form), so these tests exercise exactly what
bug reports and tutorials use. Cards are written in docs/rules.md section 14 notation; piles
are written top card first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from nomercy import Action, Card, Color, Event, GameState, IllegalAction, Rules, parse_cards


def cards(text: str) -> list[Card]:
    """``"R5 W+6"`` -> cards (an empty string is no card)."""
    return parse_cards(text)


def cs(text: str) -> tuple[Card, ...]:
    """``"R3 W+6"`` -> a tuple of cards, as events carry them."""
    return tuple(parse_cards(text))


def color(letter: str) -> Color:
    """``"G"`` -> the color green."""
    return Color.parse(letter)


def C(code: str) -> Card:
    """One card from its code."""
    return Card.parse(code)


def make(
    hands: list[str],
    discard: str = "R5",
    draw: str = "",
    *,
    rules: Rules | dict[str, Any] | None = None,
    current: int | None = 0,
    pending: tuple[int, int, int | None] | None = None,
    **fields: Any,
) -> GameState:
    """Build a position: one hand string per seat, discard and draw piles top card first.

    ``pending=(total, last_value, by)`` sets a pending draw total (decision ``stack``
    unless given). Any other field of the state format passes through (``color``,
    ``direction``, ``decision``, ``drawn``, ``knocked_out``, ``uno_open``, ``aside``,
    ``roulette_by``, ``dealer``, ``bonus``, ``seed``, ...).
    """
    if isinstance(rules, Rules):
        rules = rules.to_dict(only_changes=True)
    data: dict[str, Any] = {
        "rules": rules or {},
        "players": len(hands),
        "hands": [h.split() for h in hands],
        "discard_pile": discard.split(),
        "draw_pile": draw.split(),
        "current": current,
        **fields,
    }
    if isinstance(data.get("aside"), str):
        data["aside"] = data["aside"].split()
    if pending is not None:
        total, last, by = pending
        data["pending"] = {"total": total, "last_value": last, "by": by}
    return GameState.from_dict(data)


def act(state: GameState, text: str, seat: int | None = None) -> list[Event]:
    """Apply an action given in its text form (``"play W+6 B"``); return the events."""
    action = Action.parse(text)
    assert str(action) == " ".join(text.split()), "text form must round-trip"
    return state.apply(action, seat)


def refused(state: GameState, text: str, rule: str, seat: int | None = None, contains: str = "") -> str:
    """Assert the action is refused with a message naming ``rule``, state unchanged."""
    before = state.to_json()
    with pytest.raises(IllegalAction) as info:
        state.apply(Action.parse(text), seat)
    message = str(info.value)
    assert f"{rule}" in message, f"message {message!r} should name rule {rule}"
    assert contains in message, f"message {message!r} should say {contains!r}"
    assert state.to_json() == before, "a refused action must leave the state unchanged"
    return message


def hand(state: GameState, seat: int) -> Counter[str]:
    """The seat's hand as a multiset of codes (hand order has no meaning in the game)."""
    return Counter(c.code for c in state.hands[seat])


def bag(text: str) -> Counter[str]:
    """A multiset of card codes, to compare with :func:`hand`."""
    return Counter(text.split())


def discard(state: GameState) -> str:
    """The discard pile, top card first."""
    return " ".join(c.code for c in reversed(state.discard))


def draw_pile(state: GameState) -> str:
    """The draw pile, top card first."""
    return " ".join(c.code for c in reversed(state.draw_pile))


def legal(state: GameState, seat: int | None = None) -> set[str]:
    """The legal actions of ``seat`` (default: the deciding seat) in text form."""
    return {str(a) for a in state.legal_actions(seat)}


def sizes(state: GameState) -> list[int]:
    """Hand sizes by seat."""
    return [len(h) for h in state.hands]


def filler(n: int, colors: str = "YB", digits: str = "123456789") -> str:
    """``n`` padding cards: two of each number of ``colors`` (the deck holds two of each).

    Give different ``colors`` to different seats so no card is used more often than the
    deck has it (C3; ``from_dict`` refuses that).
    """
    pool = [f"{c}{d}" for c in colors for d in digits for _ in range(2)]
    if n > len(pool):
        raise ValueError(f"cannot pad with {n} cards from colors {colors}")
    return " ".join(pool[:n])
