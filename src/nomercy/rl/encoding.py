"""The fixed, versioned action table and observation encoding shared by every environment.

One flat ``Discrete(NUM_ACTIONS)`` space covers every decision of the game. Seats inside
actions (a Seven's target, a catch) are written *relative to the actor*: offset ``+1`` is
the next seat clockwise, ``+2`` the one after, and so on up to ``MAX_PLAYERS - 1``. A
policy then means the same thing by the same index from every seat.

Observations are built **only** from :class:`~nomercy.PlayerView` (``player_view(state, seat)``),
so nothing the seat may not see can reach them. Seats in observations are relative too
(index 0 is the observer itself). ``docs/rl.md`` lists both tables; it is generated from
this module by ``python -m nomercy.rl.docs`` and a test checks that it is current.

Any change to the tables bumps :data:`ENV_VERSION`, and with it the ``-vN`` of the env IDs
(the former id stays registered as a deprecated alias, as ``nomercy.rl`` does for ``-v1``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nomercy.actions import CALL_UNO, CHALLENGE, DRAW, PASS, TAKE, Action, Catch, ChooseColor, Play
from nomercy.cards import BASE_KINDS, Card, Color, Face
from nomercy.engine import GameState
from nomercy.rules import Rules
from nomercy.state import Decision
from nomercy.views import PlayerView

__all__ = [
    "ACTIONS",
    "ENV_VERSION",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "NUM_CARDS",
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
]

#: Version of both tables; the environment IDs end in ``-v{ENV_VERSION}``.
ENV_VERSION = 2  # 2: the Wild Draw 4 challenge (W6), a decision and an action
#: Most seats the tables can describe (docs/rules.md S1); larger tables are refused.
MAX_PLAYERS = 6
#: Card kinds, indexed by ``Card.index`` (64 colored, then 6 wilds incl. the classic ones):
#: the kinds the tables were built for (``BASE_KINDS``); :func:`check_table` refuses a
#: deck holding a later one (the Wild Shuffle Hands of ``classic_112``, W7).
NUM_CARDS = BASE_KINDS

_ROULETTE = Face.WILD_COLOR_ROULETTE


def _build_actions() -> tuple[Action, ...]:
    """Every action with seats as offsets; the order is the index (part of ENV_VERSION)."""
    table: list[Action] = []
    for card in Card.ALL[:NUM_CARDS]:
        for uno in (False, True):
            if card.is_wild and card.face is not _ROULETTE:
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
ACTIONS: tuple[Action, ...] = _build_actions()
NUM_ACTIONS = len(ACTIONS)


def _key(action: Action, offset: int | None) -> tuple[object, ...]:
    if isinstance(action, Play):
        return ("play", action.card.index, action.color, offset, action.uno)
    if isinstance(action, ChooseColor):
        return ("color", action.color)
    if isinstance(action, Catch):
        return ("catch", offset)
    return (action.kind,)


_INDEX: dict[tuple[object, ...], int] = {}
for _i, _a in enumerate(ACTIONS):
    _off = _a.target if isinstance(_a, Play) else (_a.seat if isinstance(_a, Catch) else None)
    _INDEX[_key(_a, _off)] = _i
# The fast path of action_to_index: actions without a seat, by identity-equal value.
_SEATLESS: dict[Action, int] = {
    a: i for i, a in enumerate(ACTIONS) if not isinstance(a, Catch) and getattr(a, "target", None) is None
}


def action_to_index(action: Action, seat: int, players: int) -> int:
    """The table index of ``action`` taken by ``seat`` at a ``players``-seat table."""
    index = _SEATLESS.get(action)
    if index is not None:
        return index
    if isinstance(action, Play):
        assert action.target is not None
        offset: int | None = (action.target - seat) % players
    elif isinstance(action, Catch):
        offset = (action.seat - seat) % players
    else:  # pragma: no cover - every seatless action is in the table
        raise ValueError(f"{action} has no index in the action table")
    index = _INDEX.get(_key(action, offset))
    if index is None or offset == 0:
        raise ValueError(f"{action} by P{seat} has no index in the action table")
    return index


def _seat_and_players(source: PlayerView | GameState, seat: int | None) -> tuple[int, int]:
    if seat is None:
        seat = source.seat if isinstance(source, PlayerView) else source.current
    if seat is None:
        raise ValueError("no acting seat: pass seat=, or a view of a seat, or a state still in play")
    return seat, source.players


def index_to_action(source: PlayerView | GameState, index: int, seat: int | None = None) -> Action:
    """The action that table ``index`` means for ``seat`` (default: the view's seat, or the
    state's deciding seat). Raises ``ValueError`` for an index out of range or an offset
    beyond this table's seats. The action may still be illegal now: check the mask."""
    seat, players = _seat_and_players(source, seat)
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
_MASKS_MAX = 50_000


# -- observations ----------------------------------------------------------------------


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


def _sections() -> tuple[ObsSection, ...]:
    spec = [
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
    ]
    out: list[ObsSection] = []
    start = 0
    for name, size, meaning in spec:
        out.append(ObsSection(name, start, size, meaning))
        start += size
    return tuple(out)


OBS_SECTIONS: tuple[ObsSection, ...] = _sections()
OBS_SIZE = OBS_SECTIONS[-1].stop
_S = {s.name: s.start for s in OBS_SECTIONS}
_HAND, _TOP, _COLOR, _CW = _S["hand"], _S["top"], _S["color"], _S["clockwise"]
_PENDING, _LAST, _DECISION, _DRAWN = _S["pending_total"], _S["last_draw_value"], _S["decision"], _S["drawn"]
_PRESENT, _ACTIVE, _SIZES, _CURRENT = _S["seat_present"], _S["active"], _S["hand_sizes"], _S["current_player"]
_UNO, _DISCARD, _PILE, _ASIDE = _S["uno_open"], _S["discard"], _S["draw_pile_size"], _S["aside_size"]


def observe(view: PlayerView, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """The float32 observation vector of ``view``'s seat (layout: :data:`OBS_SECTIONS`).

    Only the view is read, so another seat's cards or the draw pile's order cannot leak.
    """
    if view.seat is None:
        raise ValueError("observations are of a seat; a spectator view has none")
    obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        obs.fill(0.0)
    for card in view.hand:
        obs[_HAND + card.index] += 1.0
    obs[_TOP + view.discard[-1].index] = 1.0
    if view.color is not None:
        obs[_COLOR + int(view.color)] = 1.0
    obs[_CW] = 1.0 if view.direction == 1 else 0.0
    obs[_PENDING] = view.pending_total
    obs[_LAST] = view.last_draw_value
    obs[_DECISION + int(view.decision)] = 1.0
    if view.drawn is not None:
        obs[_DRAWN + view.drawn.index] = 1.0
    seat, n = view.seat, view.players
    sizes, active = view.hand_sizes, view.active
    for k in range(n):
        other = (seat + k) % n
        obs[_PRESENT + k] = 1.0
        obs[_ACTIVE + k] = 1.0 if active[other] else 0.0
        obs[_SIZES + k] = sizes[other]
    if view.current_player is not None:
        obs[_CURRENT + (view.current_player - seat) % n] = 1.0
    for open_seat in view.uno_open:
        obs[_UNO + (open_seat - seat) % n] = 1.0
    counts = np.bincount([c.index for c in view.discard], minlength=NUM_CARDS)
    obs[_DISCARD : _DISCARD + NUM_CARDS] = counts
    obs[_PILE] = view.draw_pile_size
    obs[_ASIDE] = view.aside_size
    return obs


#: Upper bound of every observation entry (for Box spaces): no count exceeds a deck.
OBS_HIGH = 1000.0


def check_table(players: int, rules: Rules) -> None:
    """Refuse tables the fixed encoding cannot describe, with a reason."""
    if not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"the RL environments seat 2 to {MAX_PLAYERS} players (S1), got {players!r}")
    if players > rules.max_players:
        raise ValueError(f"{players} players, but these rules seat at most {rules.max_players} (S1)")
    check_deck(rules)


def check_deck(rules: Rules) -> None:
    """Refuse a deck with a card kind the fixed tables have no place for (W7)."""
    beyond = [code for code, _ in rules.deck if Card.parse(code).index >= NUM_CARDS]
    if beyond:
        raise ValueError(
            f"the RL encoding has no place for {', '.join(beyond)}: it covers the card kinds of the "
            "no_mercy and classic decks, not the 112-card deck's Wild Shuffle Hands (W7)"
        )
