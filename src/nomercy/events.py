"""Events: what happened, in order, for logs, user interfaces and replays.

``state.apply(action)`` returns the events it caused. Events carry cards only where the
whole table saw them; a card drawn into a hand is in :class:`Drew` for the drawer and is
redacted (count only) by :func:`redact` for everyone else.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Literal, TypeAlias

from nomercy.cards import Card, Color

#: Why cards went into a hand: T2 a draw, K2 a taken stack, W4 the Roulette, U2 a caught
#: Uno, K2/E2 a Draw card's penalty without stacking, W6 a challenge's outcome.
DrawReason = Literal["draw", "stack", "roulette", "uno_penalty", "penalty", "challenge"]
#: How a round ended: E1, the winner played their last card; M4, everyone else was knocked out.
OutcomeReason = Literal["played_out", "last_standing"]

__all__ = [
    "Caught",
    "Challenged",
    "ColorNamed",
    "DiscardedAll",
    "DrawReason",
    "Drew",
    "Event",
    "EventBase",
    "HandsPassed",
    "HandsShuffled",
    "HandsSwapped",
    "KnockedOut",
    "OutcomeReason",
    "Passed",
    "Played",
    "Reshuffled",
    "Reversed",
    "RoundOver",
    "Skipped",
    "StackGrew",
    "Started",
    "UnoCalled",
    "redact",
]


class EventBase:
    """What every event shares. ``type`` is the stable name used on the wire.

    Annotate with :data:`Event`, the closed union of the event classes, not with this
    class: a ``match`` over an :data:`Event` that ends in ``assert_never`` is then checked
    by mypy to handle every kind, and flags each dispatch a new kind of event would need.
    """

    __slots__ = ()
    type: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            out[f.name] = _jsonable(getattr(self, f.name))
        return out

    def describe(self) -> str:
        """One line in game terms, seats written as ``P<n>``."""
        return self.type


def _jsonable(value: Any) -> Any:
    if isinstance(value, (Card, Color)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _cards(cards: tuple[Card, ...] | None) -> str:
    return " ".join(c.code for c in cards) if cards else ""


@dataclass(slots=True)
class Started(EventBase):
    """A round began: the dealer, the first player and the cards turned up (S3)."""

    type: ClassVar[str] = "started"
    dealer: int
    first_player: int
    turned_up: tuple[Card, ...]

    def describe(self) -> str:
        return f"P{self.dealer} dealt; turned up {_cards(self.turned_up)}; P{self.first_player} starts"


@dataclass(slots=True)
class Played(EventBase):
    type: ClassVar[str] = "played"
    seat: int
    card: Card
    color: Color | None = None
    target: int | None = None
    uno: bool = False

    def describe(self) -> str:
        text = f"P{self.seat} played {self.card.code}"
        if self.color is not None:
            text += f", named {self.color.name.lower()}"
        if self.target is not None:
            text += f" at P{self.target}"
        return text + (" and called Uno" if self.uno else "")


@dataclass(slots=True)
class DiscardedAll(EventBase):
    """A5: the other cards of the Discard All's color went under it, face up."""

    type: ClassVar[str] = "discarded_all"
    seat: int
    cards: tuple[Card, ...]

    def describe(self) -> str:
        return f"P{self.seat} discarded {_cards(self.cards)}"


@dataclass(slots=True)
class Drew(EventBase):
    """Cards into ``seat``'s hand. ``reason``: draw, stack, roulette, uno_penalty, penalty.

    ``cards`` is ``None`` in a redacted copy; ``count`` is always there. Roulette cards
    are turned up face up (W4), so they are never redacted.
    """

    type: ClassVar[str] = "drew"
    seat: int
    count: int
    cards: tuple[Card, ...] | None
    reason: DrawReason

    def describe(self) -> str:
        shown = f" ({_cards(self.cards)})" if self.cards else ""
        return f"P{self.seat} drew {self.count}{shown} [{self.reason}]"


@dataclass(slots=True)
class Passed(EventBase):
    """The turn ended without a play (a kept card, or nothing left to draw, T2/T4)."""

    type: ClassVar[str] = "passed"
    seat: int

    def describe(self) -> str:
        return f"P{self.seat} passed"


@dataclass(slots=True)
class Reshuffled(EventBase):
    """T4: the discard pile (less its top) and set-aside hands became the draw pile."""

    type: ClassVar[str] = "reshuffled"
    size: int

    def describe(self) -> str:
        return f"reshuffled {self.size} cards into a new draw pile"


@dataclass(slots=True)
class ColorNamed(EventBase):
    """A color named: a Roulette's by its victim (W4), a first wild's (S3), or a Wild
    Shuffle Hands' by its player after the deal (W7, ``after_deal``)."""

    type: ClassVar[str] = "color_named"
    seat: int
    color: Color
    after_deal: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = EventBase.to_dict(self)
        if not self.after_deal:  # written only where true: older logs stay as they were
            del out["after_deal"]
        return out

    def describe(self) -> str:
        return f"P{self.seat} named {self.color.name.lower()}" + (
            " after the deal" if self.after_deal else ""
        )


@dataclass(slots=True)
class Skipped(EventBase):
    type: ClassVar[str] = "skipped"
    seats: tuple[int, ...]

    def describe(self) -> str:
        return "skipped " + ", ".join(f"P{s}" for s in self.seats)


@dataclass(slots=True)
class Reversed(EventBase):
    type: ClassVar[str] = "reversed"
    direction: int

    def describe(self) -> str:
        return "play is now " + ("clockwise" if self.direction == 1 else "counter-clockwise")


@dataclass(slots=True)
class StackGrew(EventBase):
    """K1: ``seat`` now faces a pending total of ``total``."""

    type: ClassVar[str] = "stack"
    seat: int
    total: int

    def describe(self) -> str:
        return f"P{self.seat} faces +{self.total}"


@dataclass(slots=True)
class HandsSwapped(EventBase):
    type: ClassVar[str] = "hands_swapped"
    seat: int
    target: int

    def describe(self) -> str:
        return f"P{self.seat} swapped hands with P{self.target}"


@dataclass(slots=True)
class HandsPassed(EventBase):
    type: ClassVar[str] = "hands_passed"
    direction: int

    def describe(self) -> str:
        return "every hand passed " + ("clockwise" if self.direction == 1 else "counter-clockwise")


@dataclass(slots=True)
class HandsShuffled(EventBase):
    """W7: ``seat``'s Wild Shuffle Hands gathered, shuffled and dealt out every active
    hand. ``counts`` is public; ``hands`` holds the new hands by seat, and :func:`redact`
    leaves each seat only its own (None for the rest)."""

    type: ClassVar[str] = "hands_shuffled"
    seat: int
    counts: tuple[int, ...]
    hands: tuple[tuple[Card, ...] | None, ...]

    def describe(self) -> str:
        sizes = " ".join(f"P{x}:{n}" for x, n in enumerate(self.counts))
        return f"P{self.seat} shuffled every hand and dealt them out again ({sizes})"


@dataclass(slots=True)
class KnockedOut(EventBase):
    """M1: ``seat`` reached the Mercy limit; ``by`` caused it (None: self-caused)."""

    type: ClassVar[str] = "knocked_out"
    seat: int
    by: int | None
    cards: int

    def describe(self) -> str:
        cause = f" by P{self.by}" if self.by is not None else ""
        return f"P{self.seat} knocked out with {self.cards} cards{cause}"


@dataclass(slots=True)
class UnoCalled(EventBase):
    type: ClassVar[str] = "uno"
    seat: int

    def describe(self) -> str:
        return f"P{self.seat} called Uno"


@dataclass(slots=True)
class Challenged(EventBase):
    """W6: ``seat`` challenged the Wild Draw 4 of ``by``; ``guilty`` when ``by`` held a
    card of the color in play under it (then ``by`` draws the 4, else ``seat`` draws 6)."""

    type: ClassVar[str] = "challenged"
    seat: int
    by: int
    guilty: bool

    def describe(self) -> str:
        verdict = "it was not allowed" if self.guilty else "it was allowed"
        return f"P{self.seat} challenged P{self.by}'s Wild Draw 4: {verdict}"


@dataclass(slots=True)
class Caught(EventBase):
    type: ClassVar[str] = "caught"
    seat: int
    by: int

    def describe(self) -> str:
        return f"P{self.by} caught P{self.seat} without Uno"


@dataclass(slots=True)
class RoundOver(EventBase):
    type: ClassVar[str] = "round_over"
    winner: int
    reason: OutcomeReason
    points: dict[int, int]

    def describe(self) -> str:
        return f"P{self.winner} won the round ({self.reason}), scoring {self.points.get(self.winner, 0)}"


#: Every kind of event: a closed union, so that ``match event`` ending in
#: ``case _: assert_never(event)`` is checked for exhaustiveness. Also usable with
#: ``isinstance(x, Event)``.
Event: TypeAlias = (
    Started
    | Played
    | DiscardedAll
    | Drew
    | Passed
    | Reshuffled
    | ColorNamed
    | Skipped
    | Reversed
    | StackGrew
    | HandsSwapped
    | HandsPassed
    | HandsShuffled
    | KnockedOut
    | UnoCalled
    | Challenged
    | Caught
    | RoundOver
)


def redact(events: list[Event], seat: int | None) -> list[Event]:
    """The events as ``seat`` may see them (``None``: a spectator)."""
    out: list[Event] = []
    for event in events:
        if (
            isinstance(event, Drew)
            and event.seat != seat
            and event.reason != "roulette"
            and event.cards is not None
        ):
            event = replace(event, cards=None)
        elif isinstance(event, HandsShuffled):  # W7: only a seat's own new hand reaches it
            event = replace(event, hands=tuple(h if x == seat else None for x, h in enumerate(event.hands)))
        out.append(event)
    return out
