"""A native table to a :class:`~nomercy.GameState` and back, exactly.

Every field of the state has its place in the table's vector (``layout.py``), piles and
hands in order, so ``to_state(from_state(s)) == s`` for every state the native engine can
hold: up to six seats, a seed below 2**64, and an outcome that lists the round's
knock-outs as the engine writes it. Anything else is refused with :class:`ValueError`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from nomercy.cards import Card, Color
from nomercy.engine import GameState
from nomercy.native import slots as L
from nomercy.rules import Rules
from nomercy.state import Decision, KnockOut, Outcome, OutcomeReason

__all__ = ["from_state", "to_state", "write_cards", "write_hidden"]

_REASONS: tuple[OutcomeReason, OutcomeReason] = ("played_out", "last_standing")


def _opt(value: int) -> int | None:
    return None if value < 0 else int(value)


def to_state(s: Any, rules: Rules) -> GameState:
    """The :class:`GameState` that the table ``s`` holds (a new, independent object); ``s``
    an int32 row: a numpy array, or a memoryview or ``array("i")`` on a plain install."""
    v = s.tolist()
    deck = v[L.DECK]
    n = v[L.PLAYERS]
    cards = Card.ALL
    pile0 = L.HANDS + L.MAX_PLAYERS * deck
    disc0 = pile0 + deck
    aside0 = disc0 + deck

    def region(start: int, length: int) -> list[Card]:
        return [cards[c] for c in v[start : start + length]]

    hands = [region(L.HANDS + seat * deck, v[L.HLEN + seat]) for seat in range(n)]
    knocked = [KnockOut(v[L.KO_SEAT + i], _opt(v[L.KO_BY + i])) for i in range(v[L.KO_LEN])]
    outcome = None
    if v[L.WINNER] >= 0:
        outcome = Outcome(
            v[L.WINNER],
            _REASONS[v[L.REASON]],
            tuple(knocked[: v[L.OUT_KO_LEN]]),
            tuple(v[L.POINTS : L.POINTS + n]),
        )
    color = v[L.COLOR]
    wd4 = v[L.WD4_COLOR]
    drawn = v[L.DRAWN]
    seed = (v[L.SEED_LO] & 0xFFFFFFFF) | ((v[L.SEED_HI] & 0xFFFFFFFF) << 32)
    return GameState(
        rules=rules,
        players=n,
        dealer=v[L.DEALER],
        hands=hands,
        draw_pile=region(pile0, v[L.PILE_LEN]),
        discard=region(disc0, v[L.DISC_LEN]),
        buried=v[L.BURIED],
        aside=region(aside0, v[L.ASIDE_LEN]),
        color=None if color < 0 else Color(color),
        direction=v[L.DIRECTION],
        current=_opt(v[L.CURRENT]),
        decision=Decision(v[L.DECISION]),
        pending_total=v[L.PENDING],
        last_draw_value=v[L.LAST_VALUE],
        last_draw_by=_opt(v[L.LAST_BY]),
        drawn=None if drawn < 0 else cards[drawn],
        roulette_by=_opt(v[L.ROULETTE_BY]),
        active=[bool(x) for x in v[L.ACTIVE : L.ACTIVE + n]],
        active_count=v[L.ACTIVE_COUNT],
        knocked_out=knocked,
        sitting_out=tuple(seat for seat in range(n) if v[L.SITTING + seat]),
        uno_open=tuple(v[L.UO : L.UO + v[L.UO_LEN]]),
        bonus=v[L.BONUS : L.BONUS + n],
        seed=seed,
        shuffles=v[L.SHUFFLES],
        step=v[L.STEP],
        outcome=outcome,
        wd4_color=None if wd4 < 0 else Color(wd4),
        wd4_cards=v[L.WD4_CARDS],
        wd4_guilty=bool(v[L.WD4_GUILTY]),
    )


def from_state(state: GameState, s: Any, deck: int) -> None:
    """Write ``state`` into the table ``s`` of a batch whose deck has ``deck`` cards.

    Raises :class:`ValueError` for what a native table cannot hold: more than six seats,
    a seed of 2**64 or more, more cards in a zone than the deck, an outcome whose
    knock-outs are not the first ones of ``knocked_out``, or a sitting-out seat that is
    not inactive.
    """
    n = state.players
    if n > L.MAX_PLAYERS:
        raise ValueError(f"a native table seats at most {L.MAX_PLAYERS} players, this state has {n}")
    if not 0 <= state.seed < 2**64:
        raise ValueError(f"a native table keeps a seed below 2**64, this state's is {state.seed}")
    zones = [*state.hands, state.draw_pile, state.discard, state.aside]
    if any(len(zone) > deck for zone in zones):
        raise ValueError(f"a zone of this state holds more cards than the {deck}-card deck")
    ko = list(state.knocked_out)
    out_ko = 0
    if state.outcome is not None:
        out_ko = len(state.outcome.knocked_out)
        if list(state.outcome.knocked_out) != ko[:out_ko]:
            raise ValueError("the outcome's knock-outs must be the first ones of knocked_out")
    for seat in state.sitting_out:
        if state.active[seat]:
            raise ValueError(f"seat {seat} sits out but is active")
    v = [0] * L.width(deck)
    v[L.DECK] = deck
    v[L.PLAYERS] = n
    v[L.DEALER] = state.dealer
    v[L.COLOR] = -1 if state.color is None else int(state.color)
    v[L.DIRECTION] = state.direction
    v[L.CURRENT] = -1 if state.current is None else state.current
    v[L.DECISION] = int(state.decision)
    v[L.PENDING] = state.pending_total
    v[L.LAST_VALUE] = state.last_draw_value
    v[L.LAST_BY] = -1 if state.last_draw_by is None else state.last_draw_by
    v[L.DRAWN] = -1 if state.drawn is None else state.drawn.index
    v[L.ROULETTE_BY] = -1 if state.roulette_by is None else state.roulette_by
    v[L.ACTIVE_COUNT] = state.active_count
    v[L.BURIED] = state.buried
    v[L.SHUFFLES] = state.shuffles
    v[L.STEP] = state.step
    v[L.WD4_COLOR] = -1 if state.wd4_color is None else int(state.wd4_color)
    v[L.WD4_CARDS] = state.wd4_cards
    v[L.WD4_GUILTY] = int(state.wd4_guilty)
    v[L.KO_LEN] = len(ko)
    for i, k in enumerate(ko):
        v[L.KO_SEAT + i] = k.seat
        v[L.KO_BY + i] = -1 if k.by is None else k.by
    v[L.UO_LEN] = len(state.uno_open)
    v[L.UO : L.UO + len(state.uno_open)] = state.uno_open
    v[L.BONUS : L.BONUS + n] = state.bonus
    for seat in range(n):
        v[L.ACTIVE + seat] = int(state.active[seat])
        v[L.SITTING + seat] = int(seat in state.sitting_out)
    v[L.WINNER] = -1
    if state.outcome is not None:
        v[L.WINNER] = state.outcome.winner
        v[L.REASON] = _REASONS.index(state.outcome.reason)
        v[L.OUT_KO_LEN] = out_ko
        v[L.POINTS : L.POINTS + n] = state.outcome.points
    write_cards(v, state, deck)
    s[:] = array("i", v)


def write_cards(v: Any, state: GameState, deck: int, at: int = 0) -> None:
    """Write ``state``'s cards (hands, draw, discard and set-aside piles, their lengths)
    and its seed into the table ``v`` (a list, an int32 numpy row, or a memoryview or
    ``array("i")`` of one): what two sampled worlds
    of one view differ in, besides the drawn card and the decision."""
    write_hidden(
        v,
        [[c.index for c in hand] for hand in state.hands],
        [c.index for c in state.draw_pile],
        [c.index for c in state.discard],
        [c.index for c in state.aside],
        state.seed,
        deck,
        at,
    )


def write_hidden(
    v: Any,
    hands: Sequence[Sequence[int]],
    draw_pile: Sequence[int],
    discard: Sequence[int],
    aside: Sequence[int],
    seed: int,
    deck: int,
    at: int = 0,
) -> None:
    """:func:`write_cards` from the cards' indices (``Card.index``), with no state; the
    table starts at ``v[at]`` (a row of a flat ``array("i")`` of tables)."""
    lo, hi = seed & 0xFFFFFFFF, seed >> 32
    v[at + L.MT_READY] = 0  # a generator seeded early was the old seed's
    v[at + L.SEED_LO] = lo - (1 << 32) if lo >= 1 << 31 else lo
    v[at + L.SEED_HI] = hi - (1 << 32) if hi >= 1 << 31 else hi
    for seat, hand in enumerate(hands):
        start = at + L.HANDS + seat * deck
        v[start : start + len(hand)] = array("i", hand)
        v[at + L.HLEN + seat] = len(hand)
        kinds = sum(1 << c for c in set(hand))  # the hand's set, as the kernels keep it
        for w in range(4):
            word = (kinds >> (32 * w)) & 0xFFFFFFFF
            v[at + L.HSET + 4 * seat + w] = word - (1 << 32) if word >= 1 << 31 else word
    pile0 = at + L.HANDS + L.MAX_PLAYERS * deck
    for start, zone, length in (
        (pile0, draw_pile, L.PILE_LEN),
        (pile0 + deck, discard, L.DISC_LEN),
        (pile0 + 2 * deck, aside, L.ASIDE_LEN),
    ):
        v[start : start + len(zone)] = array("i", zone)
        v[at + length] = len(zone)
