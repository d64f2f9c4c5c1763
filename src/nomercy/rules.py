"""House rules as data: one frozen :class:`Rules` value, one field per open question.

Every field names the rule of ``docs/rules.md`` it decides. Presets are plain ``Rules``
values found by name or alias (:meth:`Rules.preset`); house rules mix freely, so there is
never a subclass per variant. Invalid values fail at construction with a message naming
the field.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from nomercy.cards import CLASSIC_112_DECK, CLASSIC_DECK, NO_MERCY_DECK, DeckSpec, normalize_deck
from nomercy.errors import InvalidRules

__all__ = ["GROUPS", "PRESETS", "RuleField", "Rules"]

#: The groups a face shows the house rules in, in this order (the create form's fieldsets,
#: the lobby's list); each field names its own in its metadata.
GROUPS: tuple[str, ...] = ("dealing", "drawing", "stacking", "special", "sevens", "mercy", "uno", "scoring")

#: What a field's docstring starts with: the rule IDs of ``docs/rules.md`` it decides.
_RULE_ID = re.compile(r"([A-Z][1-9](?:-[A-Z]?[1-9])?(?:, [A-Z][1-9](?:-[A-Z]?[1-9])?)*): ")


def _rule(default: Any, doc: str, group: str, *, minimum: int | None = None) -> Any:
    """A house rule: its default, its docstring (starting with its rule IDs), the group it
    is shown in and, for a whole number, the least value it takes."""
    return field(default=default, metadata={"doc": doc, "group": group, "minimum": minimum})


@dataclass(frozen=True, slots=True)
class RuleField:
    """One house rule as every face shows it (the server's options, the create form,
    ``nomercy rules``, the docs' table, the native engine's and the catalogs' checks).

    ``type`` is ``"bool"``, ``"int"``, ``"choice"`` (one of ``choices``) or ``"deck"`` (a
    deck name or a table of card code to count); ``nullable`` says ``None`` is allowed
    (an int rule switched off); ``rule_id`` is the rule of ``docs/rules.md`` it decides
    (``"K3"``, ``"A2, P1"``, ``"N1-N4"``); ``key`` is the catalog prefix of its words
    (``key + ".label"``, ``".help"``, ``".value." + choice``).
    """

    name: str
    type: Literal["bool", "int", "choice", "deck"]
    choices: tuple[str, ...] | None
    default: object
    nullable: bool
    minimum: int | None
    group: str
    rule_id: str
    key: str
    doc: str


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
        "C3: the deck composition, a name ('no_mercy', 'classic', 'classic_112') or card code -> count",
        "dealing",
    )
    max_players: int = _rule(6, "S1: most players a table may seat (2 at least)", "dealing", minimum=2)
    hand_size: int = _rule(7, "S2: cards dealt to each player", "dealing", minimum=1)
    first_card: Literal["number", "apply", "official"] = _rule(
        "number",
        "S3: 'number' turns cards up until a number card starts the pile; "
        "'apply' applies the first card's effect as if the dealer had played it (RLCard's UNO); "
        "'official' as classic rules give it (a Reverse: the dealer starts and play goes the "
        "other way; a Wild Draw 4 goes back into the deck and another card is turned)",
        "dealing",
    )
    draw_rule: Literal["until_playable", "one"] = _rule(
        "until_playable",
        "T2: 'until_playable' draws until a playable card; 'one' draws a single card",
        "drawing",
    )
    must_play_drawn: bool = _rule(
        True, "T2: a playable drawn card must be played (false: it may be kept)", "drawing"
    )
    draw_when_playable: bool = _rule(
        False, "T3: a player may draw even when holding a playable card", "drawing"
    )
    two_player_reverse: Literal["self", "opponent"] = _rule(
        "self",
        "A2, P1: with 2 players a Reverse works like a Skip, so its own player goes again ('self'), "
        "or only changes direction, so the opponent plays next ('opponent', RLCard's UNO)",
        "special",
    )
    two_player_reverse_draw: Literal["self", "opponent"] = _rule(
        "self", "W1, P3: with 2 players a Wild Reverse Draw 4 hits its own player or the opponent", "special"
    )
    roulette_color: Literal["named", "revealed"] = _rule(
        "named", "W4: color in play after a Roulette: the named one or the last card turned up", "special"
    )
    stacking: bool = _rule(True, "K2: Draw cards may be stacked on a pending total", "stacking")
    draw10_stackable: bool = _rule(
        True, "K3: a Wild Draw 10 may itself be stacked on (false: it ends the stack)", "stacking"
    )
    stack_color: Literal["any", "match"] = _rule(
        "any", "K5: a colored Draw card stacks regardless of color ('any') or must match", "stacking"
    )
    seven_zero: bool = _rule(True, "N1-N4: Sevens swap hands and Zeros pass them", "sevens")
    mercy_limit: int | None = _rule(
        25, "M1: a player holding this many cards is knocked out (None disables)", "mercy", minimum=2
    )
    knockout_hand: Literal["aside", "discard_bottom"] = _rule(
        "aside",
        "M2: a knocked-out hand is set aside for the next reshuffle or put under the discard pile",
        "mercy",
    )
    uno_calls: bool = _rule(
        True, "U1-U3: players must call Uno and can be caught (false: no calls, no catches)", "uno"
    )
    uno_penalty: int = _rule(2, "U2: cards drawn by a player caught not calling Uno", "uno", minimum=0)
    uno_timing: Literal["own_play", "holding_one"] = _rule(
        "holding_one",
        "U1, U3: Uno must be called whenever a player comes to hold one card, also a hand of one "
        "received through a Seven or a Zero ('holding_one'), or only after one's own play "
        "that leaves one card ('own_play')",
        "uno",
    )
    last_card_draw: Literal["ignore", "apply"] = _rule(
        "ignore", "E2: a Draw card played as the last card is ignored or drawn by its victim", "scoring"
    )
    knockout_bonus_to: Literal["winner", "knocker"] = _rule(
        "winner", "E3: who scores the 250 for each knock-out", "scoring"
    )
    target_score: int = _rule(1000, "E4: points that win a scored match", "scoring", minimum=1)
    knocked_out_return: bool = _rule(
        True, "E4: knocked-out players are dealt back in for the next round of a match", "mercy"
    )
    wild_draw4_restricted: bool = _rule(
        False,
        "W5: classic only, a Wild Draw 4 may be played only when no other card is playable (RLCard's UNO)",
        "special",
    )
    wild_draw4_challenge: bool = _rule(
        False,
        "W6: a Wild Draw 4 is lawful only without a card of the color in play; it may be played "
        "anyway, and its victim may challenge it instead of taking the 4",
        "special",
    )
    play_drawn_at_once: bool = _rule(
        False,
        "T2: with must_play_drawn, a drawn card that leaves nothing to choose (no color, Seven "
        "target or Uno call) is played as part of the draw, not as a decision (RLCard's UNO)",
        "drawing",
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "deck", normalize_deck(self.deck))
        for rule in self.fields():
            value = getattr(self, rule.name)
            if rule.choices is not None and value not in rule.choices:
                options = ", ".join(repr(c) for c in rule.choices)
                raise InvalidRules(rule.name, f"{value!r} is not one of {options}")
            if rule.type == "bool" and not isinstance(value, bool):
                raise InvalidRules(rule.name, f"expected true or false, got {value!r}")
            if rule.minimum is not None and not (rule.nullable and value is None):
                self._check_int(rule.name, rule.minimum)
        if self.mercy_limit is not None and self.mercy_limit <= self.hand_size:
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
        """A preset by name or alias: ``no_mercy`` (``nomercy``, ``default``), ``classic`` (the
        108-card edition, ``classic_108``), ``classic_112`` (today's deck, ``classic2018``) or
        ``rlcard``."""
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
        """(name, default, doc) for every house rule (:meth:`fields` says more)."""
        return [(f.name, f.default, f.doc) for f in cls.fields()]

    @staticmethod
    def fields() -> tuple[RuleField, ...]:
        """Every house rule with its metadata, in declaration order: the one list that the
        server's options, the create form, ``nomercy rules``, the docs' table, the native
        engine's checks and the catalogs' completeness read, so that a new house rule is
        one field here and every face that does not know it fails a test."""
        return _all_fields()

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


@functools.cache
def _all_fields() -> tuple[RuleField, ...]:
    return tuple(_describe_field(f) for f in dataclasses.fields(Rules))


def _describe_field(f: dataclasses.Field[Any]) -> RuleField:
    """A field's :class:`RuleField`, its type and choices read from its annotation."""
    hint = typing.get_type_hints(Rules)[f.name]
    args = typing.get_args(hint)
    nullable = type(None) in args
    choices: tuple[str, ...] | None = None
    kind: Literal["bool", "int", "choice", "deck"]
    if typing.get_origin(hint) is Literal:
        kind, choices = "choice", tuple(str(a) for a in args)
    elif hint is bool:
        kind = "bool"
    elif hint is int or (nullable and int in args):
        kind = "int"
    elif f.name == "deck":
        kind = "deck"
    else:  # pragma: no cover - a new kind of field must be given a face first
        raise TypeError(f"Rules.{f.name}: no house-rule kind for {hint!r}")
    doc = str(f.metadata["doc"])
    found = _RULE_ID.match(doc)
    if found is None or f.metadata.get("group") not in GROUPS:  # pragma: no cover
        raise TypeError(f"Rules.{f.name}: its doc must start with its rule IDs and it needs a group")
    return RuleField(
        name=f.name,
        type=kind,
        choices=choices,
        default=f.default,
        nullable=nullable,
        minimum=f.metadata.get("minimum"),
        group=str(f.metadata["group"]),
        rule_id=found.group(1),
        key=f"rule.{f.name}",
        doc=doc,
    )


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


_DECK_NAMES: dict[DeckSpec, str] = {
    NO_MERCY_DECK: "no_mercy",
    CLASSIC_DECK: "classic",
    CLASSIC_112_DECK: "classic_112",
}

# Official classic UNO: draw one card, play it or keep it, or draw instead of playing;
# the Wild Draw 4 challenge; a last Draw card still counts; first-card effects.
_CLASSIC = Rules(
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
)

#: Named presets (docs/rules.md, Presets).
PRESETS: dict[str, Rules] = {
    "no_mercy": Rules(),
    "classic": _CLASSIC,
    # Today's edition of classic UNO: the same rules with the 112-card deck, whose Wild
    # Shuffle Hands (W7) and blank wilds (W8) the 108-card ``classic`` edition lacks.
    "classic_112": _CLASSIC.replace(deck=CLASSIC_112_DECK),
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
    "classic_108": "classic",
    "classic112": "classic_112",
    "classic2018": "classic_112",
    "classic_2018": "classic_112",
}
