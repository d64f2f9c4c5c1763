"""The exception tree. Every error has a stable ``code`` for the wire and logs.

::

    NoMercyError
    ├── InvalidCard        a card or color that does not parse
    ├── InvalidAction      action text that does not parse
    ├── InvalidRules       a house rule value that is out of range (names the field)
    ├── InvalidState       a saved or hand-built state that is malformed or impossible
    ├── InvalidSeat        a seat number that is not at the table
    ├── IllegalAction      a well-formed action the rules refuse now (state unchanged)
    │   └── NotYourTurn    an action from a seat that is not the one deciding
    └── GameOver           an action after the round has ended

Messages speak in game terms and name the rule, e.g. ``"a Draw 2 cannot be stacked on
a Draw 4 (K3)"``. A refused action never changes the state.
"""

from __future__ import annotations

__all__ = [
    "GameOver",
    "IllegalAction",
    "InvalidAction",
    "InvalidCard",
    "InvalidRules",
    "InvalidSeat",
    "InvalidState",
    "NoMercyError",
    "NotYourTurn",
]


class NoMercyError(Exception):
    """Base of every error the library raises on purpose."""

    code = "error"


class InvalidCard(NoMercyError, ValueError):
    code = "invalid_card"


class InvalidAction(NoMercyError, ValueError):
    code = "invalid_action"


class InvalidRules(NoMercyError, ValueError):
    """A house rule with a bad value; ``field`` names it."""

    code = "invalid_rules"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class InvalidState(NoMercyError, ValueError):
    code = "invalid_state"


class InvalidSeat(NoMercyError, ValueError):
    code = "invalid_seat"


class IllegalAction(NoMercyError):
    code = "illegal_action"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class GameOver(IllegalAction):
    code = "game_over"
