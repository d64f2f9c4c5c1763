"""nomercy: the rules of UNO Show 'em No Mercy as a fast, pure-Python engine.

>>> import nomercy
>>> state = nomercy.new_game(players=4, seed=42)
>>> action = state.legal_actions()[0]
>>> events = state.apply(action)

The package is not affiliated with or endorsed by Mattel, which owns the UNO trademark.
"""

from nomercy.actions import Action, CallUno, Catch, Challenge, ChooseColor, Draw, Pass, Play, Take
from nomercy.cards import CLASSIC_DECK, NO_MERCY_DECK, Card, Color, Face, parse_cards
from nomercy.cards import deck_cards as _deck_cards
from nomercy.engine import GameState, new_game
from nomercy.errors import (
    GameOver,
    IllegalAction,
    InvalidAction,
    InvalidCard,
    InvalidRules,
    InvalidSeat,
    InvalidState,
    NoMercyError,
    NotYourTurn,
)
from nomercy.events import Event, redact
from nomercy.match import Match, RoundResult
from nomercy.record import GameRecord, replay
from nomercy.rules import PRESETS, RuleField, Rules
from nomercy.state import Decision, KnockOut, Outcome
from nomercy.views import PlayerView, determinize, player_view

__version__ = "0.3.0"


def full_deck(rules: Rules | None = None) -> list[Card]:
    """Every physical card of the rules' deck (C3): 168 for no_mercy, 108 for classic."""
    return _deck_cards((rules or Rules()).deck)


__all__ = [
    "CLASSIC_DECK",
    "NO_MERCY_DECK",
    "PRESETS",
    "Action",
    "CallUno",
    "Card",
    "Catch",
    "Challenge",
    "ChooseColor",
    "Color",
    "Decision",
    "Draw",
    "Event",
    "Face",
    "GameOver",
    "GameRecord",
    "GameState",
    "IllegalAction",
    "InvalidAction",
    "InvalidCard",
    "InvalidRules",
    "InvalidSeat",
    "InvalidState",
    "KnockOut",
    "Match",
    "NoMercyError",
    "NotYourTurn",
    "Outcome",
    "Pass",
    "Play",
    "PlayerView",
    "RoundResult",
    "RuleField",
    "Rules",
    "Take",
    "determinize",
    "full_deck",
    "new_game",
    "parse_cards",
    "player_view",
    "redact",
    "replay",
]
