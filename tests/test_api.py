"""The public API exists and behaves as documented: the core calls, the presets, parsing."""

from __future__ import annotations

import importlib
import json
import random
import re
import types
from collections.abc import Callable
from pathlib import Path

import pytest

import nomercy
from nomercy import (
    Action,
    Card,
    Decision,
    GameOver,
    GameRecord,
    GameState,
    IllegalAction,
    InvalidAction,
    InvalidCard,
    InvalidRules,
    InvalidSeat,
    InvalidState,
    Match,
    NoMercyError,
    NotYourTurn,
    Rules,
    determinize,
    replay,
)
from nomercy.views import player_view

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_core_calls_work_together() -> None:
    rules = nomercy.Rules()
    assert rules == nomercy.Rules.preset("no_mercy")
    classic = nomercy.Rules.preset("classic")
    mixed = nomercy.Rules(stack_color="match", draw10_stackable=False)
    assert (mixed.stack_color, mixed.draw10_stackable) == ("match", False)
    for r in (rules, classic, mixed):
        state = nomercy.new_game(players=4, rules=r, seed=42)
        seat = state.current_player
        assert seat in range(4)
        actions = state.legal_actions()
        assert actions and all(isinstance(a, Action) for a in actions)
        copy = state.clone()
        events = state.apply(actions[0])
        assert events and all(isinstance(e, nomercy.Event) for e in events)
        assert copy != state and copy.step == 0
        assert state.is_over is False and state.outcome is None
        assert player_view(state, seat).seat == seat and player_view(state, None).hand == ()
        assert GameState.from_json(state.to_json()) == state
    assert str(nomercy.Card.parse("W+10")) == "W+10"
    assert str(nomercy.Action.parse("play W+6 B")) == "play W+6 B"


#: The core modules whose classes make up the package's vocabulary. ``nomercy.events`` is
#: not among them: its event classes are documented and reached as ``nomercy.events.X``
#: (the package exports the ``Event`` union and ``redact`` only).
VOCABULARY = ("actions", "cards", "engine", "errors", "match", "record", "rules", "state", "views")

#: Public classes of those modules that stay out of ``nomercy``, and why.
NOT_EXPORTED = {
    "nomercy.state.StateData": "GameState's data and JSON codec: users meet it as GameState",
}


def test_public_names_are_exported() -> None:
    """``__all__`` names what the package holds, in both directions."""
    for name in nomercy.__all__:
        assert hasattr(nomercy, name), f"nomercy.__all__ names {name!r}, which nomercy lacks"
    assert len(set(nomercy.__all__)) == len(nomercy.__all__)
    public = {
        name
        for name, value in vars(nomercy).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(nomercy.__all__), "public names of nomercy that __all__ leaves out, or the reverse"
    for name in ("full_deck", "new_game", "replay", "redact", "determinize", "Match", "GameRecord"):
        assert name in nomercy.__all__


@pytest.mark.parametrize("module_name", VOCABULARY)
def test_every_public_class_of_the_core_is_exported(module_name: str) -> None:
    """Each class a core module lists in its ``__all__`` is ``nomercy.<name>``, the same object."""
    module = importlib.import_module(f"nomercy.{module_name}")
    classes = [name for name in module.__all__ if isinstance(getattr(module, name), type)]
    assert classes, f"nomercy.{module_name} exports no class"
    for name in classes:
        if f"nomercy.{module_name}.{name}" in NOT_EXPORTED:
            assert name not in nomercy.__all__
            continue
        assert name in nomercy.__all__, f"nomercy.{module_name}.{name} is missing from nomercy.__all__"
        assert getattr(nomercy, name) is getattr(module, name)


def test_every_action_class_is_exported() -> None:
    """W6's ``challenge`` included: every concrete action type parses from its text form."""
    from nomercy import actions

    concrete = {
        cls.__name__ for cls in vars(actions).values() if isinstance(cls, type) and issubclass(cls, Action)
    } - {"Action", "_Bare"}
    assert concrete <= set(nomercy.__all__)
    assert type(Action.parse("challenge")) is nomercy.Challenge


@pytest.mark.parametrize(
    ("name", "preset"),
    [
        ("no_mercy", "no_mercy"),
        ("nomercy", "no_mercy"),
        ("default", "no_mercy"),
        ("No-Mercy", "no_mercy"),
        (" NO MERCY ", "no_mercy"),
        ("show_em_no_mercy", "no_mercy"),
        ("classic", "classic"),
        ("Classic", "classic"),
        ("standard", "classic"),
        ("original", "classic"),
        ("uno", "classic"),
    ],
)
def test_presets_by_name_and_alias(name: str, preset: str) -> None:
    """Section 13: presets are plain Rules values found by name or alias."""
    assert Rules.preset(name) is nomercy.PRESETS[preset]


def test_unknown_preset_names_the_field() -> None:
    with pytest.raises(InvalidRules) as err:
        Rules.preset("speed uno")
    assert err.value.field == "preset" and "classic" in str(err.value)


def test_presets_differ_as_section_13_says() -> None:
    classic = Rules.preset("classic")
    assert Rules() == nomercy.PRESETS["no_mercy"]
    assert (classic.draw_rule, classic.stacking, classic.seven_zero) == ("one", False, False)
    assert (classic.mercy_limit, classic.target_score) == (None, 500)


def test_full_deck_sizes() -> None:
    """C3 and docs/rules.md section 13: 168 cards for no_mercy, 108 for classic."""
    assert len(nomercy.full_deck(Rules())) == 168
    assert len(nomercy.full_deck()) == 168
    assert len(nomercy.full_deck(Rules.preset("classic"))) == 108
    deck = nomercy.full_deck()
    deck.clear()  # a new list each time
    assert len(nomercy.full_deck()) == 168
    custom = Rules(deck={"R1": 10, "B2": 10, "WCR": 2}, hand_size=3)
    assert sorted(map(str, nomercy.full_deck(custom))) == sorted(["R1"] * 10 + ["B2"] * 10 + ["WCR"] * 2)


# -- matches ----------------------------------------------------------------------------------


def _play_action(match: Match, rng: random.Random) -> tuple[int, Action]:
    """A random action of the deciding seat, or now and then an out-of-turn catch."""
    state = match.state
    cur = state.current_player
    assert cur is not None
    if state.uno_open and rng.random() < 0.5:
        others = [(s, a) for s in range(state.players) if s != cur for a in state.legal_actions(s)]
        if others:
            return rng.choice(others)
    return cur, rng.choice(state.legal_actions())


def _play_match(
    match: Match, rng: random.Random, stop: Callable[[Match], bool] = lambda m: False
) -> list[list[dict[str, object]]]:
    """Play on to the end of the match (or until ``stop`` says so); the events seen."""
    log: list[list[dict[str, object]]] = []
    while not match.is_over:
        if match.round_over:
            match.next_round()
            continue
        if stop(match):
            break
        seat, action = _play_action(match, rng)
        log.append([e.to_dict() for e in match.apply(action, seat)])
    return log


@pytest.mark.parametrize("preset", ["no_mercy", "classic"])
def test_match_plays_to_the_target_and_the_deal_moves_left(preset: str) -> None:
    """E3/E4: rounds until a total reaches the target; the dealer moves one seat left."""
    rules = Rules.preset(preset)
    match = Match(players=4, rules=rules, seed=1)
    _play_match(match, random.Random(1))
    assert match.is_over and match.winner is not None
    assert len(match.rounds) >= 2
    assert max(match.scores) >= rules.target_score
    assert match.scores[match.winner] == max(match.scores)
    totals = [sum(r.points[s] for r in match.rounds) for s in range(4)]
    assert totals == match.scores
    for before, after in zip(match.rounds, match.rounds[1:], strict=False):
        assert after.number == before.number + 1
        assert after.dealer == (before.dealer + 1) % 4
        assert after.seed != before.seed
    for r in match.rounds:
        assert sum(r.points) == r.points[r.winner]  # only the winner scores (E3, default)
    with pytest.raises(IllegalAction):
        match.next_round()


def test_a_match_resumes_mid_round_from_json() -> None:
    """A saved match (mid-round) loads and plays on exactly as the original does."""
    match = Match(players=3, rules=Rules(), seed=7)
    _play_match(match, random.Random(3), stop=lambda m: len(m.rounds) == 1 and m.state.step >= 9)
    assert match.round_number == 2 and match.state.step == 9 and not match.round_over
    saved = match.to_json()
    loaded = Match.from_json(saved)
    assert loaded.to_json() == saved
    assert loaded.state == match.state
    log_a = _play_match(match, random.Random(5))
    log_b = _play_match(loaded, random.Random(5))
    assert log_a == log_b
    assert loaded.to_json() == match.to_json() and loaded.winner == match.winner


def test_match_from_json_refuses_garbage() -> None:
    match = Match(players=2, seed=3)
    data = json.loads(match.to_json())
    for bad in ("{", "[]", json.dumps({**data, "format": "chess"}), json.dumps({**data, "players": "x"})):
        with pytest.raises(InvalidState):
            Match.from_json(bad)


# -- records -------------------------------------------------------------------------------------


def test_game_record_round_trips_and_replays() -> None:
    record, state = GameRecord.start(5, Rules(stack_color="match"), seed=11)
    rng = random.Random(11)
    halfway = None
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        seat = state.current_player
        assert seat is not None
        state.apply(action)
        record.add(seat, action)
        if len(record.actions) == 10:
            halfway = state.clone()
    loaded = GameRecord.from_json(record.to_json(indent=2))
    assert loaded == record
    assert loaded.to_dict() == record.to_dict()
    assert replay(loaded) == state
    assert replay(loaded, upto=10) == halfway


def test_a_record_with_an_illegal_action_is_refused() -> None:
    record, _ = GameRecord.start(2, Rules(), seed=1)
    record.add(0, Action.parse("take"))
    record.add(1, Action.parse("take"))
    with pytest.raises(InvalidState, match="record action"):
        replay(record)


# -- errors --------------------------------------------------------------------------------------

CODES = {
    NoMercyError: "error",
    InvalidCard: "invalid_card",
    InvalidAction: "invalid_action",
    InvalidRules: "invalid_rules",
    InvalidState: "invalid_state",
    InvalidSeat: "invalid_seat",
    IllegalAction: "illegal_action",
    NotYourTurn: "not_your_turn",
    GameOver: "game_over",
}


def test_errors_are_one_tree_with_stable_codes() -> None:
    for cls, code in CODES.items():
        assert issubclass(cls, NoMercyError)
        assert cls.code == code
    assert len(set(CODES.values())) == len(CODES)
    assert issubclass(NotYourTurn, IllegalAction) and issubclass(GameOver, IllegalAction)


def test_errors_are_raised_where_the_docs_say() -> None:
    state = nomercy.new_game(players=3, seed=5)
    cases = [
        (lambda: Card.parse("R11"), InvalidCard),
        (lambda: Action.parse("fly away"), InvalidAction),
        (lambda: Rules(hand_size=0), InvalidRules),
        (lambda: GameState.from_json("{"), InvalidState),
        (lambda: state.apply(Action.parse("take")), IllegalAction),
        (lambda: player_view(state, 3), InvalidSeat),
        (lambda: Rules(deck={"R1": 10**12}), InvalidRules),
    ]
    other = next(s for s in range(3) if s != state.current_player)
    cases.append((lambda: state.apply(Action.parse("draw"), other), NotYourTurn))
    for call, cls in cases:
        with pytest.raises(NoMercyError) as err:
            call()
        assert type(err.value) is cls and err.value.code == CODES[cls]
        assert str(err.value)
    finished = nomercy.new_game(players=2, seed=5)
    while not finished.is_over:
        finished.apply(finished.legal_actions()[0])
    with pytest.raises(GameOver) as over:
        finished.apply(Action.parse("draw"))
    assert over.value.code == "game_over"


def test_C3_a_custom_deck_is_capped() -> None:
    """C3: a custom deck may not ask for more cards than any table could hold."""
    assert len(nomercy.full_deck(Rules(deck={"R1": 500, "G2": 500}))) == 1000
    with pytest.raises(InvalidRules, match="more than the 1000") as err:
        Rules(deck={"R1": 500, "G2": 501})
    assert err.value.field == "deck"


def test_invalid_rules_names_the_field() -> None:
    with pytest.raises(InvalidRules) as err:
        Rules(stack_color="rainbow")
    assert err.value.field == "stack_color" and "rainbow" in str(err.value)


# -- views -----------------------------------------------------------------------------------------


def test_determinize_keeps_a_play_drawn_decision_when_only_another_hand_has_a_playable_card() -> None:
    """T2: seat 1 must play the card it drew; a sample for seat 0 must keep that decision.

    The draw pile is empty, so the playable card can only come from the hidden hands;
    determinize once dropped to decision 'play' when seat 1's sampled hand had none.
    """
    rules = Rules(deck={"R1": 1, "R3": 1, "B2": 12}, hand_size=1, mercy_limit=None, draw_rule="one")
    state = GameState.from_dict(
        {
            "rules": rules.to_dict(only_changes=True),
            "hands": [["B2"], ["B2", "R3"], ["B2"] * 8],
            "draw_pile": [],
            "discard_pile": ["R1", "B2", "B2"],
            "current": 1,
            "decision": "play_drawn",
            "drawn": "R3",
        }
    )
    view = player_view(state, 0)
    for seed in range(40):
        sample = determinize(view, random.Random(seed))
        assert sample.decision is Decision.PLAY_DRAWN
        assert sample.drawn is Card.parse("R3") and sample.drawn in sample.hands[1]
        assert sample.hands[0] == state.hands[0]
        assert player_view(sample, 0) == view
        sample.apply(Action.parse("play R3"))


# -- docs ------------------------------------------------------------------------------------------


def _json_blocks(path: Path) -> list[str]:
    return re.findall(r"```json\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_the_hand_built_example_of_the_state_format_doc_loads_and_plays() -> None:
    """docs/state-format.md: the worked example is a valid state that plays as it says."""
    blocks = [b for b in _json_blocks(DOCS / "state-format.md") if '"hands"' in b]
    assert blocks, "docs/state-format.md lost its hand-built example"
    state = GameState.from_json(blocks[0])
    assert state.current_player == 1 and state.decision is Decision.STACK and state.pending_total == 6
    assert state.top is Card.parse("W+6") and state.direction == -1
    assert sorted(map(str, state.legal_actions())) == ["play W+10 B", "play W+10 G", "play W+10 R",
                                                       "play W+10 Y", "take"]  # fmt: skip
    events = state.apply(Action.parse("take"))
    assert [e.type for e in events] == ["drew"]
    assert len(state.hand(1)) == 9 and state.current_player == 0  # K7: the next seat plays
    assert GameState.from_json(state.to_json()) == state


def test_every_json_example_of_the_state_format_doc_loads() -> None:
    """The record and match examples are real: they load, replay and say what the text says."""
    loaded: dict[str, object] = {}
    for block in _json_blocks(DOCS / "state-format.md"):
        kind = json.loads(block)["format"]
        loader = {"nomercy.state": GameState, "nomercy.record": GameRecord, "nomercy.match": Match}[kind]
        loaded[kind] = loader.from_json(block)  # type: ignore[attr-defined]
    assert set(loaded) == {"nomercy.state", "nomercy.record", "nomercy.match"}
    record = loaded["nomercy.record"]
    assert isinstance(record, GameRecord)
    state = replay(record)
    assert (state.current_player, len(state.hand(1)), state.direction) == (0, 7 - 1 + 8, -1)
    match = loaded["nomercy.match"]
    assert isinstance(match, Match)
    assert (match.round_number, match.state.dealer, match.state.step, match.scores) == (2, 1, 3, [500, 0, 0])
    assert match.rounds[0].knocked_out == (1, 2)
