"""Property-based tests (Hypothesis): notation round-trips, rules validation, bad input.

- Section 14: ``Card.parse(str(c)) is c`` for every card, in any case; actions
  round-trip the same way; garbage raises ``InvalidCard`` / ``InvalidAction`` and never
  another exception type.
- ``Rules``: each field's invalid values raise ``InvalidRules`` naming that field; valid
  combinations round-trip through ``to_dict`` / ``from_dict`` and ``with_overrides``.
- ``GameState.from_json`` (and records and matches) on garbage or mutated JSON raise
  only ``InvalidState``; whatever they accept plays on without crashing.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from hypothesis import assume, event, example, given, settings
from hypothesis import strategies as st

import nomercy
from nomercy import (
    Action,
    CallUno,
    Card,
    Catch,
    ChooseColor,
    Color,
    Draw,
    GameRecord,
    GameState,
    InvalidAction,
    InvalidCard,
    InvalidRules,
    InvalidState,
    Match,
    NoMercyError,
    Pass,
    Play,
    Rules,
    Take,
)
from nomercy.testing import RandomPlayer
from nomercy.views import player_view


def examples(count: int) -> settings:
    """``count`` examples, or the loaded profile's count if lower (``make check`` loads the
    ``fast`` profile of tests/conftest.py)."""
    return settings(max_examples=min(count, settings().max_examples))


SETTINGS = examples(150)
FEW = examples(60)

cards = st.sampled_from(Card.ALL)
colors = st.sampled_from(list(Color))
seats = st.integers(min_value=0, max_value=12)


def case_variants(text: str) -> st.SearchStrategy[str]:
    """``text`` with each letter in either case and some whitespace around it."""
    return st.tuples(
        st.lists(st.booleans(), min_size=len(text), max_size=len(text)),
        st.sampled_from(["", " ", "  ", "\t"]),
        st.sampled_from(["", " ", "\n"]),
    ).map(
        lambda t: (
            t[1] + "".join(c.upper() if up else c.lower() for c, up in zip(text, t[0], strict=True)) + t[2]
        )
    )


# -- cards ---------------------------------------------------------------------------------------


def test_every_card_round_trips() -> None:
    """Section 14: parse(str(card)) is the same interned card, for all 58 card values."""
    for card in Card.ALL:
        assert Card.parse(str(card)) is card
        assert Card.parse(card.code.lower()) is card
        assert Card(card.color, card.face) is card
        assert eval(repr(card), {"Card": Card}) is card  # noqa: S307 - its repr is Python that rebuilds it


@SETTINGS
@given(data=st.data(), card=cards)
def test_card_text_in_any_case_parses(data: st.DataObject, card: Card) -> None:
    text = data.draw(case_variants(card.code))
    assert Card.parse(text) is card


@SETTINGS
@given(data=st.data(), color=colors)
def test_color_letters_and_names_parse(data: st.DataObject, color: Color) -> None:
    text = data.draw(st.sampled_from([color.letter, color.name]).flatmap(case_variants))
    assert Color.parse(text) is color


CARD_ALPHABET = "RYGBWSDAECrygbwsdaec0123456789+-@ \t²٣"


@SETTINGS
@given(text=st.text(max_size=8) | st.text(alphabet=CARD_ALPHABET, max_size=6))
def test_garbage_is_not_a_card(text: str) -> None:
    try:
        card = Card.parse(text)
    except InvalidCard as err:
        assert err.code == "invalid_card" and str(err)
    else:
        assert card.code == text.strip().upper()


# -- actions --------------------------------------------------------------------------------------

plays = st.builds(Play, cards, st.none() | colors, st.none() | seats, st.booleans())
actions: st.SearchStrategy[Action] = st.one_of(
    plays,
    st.sampled_from([Draw(), Pass(), Take(), CallUno()]),
    colors.map(ChooseColor),
    seats.map(Catch),
)


@SETTINGS
@given(action=actions)
def test_action_text_round_trips(action: Action) -> None:
    text = str(action)
    assert Action.parse(text) == action
    assert hash(Action.parse(text)) == hash(action)
    assert Action.parse(text.upper()) == action
    assert Action.parse("  " + text.replace(" ", "   ") + " ") == action
    assert eval(repr(action), {"Action": Action}) == action  # noqa: S307 - its repr is Python that rebuilds it


WORDS = ["play", "draw", "pass", "take", "color", "uno", "catch", "PLAY", "R7", "W+6", "wcr", "B", "g",
         "red", "@1", "@", "@x", "3", "-1", "²", "٣", "+2", "uno", "", "@@2", "1.5"]  # fmt: skip


@SETTINGS
@given(text=st.text(max_size=12) | st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join))
def test_garbage_is_not_an_action(text: str) -> None:
    """Only InvalidAction, with a message; what parses round-trips."""
    try:
        action = Action.parse(text)
    except InvalidAction as err:
        assert err.code == "invalid_action" and str(err)
    else:
        assert Action.parse(str(action)) == action


def test_seats_are_ascii_digits() -> None:
    """'²' is a digit to str.isdigit() but not to int(): it must be an InvalidAction too."""
    for text in ("catch ²", "play R7 @²", "catch ¹²", "catch ٣", "catch -1", "catch 1.5", "play G7 @"):
        with pytest.raises(InvalidAction):
            Action.parse(text)
    assert Action.parse("catch 12") == Catch(12) and Action.parse("play G7 @03") == Play(
        Card.parse("G7"), None, 3
    )


# -- rules -------------------------------------------------------------------------------------------

#: Values that each field must refuse, naming itself.
INVALID: dict[str, st.SearchStrategy[Any]] = {
    "deck": st.one_of(
        st.sampled_from(
            [
                "",
                "poker",
                "uno_flip",
                5,
                None,
                1.5,
                [("R7",)],
                {},
                {"XX": 3},
                {"R7": -1},
                {"R7": 1.5},
                {"R7": True},
                {"WCR": 30},
                {5: 3},
                [["R7", "2"]],
            ]
        ),
        st.text(min_size=1, max_size=6).filter(
            lambda s: s.strip().lower() not in ("no_mercy", "classic", "nomercy")
        ),
    ),
    "two_player_reverse": st.sampled_from(["skip", None, 1]),
    "max_players": st.sampled_from([1, 0, -3, "6", 6.0, True, None]),
    "hand_size": st.sampled_from([0, -1, "7", 7.5, False, None]),
    "first_card": st.sampled_from(["numbers", "", "APPLY", None, 1, True]),
    "draw_rule": st.sampled_from(["until playable", "two", None, 0]),
    "must_play_drawn": st.sampled_from(["true", 1, 0, None, "yes"]),
    "draw_when_playable": st.sampled_from(["false", 1, None]),
    "two_player_reverse_draw": st.sampled_from(["both", None, 2]),
    "roulette_color": st.sampled_from(["last", None, "NAMED"]),
    "stacking": st.sampled_from(["no", 0, None]),
    "draw10_stackable": st.sampled_from([1, "True", None]),
    "stack_color": st.sampled_from(["same", None, True]),
    "seven_zero": st.sampled_from(["off", 1]),
    "mercy_limit": st.sampled_from([1, 0, -25, "25", 25.0, True, 7, 5]),
    "knockout_hand": st.sampled_from(["discard", "bottom", None]),
    "uno_calls": st.sampled_from(["on", 1]),
    "uno_penalty": st.sampled_from([-1, "2", 2.5, None, True]),
    "last_card_draw": st.sampled_from(["draw", None]),
    "knockout_bonus_to": st.sampled_from(["loser", "Winner", None]),
    "target_score": st.sampled_from([0, -500, "500", 500.0, None, False]),
    "knocked_out_return": st.sampled_from(["yes", 0]),
    "wild_draw4_restricted": st.sampled_from(["no", 1]),
    "play_drawn_at_once": st.sampled_from(["yes", 0, None]),
    "uno_timing": st.sampled_from(["own", "always", None, 1]),
    "wild_draw4_challenge": st.sampled_from(["yes", 1, None]),
}


def test_every_house_rule_has_invalid_values_here() -> None:
    assert set(INVALID) <= set(Rules.field_names())
    missing = set(Rules.field_names()) - set(INVALID)
    assert not missing, f"add invalid values for {missing}"


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(INVALID)))
def test_invalid_values_name_their_field(data: st.DataObject, name: str) -> None:
    value = data.draw(INVALID[name])
    with pytest.raises(InvalidRules) as err:
        Rules(**{name: value})
    assert err.value.field == name, (name, value, str(err.value))
    assert str(err.value).startswith(name + ":")
    with pytest.raises(InvalidRules) as err:
        Rules.from_dict({name: value})
    assert err.value.field == name


def test_hand_size_too_big_for_the_deck_names_hand_size() -> None:
    with pytest.raises(InvalidRules) as err:
        Rules(hand_size=100, mercy_limit=None)
    assert err.value.field == "hand_size"


@SETTINGS
@given(
    name=st.text(min_size=1, max_size=10).filter(
        lambda s: s.replace("-", "_").strip() not in Rules.field_names()
    )
)
@example(name="self")  # once a TypeError: Rules.replace's own parameter
def test_unknown_house_rules_are_named(name: str) -> None:
    assume("=" not in name)
    with pytest.raises(InvalidRules) as err:
        Rules().with_overrides([f"{name}=1"])
    assert err.value.field == name.strip().replace("-", "_")
    with pytest.raises(InvalidRules):
        Rules.from_dict({name: 1})


decks = st.one_of(
    st.sampled_from(["no_mercy", "classic"]),
    st.dictionaries(
        st.sampled_from([c.code for c in Card.ALL if not c.is_number]), st.integers(0, 6), max_size=6
    ).flatmap(lambda d: st.sampled_from(["R1", "G5", "B9"]).map(lambda n: {**d, n: 30})),
)


@st.composite
def valid_rules(draw: st.DrawFn) -> dict[str, Any]:
    """Keyword arguments for a valid Rules: any mix of house rules."""
    kw: dict[str, Any] = {}
    for rule in Rules.fields():
        if rule.choices is not None and draw(st.booleans()):
            kw[rule.name] = draw(st.sampled_from(rule.choices))
    for name in ("must_play_drawn", "draw_when_playable", "stacking", "draw10_stackable", "seven_zero",
                 "uno_calls", "knocked_out_return", "wild_draw4_restricted"):  # fmt: skip
        if draw(st.booleans()):
            kw[name] = draw(st.booleans())
    if draw(st.booleans()):
        kw["deck"] = draw(decks)
    hand = draw(st.integers(1, 10))
    kw["hand_size"] = hand
    kw["mercy_limit"] = draw(st.none() | st.integers(hand + 1, 60))
    kw["max_players"] = draw(st.integers(2, 10))
    kw["uno_penalty"] = draw(st.integers(0, 8))
    kw["target_score"] = draw(st.integers(1, 5000))
    return kw


def _text(value: Any) -> str:
    """A value as a command line writes it (``name=value``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@SETTINGS
@given(kw=valid_rules())
def test_valid_rules_round_trip(kw: dict[str, Any]) -> None:
    rules = Rules(**kw)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict(only_changes=True)))) == rules
    assert Rules().replace(**kw) == rules
    named = {k: v for k, v in kw.items() if k != "deck" or isinstance(v, str)}
    overrides = [
        f"{k.replace('_', '-') if i % 2 else k}={_text(v)}" for i, (k, v) in enumerate(named.items())
    ]
    assert Rules(**named) == Rules().with_overrides(overrides)


def test_with_overrides_reads_command_line_values() -> None:
    rules = Rules().with_overrides(
        [
            "stacking=false",
            "mercy-limit=none",
            "stack_color=match",
            "hand_size=5",
            "deck=classic",
            "uno_calls=off",
        ]
    )
    assert rules == Rules(stacking=False, mercy_limit=None, stack_color="match", hand_size=5,
                          deck="classic", uno_calls=False)  # fmt: skip
    bad_values = [("stacking=maybe", "stacking"), ("hand_size=seven", "hand_size"), ("nonsense", "nonsense"),
                  ("mercy_limit=3", "mercy_limit"), ("stack_color=rainbow", "stack_color")]  # fmt: skip
    for bad, field in bad_values:
        with pytest.raises(InvalidRules) as err:
            Rules().with_overrides([bad])
        assert err.value.field == field


# -- saved states --------------------------------------------------------------------------------


def _positions() -> list[dict[str, Any]]:
    """Saved states from random games: every decision kind, both presets, some house rules."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rules in (Rules(), Rules.preset("classic"), Rules(first_card="apply", must_play_drawn=False)):
        for seed in range(12):
            state = nomercy.new_game(2 + seed % 5, rules, seed)
            rng = random.Random(seed)
            while True:
                key = state.decision.label + str(bool(state.uno_open)) + str(bool(state.knocked_out))
                if key not in seen or rng.random() < 0.02:
                    seen.add(key)
                    out.append(state.to_dict())
                if state.is_over:
                    break
                state.apply(rng.choice(state.legal_actions()))
    return out


POSITIONS = _positions()
STATE_KEYS = sorted({k for p in POSITIONS for k in p})

json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.integers(),
    st.floats(),
    st.text(max_size=4),
    st.sampled_from(
        [c.code for c in Card.ALL] + ["R", "G", "play", "stack", "over", "roulette", "play_drawn"]
    ),
    st.sampled_from([1.0, -1.0, 0.0, 2.0, 10**20, -(10**20), 1e308]),
)
json_values = st.recursive(
    json_leaves,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=8,
)


def _mutate(value: Any, data: st.DataObject) -> Any:
    """``value`` with one random change somewhere inside: replaced, deleted or added."""
    if isinstance(value, dict) and value:
        key = data.draw(st.sampled_from(sorted(value)))
        op = data.draw(st.sampled_from(["descend", "descend", "replace", "delete", "add"]))
        out = dict(value)
        if op == "descend":
            out[key] = _mutate(value[key], data)
        elif op == "replace":
            out[key] = data.draw(json_values)
        elif op == "delete":
            del out[key]
        else:
            out[data.draw(st.sampled_from([*STATE_KEYS, "total", "seat", "by", "winner", "x"]))] = data.draw(
                json_values
            )
        return out
    if isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1))
        op = data.draw(st.sampled_from(["descend", "replace", "delete", "duplicate"]))
        out_list = list(value)
        if op == "descend":
            out_list[i] = _mutate(value[i], data)
        elif op == "replace":
            out_list[i] = data.draw(json_values)
        elif op == "delete":
            del out_list[i]
        else:
            out_list.insert(i, value[i])
        return out_list
    return data.draw(json_values)


def _load_or_refuse(text: str | bytes) -> GameState | None:
    try:
        return GameState.from_json(text)
    except InvalidState as err:
        assert err.code == "invalid_state" and str(err)
        return None


def _plays_on(state: GameState) -> None:
    """An accepted state answers the two questions and applies its legal actions."""
    assert GameState.from_json(state.to_json()) == state
    for seat in [*range(state.players), None]:
        player_view(state, seat).to_dict()
    for action in state.legal_actions()[:6]:
        copy = state.clone()
        with contextlib.suppress(NoMercyError):  # a hand-built state may be odd, never crash
            copy.apply(action)


@SETTINGS
@given(text=st.text(max_size=40) | st.binary(max_size=20) | json_values.map(json.dumps))
def test_garbage_json_is_an_invalid_state(text: str | bytes) -> None:
    state = _load_or_refuse(text)
    if state is not None:
        _plays_on(state)


@examples(400)
@given(data=st.data(), index=st.integers(0, len(POSITIONS) - 1), changes=st.integers(1, 3))
def test_mutated_states_are_refused_or_play_on(data: st.DataObject, index: int, changes: int) -> None:
    value: Any = POSITIONS[index]
    for _ in range(changes):
        value = _mutate(value, data)
    state = _load_or_refuse(json.dumps(value))
    event("accepted" if state is not None else "refused")
    if state is not None:
        _plays_on(state)


def test_every_saved_position_loads_back() -> None:
    assert len(POSITIONS) > 30
    for data in POSITIONS:
        state = GameState.from_dict(data)
        assert state.to_dict() == data


@pytest.mark.parametrize("loader", [GameState.from_json, GameRecord.from_json, Match.from_json])
def test_deeply_nested_json_is_an_invalid_state(loader: Any) -> None:
    with pytest.raises(InvalidState):
        loader("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidState):
        loader('{"points": [' * 50_000)


def test_non_finite_numbers_are_an_invalid_state() -> None:
    over = next(p for p in POSITIONS if p["outcome"] is not None)
    for bad in (float("inf"), float("nan")):
        data = json.loads(json.dumps(over))
        data["outcome"]["points"][0] = bad
        with pytest.raises(InvalidState):
            GameState.from_json(json.dumps(data))


@FEW
@given(data=st.data(), changes=st.integers(1, 3))
def test_mutated_records_and_matches_are_refused_or_load(data: st.DataObject, changes: int) -> None:
    match = Match(players=3, seed=4)
    state = match.state
    rng = random.Random(4)
    for _ in range(12):
        if match.round_over:
            break
        match.apply(rng.choice(state.legal_actions()))
    for loader, value in ((GameRecord.from_json, match.record.to_dict()), (Match.from_json, match.to_dict())):
        mutated: Any = value
        for _ in range(changes):
            mutated = _mutate(mutated, data)
        try:
            loader(json.dumps(mutated))
        except InvalidState as err:
            assert str(err)


@pytest.mark.parametrize("direction", [1.0, -1.0, True, "1", 0, 2, None])
def test_direction_must_be_the_integer_1_or_minus_1(direction: Any) -> None:
    """A direction of 1.0 or true once loaded and then crashed the engine on the next turn."""
    data = dict(POSITIONS[1], direction=direction)
    assert data["outcome"] is None
    with pytest.raises(InvalidState, match="direction"):
        GameState.from_dict(data)


# -- every state of a random game loads back equal, under any rules ------------------------


def _rules_from(preset: str, kw: dict[str, Any]) -> Rules | None:
    """``preset`` with the house rules of ``kw`` over it, less any that the mix refuses
    (e.g. W6's challenge with stacking); None when the preset alone is left and refused."""
    kw = {k: v for k, v in kw.items() if k != "deck"}  # the preset's deck: a custom one may never end
    while True:
        try:
            return Rules.preset(preset).replace(**kw)
        except InvalidRules as exc:
            if exc.field not in kw:
                return None
            del kw[exc.field]


STEPS = 500


@examples(80)
@given(
    preset=st.sampled_from(["no_mercy", "classic", "rlcard"]),
    kw=valid_rules(),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**63 - 1),
    catch_rate=st.sampled_from([0.0, 0.5]),
)
def test_every_state_of_a_random_game_loads_back_equal(
    preset: str, kw: dict[str, Any], players: int, seed: int, catch_rate: float
) -> None:
    """E1, W6, T4: under any preset and mix of house rules, every state of a random game,
    the finished one included, loads back equal (``from_json(to_json(s)) == s``), and every
    applied action yields at least one event. A game still going after ``STEPS`` steps (no
    Mercy limit can make one long) is checked that far."""
    rules = _rules_from(preset, kw)
    assume(rules is not None)
    assert rules is not None
    assume(players <= rules.max_players and players * rules.hand_size < sum(n for _, n in rules.deck))
    state = nomercy.new_game(players, rules, seed=seed)
    assert GameState.from_json(state.to_json()) == state
    rng = random.Random(seed)
    choose = RandomPlayer(catch_rate=catch_rate)
    for _ in range(STEPS):
        if state.is_over:
            break
        seat, action = choose(state, rng)
        events = state.apply(action, seat)
        assert events, f"{action} by P{seat} yielded no event"
        assert GameState.from_json(state.to_json()) == state, f"after {action} by P{seat}"
    event("finished" if state.is_over else f"still going after {STEPS} steps")
    assert GameState.from_json(state.to_json()) == state
