"""``heuristic``: a rule-based player a good human would recognise.

It decides from its :class:`~nomercy.PlayerView` only (its hand, hand sizes, the discard
pile, the color, whose turn) and scores every legal action with these rules:

1. **Go out** whenever a play empties the hand (E1), and **always call Uno** (U1): of a
   play offered with and without the call, it takes the one with the call.
2. **Stack when it pays** (K2): facing a pending total it stacks with its *lowest*
   sufficient Draw card, aiming the total (a Wild Reverse Draw 4 turns it round, K6) at
   the player it would knock out (M1) or else the one with the fewest cards. It takes
   the total only when that costs nothing real: at most 2 pending, plenty of room under
   the Mercy limit, no opponent about to go out, and its only answer is its one
   Wild Draw 6/10, which it keeps as insurance.
3. **Keep a high Draw card as insurance**: it does not lead with its last Wild Draw 6 or
   Wild Draw 10 unless that knocks the victim out or stops a player about to go out.
4. **Dump high-point cards when an opponent is close to going out** (two cards or
   fewer): every card's points (C4) count toward playing it; otherwise wild cards are
   kept for flexibility and high numbers go before low ones.
5. **Keep the color it holds**: a colored play is worth more the more cards of its
   color stay in hand; a wild names the color it holds most of (T5).
6. **Push opponents near the Mercy limit over it**: a Draw card or a Roulette aimed at a
   player whom it would take to the limit scores highest of all.
7. **Aim Sevens at the smallest hand** (N1), and play a Seven or a Zero (N2) only when
   the hand it gets is smaller than the one it gives away.
8. **Time Discard All** (A5): hold it until it sheds at least two more cards, or until
   an opponent is close to going out.
9. **Skips and Reverses** stop the next player when that player is about to go out;
   Skip Everyone (A6) is a free extra turn.
10. **Roulette** (W4): as the victim it names the color with the most unseen cards (the
    fewest cards to turn up); it plays a Roulette at a next player near the Mercy limit
    or about to go out.
11. **Catch** (U2) every player who forgets to call Uno, missing with probability
    ``catch_miss`` (default 0.2) so a human can be caught but not always.

The scoring core, :func:`score_actions`, also serves the ``expert`` bot's playouts.
This module is the reference for ``nomercy.native.heuristic``, the same bot compiled over
native tables (``tests/native/test_heuristic.py`` checks that they choose alike).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from nomercy.actions import Action, Play
from nomercy.bots import Bot, register
from nomercy.cards import Card, Color, Face, deck_cards
from nomercy.engine import GameState, draw_victim, next_seat, previous_seat
from nomercy.rules import Rules
from nomercy.state import Decision
from nomercy.views import PlayerView

__all__ = [
    "HeuristicBot",
    "Table",
    "best_action",
    "react",
    "score_actions",
    "state_action",
    "table_from_state",
    "table_from_view",
]

_SEVEN = Face.SEVEN
_ZERO = Face.ZERO
_SKIP = Face.SKIP
_REVERSE = Face.REVERSE
_SKIP_EVERYONE = Face.SKIP_EVERYONE
_DISCARD_ALL = Face.DISCARD_ALL
_ROULETTE = Face.WILD_COLOR_ROULETTE
_NO_LIMIT = 10**6
_ROULETTE_EXPECTED = 3  # cards a Roulette's victim turns up, about (unseen / cards of a color)


class Table:
    """The public facts and the deciding seat's hand: all the heuristic reads.

    Built from a :class:`PlayerView` (the bot) or from a sampled state (search
    playouts, where it only ever sees the seat's own hand and public facts). ``nxt`` and
    ``prev`` are the seats that play after and before ``seat``, as the core counts them
    (M3); who must answer a Draw card is the core's :func:`draw_victim` (W1, K6).
    """

    __slots__ = (
        "active",
        "color",
        "danger",
        "decision",
        "direction",
        "discard",
        "hand",
        "held",
        "high",
        "limit",
        "n_active",
        "nxt",
        "pending",
        "players",
        "prev",
        "rules",
        "seat",
        "sizes",
        "threat",
        "top",
    )

    def __init__(
        self,
        seat: int,
        hand: Sequence[Card],
        sizes: Sequence[int],
        active: Sequence[bool],
        nxt: int,
        prev: int,
        direction: int,
        color: Color | None,
        discard: Sequence[Card],
        decision: Decision,
        pending: int,
        rules: Rules,
    ) -> None:
        self.seat = seat
        self.hand = hand
        self.sizes = sizes
        self.active = active
        self.nxt = nxt
        self.prev = prev
        self.direction = direction
        self.color = color
        self.discard = discard
        self.top = discard[-1]
        self.decision = decision
        self.pending = pending
        self.rules = rules
        self.players = len(sizes)

    def prepare(self) -> None:
        """Facts every play's score needs, computed once per decision."""
        seat = self.seat
        sizes = self.sizes
        active = self.active
        self.limit = self.rules.mercy_limit or _NO_LIMIT
        self.n_active = sum(active)
        self.threat = min(sizes[o] for o in range(self.players) if o != seat and active[o])
        self.danger = self.threat <= 2
        self.high = sum(1 for c in self.hand if c.draw_value >= 6)
        self.held = _held(self.hand)

    def victim_of(self, card: Card) -> int:
        """The seat that must answer ``card``, a Draw card, if this seat plays it."""
        return draw_victim(self.active, self.direction, self.seat, card, self.rules)

    def unseen_by_color(self) -> list[int]:
        """Cards of each color neither in this hand nor in the discard pile."""
        counts = [0, 0, 0, 0]
        for card in deck_cards(self.rules.deck):
            if card.color is not None:
                counts[card.color] += 1
        for card in self.hand:
            if card.color is not None:
                counts[card.color] -= 1
        for card in self.discard:
            if card.color is not None:
                counts[card.color] -= 1
        return counts


def table_from_view(view: PlayerView) -> Table:
    assert view.seat is not None
    return Table(
        view.seat,
        view.hand,
        view.hand_sizes,
        view.active,
        view.next_seat(view.seat),
        view.previous_seat(view.seat),
        view.direction,
        view.color,
        view.discard,
        view.decision,
        view.pending_total,
        view.rules,
    )


def table_from_state(state: GameState) -> Table:
    """The deciding seat's table in a (sampled) state, as its view would give it: no
    other hand, and of the discard pile only the face-up cards (not those buried face
    down under it, M2), so that a playout's seat reads what ``table_from_view`` reads."""
    seat = state.current
    assert seat is not None
    return Table(
        seat,
        state.hands[seat],
        [len(h) for h in state.hands],
        state.active,
        next_seat(state, seat),
        previous_seat(state, seat),
        state.direction,
        state.color,
        state.discard[state.buried :] if state.buried else state.discard,
        state.decision,
        state.pending_total,
        state.rules,
    )


def _turn_actions(legal: Sequence[Action]) -> list[Action]:
    """The turn's actions; of a play offered with and without Uno, the one with it (U1)."""
    if not any(a.out_of_turn or (type(a) is Play and a.uno) for a in legal):
        return list(legal)
    calls = {(a.card, a.color, a.target) for a in legal if type(a) is Play and a.uno}
    out: list[Action] = []
    for a in legal:
        if a.out_of_turn:
            continue
        if type(a) is Play and not a.uno and (a.card, a.color, a.target) in calls:
            continue
        out.append(a)
    return out


def score_actions(t: Table, legal: Sequence[Action]) -> list[tuple[float, Action]]:
    """Every turn action with its score, best first (ties keep the legal order)."""
    actions = _turn_actions(legal)
    if len(actions) == 1:
        return [(0.0, actions[0])]
    decision = t.decision
    if decision is Decision.ROULETTE or decision is Decision.CHOOSE_COLOR:
        scored = _score_colors(t, actions)
    else:
        t.prepare()
        scored = [(_score(t, a), a) for a in actions]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], i))
    return [scored[i] for i in order]


def best_action(t: Table, legal: Sequence[Action]) -> Action:
    """The heuristic's choice among ``legal``."""
    actions = _turn_actions(legal)
    if len(actions) == 1:
        return actions[0]
    if t.decision is Decision.ROULETTE or t.decision is Decision.CHOOSE_COLOR:
        scored = _score_colors(t, actions)
    else:
        t.prepare()
        scored = [(_score(t, a), a) for a in actions]
    best = scored[0]
    for item in scored:
        if item[0] > best[0]:
            best = item
    return best[1]


def state_action(state: GameState) -> Action:
    """The heuristic's choice for the deciding seat of a (sampled) state: playouts."""
    return best_action(table_from_state(state), state.legal_actions())


def _held(hand: Sequence[Card]) -> list[int]:
    counts = [0, 0, 0, 0]
    for card in hand:
        if card.color is not None:
            counts[card.color] += 1
    return counts


def _score_colors(t: Table, actions: Sequence[Action]) -> list[tuple[float, Action]]:
    """Name a color: as a Roulette's victim the most unseen color, else the most held."""
    held = _held(t.hand)
    unseen = t.unseen_by_color() if t.decision is Decision.ROULETTE else [0, 0, 0, 0]
    out: list[tuple[float, Action]] = []
    for a in actions:
        color = getattr(a, "color", None)
        out.append(((unseen[color] * 10 + held[color]) if color is not None else -1.0, a))
    return out


def _score(t: Table, a: Action) -> float:
    kind = a.kind
    hand = t.hand
    mine = len(hand)
    limit = t.limit
    if kind == "take":
        if mine + t.pending >= limit:
            return -10_000.0
        return -3.0 * t.pending - (20.0 if mine + t.pending >= limit - 5 else 0.0)
    if kind == "draw":
        return -50.0
    if kind == "challenge":
        # W6: an unlawful Wild Draw 4 costs its player the 4; a lawful one costs us 6. With
        # no better estimate, call it even: half of six beats a sure four.
        return -1.5 * (t.pending + 2)
    if kind == "pass":
        return -1.0
    if type(a) is not Play:
        return -100.0
    card = a.card
    face = card.face
    sizes = t.sizes
    if mine == 1:
        return 10_000.0  # E1: the last card wins
    danger = t.danger
    nxt = t.nxt
    score = 0.0
    # Rules 4 and 5: points and color.
    if danger:
        score += 0.4 * card.points
    elif card.is_wild:
        score -= 6.0
    else:
        score += 0.1 * card.points
    new_color = a.color if card.is_wild else card.color
    if new_color is not None:
        score += 2.0 * (t.held[new_color] - (card.color is new_color))
    value = card.draw_value
    if t.decision is Decision.STACK:
        return score + _score_stack(t, card)
    if value:
        victim = t.victim_of(card)
        if victim == t.seat:
            # W1: with two players we face it ourselves; worth it only with a follow-up.
            follow = sum(1 for c in hand if c.draw_value >= 4 and c is not card)
            return score + (4.0 if follow else -40.0)
        if sizes[victim] + value >= limit:
            score += 100.0  # rule 6
        elif sizes[victim] <= 2:
            score += 25.0
        else:
            score += 3.0 + 0.5 * value
            if value >= 6 and t.high <= 1:
                score -= 20.0  # rule 3: keep the insurance
        return score
    if face is _SEVEN and a.target is not None:
        gain = (mine - 1) - sizes[a.target]
        return score + 6.0 * gain + (0.5 if sizes[a.target] == t.threat else 0.0)
    if face is _ZERO and t.rules.seven_zero:
        return score + 4.0 * ((mine - 1) - sizes[t.prev])
    if face is _DISCARD_ALL:
        shed = t.held[card.color] - 1 if card.color is not None else 0
        if shed + 1 == mine:
            return 10_000.0  # A5, E1: it empties the hand
        return score + 6.0 * shed - 8.0 + (12.0 if danger else 0.0)
    if face is _SKIP_EVERYONE:
        return score + 8.0 + (10.0 if danger else 0.0)
    if face is _SKIP or (face is _REVERSE and t.n_active == 2):
        return score + 4.0 + (15.0 if sizes[nxt] <= 2 else 0.0)
    if face is _REVERSE:
        return score + (12.0 if sizes[nxt] <= 2 < sizes[t.prev] else 0.0)
    if face is _ROULETTE:
        if sizes[nxt] + _ROULETTE_EXPECTED >= limit:
            return score + 40.0
        return score + (20.0 if sizes[nxt] <= 2 else 3.0)
    return score


def _score_stack(t: Table, card: Card) -> float:
    """Rule 2: which Draw card to stack, and whether stacking pays at all."""
    value = card.draw_value
    total = t.pending + value
    victim = t.victim_of(card)
    if victim == t.seat:
        return -5_000.0  # W1/K6: the total would come back to us
    score = 50.0 - 2.0 * value  # stacking beats taking; spend the lowest card
    if t.sizes[victim] + total >= t.limit:
        return score + 100.0  # rule 6
    if t.sizes[victim] <= 2:
        score += 10.0
    mine = len(t.hand)
    if value >= 6 and t.high == 1 and t.pending <= 2 and mine + t.pending <= t.limit - 10 and not t.danger:
        score -= 80.0  # insurance is worth more than two cards
    return score


@register("heuristic")
class HeuristicBot(Bot):
    """The rules of the module docstring; ``catch_miss`` is its chance to miss a catch."""

    name: ClassVar[str] = "heuristic"

    def __init__(self, seed: int | None = None, catch_miss: float = 0.2, **options: Any) -> None:
        super().__init__(seed)
        if options:
            raise ValueError(f"heuristic bot: unknown option(s) {', '.join(sorted(options))}")
        if not 0.0 <= float(catch_miss) <= 1.0:
            raise ValueError(f"catch_miss must be a probability 0-1, got {catch_miss!r}")
        self.catch_miss = float(catch_miss)

    def choose(self, view: PlayerView) -> Action:
        return best_action(table_from_view(view), view.legal_actions)

    def react(self, view: PlayerView) -> Action | None:
        return react(view, self.rng.random, self.catch_miss)


def react(view: PlayerView, draw: Any, catch_miss: float) -> Action | None:
    """Call a late Uno always (U1); catch a forgetful player unless the catch is missed."""
    for a in view.legal_actions:
        if a.kind == "uno":
            return a
    for a in view.legal_actions:
        if a.kind == "catch":
            return a if draw() >= catch_miss else None
    return None
