"""The one action table: every decision of the game as an index of ``Discrete(NUM_ACTIONS)``.

Seats inside actions (a Seven's target, a catch) are written *relative to the actor*:
offset ``+1`` is the next seat clockwise, ``+2`` the one after, and so on up to
``MAX_PLAYERS - 1``. A policy then means the same thing by the same index from every seat.
The RL environments, the learned bot and the native engine all number actions by this
table (the native kernels read its columns, ``nomercy.native.layout``); the order is part
of :data:`~nomercy.encoding.version.ENV_VERSION`.

The standard library only, so that the native playouts of a plain install use it too.
"""

from __future__ import annotations

from typing import Final

from nomercy.actions import CALL_UNO, CHALLENGE, DRAW, PASS, TAKE, Action, Catch, ChooseColor, Play
from nomercy.cards import Card, Color, Face
from nomercy.encoding.version import MAX_PLAYERS, NUM_CARDS
from nomercy.engine import GameState
from nomercy.views import PlayerView

__all__ = [
    "ACTIONS",
    "NUM_ACTIONS",
    "action_meaning",
    "action_to_index",
    "index_to_action",
    "legal_indices",
    "seat_action",
]


def _build_actions() -> tuple[Action, ...]:
    """Every action with seats as offsets; the order is the index (part of ENV_VERSION)."""
    table: list[Action] = []
    for card in Card.ALL[:NUM_CARDS]:
        for uno in (False, True):
            if card.is_wild and card.face is not Face.WILD_COLOR_ROULETTE:
                table.extend(Play(card, color, None, uno) for color in Color)
            elif card.face is Face.SEVEN:
                # No target: the Seven is the last card (N4) or seven_zero is off.
                table.append(Play(card, None, None, uno))
                table.extend(Play(card, None, off, uno) for off in range(1, MAX_PLAYERS))
            else:
                table.append(Play(card, None, None, uno))
    table += [DRAW, PASS, TAKE, CHALLENGE]
    table += [ChooseColor(color) for color in Color]
    table.append(CALL_UNO)
    table += [Catch(off) for off in range(1, MAX_PLAYERS)]
    return tuple(table)


#: The action table: index -> action, seats written as offsets from the actor.
ACTIONS: Final[tuple[Action, ...]] = _build_actions()
NUM_ACTIONS: Final = len(ACTIONS)


def _key(action: Action, offset: int | None) -> tuple[object, ...]:
    if isinstance(action, Play):
        return ("play", action.card.index, action.color, offset, action.uno)
    if isinstance(action, ChooseColor):
        return ("color", action.color)
    if isinstance(action, Catch):
        return ("catch", offset)
    return (action.kind,)


def _offset(action: Action) -> int | None:
    """The seat offset an entry of the table names (a Seven's target, a catch), or None."""
    if isinstance(action, Play):
        return action.target
    return action.seat if isinstance(action, Catch) else None


_INDEX: Final = {_key(a, _offset(a)): i for i, a in enumerate(ACTIONS)}
# The fast path of action_to_index: actions without a seat, by identity-equal value.
_SEATLESS: Final = {a: i for i, a in enumerate(ACTIONS) if _offset(a) is None}


def action_to_index(action: Action, seat: int, players: int) -> int:
    """The table index of ``action`` taken by ``seat`` at a ``players``-seat table."""
    index = _SEATLESS.get(action)
    if index is not None:
        return index
    if isinstance(action, Play) and action.target is not None:
        offset: int | None = (action.target - seat) % players
    elif isinstance(action, Catch):
        offset = (action.seat - seat) % players
    else:
        raise ValueError(f"{action} has no index in the action table")
    index = _INDEX.get(_key(action, offset))
    if index is None or offset == 0:
        raise ValueError(f"{action} by P{seat} has no index in the action table")
    return index


def seat_action(index: int, seat: int, players: int) -> Action:
    """The action that table ``index`` means for ``seat`` at a ``players``-seat table (its
    offset made a seat again). Raises ``ValueError`` for an index out of range or an offset
    beyond this table's seats. The action may still be illegal now: check the mask."""
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action index {index} is outside 0..{NUM_ACTIONS - 1}")
    action = ACTIONS[index]
    if isinstance(action, Play) and action.target is not None:
        if action.target >= players:
            raise ValueError(f"action {index} targets seat +{action.target} at a {players}-seat table")
        return Play(action.card, None, (seat + action.target) % players, action.uno)
    if isinstance(action, Catch):
        if action.seat >= players:
            raise ValueError(f"action {index} catches seat +{action.seat} at a {players}-seat table")
        return Catch((seat + action.seat) % players)
    return action


def index_to_action(source: PlayerView | GameState, index: int, seat: int | None = None) -> Action:
    """The action that table ``index`` means for ``seat`` (default: the view's seat, or the
    state's deciding seat); :func:`seat_action` for that seat and table."""
    if seat is None:
        seat = source.seat if isinstance(source, PlayerView) else source.current
    if seat is None:
        raise ValueError("no acting seat: pass seat=, or a view of a seat, or a state still in play")
    return seat_action(index, seat, source.players)


def action_meaning(index: int) -> str:
    """Human text of table entry ``index``, with seats as offsets (``play G7 @+2``)."""
    action = ACTIONS[index]
    if isinstance(action, Play) and action.target is not None:
        text = f"play {action.card.code} @+{action.target}"
        return text + " uno" if action.uno else text
    if isinstance(action, Catch):
        return f"catch +{action.seat}"
    return str(action)


def legal_indices(view: PlayerView) -> list[int]:
    """Table indices of ``view.legal_actions`` (the seat's own legal actions)."""
    if view.seat is None:
        return []
    seat, players = view.seat, view.players
    return [action_to_index(a, seat, players) for a in view.legal_actions]
