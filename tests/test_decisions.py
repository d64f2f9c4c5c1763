"""nomercy.decisions against the engine: every reason names the rule the engine refuses
with, every cost says what applying the choice does, and the choices are exactly the legal
actions. Played over seeded random games of every preset and a mix of house rules."""

from __future__ import annotations

import random

import pytest

from nomercy import Action, new_game
from nomercy.actions import Play
from nomercy.cards import Card, Color, Face
from nomercy.decisions import Decisions, decisions
from nomercy.errors import IllegalAction
from nomercy.events import Challenged, Drew, KnockedOut, Skipped
from nomercy.rules import Rules
from nomercy.state import Decision
from nomercy.summary import rules_summary
from nomercy.views import player_view
from rules.builders import make

MIX = Rules(
    stack_color="match",
    draw10_stackable=False,
    last_card_draw="apply",
    two_player_reverse="opponent",
    draw_when_playable=True,
    must_play_drawn=False,
    knockout_bonus_to="knocker",
    uno_timing="own_play",
    mercy_limit=15,
)
CONFIGS = {
    "no_mercy": Rules(),
    "stack_color_match": Rules(stack_color="match"),
    "classic": Rules.preset("classic"),
    "classic_stacking_restricted": Rules.preset("classic").replace(
        stacking=True, wild_draw4_challenge=False, wild_draw4_restricted=True
    ),
    "rlcard": Rules.preset("rlcard"),
    "house_mix": MIX,
}
#: How the engine's refusals spell a rule (W5's message names its house rule).
SPELLING = {"W5": "wild_draw4_restricted", "M3": "(T1)"}


def _refusal(state: object, seat: int, card: Card) -> str:
    """The engine's refusal of the plainest play of ``card`` by ``seat``."""
    trial = state.clone()  # type: ignore[attr-defined]
    color = Color.RED if card.is_wild and card.face is not Face.WILD_COLOR_ROULETTE else None
    target = None
    if card.face is Face.SEVEN and trial.rules.seven_zero and len(trial.hands[seat]) > 1:
        target = next(s for s in range(trial.players) if s != seat and trial.active[s])
    with pytest.raises(IllegalAction) as refused:
        trial.apply(Play(card, color, target), seat)
    return str(refused.value)


def _check_reasons(state: object, seat: int, d: Decisions) -> None:
    for blocked in d.blocked:
        rule = blocked.reason.rule
        assert rule is not None, blocked
        message = _refusal(state, seat, blocked.card)
        spelled = SPELLING.get(rule, rule)
        assert spelled in message, (blocked.reason, message)


def _drawn(events: list[object], seat: int) -> int:
    return sum(e.count for e in events if isinstance(e, Drew) and e.seat == seat)


def _knocked(events: list[object], seat: int) -> bool:
    return any(isinstance(e, KnockedOut) and e.seat == seat for e in events)


def _check_costs(state: object, seat: int, d: Decisions) -> None:
    for choice in d.choices:
        cost = choice.cost
        if cost is None:
            continue
        trial = state.clone()  # type: ignore[attr-defined]
        before = [len(h) for h in trial.hands]
        direction = trial.direction
        events = trial.apply(choice.action, seat)
        p = cost.args
        key = cost.key
        if key in ("cost.take", "cost.take_knockout"):
            assert _knocked(events, seat) == (key == "cost.take_knockout"), (key, events)
            if key == "cost.take":
                assert _drawn(events, seat) == p["count"]
        elif key == "cost.stack":
            assert trial.current == p["seat"] and trial.pending_total == p["total"], (cost, trial)
        elif key in ("cost.penalty", "cost.catch", "cost.out_draw"):
            victim = int(p["seat"])
            assert _drawn(events, victim) == p["count"] or _knocked(events, victim), (cost, events)
        elif key == "cost.wd4":
            assert trial.decision is Decision.CHALLENGE and trial.current == p["seat"]
        elif key == "cost.challenge":
            verdict = next(e for e in events if isinstance(e, Challenged))
            if verdict.guilty:
                assert _drawn(events, int(p["seat"])) == p["guilty"] or _knocked(events, int(p["seat"]))
            else:
                assert _drawn(events, seat) == p["innocent"] or _knocked(events, seat)
        elif key == "cost.challenge_out":  # W6/M3: its player is out; if guilty, no one draws
            verdict = next(e for e in events if isinstance(e, Challenged))
            if verdict.guilty:
                assert not any(isinstance(e, Drew) for e in events) and trial.current == seat
            else:
                assert _drawn(events, seat) == p["innocent"] or _knocked(events, seat)
        elif key in ("cost.swap", "cost.pass_hands"):
            assert len(trial.hands[seat]) == p["count"]
        elif key == "cost.discard_all":
            assert len(trial.hands[seat]) == before[seat] - 1 - int(p["count"])
        elif key == "cost.out":
            assert trial.outcome is not None and trial.outcome.winner == seat
        elif key == "cost.skip":
            assert any(isinstance(e, Skipped) and p["seat"] in e.seats for e in events)
        elif key in ("cost.again", "cost.skip_everyone"):
            assert trial.current == seat or trial.outcome is not None
        elif key == "cost.reverse":
            assert trial.direction == -direction
        elif key == "cost.roulette_play":
            assert trial.current == p["seat"] and trial.decision is Decision.ROULETTE
        elif key == "cost.draw_one":
            assert _drawn(events, seat) <= 1
        elif key in ("cost.draw_until", "cost.keep", "cost.roulette"):
            pass  # no number to check: until a card fits, the turn ends, cards until a color
        else:
            raise AssertionError(f"a cost this test does not check: {key}")


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_reasons_and_costs_match_the_engine(name: str) -> None:
    rules = CONFIGS[name]
    rng = random.Random(name)
    checked = {"reasons": 0, "costs": 0}
    for game in range(6):
        state = new_game(2 + game % 3, rules, seed=rng.getrandbits(32))
        while not state.is_over:
            for seat in range(state.players):
                view = player_view(state, seat)
                d = decisions(view)
                assert [c.action for c in d.choices] == list(view.legal_actions)
                assert d.deciding == (seat == state.current)
                _check_reasons(state, seat, d)
                checked["reasons"] += len(d.blocked)
                if d.choices:
                    _check_costs(state, seat, d)
                    checked["costs"] += sum(1 for c in d.choices if c.cost is not None)
            current = state.current
            assert current is not None
            state.apply(rng.choice(state.legal_actions()), current)
    assert checked["reasons"] > 100 and checked["costs"] > 100, checked


def test_a_spectator_gets_a_prompt_and_no_choice() -> None:
    state = new_game(3, seed=4)
    d = decisions(player_view(state, None))
    assert d.choices == () and d.blocked == () and d.prompt.key.startswith("prompt.watching.")


def test_k5_stack_color_names_the_colour_and_k3_the_least_value() -> None:
    """Under stack_color="match" a Draw card of another color is refused for its color
    (K5), one of lower value for its value (K3) with the value it needed."""
    match = Rules(stack_color="match")
    state = make(
        ["R1 R2", "B+2 G+4 R+4 B3"],
        discard="R+4",
        rules=match,
        current=1,
        pending=(4, 4, 0),
        decision="stack",
    )
    d = decisions(player_view(state, 1))
    reasons = {b.card.code: b.reason for b in d.blocked}
    assert reasons["B+2"].key == "reason.too_low" and reasons["B+2"].rule == "K3"
    assert reasons["B+2"].args["least"] == 4
    assert {c.card.code for c in d.of_kind("play") if c.card} == {"R+4", "G+4"}  # same face stacks (K5)
    state = make(
        ["R1 R2", "B+4 G+2 B3"], discard="R+2", rules=match, current=1, pending=(2, 2, 0), decision="stack"
    )
    d = decisions(player_view(state, 1))
    assert d.reason(Card.parse("B+4")).key == "reason.stack_color"  # type: ignore[union-attr]
    assert d.reason(Card.parse("B+4")).rule == "K5"  # type: ignore[union-attr]


def test_w6_challenge_costs_the_pending_total_or_two_more() -> None:
    """The challenge's cost names the total if guilty and the total plus 2 if not (W6)."""
    rng = random.Random(6)
    for _ in range(400):
        state = new_game(2, Rules.preset("classic"), seed=rng.getrandbits(32))
        plays = [a for a in state.legal_actions() if isinstance(a, Play) and a.card.face is Face.WILD_DRAW_4]
        if not plays:
            continue
        current = state.current
        assert current is not None
        state.apply(plays[0], current)
        if state.decision is not Decision.CHALLENGE:
            continue
        victim = state.current
        assert victim is not None
        d = decisions(player_view(state, victim))
        (challenge,) = d.of_kind("challenge")
        assert challenge.cost is not None
        assert challenge.cost.args["guilty"] == 4 and challenge.cost.args["innocent"] == 6
        assert d.prompt.key == "prompt.challenge"
        return
    raise AssertionError("no Wild Draw 4 dealt")


@pytest.mark.parametrize(("held", "guilty"), [("W+4 R1", True), ("W+4 G1", False)])
def test_w6_m3_challenge_cost_when_the_cards_player_is_out(held: str, guilty: bool) -> None:
    """W6/M3: P0 plays a Wild Draw 4 and is knocked out (caught without Uno at a Mercy
    limit of 3) before P1 decides. A player out of the round draws nothing, so the cost
    does not promise that P0 draws 4: it says no one draws if guilty, 6 for P1 if not."""
    state = make(
        [held, "B2 B3", "Y1 Y2"],
        "R5",
        " ".join(f"G{i}" for i in range(1, 10)),
        rules={"preset": "classic", "mercy_limit": 3, "hand_size": 2},
    )
    state.apply(Action.parse("play W+4 G"), 0)
    state.apply(Action.parse("catch 0"), 2)
    assert (state.current, state.decision, state.active) == (1, Decision.CHALLENGE, [False, True, True])
    d = decisions(player_view(state, 1))
    (challenge,) = d.of_kind("challenge")
    assert challenge.cost is not None
    assert challenge.cost.key == "cost.challenge_out"
    assert challenge.cost.args == {"seat": 0, "innocent": 6, "color": "R"}
    _check_costs(state, 1, d)
    events = state.apply(challenge.action, 1)
    assert next(e for e in events if isinstance(e, Challenged)).guilty is guilty
    assert _drawn(events, 0) == 0


def test_summary_follows_the_house_rules() -> None:
    keys = [line.key for line in rules_summary(Rules())]
    assert "rules.stack" in keys and "rules.mercy" in keys and "rules.seven_zero" in keys
    classic = [line.key for line in rules_summary(Rules.preset("classic"))]
    assert "rules.no_stack" in classic and "rules.wd4_challenge" in classic and "rules.mercy" not in classic
    assert all(line.rule for line in rules_summary(MIX))
