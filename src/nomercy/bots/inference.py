"""What other seats' actions reveal about their hidden cards, and worlds that respect it.

Under T3 with ``draw_when_playable=false`` (the default) a player may draw only when no
card in their hand can be played (T1), and drawing until playable (T2) stops at the
first playable card. So when another seat draws on its turn, every card it held then
is none of the cards that match the color in play and the top card's face (wilds
included), and so is every card it drew before the last one. :class:`HandInference`
keeps, for each other seat, its hidden cards as *groups*: a count and the set of card
kinds each of them may be (a bit mask over ``Card.index``). Cards known exactly stay
in :class:`~nomercy.bots.memory.CardMemory`, which this class extends.

The bookkeeping only ever narrows a group by a fact the rules imply, so the true hand
always fits the groups:

- a draw (T2, reason ``draw``) narrows every group of the drawer to the cards that could
  not be played then, and adds the drawn cards as a narrowed group, the last one free
  (it may be the playable card that ended the draw);
- any other draw (a taken stack, a penalty) adds a free group: taking a pending total is
  a choice (K2), so it says nothing about the taker's Draw cards;
- a played or discarded card that was not known comes out of the most constrained group
  that allows it when that group's set lies inside every other such group's set (then
  any explanation of the play fits the result); otherwise those groups merge;
- a Discard All (A5) takes every card of its color from the hand: the groups lose that
  color;
- a Seven (N1) or a Zero (N2) moves the groups with the hands; a hand given away by this
  seat is known exactly (the card memory), so its groups are empty.

Only this seat's redacted events and views are read. Worlds are sampled by
:class:`WorldSampler`: known cards first, then the constrained groups from the tightest
(each a uniform draw from the unseen cards it allows), then the rest dealt at random; a
deal that cannot satisfy the groups falls back to the uniform sample with known cards.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, NamedTuple

from nomercy.cards import Card, Color, Face, deck_cards
from nomercy.engine import GameState
from nomercy.events import (
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
    RoundOver,
    Started,
)
from nomercy.rules import Rules
from nomercy.tables import OF_COLOR, match_set
from nomercy.views import PlayerView, determinize, world_from

from .memory import CardMemory

__all__ = ["ALL_CARDS", "Deal", "HandInference", "WorldSampler", "mask_of", "unplayable_mask"]

#: Deals tried for a world that agrees with the colors other seats named (``assume``).
NAMED_TRIES = 8

#: The mask of every card kind: a group that may be anything.
ALL_CARDS = (1 << len(Card.ALL)) - 1
#: A group: [count, mask of the card kinds each of its cards may be].
Group = list[int]


def mask_of(cards: frozenset[Card] | list[Card]) -> int:
    """The bit mask of a set of card kinds."""
    m = 0
    for card in cards:
        m |= 1 << card.index
    return m


def unplayable_mask(color: Color | None, face: Face) -> int:
    """T1: the card kinds that cannot be played on ``face`` with ``color`` in play."""
    return ALL_CARDS & ~mask_of(match_set(color, face))


_NUMPY: list[Any] = []


def _numpy() -> Any:
    """numpy when installed (the fast extra), else None; imported at the first sample."""
    if not _NUMPY:
        try:
            import numpy
        except ImportError:  # pragma: no cover - the plain install samples in Python
            _NUMPY.append(None)
        else:
            _NUMPY.append(numpy)
    return _NUMPY[0]


def infers_from_draws(rules: Rules) -> bool:
    """Whether a draw on one's turn proves the hand unplayable (T3 without drawing by choice)."""
    return not rules.draw_when_playable


class HandInference(CardMemory):
    """The card memory plus groups of hidden cards with excluded kinds (module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        #: Per seat its hidden cards as groups; None: not followed (reconciled at sync).
        self.groups: list[list[Group] | None] = []
        self.top: Card | None = None
        self.color: Color | None = None
        self.infer = True
        #: T2 must_play_drawn: the card that ended a draw is the drawer's next play.
        self.must_play_drawn = True
        #: W4 roulette_color="revealed": the color in play is the last one turned up.
        self.roulette_revealed = False
        #: The last drawn card's free group, while the draw's events are being read.
        self._free: Group | None = None
        #: Per seat, the free group of the card it drew and must play next (T2).
        self._must_play: dict[int, Group] = {}
        #: A seat that played a Discard All, and its color: it holds none of it now (A5).
        self._emptied: tuple[int, Color] | None = None
        #: A modelling assumption, not a rule (off unless asked): other seats name the
        #: color they hold most of with a wild, as the heuristic does (T5).
        self.assume = False
        #: Per seat, the color it named with its last wild, while its hand is unchanged.
        self.named: dict[int, Color] = {}

    def sync(self, view: PlayerView) -> None:
        """The card memory's sync, then each other hand's groups made to fit its size."""
        fresh = view.seat != self.seat or len(self.known) != view.players or view.step < self.step
        super().sync(view)
        self.infer = infers_from_draws(view.rules)
        self.must_play_drawn = view.rules.must_play_drawn
        self.roulette_revealed = view.rules.roulette_color == "revealed"
        if fresh or len(self.groups) != view.players or (self.top, self.color) != (view.top, view.color):
            self.groups = [None] * view.players  # never trust a bookkeeping that lost the table
        self.top, self.color = view.top, view.color
        for seat in range(view.players):
            if seat == view.seat or not view.active[seat]:
                self.groups[seat] = []
                continue
            need = view.hand_sizes[seat] - self.known[seat].total()
            groups = self.groups[seat]
            have = sum(g[0] for g in groups) if groups is not None else -1
            if groups is None or have > need:
                self.groups[seat] = [[need, ALL_CARDS]] if need > 0 else []
            elif have < need:
                groups.append([need - have, ALL_CARDS])

    def observe(self, events: list[Event]) -> None:
        """Read each event for the groups, then let the card memory read it."""
        self._free = None
        self._emptied = None
        for event in events:
            if self.seat is not None and self.groups:
                self._infer(event)
            self._follow_table(event)
            super().observe([event])
        if self._emptied is not None and self.groups:
            self._drop_color(*self._emptied)
        self._free = None

    def _follow_table(self, event: Event) -> None:
        """Keep the top card and the color in play from the public events."""
        if isinstance(event, Played):
            self.top = event.card
            if not event.card.is_wild:
                self.color = event.card.color
            elif event.color is not None:
                self.color = event.color
        elif isinstance(event, ColorNamed):
            self.color = event.color
        elif isinstance(event, Drew) and event.reason == "roulette" and event.cards:
            colored = [c for c in event.cards if c.color is not None]
            if colored and self.roulette_revealed:
                self.color = colored[-1].color
        elif isinstance(event, Started):
            self.top = event.turned_up[-1] if event.turned_up else None
            self.color = self.top.color if self.top is not None else None
            self.groups = []
            self._must_play.clear()
        elif isinstance(event, RoundOver):
            self.groups = []
            self._must_play.clear()

    def _infer(self, event: Event) -> None:
        self._follow_named(event)
        me = self.seat
        if isinstance(event, Played):
            if event.seat != me:
                self._played(event.seat, (event.card,))
                if event.card.face is Face.DISCARD_ALL and event.card.color is not None:
                    self._emptied = (event.seat, event.card.color)  # once its cards are out
        elif isinstance(event, DiscardedAll):
            if event.seat != me:
                self._played(event.seat, event.cards)
        elif isinstance(event, Drew):
            if event.seat != me and event.cards is None:
                self._drew(event.seat, event.count, event.reason == "draw")
        elif isinstance(event, HandsSwapped):
            self._swapped(event.seat, event.target)
        elif isinstance(event, HandsPassed):
            self._passed(event.direction)
        elif isinstance(event, HandsShuffled):  # W7: every other hand is a fresh random deal
            for seat, count in enumerate(event.counts):
                fresh = seat != me and count > 0
                self.groups[seat] = [[count, ALL_CARDS]] if fresh else []
            self._must_play.clear()
        elif isinstance(event, KnockedOut):
            self.groups[event.seat] = []
            self._must_play.pop(event.seat, None)
        elif isinstance(event, Passed):  # the draw found nothing playable, or it was kept
            self._must_play.pop(event.seat, None)

    def _follow_named(self, event: Event) -> None:
        """The color a seat named with a wild, forgotten once its hand changes."""
        seat = getattr(event, "seat", None)
        if isinstance(event, Played) and event.card.is_wild and event.color is not None:
            self.named[event.seat] = event.color
        elif isinstance(event, (HandsSwapped, HandsPassed, HandsShuffled, Started, RoundOver)):
            self.named.clear()
        elif isinstance(event, (Played, DiscardedAll, Drew, KnockedOut)) and seat is not None:
            self.named.pop(seat, None)

    def _drew(self, seat: int, count: int, turn: bool) -> None:
        """T2/T3: a draw on one's turn proves every held card and each drawn one but the
        last unplayable; any other draw only adds free cards."""
        groups = self.groups[seat]
        if groups is None:
            return
        if not (turn and self.infer and self.top is not None):
            groups.append([count, ALL_CARDS])
            return
        dead = unplayable_mask(self.color, self.top.face)
        if self._free is not None and any(g is self._free for g in groups):
            self._free[1] = dead  # the draw went on past a reshuffle (T4): not the last card
        for g in groups:
            g[1] &= dead
        if count > 1:
            groups.append([count - 1, dead])
        self._free = [1, ALL_CARDS]
        groups.append(self._free)
        if self.must_play_drawn:
            self._must_play[seat] = self._free

    def _drop_color(self, seat: int, color: Color) -> None:
        """A5: a Discard All took every card of its color from the hand: none is left."""
        groups = self.groups[seat] if seat < len(self.groups) else None
        if groups:
            keep = ALL_CARDS & ~mask_of(OF_COLOR[color])
            for g in groups:
                g[1] &= keep

    def _played(self, seat: int, cards: tuple[Card, ...]) -> None:
        """Cards that left ``seat``'s hand face up: known ones are the memory's, the rest
        come out of the groups."""
        groups = self.groups[seat]
        if groups is None:
            return
        drawn = self._must_play.pop(seat, None)
        if drawn is not None and len(cards) == 1 and any(g is drawn for g in groups) and drawn[0] == 1:
            groups.remove(drawn)  # T2: the card that ended the draw, played as it must be
            return
        known = Counter(self.known[seat]) if seat < len(self.known) else Counter()
        for card in cards:
            if known[card] > 0:
                known[card] -= 1
                continue
            if not _take(groups, 1 << card.index):
                self.groups[seat] = None  # cannot happen; never keep a wrong bookkeeping
                return

    def _swapped(self, a: int, b: int) -> None:
        """N1: the groups go with the hands; the hand this seat gave away is known (read
        before the card memory moves it)."""
        me = self.seat
        if me is not None and me in (a, b):
            self.groups[b if a == me else a] = [] if self.mine is not None else None
            self.groups[me] = []
        else:
            self.groups[a], self.groups[b] = self.groups[b], self.groups[a]

    def _passed(self, direction: int) -> None:
        """N2: every hand moves on to the next active seat, its groups with it."""
        n = len(self.groups)
        if not self.active or len(self.active) != n:
            self.groups = [None] * n
            return
        moved: list[list[Group] | None] = [[] for _ in range(n)]
        for s in range(n):
            if not self.active[s]:
                continue
            nxt = (s + direction) % n
            while not self.active[nxt]:
                nxt = (nxt + direction) % n
            if s != self.seat:
                moved[nxt] = self.groups[s]
            elif self.mine is None:
                moved[nxt] = None  # this seat's own hand was not known: nothing to say
        self.groups = moved

    def sampler(self, view: PlayerView) -> WorldSampler:
        """A sampler of worlds for this decision (call after :meth:`sync`)."""
        return WorldSampler(view, self)


def _take(groups: list[Group], bit: int) -> bool:
    """Take one card of kind ``bit`` out of the groups that allow it (module docstring)."""
    fits = [g for g in groups if g[1] & bit and g[0] > 0]
    if not fits:
        return False
    tight = min(fits, key=lambda g: bin(g[1]).count("1"))
    if all(tight[1] & ~g[1] == 0 for g in fits):
        tight[0] -= 1
        if tight[0] == 0:
            groups.remove(tight)
        return True
    merged = [sum(g[0] for g in fits) - 1, 0]
    for g in fits:
        merged[1] |= g[1]
        groups.remove(g)
    if merged[0] > 0:
        groups.append(merged)
    return True


def _agrees(hands: list[list[int]], named: dict[int, Color]) -> bool:
    """Whether each seat in ``named`` holds the most cards of the color it named."""
    cards = Card.ALL
    for seat, color in named.items():
        counts = [0, 0, 0, 0]
        for index in hands[seat]:
            card_color = cards[index].color
            if card_color is not None:
                counts[card_color] += 1
        if counts[color] < max(counts):
            return False
    return True


class Deal(NamedTuple):
    """One sampled world's hidden cards as card indices (``Card.index``), with its seed:
    what two worlds of one view differ in (:meth:`WorldSampler.world` makes the state;
    the expert's native playouts write it into a table without one). Read it only: the
    viewer's own hand is one list shared by every deal of a decision."""

    hands: list[list[int]]
    draw_pile: list[int]
    discard: list[int]
    aside: list[int]
    seed: int


class WorldSampler:
    """Worlds for one decision that respect the known cards and the groups."""

    def __init__(self, view: PlayerView, memory: HandInference) -> None:
        self.view = view
        self.memory = memory
        unseen = Counter(deck_cards(view.rules.deck))
        unseen.subtract(view.hand)
        unseen.subtract(view.discard)
        #: Cards as their indices (``Card.index``) from here on: a deal is lists of them.
        self.known: list[list[int]] = [[] for _ in range(view.players)]
        ok = True
        for seat, known in enumerate(memory.known):
            if seat == view.seat or not known or not view.active[seat]:
                continue
            self.known[seat] = [c.index for c in known.elements()]
            unseen.subtract(known)
        if any(n < 0 for n in unseen.values()):
            ok = False
        self.pool = sorted(c.index for c in unseen.elements()) if ok else []
        self._mine = [c.index for c in view.hand]
        self._public = [c.index for c in view.discard]
        #: (seat, count, mask) of every constrained group, the tightest first.
        self.groups: list[tuple[int, int, int]] = []
        self.free = [0] * view.players
        for seat, groups in enumerate(memory.groups):
            if seat == view.seat or not groups or seat >= view.players:
                continue
            for count, mask in groups:
                if mask == ALL_CARDS:
                    self.free[seat] += count
                else:
                    self.groups.append((seat, count, mask))
        bits = [1 << i for i in self.pool]
        self.groups.sort(key=lambda g: (sum(1 for b in bits if b & g[2]) - g[1], g[0]))
        self.ok = ok and self._sizes_fit()
        self.fallbacks = 0
        self._gen: Any = None
        self._kinds: Any = None
        self._allowed: list[Any] = []

    def _sizes_fit(self) -> bool:
        """Whether the groups account for every other hand exactly."""
        view = self.view
        count = [len(k) + f for k, f in zip(self.known, self.free, strict=True)]
        for seat, n, _ in self.groups:
            count[seat] += n
        return all(
            count[s] == view.hand_sizes[s] for s in range(view.players) if s != view.seat and view.active[s]
        )

    def sample(self, rng: random.Random) -> GameState:
        """One world; the uniform sample with known cards when the groups cannot be met.
        With ``assume``, a few deals are tried for one where each seat that named a color
        with its last wild holds at least as many of it as of any other color."""
        deal = self.deal(rng)
        return deal if isinstance(deal, GameState) else self.world(deal)

    def deal(self, rng: random.Random) -> Deal | GameState:
        """:meth:`sample`'s world as its hidden cards, or the state itself where the
        groups could not be met (the fallback); the same draws from ``rng`` either way."""
        named = self.memory.named if self.memory.assume and self.ok else {}
        deal = self._deal(rng) if self.ok else None
        tries = 1
        while named and deal is not None and tries < NAMED_TRIES and not _agrees(deal.hands, named):
            deal = self._deal(rng)
            tries += 1
        if deal is None:
            self.fallbacks += 1
            world = determinize(self.view, rng)
            self.memory.constrain(world, rng)
            return world
        return deal

    def world(self, deal: Deal) -> GameState:
        """The state of this view with ``deal``'s hidden cards."""
        cards = Card.ALL
        view = self.view
        hands = [[cards[i] for i in hand] for hand in deal.hands]
        buried = [cards[i] for i in deal.discard[: view.buried]]
        return world_from(
            view, hands, [cards[i] for i in deal.aside], buried, [cards[i] for i in deal.draw_pile], deal.seed
        )

    def _deal(self, rng: random.Random) -> Deal | None:
        """Known cards, then each constrained group from the tightest, then the rest."""
        view = self.view
        hands: list[list[int]] = [list(k) for k in self.known]
        np = _numpy()
        rest = self._deal_numpy(np, rng, hands) if np is not None else self._deal_python(rng, hands)
        if rest is None:
            return None
        for seat in range(view.players):
            if seat == view.seat:
                hands[seat] = self._mine
                continue
            hand = hands[seat]
            mixed = bool(hand)  # known or constrained cards first: shuffled in below
            n = self.free[seat]
            if n:
                hand.extend(rest[-n:])
                del rest[-n:]
            if mixed and len(hand) > 1:
                rng.shuffle(hand)
        aside = rest[: view.aside_size]
        del rest[: view.aside_size]
        buried = rest[: view.buried]
        del rest[: view.buried]
        return Deal(hands, rest, buried + self._public, aside, rng.getrandbits(63))

    def _deal_python(self, rng: random.Random, hands: list[list[int]]) -> list[int] | None:
        """The groups' cards into ``hands``; the rest of the pool shuffled (None: no fit)."""
        pool = self.pool[:]
        rng.shuffle(pool)
        if not self.groups:
            return pool
        taken = [False] * len(pool)
        for seat, count, mask in self.groups:
            hand = hands[seat]
            for i, card in enumerate(pool):
                if count == 0:
                    break
                if not taken[i] and mask >> card & 1:
                    taken[i] = True
                    hand.append(card)
                    count -= 1
            if count:
                return None
        return [c for i, c in enumerate(pool) if not taken[i]]

    def _deal_numpy(self, np: Any, rng: random.Random, hands: list[list[int]]) -> list[int] | None:
        """As :meth:`_deal_python`, with one numpy permutation a world (a Python shuffle of
        the 140 or so unseen cards was most of a sample's time). Its generator is seeded
        from ``rng`` once a decision, so a seed still gives the same worlds."""
        if self._gen is None:
            self._gen = np.random.Generator(np.random.PCG64(rng.getrandbits(64)))
            self._kinds = np.array(self.pool, dtype=np.intp)
            kinds = range(len(Card.ALL))
            self._allowed = [np.array([m >> i & 1 for i in kinds], dtype=bool) for _, _, m in self.groups]
        kinds = self._kinds[self._gen.permutation(len(self.pool))]
        if not self.groups:
            rest: list[int] = kinds.tolist()
            return rest
        free = np.ones(len(kinds), dtype=bool)
        for (seat, count, _), allowed in zip(self.groups, self._allowed, strict=True):
            idx = np.flatnonzero(allowed[kinds] & free)[:count]
            if len(idx) < count:
                return None
            free[idx] = False
            hands[seat].extend(kinds[idx].tolist())
        rest = kinds[free].tolist()
        return rest
