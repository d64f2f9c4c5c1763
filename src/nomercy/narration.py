"""What happened, told as sentences: the game log of every front end.

:func:`event_lines` turns the events of one action into :class:`~nomercy.decisions.Line`
values (a catalog key and its parameters), each fact told once: a caught player's penalty
is part of the catch, a pass after a fruitless draw says so. The server sends each event's
line with the event; the terminal game prints the same lines. Cards an event shows (a draw
of one's own, a Roulette's cards) stay in the event and are shown beside the sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

from nomercy.decisions import Line
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

__all__ = ["event_lines"]

_PLAYED = {
    (False, False, False): "event.played",
    (False, False, True): "event.played_uno",
    (True, False, False): "event.played_color",
    (True, False, True): "event.played_color_uno",
    (False, True, False): "event.played_target",
    (False, True, True): "event.played_target_uno",
}
_DREW = {
    "draw": "event.drew",
    "stack": "event.took_stack",
    "roulette": "event.roulette",
    "uno_penalty": "event.uno_penalty",
    "penalty": "event.penalty",
    "challenge": "event.challenge_draw",
}


def event_lines(events: Sequence[Event]) -> list[Line | None]:
    """One line per event (None: told with another event of the same action)."""
    return [_line(events, i) for i in range(len(events))]


def _line(events: Sequence[Event], i: int) -> Line | None:
    e = events[i]
    if isinstance(e, Started):
        cards = [c.code for c in e.turned_up]
        return Line.of("event.started", dealer=e.dealer, seat=e.first_player, cards=" ".join(cards))
    if isinstance(e, Played):
        key = _PLAYED[(e.color is not None, e.target is not None, e.uno)]
        color = e.color.letter if e.color is not None else None
        return Line.of(key, seat=e.seat, card=e.card.code, color=color, target=e.target)
    if isinstance(e, DiscardedAll):
        if not e.cards:
            return None
        return Line.of("event.discarded_all", seat=e.seat, cards=" ".join(c.code for c in e.cards))
    if isinstance(e, Drew):
        if e.reason == "uno_penalty" and any(
            isinstance(p, Caught) and p.seat == e.seat for p in events[max(0, i - 2) : i]
        ):
            return None  # told with the catch
        return Line.of(_DREW[e.reason], seat=e.seat, count=e.count)
    if isinstance(e, Passed):
        drew = i > 0 and isinstance(events[i - 1], Drew)
        return Line.of("event.passed_nothing" if drew else "event.passed", seat=e.seat)
    if isinstance(e, Reshuffled):
        return Line.of("event.reshuffled", count=e.size)
    if isinstance(e, ColorNamed):
        roulette = any(isinstance(n, Drew) and n.reason == "roulette" for n in events[i + 1 :])
        key = "event.color_named" if roulette else "event.first_color"
        if e.after_deal:  # W7
            key = "event.shuffle_color"
        return Line.of(key, seat=e.seat, color=e.color.letter)
    if isinstance(e, Skipped):
        single = e.seats[0] if len(e.seats) == 1 else None
        return Line.of("event.skipped", seats=",".join(map(str, e.seats)), count=len(e.seats), seat=single)
    if isinstance(e, Reversed):
        return Line.of("event.reversed_cw" if e.direction == 1 else "event.reversed_ccw")
    if isinstance(e, StackGrew):
        return Line.of("event.stack", seat=e.seat, total=e.total)
    if isinstance(e, HandsSwapped):
        return Line.of("event.hands_swapped", seat=e.seat, target=e.target)
    if isinstance(e, HandsShuffled):
        return Line.of("event.hands_shuffled", seat=e.seat)
    if isinstance(e, HandsPassed):
        return Line.of("event.hands_passed_cw" if e.direction == 1 else "event.hands_passed_ccw")
    if isinstance(e, KnockedOut):
        if e.by is None or e.by == e.seat:
            return Line.of("event.knocked_out", seat=e.seat, count=e.cards)
        return Line.of("event.knocked_out_by", seat=e.seat, count=e.cards, by=e.by)
    if isinstance(e, UnoCalled):
        return Line.of("event.uno", seat=e.seat)
    if isinstance(e, Challenged):
        key = "event.challenged_guilty" if e.guilty else "event.challenged_innocent"
        return Line.of(key, seat=e.seat, by=e.by)
    if isinstance(e, Caught):
        penalty = next((n.count for n in events[i + 1 :] if isinstance(n, Drew) and n.seat == e.seat), 0)
        return Line.of("event.caught", seat=e.by, target=e.seat, count=penalty)
    if isinstance(e, RoundOver):
        key = "event.round_over_out" if e.reason == "played_out" else "event.round_over_last"
        return Line.of(key, seat=e.winner, points=e.points.get(e.winner, 0))
    return None
