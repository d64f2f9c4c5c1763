"""What one seat may see, and full states sampled from it for search.

Every front end, bot and environment reads the game through :func:`player_view`; a
view holds the seat's own hand and the public facts, never another hand or the order of
the draw pile (nor the seed that would reveal it). :func:`determinize` samples a full
:class:`GameState` that agrees with a view, for search bots (information-set search).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from nomercy.actions import Action
from nomercy.cards import Card, Color, deck_cards
from nomercy.errors import InvalidSeat
from nomercy.rules import Rules
from nomercy.state import Decision, GameState, KnockOut, Outcome

__all__ = ["PlayerView", "determinize", "player_view"]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The table as ``seat`` sees it (``seat=None``: a spectator, no hand)."""

    seat: int | None
    rules: Rules
    players: int
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    #: The discard pile, top card *last*; every card in it was played face up.
    discard: tuple[Card, ...]
    draw_pile_size: int
    aside_size: int
    color: Color | None
    direction: int
    current_player: int | None
    decision: Decision
    pending_total: int
    last_draw_value: int
    #: The card this seat just drew and must play (T2); None for everyone else.
    drawn: Card | None
    active: tuple[bool, ...]
    knocked_out: tuple[KnockOut, ...]
    #: The seat open to a catch (U2), public since the table heard no call.
    uno_open: int | None
    step: int
    outcome: Outcome | None
    #: This seat's legal actions now, including out-of-turn catch/uno.
    legal_actions: tuple[Action, ...]

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.current_player

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, used by the server and logs."""
        return {
            "seat": self.seat,
            "players": self.players,
            "dealer": self.dealer,
            "hand": [c.code for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "top": self.top.code,
            "discard_size": len(self.discard),
            "draw_pile_size": self.draw_pile_size,
            "aside_size": self.aside_size,
            "color": self.color.letter if self.color is not None else None,
            "direction": self.direction,
            "current_player": self.current_player,
            "decision": self.decision.label,
            "pending_total": self.pending_total,
            "drawn": self.drawn.code if self.drawn is not None else None,
            "active": list(self.active),
            "knocked_out": [{"seat": k.seat, "by": k.by} for k in self.knocked_out],
            "uno_open": self.uno_open,
            "step": self.step,
            "outcome": self.outcome.to_dict() if self.outcome else None,
            "legal_actions": [str(a) for a in self.legal_actions],
        }


def player_view(state: GameState, seat: int | None) -> PlayerView:
    """The view of ``seat``; ``None`` gives the spectator view (no hand at all)."""
    if seat is not None and not 0 <= seat < state.players:
        raise InvalidSeat(f"seat {seat} is not at this {state.players}-player table")
    own = seat is not None and seat == state.current
    return PlayerView(
        seat=seat,
        rules=state.rules,
        players=state.players,
        dealer=state.dealer,
        hand=tuple(state.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        discard=tuple(state.discard),
        draw_pile_size=len(state.draw_pile),
        aside_size=len(state.aside),
        color=state.color,
        direction=state.direction,
        current_player=state.current,
        decision=state.decision,
        pending_total=state.pending_total,
        last_draw_value=state.last_draw_value,
        drawn=state.drawn if own else None,
        active=tuple(state.active),
        knocked_out=tuple(state.knocked_out),
        uno_open=state.uno_seat,
        step=state.step,
        outcome=state.outcome,
        legal_actions=tuple(state.legal_actions(seat)) if seat is not None else (),
    )


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A full state consistent with ``view``: unseen cards dealt at random.

    The unseen cards are the deck less the viewer's hand and the discard pile; they are
    dealt to the other hands (at their known sizes), the set-aside pile and the draw
    pile. The sampled state gets a fresh seed, so its future reshuffles reveal nothing.
    What the viewer saw of other hands earlier (a Seven swap, Roulette cards) is not
    used: the sample is uniform over the unseen cards.
    """
    unseen = Counter(deck_cards(view.rules.deck))
    unseen.subtract(view.hand)
    unseen.subtract(view.discard)
    pool = [card for card, n in sorted(unseen.items(), key=lambda kv: kv[0].index) for _ in range(max(n, 0))]
    rng.shuffle(pool)
    s = GameState.__new__(GameState)
    s.rules = view.rules
    s.players = view.players
    s.dealer = view.dealer
    hands: list[list[Card]] = []
    for seat, size in enumerate(view.hand_sizes):
        if seat == view.seat:
            hands.append(list(view.hand))
        else:
            hands.append(pool[:size])
            del pool[:size]
    s.hands = hands
    s.aside = pool[: view.aside_size]
    del pool[: view.aside_size]
    s.draw_pile = pool
    s.discard = list(view.discard)
    s.color = view.color
    s.direction = view.direction
    s.current = view.current_player
    s.decision = view.decision
    s.pending_total = view.pending_total
    s.last_draw_value = view.last_draw_value
    s.last_draw_by = None
    s.drawn = view.drawn
    s.roulette_by = None
    s.active = list(view.active)
    s.active_count = sum(view.active)
    s.knocked_out = list(view.knocked_out)
    s.uno_seat = view.uno_open
    s.bonus = [0] * view.players
    s.seed = rng.getrandbits(63)
    s.shuffles = 0
    s.step = view.step
    s.outcome = view.outcome
    if s.decision is Decision.PLAY_DRAWN and s.drawn is None and s.current is not None:
        _sample_drawn(s, view.seat)
    return s


def _sample_drawn(s: GameState, viewer: int | None) -> None:
    """Another seat is about to play a card it drew: give it a playable one.

    The real drawn card is one of the cards the viewer cannot see, so a playable one
    is always found: in the seat's sampled hand, else swapped in from the draw pile,
    the set-aside cards or another hidden hand (never the viewer's).
    """
    from nomercy.engine import _playable

    seat = s.current
    assert seat is not None
    hand = s.hands[seat]
    for i in range(len(hand) - 1, -1, -1):
        if _playable(s, hand[i], hand):
            s.drawn = hand[i]
            return
    others = [h for x, h in enumerate(s.hands) if x not in (seat, viewer)]
    for pile in (s.draw_pile, s.aside, *others):
        for i, card in enumerate(pile):
            if _playable(s, card, hand) and hand:
                pile[i], hand[-1] = hand[-1], card
                s.drawn = card
                return
    s.decision = Decision.PLAY
