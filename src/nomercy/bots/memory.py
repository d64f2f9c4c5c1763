"""What a seat knows of other hands from what the whole table saw.

A bot that swaps hands with a Seven (N1) knows exactly what its old hand's new holder
holds; a Zero (N2) passes known hands round the table; Roulette cards (W4) are turned
up face up. :class:`CardMemory` follows these public facts (the bot's own redacted
events and views, nothing hidden) and :meth:`CardMemory.constrain` moves the cards it
knows into their holders' hands in a world sampled by :func:`nomercy.determinize`, so
search samples only worlds that agree with everything the seat has seen.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import assert_never

from nomercy.cards import Card, deck_cards
from nomercy.engine import GameState
from nomercy.events import (
    Caught,
    Challenged,
    ColorNamed,
    DiscardedAll,
    Drew,
    Event,
    HandsPassed,
    HandsShuffled,
    HandsSwapped,
    KnockedOut,
    Passed,
    Played,
    Reshuffled,
    Reversed,
    RoundOver,
    Skipped,
    StackGrew,
    Started,
    UnoCalled,
)
from nomercy.views import PlayerView

__all__ = ["CardMemory"]


class CardMemory:
    """Known cards per seat, kept from events; reset each round."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.known: list[Counter[Card]] = []
        #: This seat's hand as far as it knows it (None: unknown until the next view).
        self.mine: Counter[Card] | None = None
        self.active: list[bool] = []
        self.step = -1

    def sync(self, view: PlayerView) -> None:
        """Take this seat's hand and the public facts from a fresh view."""
        if view.seat != self.seat or len(self.known) != view.players or view.step < self.step:
            self.seat = view.seat
            self.known = [Counter() for _ in range(view.players)]
        self.step = view.step
        self.mine = Counter(view.hand)
        self.active = list(view.active)
        unseen = Counter(deck_cards(view.rules.deck))
        unseen.subtract(view.hand)
        unseen.subtract(view.discard)
        total: Counter[Card] = Counter()
        for seat, known in enumerate(self.known):
            if seat == view.seat or not view.active[seat] or known.total() > view.hand_sizes[seat]:
                known.clear()
            total.update(known)
        if any(n > unseen[c] for c, n in total.items()):  # cannot happen; never trust a bad memory
            for known in self.known:
                known.clear()

    def observe(self, events: list[Event]) -> None:
        """Follow the cards this seat can account for through one action's events."""
        if self.seat is None:
            return
        me = self.seat
        for event in events:
            match event:
                case Played(seat=seat, card=card):
                    self._remove(seat, (card,))
                case DiscardedAll(seat=seat, cards=cards):
                    self._remove(seat, cards)
                case Drew(seat=seat, cards=drawn):
                    if drawn is not None:
                        if seat == me:
                            if self.mine is not None:
                                self.mine.update(drawn)
                        else:
                            self.known[seat].update(drawn)
                case HandsSwapped(seat=seat, target=target):
                    self._swap(seat, target)
                case HandsPassed(direction=direction):
                    self._pass(direction)
                case HandsShuffled(hands=hands):  # W7: every hand is a fresh deal
                    for known in self.known:
                        known.clear()
                    mine = hands[me] if me < len(hands) else None
                    if mine is not None:
                        self.mine = Counter(mine)
                case KnockedOut(seat=seat):
                    self.known[seat].clear()
                    if self.active:
                        self.active[seat] = False
                case Started() | RoundOver():  # a new round: nothing is known
                    self.seat = None
                    self.known = []
                    return
                case (
                    Passed() | Reshuffled() | ColorNamed() | Skipped() | Reversed() | StackGrew()
                    | UnoCalled() | Challenged() | Caught()
                ):  # fmt: skip
                    pass  # no card changes hands, or none this seat can follow
                case _:
                    assert_never(event)

    def _remove(self, seat: int, cards: tuple[Card, ...]) -> None:
        held = self.mine if seat == self.seat else self.known[seat]
        if held is None:
            return
        for card in cards:
            if held[card] > 1:
                held[card] -= 1
            else:
                held.pop(card, None)

    def _swap(self, a: int, b: int) -> None:
        me = self.seat
        if me in (a, b):
            other = b if a == me else a
            self.known[other] = Counter(self.mine) if self.mine is not None else Counter()
            self.mine = None
        else:
            self.known[a], self.known[b] = self.known[b], self.known[a]

    def _pass(self, direction: int) -> None:
        n = len(self.known)
        if not self.active:
            return
        seats = [s for s in range(n) if self.active[s]]
        moved: list[Counter[Card]] = [Counter() for _ in range(n)]
        for s in seats:
            nxt = (s + direction) % n
            while not self.active[nxt]:
                nxt = (nxt + direction) % n
            if s == self.seat:
                moved[nxt] = Counter(self.mine) if self.mine is not None else Counter()
            else:
                moved[nxt] = self.known[s]
        if self.seat is not None:
            moved[self.seat] = Counter()
        self.known = moved
        self.mine = None

    def constrain(self, state: GameState, rng: random.Random) -> None:
        """Move every known card into its holder's hand in a sampled world (in place)."""
        me = self.seat
        for seat, known in enumerate(self.known):
            if not known or seat == me or not state.active[seat]:
                continue
            hand = state.hands[seat]
            have = Counter(hand)
            for card, need in known.items():
                for _ in range(need - have[card]):
                    if not self._fetch(state, seat, card, rng):
                        break

    def _fetch(self, state: GameState, seat: int, card: Card, rng: random.Random) -> bool:
        """Swap ``card`` from a hidden place into ``seat``'s hand for one of its free cards."""
        hand = state.hands[seat]
        required = self.known[seat]
        counts = Counter(hand)
        spare = [i for i, c in enumerate(hand) if counts[c] > required[c]]
        if not spare:
            return False
        places: list[list[Card]] = [state.draw_pile, state.aside]
        for other, h in enumerate(state.hands):
            if other != seat and other != self.seat and h.count(card) > self.known[other][card]:
                places.append(h)
        for place in places:
            if card in place:
                i = spare[rng.randrange(len(spare))]
                j = place.index(card)
                place[j], hand[i] = hand[i], card
                return True
        return False
