"""What one seat may see, and full states sampled from it for search.

Every front end, bot and environment reads the game through :func:`player_view`; a
view holds the seat's own hand and the public facts, never another hand or the order of
the draw pile (nor the seed that would reveal it). :func:`determinize` samples a full
:class:`GameState` that agrees with a view, for search bots (information-set search).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, NamedTuple

from nomercy.actions import Action
from nomercy.cards import Card, Color, deck_cards
from nomercy.engine import GameState, draw_victim, playable, seat_after
from nomercy.errors import InvalidSeat
from nomercy.rules import Rules
from nomercy.state import Decision, KnockOut, Outcome, wd4_guilt

__all__ = ["PUBLIC_FIELDS", "PlayerView", "determinize", "player_view", "world_from"]


class PlayerView(NamedTuple):
    """The table as ``seat`` sees it (``seat=None``: a spectator, no hand).

    A named tuple: it is built for every bot decision, RL step and broadcast, and a
    tuple is the cheapest immutable value Python constructs.
    """

    seat: int | None
    rules: Rules
    players: int
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    #: The face-up discard pile, top card *last*: every card in it was played face up.
    discard: tuple[Card, ...]
    #: Face-down cards under the discard pile (M2, knockout_hand="discard_bottom").
    buried: int
    draw_pile_size: int
    aside_size: int
    color: Color | None
    direction: int
    current_player: int | None
    decision: Decision
    pending_total: int
    last_draw_value: int
    #: Who played the last Draw card of the pending total: the knocker if it knocks out (E3).
    last_draw_by: int | None
    #: The card this seat just drew and must play (T2); None for everyone else.
    drawn: Card | None
    #: Who played the Wild Color Roulette being resolved: the knocker if it knocks out (E3).
    roulette_by: int | None
    active: tuple[bool, ...]
    knocked_out: tuple[KnockOut, ...]
    #: Seats of a scored match dealt out of this round (E4).
    sitting_out: tuple[int, ...]
    #: The seats open to a catch (U2), public since the table heard no call.
    uno_open: tuple[int, ...]
    #: Knock-out points already earned this round (knockout_bonus_to="knocker", E3).
    bonus: tuple[int, ...]
    #: W6: the color under a challengeable Wild Draw 4, and how many of its player's
    #: cards count for the challenge.
    wd4_color: Color | None
    wd4_cards: int
    #: Reshuffles so far (T4); the seed that orders them is never shown.
    shuffles: int
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

    def next_seat(self, seat: int) -> int:
        """The active seat that plays after ``seat`` in the direction of play (M3)."""
        return seat_after(self.active, self.direction, seat)

    def previous_seat(self, seat: int) -> int:
        """The active seat that plays just before ``seat`` (M3)."""
        return seat_after(self.active, -self.direction, seat)

    def draw_victim(self, seat: int, card: Card) -> int:
        """The seat that must answer ``card``, a Draw card, if ``seat`` plays it (K6, W1)."""
        return draw_victim(self.active, self.direction, seat, card, self.rules)

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
            "buried": self.buried,
            "draw_pile_size": self.draw_pile_size,
            "aside_size": self.aside_size,
            "color": self.color.letter if self.color is not None else None,
            "direction": self.direction,
            "current_player": self.current_player,
            "decision": self.decision.label,
            "pending_total": self.pending_total,
            "last_draw_by": self.last_draw_by,
            "drawn": self.drawn.code if self.drawn is not None else None,
            "roulette_by": self.roulette_by,
            "active": list(self.active),
            "knocked_out": [{"seat": k.seat, "by": k.by} for k in self.knocked_out],
            "sitting_out": list(self.sitting_out),
            "uno_open": list(self.uno_open),
            "bonus": list(self.bonus),
            "challenge": (
                {"color": self.wd4_color.letter, "cards": self.wd4_cards}
                if self.wd4_color is not None
                else None
            ),
            "step": self.step,
            "outcome": self.outcome.to_dict() if self.outcome else None,
            "legal_actions": [str(a) for a in self.legal_actions],
        }


#: The state's fields every seat may know, copied into each view and kept by
#: :func:`determinize` (the rest: the hands, the order of the draw pile and the set-aside
#: and buried cards, and the seed).
PUBLIC_FIELDS = (
    "rules", "players", "dealer", "color", "direction", "current", "decision", "pending_total",
    "last_draw_value", "last_draw_by", "roulette_by", "active", "active_count", "knocked_out",
    "sitting_out", "uno_open", "bonus", "wd4_color", "wd4_cards", "shuffles", "step", "outcome",
    "buried",
)  # fmt: skip


def player_view(state: GameState, seat: int | None) -> PlayerView:
    """The view of ``seat``; ``None`` gives the spectator view (no hand at all)."""
    if seat is not None and not 0 <= seat < state.players:
        raise InvalidSeat(f"seat {seat} is not at this {state.players}-player table")
    own = seat is not None and seat == state.current
    buried = state.buried
    return PlayerView(
        seat,
        state.rules,
        state.players,
        state.dealer,
        tuple(state.hands[seat]) if seat is not None else (),
        tuple(map(len, state.hands)),
        tuple(state.discard[buried:]) if buried else tuple(state.discard),
        buried,
        len(state.draw_pile),
        len(state.aside),
        state.color,
        state.direction,
        state.current,
        state.decision,
        state.pending_total,
        state.last_draw_value,
        state.last_draw_by,
        state.drawn if own else None,
        state.roulette_by,
        tuple(state.active),
        tuple(state.knocked_out),
        state.sitting_out,
        state.uno_open,
        tuple(state.bonus),
        state.wd4_color,
        state.wd4_cards,
        state.shuffles,
        state.step,
        state.outcome,
        tuple(state.legal_actions(seat)) if seat is not None else (),
    )


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A full state consistent with ``view``: unseen cards dealt at random.

    The unseen cards are the deck less the viewer's hand and the face-up discard pile;
    they are dealt to the other hands (at their known sizes), the set-aside pile, the
    face-down cards under the discard pile and the draw pile. Every public fact of the
    view is kept. The sampled state gets a fresh seed, so its future reshuffles reveal
    nothing. What the viewer saw of other hands earlier (a Seven swap, Roulette cards)
    is not used: the sample is uniform over the unseen cards.
    """
    unseen = Counter(deck_cards(view.rules.deck))
    unseen.subtract(view.hand)
    unseen.subtract(view.discard)
    pool = [card for card, n in sorted(unseen.items(), key=lambda kv: kv[0].index) for _ in range(max(n, 0))]
    rng.shuffle(pool)
    hands: list[list[Card]] = []
    for seat, size in enumerate(view.hand_sizes):
        if seat == view.seat:
            hands.append(list(view.hand))
        else:
            hands.append(pool[:size])
            del pool[:size]
    aside = pool[: view.aside_size]
    del pool[: view.aside_size]
    buried = pool[: view.buried]
    del pool[: view.buried]
    return world_from(view, hands, aside, buried, pool, rng.getrandbits(63))


def world_from(
    view: PlayerView,
    hands: list[list[Card]],
    aside: list[Card],
    buried: list[Card],
    draw_pile: list[Card],
    seed: int,
) -> GameState:
    """The full state of ``view``'s public facts with these hidden cards (a sampled world).

    ``hands`` holds every seat's hand (the viewer's own included); the caller dealt the
    unseen cards. ``seed`` orders the world's future reshuffles: a fresh one, so they
    reveal nothing. Another seat about to play a card it drew gets a playable one.
    """
    s = GameState(
        rules=view.rules,
        players=view.players,
        dealer=view.dealer,
        hands=hands,
        draw_pile=draw_pile,
        discard=buried + list(view.discard),
        buried=view.buried,
        aside=aside,
        color=view.color,
        direction=view.direction,
        current=view.current_player,
        decision=view.decision,
        pending_total=view.pending_total,
        last_draw_value=view.last_draw_value,
        last_draw_by=view.last_draw_by,
        drawn=view.drawn,
        roulette_by=view.roulette_by,
        active=list(view.active),
        active_count=sum(view.active),
        knocked_out=list(view.knocked_out),
        sitting_out=view.sitting_out,
        uno_open=view.uno_open,
        bonus=list(view.bonus),
        seed=seed,
        shuffles=view.shuffles,
        step=view.step,
        outcome=view.outcome,
        wd4_color=view.wd4_color,
        wd4_cards=view.wd4_cards,
        # W6: the verdict is hidden; this world's follows from its sampled hand (a player
        # out of the round has none: then the sample holds it lawful).
        wd4_guilty=(
            view.wd4_color is not None
            and view.last_draw_by is not None
            and wd4_guilt(hands[view.last_draw_by], view.wd4_color, view.wd4_cards)
        ),
    )
    if s.decision is Decision.PLAY_DRAWN and s.drawn is None and s.current is not None:
        _sample_drawn(s, view.seat)
    return s


def _sample_drawn(s: GameState, viewer: int | None) -> None:
    """Another seat is about to play a card it drew: give it a playable one.

    The real drawn card is one of the cards the viewer cannot see, so a playable one
    is always found: in the seat's sampled hand, else swapped in from the draw pile,
    the set-aside cards or another hidden hand (never the viewer's).
    """
    seat = s.current
    assert seat is not None
    hand = s.hands[seat]
    for i in range(len(hand) - 1, -1, -1):
        if playable(s, hand[i], hand):
            s.drawn = hand[i]
            return
    others = [h for x, h in enumerate(s.hands) if x not in (seat, viewer)]
    for pile in (s.draw_pile, s.aside, *others):
        for i, card in enumerate(pile):
            if playable(s, card, hand) and hand:
                pile[i], hand[-1] = hand[-1], card
                s.drawn = card
                return
    s.decision = Decision.PLAY
