"""The game state: who holds what, what is pending, and who must decide.

:class:`GameState` holds data and its (de)serialisation; the rules that change it live
in :mod:`nomercy.engine` and are reached through :meth:`GameState.legal_actions` and
:meth:`GameState.apply`. The JSON form is documented in ``docs/state-format.md``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from nomercy.actions import Action
from nomercy.cards import Card, Color
from nomercy.errors import InvalidCard, InvalidRules, InvalidState
from nomercy.events import Event
from nomercy.rules import Rules

if TYPE_CHECKING:
    from nomercy.views import PlayerView

__all__ = ["STATE_FORMAT_VERSION", "Decision", "GameState", "KnockOut", "Outcome"]

STATE_FORMAT_VERSION = 1


class Decision(IntEnum):
    """What the deciding seat must do now."""

    PLAY = 0  #: play a matching card, or draw (T1-T3)
    PLAY_DRAWN = 1  #: play the card just drawn (or keep it, where allowed) (T2)
    STACK = 2  #: stack a Draw card or take the pending total (K2)
    CHOOSE_COLOR = 3  #: name the color of a first wild card (S3, first_card="apply")
    ROULETTE = 4  #: name the color to turn up cards for (W4)
    OVER = 5  #: the round has ended

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class KnockOut:
    """M1: ``seat`` was knocked out; ``by`` caused it (None when self-caused, E3)."""

    seat: int
    by: int | None

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Copy and pickle through the constructor: a compiled frozen class refuses the
        # attribute-by-attribute restore they use by default.
        return (KnockOut, (self.seat, self.by))


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a round ended (E1-E3)."""

    winner: int
    #: ``"played_out"`` (E1: last card played) or ``"last_standing"`` (M4).
    reason: str
    knocked_out: tuple[KnockOut, ...]
    #: Round points per seat (E3); only the winner scores, unless knockout_bonus_to="knocker".
    points: tuple[int, ...]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Outcome, (self.winner, self.reason, self.knocked_out, self.points))

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "reason": self.reason,
            "knocked_out": [{"seat": k.seat, "by": k.by} for k in self.knocked_out],
            "points": list(self.points),
        }


#: GameState's fields, in one place for __slots__ and equality.
_FIELDS = (
    "active",
    "active_count",
    "aside",
    "bonus",
    "color",
    "current",
    "dealer",
    "decision",
    "direction",
    "discard",
    "draw_pile",
    "drawn",
    "hands",
    "knocked_out",
    "last_draw_by",
    "last_draw_value",
    "outcome",
    "pending_total",
    "players",
    "roulette_by",
    "rules",
    "seed",
    "shuffles",
    "step",
    "uno_seat",
)


class GameState:
    """One round of No Mercy. Create with :func:`nomercy.new_game` or :meth:`from_json`.

    Piles are Python lists whose *last* element is the top card.
    """

    __slots__ = _FIELDS

    rules: Rules
    players: int
    dealer: int
    hands: list[list[Card]]
    draw_pile: list[Card]
    discard: list[Card]
    aside: list[Card]
    color: Color | None
    direction: int
    current: int | None
    decision: Decision
    pending_total: int
    last_draw_value: int
    last_draw_by: int | None
    drawn: Card | None
    roulette_by: int | None
    active: list[bool]
    active_count: int
    knocked_out: list[KnockOut]
    uno_seat: int | None
    bonus: list[int]
    seed: int
    shuffles: int
    step: int
    outcome: Outcome | None

    # -- the two questions -----------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        """The seat that must decide now; ``None`` once the round is over."""
        return self.current

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def top(self) -> Card:
        """The top card of the discard pile."""
        return self.discard[-1]

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the deciding seat), nothing else.

        For a seat that is not deciding, this lists its out-of-turn actions: ``catch``
        while another seat is open to a catch (U2), ``uno`` for the seat that is.
        """
        return _engine.legal_actions(self, seat)

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Apply ``action`` for ``seat`` (default: the deciding seat); return the events.

        Raises :class:`~nomercy.IllegalAction` (and leaves the state unchanged) when the
        rules refuse it.
        """
        return _engine.apply(self, action, seat)

    def catchable(self) -> int | None:
        """The seat open to a catch right now (U2), or ``None``."""
        return self.uno_seat

    def clone(self) -> GameState:
        """An independent copy; cost is proportional to the number of cards."""
        new = GameState.__new__(GameState)
        new.rules = self.rules
        new.players = self.players
        new.dealer = self.dealer
        new.hands = [h[:] for h in self.hands]
        new.draw_pile = self.draw_pile[:]
        new.discard = self.discard[:]
        new.aside = self.aside[:]
        new.color = self.color
        new.direction = self.direction
        new.current = self.current
        new.decision = self.decision
        new.pending_total = self.pending_total
        new.last_draw_value = self.last_draw_value
        new.last_draw_by = self.last_draw_by
        new.drawn = self.drawn
        new.roulette_by = self.roulette_by
        new.active = self.active[:]
        new.active_count = self.active_count
        new.knocked_out = self.knocked_out[:]
        new.uno_seat = self.uno_seat
        new.bonus = self.bonus[:]
        new.seed = self.seed
        new.shuffles = self.shuffles
        new.step = self.step
        new.outcome = self.outcome
        return new

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see (``None``: a spectator, who sees no hand)."""
        from nomercy.views import player_view

        return player_view(self, seat)

    def hand(self, seat: int) -> list[Card]:
        """A copy of ``seat``'s hand."""
        return self.hands[seat][:]

    def card_count(self) -> int:
        """Cards in all zones together (the deck size while no card is lost)."""
        return sum(len(h) for h in self.hands) + len(self.draw_pile) + len(self.discard) + len(self.aside)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        status = "over" if self.outcome else f"P{self.current} to {self.decision.label}"
        return f"<GameState {self.players}p step {self.step} top {self.top} {status}>"

    # -- JSON -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The lossless JSON-ready form (``docs/state-format.md``)."""
        return {
            "format": "nomercy.state",
            "format_version": STATE_FORMAT_VERSION,
            "rules": self.rules.to_dict(only_changes=True),
            "players": self.players,
            "dealer": self.dealer,
            "hands": [[c.code for c in h] for h in self.hands],
            "draw_pile": [c.code for c in reversed(self.draw_pile)],
            "discard_pile": [c.code for c in reversed(self.discard)],
            "aside": [c.code for c in self.aside],
            "color": self.color.letter if self.color is not None else None,
            "direction": self.direction,
            "current": self.current,
            "decision": self.decision.label,
            "pending": {
                "total": self.pending_total,
                "last_value": self.last_draw_value,
                "by": self.last_draw_by,
            },
            "drawn": self.drawn.code if self.drawn is not None else None,
            "roulette_by": self.roulette_by,
            "knocked_out": [{"seat": k.seat, "by": k.by} for k in self.knocked_out],
            "uno_open": self.uno_seat,
            "bonus": list(self.bonus),
            "seed": self.seed,
            "shuffles": self.shuffles,
            "step": self.step,
            "outcome": self.outcome.to_dict() if self.outcome else None,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameState:
        """Read a state written by :meth:`to_json`, or built by hand (see the docs)."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise InvalidState(f"not valid JSON: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> GameState:
        try:
            return _from_dict(data)
        except InvalidState:
            raise
        except (InvalidCard, InvalidRules) as exc:
            raise InvalidState(str(exc)) from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise InvalidState(f"malformed state: {exc!r}") from None


_KNOWN_KEYS = {
    "format", "format_version", "rules", "players", "dealer", "hands", "draw_pile",
    "discard_pile", "aside", "color", "direction", "current", "decision", "pending", "drawn",
    "roulette_by", "knocked_out", "uno_open", "bonus", "seed", "shuffles", "step", "outcome",
}  # fmt: skip


def _cards(value: Any, what: str) -> list[Card]:
    if not isinstance(value, list):
        raise InvalidState(f"{what} must be a list of card codes")
    return [Card.parse(v) if isinstance(v, str) else _bad_card(v, what) for v in value]


def _bad_card(value: Any, what: str) -> Card:
    raise InvalidState(f"{what}: {value!r} is not a card code")


def _seat(value: Any, players: int, what: str, optional: bool = True) -> int | None:
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise InvalidState(f"{what} must be a seat number 0-{players - 1}, got {value!r}")
    return value


def _from_dict(data: Any) -> GameState:
    if not isinstance(data, dict):
        raise InvalidState("a state is a JSON object")
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise InvalidState(f"unknown field(s): {', '.join(sorted(unknown))}")
    if data.get("format", "nomercy.state") != "nomercy.state":
        raise InvalidState(f"not a nomercy state (format {data.get('format')!r})")
    version = data.get("format_version", STATE_FORMAT_VERSION)
    if version != STATE_FORMAT_VERSION:
        raise InvalidState(
            f"state format version {version!r} is not supported (this is {STATE_FORMAT_VERSION})"
        )
    rules = Rules.from_dict(data.get("rules") or {})
    hands_raw = data["hands"]
    if not isinstance(hands_raw, list):
        raise InvalidState("hands must be a list with one list of cards per seat")
    players = data.get("players", len(hands_raw))
    if not isinstance(players, int) or not 2 <= players <= rules.max_players:
        raise InvalidState(f"players must be 2-{rules.max_players} (S1), got {players!r}")
    if len(hands_raw) != players:
        raise InvalidState(f"{len(hands_raw)} hands for {players} players")

    s = GameState.__new__(GameState)
    s.rules = rules
    s.players = players
    s.hands = [_cards(h, f"hand of seat {i}") for i, h in enumerate(hands_raw)]
    s.draw_pile = _cards(data.get("draw_pile", []), "draw_pile")[::-1]
    s.discard = _cards(data.get("discard_pile", []), "discard_pile")[::-1]
    s.aside = _cards(data.get("aside", []), "aside")
    if not s.discard:
        raise InvalidState("discard_pile needs at least its top card")
    color = data.get("color")
    if color is None:
        s.color = s.discard[-1].color
    elif isinstance(color, str):
        s.color = Color.parse(color)
    else:
        raise InvalidState(f"color must be R, Y, G or B, got {color!r}")
    direction = data.get("direction", 1)
    if type(direction) is not int or direction not in (1, -1):  # not 1.0 or true: seats index lists
        raise InvalidState(f"direction must be 1 (clockwise) or -1, got {direction!r}")
    s.direction = direction
    pending = data.get("pending") or {}
    if not isinstance(pending, dict):
        raise InvalidState("pending must be an object {total, last_value, by}")
    s.pending_total = pending.get("total", 0)
    s.last_draw_value = pending.get("last_value", s.discard[-1].draw_value if s.pending_total else 0)
    if not isinstance(s.pending_total, int) or s.pending_total < 0 or not isinstance(s.last_draw_value, int):
        raise InvalidState("pending total and last_value must be whole numbers >= 0")
    s.last_draw_by = _seat(pending.get("by"), players, "pending.by")
    ko_raw = data.get("knocked_out", [])
    if not isinstance(ko_raw, list):
        raise InvalidState("knocked_out must be a list of {seat, by}")
    s.knocked_out = []
    for item in ko_raw:
        if isinstance(item, int):
            item = {"seat": item, "by": None}
        if not isinstance(item, dict):
            raise InvalidState("knocked_out must be a list of {seat, by}")
        seat = _seat(item.get("seat"), players, "knocked_out seat", optional=False)
        assert seat is not None
        s.knocked_out.append(KnockOut(seat, _seat(item.get("by"), players, "knocked_out by")))
    s.active = [True] * players
    for k in s.knocked_out:
        if not s.active[k.seat]:
            raise InvalidState(f"seat {k.seat} is knocked out twice")
        s.active[k.seat] = False
        if s.hands[k.seat]:
            raise InvalidState(f"seat {k.seat} is knocked out but holds cards (M2)")
    s.active_count = sum(s.active)
    outcome_raw = data.get("outcome")
    s.outcome = _outcome(outcome_raw, players) if outcome_raw is not None else None
    decision_raw = data.get("decision", "over" if s.outcome else ("stack" if s.pending_total else "play"))
    try:
        s.decision = Decision[str(decision_raw).upper()]
    except KeyError:
        raise InvalidState(
            f"decision must be one of {', '.join(d.label for d in Decision)}, got {decision_raw!r}"
        ) from None
    if (s.decision is Decision.OVER) != (s.outcome is not None):
        raise InvalidState("decision 'over' goes with an outcome, and only then")
    s.current = _seat(data.get("current", None if s.outcome else 0), players, "current")
    if s.outcome is None:
        if s.current is None or not s.active[s.current]:
            raise InvalidState(f"the deciding seat {s.current!r} must be an active player")
        if s.active_count < 2:
            raise InvalidState("a round in play needs two active players (M4)")
    elif s.current is not None:
        raise InvalidState("a finished round has no deciding seat")
    s.dealer = _seat(data.get("dealer", ((s.current or 0) - 1) % players), players, "dealer", optional=False)  # type: ignore[assignment]
    drawn = data.get("drawn")
    s.drawn = Card.parse(drawn) if isinstance(drawn, str) else None
    if drawn is not None and not isinstance(drawn, str):
        raise InvalidState("drawn must be a card code or null")
    s.roulette_by = _seat(data.get("roulette_by"), players, "roulette_by")
    s.uno_seat = _seat(data.get("uno_open"), players, "uno_open")
    bonus = data.get("bonus", [0] * players)
    if not isinstance(bonus, list) or len(bonus) != players or not all(isinstance(b, int) for b in bonus):
        raise InvalidState("bonus must list one whole number per seat")
    s.bonus = list(bonus)
    for name in ("seed", "shuffles", "step"):
        value = data.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidState(f"{name} must be a whole number >= 0, got {value!r}")
        setattr(s, name, value)
    _check_consistency(s)
    return s


def _outcome(raw: Any, players: int) -> Outcome:
    if not isinstance(raw, dict):
        raise InvalidState("outcome must be an object")
    winner = _seat(raw.get("winner"), players, "outcome.winner", optional=False)
    points = raw.get("points", [0] * players)
    if not isinstance(points, list) or len(points) != players:
        raise InvalidState("outcome.points must list one number per seat")
    kos = tuple(KnockOut(k["seat"], k.get("by")) for k in raw.get("knocked_out", []))
    reason = raw.get("reason", "played_out")
    if reason not in ("played_out", "last_standing"):
        raise InvalidState(f"outcome.reason must be played_out or last_standing, got {reason!r}")
    return Outcome(winner, reason, kos, tuple(int(p) for p in points))  # type: ignore[arg-type]


def _check_consistency(s: GameState) -> None:
    """Refuse impossible states with a reason in game terms."""
    rules = s.rules
    deck = Counter({Card.parse(code): n for code, n in rules.deck})
    held = Counter([c for h in s.hands for c in h] + s.draw_pile + s.discard + s.aside)
    for card, n in held.items():
        if n > deck[card]:
            raise InvalidState(f"{n} copies of {card} but the deck has {deck[card]} (C3)")
    if rules.mercy_limit is not None:
        for seat, hand in enumerate(s.hands):
            if s.active[seat] and len(hand) >= rules.mercy_limit and s.outcome is None:
                raise InvalidState(
                    f"seat {seat} holds {len(hand)} cards, at or over the Mercy limit "
                    f"of {rules.mercy_limit} (M1)"
                )
    top = s.discard[-1]
    if s.color is None and not (s.decision in (Decision.CHOOSE_COLOR, Decision.ROULETTE) and top.is_wild):
        raise InvalidState(f"the top card {top} is wild: give the color in play")
    if s.decision is Decision.STACK and (s.pending_total <= 0 or s.last_draw_value <= 0):
        raise InvalidState("decision 'stack' needs a pending total and the last Draw card's value (K1)")
    if s.decision is not Decision.STACK and s.pending_total:
        raise InvalidState("a pending total is only faced in decision 'stack' (K2)")
    if s.decision is Decision.PLAY_DRAWN:
        if s.drawn is None or s.current is None or s.drawn not in s.hands[s.current]:
            raise InvalidState("decision 'play_drawn' needs the drawn card, in the deciding seat's hand (T2)")
    elif s.drawn is not None:
        raise InvalidState("drawn is only set for decision 'play_drawn'")
    if s.uno_seat is not None and (not s.active[s.uno_seat] or len(s.hands[s.uno_seat]) != 1):
        raise InvalidState("uno_open must be an active seat holding exactly one card (U2)")


from nomercy import engine as _engine  # noqa: E402  (engine needs GameState defined first)
