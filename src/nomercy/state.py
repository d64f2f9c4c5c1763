"""The game state's data: who holds what, what is pending, and who must decide.

:class:`StateData` holds the fields of a round and their JSON codec and imports no
rules; :class:`nomercy.GameState` (in :mod:`nomercy.engine`) adds the rules that read
and change it. The JSON form is documented in ``docs/state-format.md``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Self

from nomercy.cards import Card, Color, Face
from nomercy.errors import InvalidCard, InvalidRules, InvalidState
from nomercy.events import OutcomeReason
from nomercy.rules import Rules

__all__ = [
    "STATE_FORMAT_VERSION",
    "Decision",
    "KnockOut",
    "Outcome",
    "OutcomeReason",
    "StateData",
    "wd4_guilt",
]

#: 2 added ``sitting_out``, ``challenge`` and ``uno_open`` as a list; 3 changed only how
#: ``(seed, shuffles)`` key a reshuffle (an integer key, ``nomercy.dealing.shuffle_key``).
#: Versions 1 and 2 are still read: they play on with the version-3 reshuffles.
STATE_FORMAT_VERSION = 4


class Decision(IntEnum):
    """What the deciding seat must do now."""

    PLAY = 0  #: play a matching card, or draw (T1-T3)
    PLAY_DRAWN = 1  #: play the card just drawn (or keep it, where allowed) (T2)
    STACK = 2  #: stack a Draw card or take the pending total (K2)
    CHOOSE_COLOR = 3  #: name the color of a first wild card (S3, first_card="apply")
    ROULETTE = 4  #: name the color to turn up cards for (W4)
    OVER = 5  #: the round has ended
    CHALLENGE = 6  #: challenge a Wild Draw 4 or take its cards (W6, wild_draw4_challenge)

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
    reason: OutcomeReason
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


#: The fields of a round, in one place for ``__slots__``, equality and the constructor.
_FIELDS = (
    "active",
    "active_count",
    "aside",
    "bonus",
    "buried",
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
    "sitting_out",
    "step",
    "uno_open",
    "wd4_cards",
    "wd4_color",
    "wd4_guilty",
)


class StateData:
    """The data of one round of No Mercy and its JSON codec, without the rules.

    The rules that read and change it live one layer up: :class:`nomercy.GameState`
    (``nomercy.engine``) adds ``legal_actions`` and ``apply``. Piles are Python lists
    whose *last* element is the top card.
    """

    __slots__ = _FIELDS

    rules: Rules
    players: int
    dealer: int
    hands: list[list[Card]]
    draw_pile: list[Card]
    discard: list[Card]
    #: M2 (knockout_hand="discard_bottom"): face-down cards at the bottom of the discard pile.
    buried: int
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
    #: Seats of a scored match dealt out of this round (E4, knocked_out_return=False).
    sitting_out: tuple[int, ...]
    #: Seats open to a catch (U2, U3): left one card without a call, until the next turn.
    uno_open: tuple[int, ...]
    bonus: list[int]
    seed: int
    shuffles: int
    step: int
    outcome: Outcome | None
    #: W6 (wild_draw4_challenge): the color in play under a challengeable Wild Draw 4,
    #: how many of its player's cards (the first ones) were held when it was played, and
    #: whether one of them was of that color. Guilt is fixed when the card is played: its
    #: player may be knocked out (the hand gone) before the challenge.
    wd4_color: Color | None
    wd4_cards: int
    wd4_guilty: bool

    def __init__(
        self,
        *,
        rules: Rules,
        players: int,
        dealer: int,
        hands: list[list[Card]],
        draw_pile: list[Card],
        discard: list[Card],
        buried: int,
        aside: list[Card],
        color: Color | None,
        direction: int,
        current: int | None,
        decision: Decision,
        pending_total: int,
        last_draw_value: int,
        last_draw_by: int | None,
        drawn: Card | None,
        roulette_by: int | None,
        active: list[bool],
        active_count: int,
        knocked_out: list[KnockOut],
        sitting_out: tuple[int, ...],
        uno_open: tuple[int, ...],
        bonus: list[int],
        seed: int,
        shuffles: int,
        step: int,
        outcome: Outcome | None,
        wd4_color: Color | None,
        wd4_cards: int,
        wd4_guilty: bool,
    ) -> None:
        """The one constructor: every field by keyword, none defaulted, so that a field
        added later cannot be forgotten by ``new_game``, ``clone``, ``from_dict`` or
        ``determinize`` (mypy flags a missing argument)."""
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.hands = hands
        self.draw_pile = draw_pile
        self.discard = discard
        self.buried = buried
        self.aside = aside
        self.color = color
        self.direction = direction
        self.current = current
        self.decision = decision
        self.pending_total = pending_total
        self.last_draw_value = last_draw_value
        self.last_draw_by = last_draw_by
        self.drawn = drawn
        self.roulette_by = roulette_by
        self.active = active
        self.active_count = active_count
        self.knocked_out = knocked_out
        self.sitting_out = sitting_out
        self.uno_open = uno_open
        self.bonus = bonus
        self.seed = seed
        self.shuffles = shuffles
        self.step = step
        self.outcome = outcome
        self.wd4_color = wd4_color
        self.wd4_cards = wd4_cards
        self.wd4_guilty = wd4_guilty

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

    def catchable(self) -> tuple[int, ...]:
        """The seats open to a catch right now (U2, U3); empty when none is."""
        return self.uno_open

    def hand(self, seat: int) -> list[Card]:
        """A copy of ``seat``'s hand."""
        return self.hands[seat][:]

    def card_count(self) -> int:
        """Cards in all zones together (the deck size while no card is lost)."""
        return sum(len(h) for h in self.hands) + len(self.draw_pile) + len(self.discard) + len(self.aside)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StateData):
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
            "discard_buried": self.buried,
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
            "sitting_out": list(self.sitting_out),
            "uno_open": list(self.uno_open),
            "challenge": (
                {"color": self.wd4_color.letter, "cards": self.wd4_cards, "guilty": self.wd4_guilty}
                if self.wd4_color is not None
                else None
            ),
            "bonus": list(self.bonus),
            "seed": self.seed,
            "shuffles": self.shuffles,
            "step": self.step,
            "outcome": self.outcome.to_dict() if self.outcome else None,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        """Read a state written by :meth:`to_json`, or built by hand (see the docs)."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise InvalidState(f"not valid JSON: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> Self:
        try:
            return cls(**_fields_from_dict(data))
        except InvalidState:
            raise
        except (InvalidCard, InvalidRules) as exc:
            raise InvalidState(str(exc)) from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise InvalidState(f"malformed state: {exc!r}") from None


_KNOWN_KEYS = {
    "format", "format_version", "rules", "players", "dealer", "hands", "draw_pile",
    "discard_pile", "discard_buried", "aside", "color", "direction", "current", "decision",
    "pending", "drawn", "roulette_by", "knocked_out", "sitting_out", "uno_open", "challenge", "bonus", "seed",
    "shuffles", "step", "outcome",
}  # fmt: skip
_CHALLENGE_KEYS = {"color", "cards", "guilty"}
#: Fields that version 1 did not have: its states are read as if they were absent.
_NEW_IN_2 = ("sitting_out", "challenge", "discard_buried")


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


def _seats(value: Any, players: int, what: str) -> tuple[int, ...]:
    """A list of distinct seats; a bare seat or null (format version 1) is accepted too."""
    if value is None:
        return ()
    if not isinstance(value, list):
        value = [value]
    seats = tuple(_seat(v, players, what, optional=False) or 0 for v in value)
    if len(set(seats)) != len(seats):
        raise InvalidState(f"{what} lists a seat twice")
    return seats


def _whole(data: dict[str, Any], name: str) -> int:
    value = data.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidState(f"{name} must be a whole number >= 0, got {value!r}")
    return value


def _fields_from_dict(data: Any) -> dict[str, Any]:
    """Every constructor argument of a state, read and checked from its JSON form."""
    if not isinstance(data, dict):
        raise InvalidState("a state is a JSON object")
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise InvalidState(f"unknown field(s): {', '.join(sorted(unknown))}")
    if data.get("format", "nomercy.state") != "nomercy.state":
        raise InvalidState(f"not a nomercy state (format {data.get('format')!r})")
    version = data.get("format_version", STATE_FORMAT_VERSION)
    if version not in (1, 2, 3, STATE_FORMAT_VERSION) or isinstance(version, bool):
        raise InvalidState(
            f"state format version {version!r} is not supported (this reads 1 to {STATE_FORMAT_VERSION})"
        )
    if version == 1 and any(key in data for key in _NEW_IN_2):
        raise InvalidState(f"format version 1 has no {', '.join(k for k in _NEW_IN_2 if k in data)}")
    rules = Rules.from_dict(data.get("rules") or {})
    hands_raw = data["hands"]
    if not isinstance(hands_raw, list):
        raise InvalidState("hands must be a list with one list of cards per seat")
    players = data.get("players", len(hands_raw))
    if not isinstance(players, int) or not 2 <= players <= rules.max_players:
        raise InvalidState(f"players must be 2-{rules.max_players} (S1), got {players!r}")
    if len(hands_raw) != players:
        raise InvalidState(f"{len(hands_raw)} hands for {players} players")

    hands = [_cards(h, f"hand of seat {i}") for i, h in enumerate(hands_raw)]
    draw_pile = _cards(data.get("draw_pile", []), "draw_pile")[::-1]
    discard = _cards(data.get("discard_pile", []), "discard_pile")[::-1]
    aside = _cards(data.get("aside", []), "aside")
    if not discard:
        raise InvalidState("discard_pile needs at least its top card")
    color_raw = data.get("color")
    color: Color | None
    if color_raw is None:
        color = discard[-1].color
    elif isinstance(color_raw, str):
        color = Color.parse(color_raw)
    else:
        raise InvalidState(f"color must be R, Y, G or B, got {color_raw!r}")
    direction = data.get("direction", 1)
    if type(direction) is not int or direction not in (1, -1):  # not 1.0 or true: seats index lists
        raise InvalidState(f"direction must be 1 (clockwise) or -1, got {direction!r}")
    pending = data.get("pending") or {}
    if not isinstance(pending, dict):
        raise InvalidState("pending must be an object {total, last_value, by}")
    pending_total = pending.get("total", 0)
    last_draw_value = pending.get("last_value", discard[-1].draw_value if pending_total else 0)
    if (
        not isinstance(pending_total, int)
        or isinstance(pending_total, bool)
        or pending_total < 0
        or not isinstance(last_draw_value, int)
        or isinstance(last_draw_value, bool)
        or last_draw_value < 0
    ):
        raise InvalidState("pending total and last_value must be whole numbers >= 0")
    ko_raw = data.get("knocked_out", [])
    if not isinstance(ko_raw, list):
        raise InvalidState("knocked_out must be a list of {seat, by}")
    knocked_out: list[KnockOut] = []
    for item in ko_raw:
        if isinstance(item, int):
            item = {"seat": item, "by": None}
        if not isinstance(item, dict):
            raise InvalidState("knocked_out must be a list of {seat, by}")
        seat = _seat(item.get("seat"), players, "knocked_out seat", optional=False)
        assert seat is not None
        knocked_out.append(KnockOut(seat, _seat(item.get("by"), players, "knocked_out by")))
    sitting_out = tuple(sorted(_seats(data.get("sitting_out", []), players, "sitting_out")))
    active = [True] * players
    for seat in sitting_out:
        active[seat] = False
        if hands[seat]:
            raise InvalidState(f"seat {seat} sits this round out but holds cards (E4)")
    for k in knocked_out:
        if not active[k.seat]:
            raise InvalidState(f"seat {k.seat} is knocked out twice, or knocked out while sitting out")
        active[k.seat] = False
        if hands[k.seat]:
            raise InvalidState(f"seat {k.seat} is knocked out but holds cards (M2)")
    active_count = sum(active)
    outcome_raw = data.get("outcome")
    outcome = _outcome(outcome_raw, players) if outcome_raw is not None else None
    decision_raw = data.get("decision", "over" if outcome else ("stack" if pending_total else "play"))
    try:
        decision = Decision[str(decision_raw).upper()]
    except KeyError:
        raise InvalidState(
            f"decision must be one of {', '.join(d.label for d in Decision)}, got {decision_raw!r}"
        ) from None
    if (decision is Decision.OVER) != (outcome is not None):
        raise InvalidState("decision 'over' goes with an outcome, and only then")
    current = _seat(data.get("current", None if outcome else 0), players, "current")
    if outcome is None:
        if current is None or not active[current]:
            raise InvalidState(f"the deciding seat {current!r} must be an active player")
        if active_count < 2:
            raise InvalidState("a round in play needs two active players (M4)")
        for seat in range(players):
            if active[seat] and not hands[seat]:
                raise InvalidState(f"seat {seat} is in the round with no cards: it would have won (E1)")
    elif current is not None:
        raise InvalidState("a finished round has no deciding seat")
    dealer = _seat(data.get("dealer", ((current or 0) - 1) % players), players, "dealer", optional=False)
    assert dealer is not None
    drawn_raw = data.get("drawn")
    if drawn_raw is not None and not isinstance(drawn_raw, str):
        raise InvalidState("drawn must be a card code or null")
    challenge = data.get("challenge")
    wd4_color: Color | None = None
    wd4_cards = 0
    wd4_guilty: bool | None = False
    if challenge is not None:
        if not isinstance(challenge, dict) or not {"color", "cards"} <= set(challenge) <= _CHALLENGE_KEYS:
            raise InvalidState("challenge must be an object {color, cards, guilty} or null")
        if not isinstance(challenge["color"], str):
            raise InvalidState("challenge.color must be R, Y, G or B")
        wd4_color = Color.parse(challenge["color"])
        wd4_cards = _whole(challenge, "cards")
        wd4_guilty = challenge.get("guilty")  # absent (a state by hand, format 1-3): judged on the hand
        if wd4_guilty is not None and not isinstance(wd4_guilty, bool):
            raise InvalidState("challenge.guilty must be true, false or absent (W6)")
    bonus = data.get("bonus", [0] * players)
    if not isinstance(bonus, list) or len(bonus) != players or not all(isinstance(b, int) for b in bonus):
        raise InvalidState("bonus must list one whole number per seat")
    fields = {
        "rules": rules,
        "players": players,
        "dealer": dealer,
        "hands": hands,
        "draw_pile": draw_pile,
        "discard": discard,
        "buried": _whole(data, "discard_buried"),
        "aside": aside,
        "color": color,
        "direction": direction,
        "current": current,
        "decision": decision,
        "pending_total": pending_total,
        "last_draw_value": last_draw_value,
        "last_draw_by": _seat(pending.get("by"), players, "pending.by"),
        "drawn": Card.parse(drawn_raw) if drawn_raw is not None else None,
        "roulette_by": _seat(data.get("roulette_by"), players, "roulette_by"),
        "active": active,
        "active_count": active_count,
        "knocked_out": knocked_out,
        "sitting_out": sitting_out,
        "uno_open": _seats(data.get("uno_open"), players, "uno_open"),
        "bonus": list(bonus),
        "seed": _whole(data, "seed"),
        "shuffles": _whole(data, "shuffles"),
        "step": _whole(data, "step"),
        "outcome": outcome,
        "wd4_color": wd4_color,
        "wd4_cards": wd4_cards,
        "wd4_guilty": wd4_guilty,
    }
    _check_consistency(fields)
    return fields


def wd4_guilt(hand: list[Card], color: Color, cards: int) -> bool:
    """W6: a Wild Draw 4 is unlawful when its player held a card of the color in play under
    it: one of the first ``cards`` cards of ``hand`` (those held as it was played; a wild
    matches by being wild, so it does not count)."""
    return any(c.color is color for c in hand[:cards])


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
    assert winner is not None
    return Outcome(winner, reason, kos, tuple(int(p) for p in points))


def _check_consistency(f: dict[str, Any]) -> None:
    """Refuse impossible states with a reason in game terms."""
    rules: Rules = f["rules"]
    hands: list[list[Card]] = f["hands"]
    active: list[bool] = f["active"]
    decision: Decision = f["decision"]
    current: int | None = f["current"]
    discard: list[Card] = f["discard"]
    deck = Counter({Card.parse(code): n for code, n in rules.deck})
    held = Counter([c for h in hands for c in h] + f["draw_pile"] + discard + f["aside"])
    for card, n in held.items():
        if n > deck[card]:
            raise InvalidState(f"{n} copies of {card} but the deck has {deck[card]} (C3)")
    if rules.mercy_limit is not None and f["outcome"] is None:
        for seat, hand in enumerate(hands):
            if active[seat] and len(hand) >= rules.mercy_limit:
                raise InvalidState(
                    f"seat {seat} holds {len(hand)} cards, at or over the Mercy limit "
                    f"of {rules.mercy_limit} (M1)"
                )
    top = discard[-1]
    if f["color"] is None and not (decision in (Decision.CHOOSE_COLOR, Decision.ROULETTE) and top.is_wild):
        raise InvalidState(f"the top card {top} is wild: give the color in play")
    if f["buried"] >= len(discard):
        raise InvalidState("discard_buried must leave the top card of the discard pile face up (M2)")
    pending = f["pending_total"]
    if decision in (Decision.STACK, Decision.CHALLENGE) and (pending <= 0 or f["last_draw_value"] <= 0):
        raise InvalidState(
            f"decision '{decision.label}' needs a pending total and the last Draw card's value (K1)"
        )
    if decision not in (Decision.STACK, Decision.CHALLENGE) and pending:
        raise InvalidState("a pending total is only faced in decision 'stack' or 'challenge' (K2, W6)")
    if decision is Decision.CHALLENGE:
        by = f["last_draw_by"]
        if f["wd4_color"] is None or by is None or top.face is not Face.WILD_DRAW_4:
            raise InvalidState(
                "decision 'challenge' needs a Wild Draw 4 on top, its player and the color under it (W6)"
            )
        if active[by]:
            if f["wd4_cards"] > len(hands[by]):
                raise InvalidState("challenge.cards is more than its player holds (W6)")
            guilty = wd4_guilt(hands[by], f["wd4_color"], f["wd4_cards"])
            if f["wd4_guilty"] is None:
                f["wd4_guilty"] = guilty
            elif f["wd4_guilty"] != guilty:
                raise InvalidState(
                    "challenge.guilty disagrees with the cards its player held when it was played (W6)"
                )
        elif f["wd4_guilty"] is None:
            raise InvalidState(
                "challenge.guilty is needed once the Wild Draw 4's player is out of the round (W6)"
            )
    elif f["wd4_color"] is not None:
        raise InvalidState("challenge is only set for decision 'challenge' (W6)")
    drawn: Card | None = f["drawn"]
    if decision is Decision.PLAY_DRAWN:
        if drawn is None or current is None or drawn not in hands[current]:
            raise InvalidState("decision 'play_drawn' needs the drawn card, in the deciding seat's hand (T2)")
    elif drawn is not None:
        raise InvalidState("drawn is only set for decision 'play_drawn'")
    for seat in f["uno_open"]:
        if not active[seat] or len(hands[seat]) != 1:
            raise InvalidState("uno_open must list active seats holding exactly one card (U2)")
    if f["uno_open"] and not rules.uno_calls:
        raise InvalidState("uno_open is set but this table plays without Uno calls (U1)")
