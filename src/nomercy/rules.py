"""House rules as data: one frozen :class:`Rules` value, one field per open question.

Every field names the rule of ``docs/rules.md`` it decides. Presets are plain ``Rules``
values found by name or alias (:meth:`Rules.preset`); house rules mix freely, so there is
never a subclass per variant. Invalid values fail at construction with a message naming
the field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from nomercy.cards import CLASSIC_DECK, NO_MERCY_DECK, DeckSpec, normalize_deck
from nomercy.errors import InvalidRules

__all__ = ["PRESETS", "Rules"]


def _rule(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True, slots=True)
class Rules:
    """The house rules of one table. ``Rules()`` is the ``no_mercy`` preset.

    >>> Rules(stack_color="match").stack_color
    'match'
    >>> Rules.preset("classic").stacking
    False
    """

    deck: DeckSpec = _rule(
        NO_MERCY_DECK,
        "C3: the deck composition, a name ('no_mercy', 'classic') or card code -> count",
    )
    max_players: int = _rule(6, "S1: most players a table may seat (2 at least)")
    hand_size: int = _rule(7, "S2: cards dealt to each player")
    first_card: Literal["number", "apply", "official"] = _rule(
        "number",
        "S3: 'number' turns cards up until a number card starts the pile; "
        "'apply' applies the first card's effect as if the dealer had played it (RLCard's UNO); "
        "'official' as classic rules give it (a Reverse: the dealer starts and play goes the "
        "other way; a Wild Draw 4 goes back into the deck and another card is turned)",
    )
    draw_rule: Literal["until_playable", "one"] = _rule(
        "until_playable",
        "T2: 'until_playable' draws until a playable card; 'one' draws a single card",
    )
    must_play_drawn: bool = _rule(True, "T2: a playable drawn card must be played (false: it may be kept)")
    draw_when_playable: bool = _rule(False, "T3: a player may draw even when holding a playable card")
    two_player_reverse: Literal["self", "opponent"] = _rule(
        "self",
        "A2/P1: with 2 players a Reverse works like a Skip, so its own player goes again ('self'), "
        "or only changes direction, so the opponent plays next ('opponent', RLCard's UNO)",
    )
    two_player_reverse_draw: Literal["self", "opponent"] = _rule(
        "self", "W1/P3: with 2 players a Wild Reverse Draw 4 hits its own player or the opponent"
    )
    roulette_color: Literal["named", "revealed"] = _rule(
        "named", "W4: color in play after a Roulette: the named one or the last card turned up"
    )
    stacking: bool = _rule(True, "K2: Draw cards may be stacked on a pending total")
    draw10_stackable: bool = _rule(
        True, "K3: a Wild Draw 10 may itself be stacked on (false: it ends the stack)"
    )
    stack_color: Literal["any", "match"] = _rule(
        "any", "K5: a colored Draw card stacks regardless of color ('any') or must match"
    )
    seven_zero: bool = _rule(True, "N1-N2: Sevens swap hands and Zeros pass them")
    mercy_limit: int | None = _rule(25, "M1: a player holding this many cards is knocked out (None disables)")
    knockout_hand: Literal["aside", "discard_bottom"] = _rule(
        "aside",
        "M2: a knocked-out hand is set aside for the next reshuffle or put under the discard pile",
    )
    uno_calls: bool = _rule(
        True, "U1-U3: players must call Uno and can be caught (false: no calls, no catches)"
    )
    uno_penalty: int = _rule(2, "U2: cards drawn by a player caught not calling Uno")
    uno_timing: Literal["own_play", "holding_one"] = _rule(
        "holding_one",
        "U1: Uno must be called whenever a player comes to hold one card, also a hand of one "
        "received through a Seven or a Zero ('holding_one'), or only after one's own play "
        "that leaves one card ('own_play')",
    )
    last_card_draw: Literal["ignore", "apply"] = _rule(
        "ignore", "E2: a Draw card played as the last card is ignored or drawn by its victim"
    )
    knockout_bonus_to: Literal["winner", "knocker"] = _rule(
        "winner", "E3: who scores the 250 for each knock-out"
    )
    target_score: int = _rule(1000, "E4: points that win a scored match")
    knocked_out_return: bool = _rule(
        True, "E4: knocked-out players are dealt back in for the next round of a match"
    )
    wild_draw4_restricted: bool = _rule(
        False,
        "classic only: a Wild Draw 4 may be played only when no other card is playable (RLCard's UNO)",
    )
    wild_draw4_challenge: bool = _rule(
        False,
        "W6: a Wild Draw 4 is lawful only without a card of the color in play; it may be played "
        "anyway, and its victim may challenge it instead of taking the 4",
    )
    play_drawn_at_once: bool = _rule(
        False,
        "T2: with must_play_drawn, a drawn card that leaves nothing to choose (no color, Seven "
        "target or Uno call) is played as part of the draw, not as a decision (RLCard's UNO)",
    )

    _CHOICES: ClassVar[dict[str, tuple[object, ...]]] = {
        "first_card": ("number", "apply", "official"),
        "uno_timing": ("own_play", "holding_one"),
        "draw_rule": ("until_playable", "one"),
        "two_player_reverse": ("self", "opponent"),
        "two_player_reverse_draw": ("self", "opponent"),
        "roulette_color": ("named", "revealed"),
        "stack_color": ("any", "match"),
        "knockout_hand": ("aside", "discard_bottom"),
        "last_card_draw": ("ignore", "apply"),
        "knockout_bonus_to": ("winner", "knocker"),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "deck", normalize_deck(self.deck))
        for name, choices in self._CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                options = ", ".join(repr(c) for c in choices)
                raise InvalidRules(name, f"{value!r} is not one of {options}")
        for f in dataclasses.fields(self):
            if f.type in ("bool",) and not isinstance(getattr(self, f.name), bool):
                raise InvalidRules(f.name, f"expected true or false, got {getattr(self, f.name)!r}")
        self._check_int("max_players", 2)
        self._check_int("hand_size", 1)
        self._check_int("uno_penalty", 0)
        self._check_int("target_score", 1)
        if self.mercy_limit is not None:
            self._check_int("mercy_limit", 2)
            if self.mercy_limit <= self.hand_size:
                raise InvalidRules(
                    "mercy_limit",
                    f"{self.mercy_limit} would knock players out on the deal (hand_size is {self.hand_size})",
                )
        if self.wild_draw4_challenge and self.stacking:
            raise InvalidRules(
                "wild_draw4_challenge",
                "a challenged Wild Draw 4 cannot also be stacked on: set stacking=false",
            )
        if self.wild_draw4_challenge and self.wild_draw4_restricted:
            raise InvalidRules(
                "wild_draw4_challenge",
                "wild_draw4_restricted refuses an unlawful Wild Draw 4: there is nothing to challenge",
            )
        total = sum(n for _, n in self.deck)
        if self.hand_size * 2 + 1 > total:
            raise InvalidRules(
                "hand_size", f"{self.hand_size} cards each cannot be dealt from a {total}-card deck"
            )

    def _check_int(self, name: str, minimum: int) -> None:
        value = getattr(self, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise InvalidRules(name, f"expected a whole number >= {minimum}, got {value!r}")

    # -- construction helpers -------------------------------------------------------

    @classmethod
    def preset(cls, name: str) -> Rules:
        """A preset by name or alias: ``no_mercy`` (``nomercy``, ``default``), ``classic`` or ``rlcard``."""
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        key = _ALIASES.get(key, key)
        if key not in PRESETS:
            raise InvalidRules("preset", f"unknown preset {name!r}: use one of {', '.join(PRESETS)}")
        return PRESETS[key]

    def replace(self, /, **changes: Any) -> Rules:
        """A copy with some fields changed (validated like the constructor)."""
        unknown = set(changes) - set(self.field_names())
        if unknown:
            raise InvalidRules(sorted(unknown)[0], "no such house rule")
        return dataclasses.replace(self, **changes)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def describe(cls) -> list[tuple[str, object, str]]:
        """(name, default, doc) for every house rule, for ``nomercy rules`` and docs."""
        return [(f.name, f.default, f.metadata["doc"]) for f in dataclasses.fields(cls)]

    def to_dict(self, *, only_changes: bool = False) -> dict[str, Any]:
        """JSON-ready dict; ``deck`` is written by name when it is a named deck."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if only_changes and value == f.default:
                continue
            if f.name == "deck":
                value = _DECK_NAMES.get(value) or dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base: Rules | None = None) -> Rules:
        """Rules from a dict (a JSON object or a TOML table); ``preset`` picks the base."""
        if not isinstance(data, Mapping):
            raise InvalidRules("rules", f"expected a table of house rules, got {type(data).__name__}")
        data = dict(data)
        preset = data.pop("preset", None)
        start = cls.preset(str(preset)) if preset is not None else (base or cls())
        return start.replace(**data)

    def with_overrides(self, assignments: Iterable[str]) -> Rules:
        """Apply ``name=value`` strings from a command line, parsing values by field type."""
        changes: dict[str, Any] = {}
        types = {f.name: f.type for f in dataclasses.fields(self)}
        for item in assignments:
            name, sep, raw = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep:
                raise InvalidRules(name or item, f"expected name=value, got {item!r}")
            if name not in types:
                raise InvalidRules(name, "no such house rule (see 'nomercy rules')")
            changes[name] = _parse_value(name, str(types[name]), raw.strip())
        return self.replace(**changes)


def _parse_value(name: str, type_name: str, raw: str) -> Any:
    low = raw.lower()
    if type_name == "bool":
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise InvalidRules(name, f"expected true or false, got {raw!r}")
    if type_name.startswith("int"):
        if low in ("none", "null", "off"):
            return None
        try:
            return int(raw)
        except ValueError:
            raise InvalidRules(name, f"expected a whole number, got {raw!r}") from None
    return raw


_DECK_NAMES: dict[DeckSpec, str] = {NO_MERCY_DECK: "no_mercy", CLASSIC_DECK: "classic"}

#: Named presets (docs/rules.md, Presets).
PRESETS: dict[str, Rules] = {
    "no_mercy": Rules(),
    # Official classic UNO: draw one card, play it or keep it, or draw instead of playing;
    # the Wild Draw 4 challenge; a last Draw card still counts; first-card effects.
    "classic": Rules(
        deck=CLASSIC_DECK,
        first_card="official",
        draw_rule="one",
        must_play_drawn=False,
        draw_when_playable=True,
        stacking=False,
        seven_zero=False,
        mercy_limit=None,
        last_card_draw="apply",
        wild_draw4_challenge=True,
        target_score=500,
    ),
    # RLCard's UNO (``rlcard.make("uno")``) as far as house rules can say it, so that the
    # benchmark compares like with like; ``benchmarks/README.md`` lists what still differs.
    "rlcard": Rules(
        deck=CLASSIC_DECK,
        first_card="apply",
        draw_rule="one",
        must_play_drawn=True,
        stacking=False,
        seven_zero=False,
        mercy_limit=None,
        wild_draw4_restricted=True,
        uno_calls=False,
        two_player_reverse="opponent",
        last_card_draw="apply",
        play_drawn_at_once=True,
        target_score=500,
    ),
}
_ALIASES = {
    "nomercy": "no_mercy",
    "default": "no_mercy",
    "show_em_no_mercy": "no_mercy",
    "standard": "classic",
    "original": "classic",
    "uno": "classic",
}
