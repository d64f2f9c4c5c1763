"""Seeds found with the engine itself, so each browser test meets the situation it checks.

A browser test cannot wait for chance to deal a Roulette or a stack; these functions
search seeds until the engine deals the wanted cards, and return what the test needs to
click. The server deals the same cards for the same seed (test_options lets a room fix it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomercy.match import Match
from nomercy.rules import Rules

COLOUR_WILDS = ("W+6", "W+10", "W", "W+4")


@dataclass(frozen=True)
class Plan:
    seed: int
    rules: dict[str, Any]
    cards: tuple[str, ...]


def _plays(state: Any, seat: int | None = None) -> list[Any]:
    return [a for a in state.legal_actions() if a.kind == "play"]


def colour_plan() -> Plan:
    """Ann (seat 0) starts with a Roulette and a wild that needs a colour; Bob, the Roulette's
    victim, names green; then it is Ann's turn again and her colour wild is still playable."""
    for seed in range(50_000):
        state = Match(2, Rules(), seed).state
        if state.current_player != 0:
            continue
        plays = _plays(state)
        roulette = next((a for a in plays if a.card.code == "WCR" and not a.uno), None)
        wilds = [a.card.code for a in plays if a.card.code in ("W+6", "W+10") and a.color is not None]
        wild = wilds[0] if wilds else None
        if roulette is None or wild is None:
            continue
        state.apply(roulette, 0)
        if state.current_player != 1 or state.decision.label != "roulette":
            continue
        colour = next(a for a in state.legal_actions() if str(a) == "color G")
        state.apply(colour, 1)
        if state.outcome is not None or state.current_player != 0:
            continue
        if any(str(a).startswith(f"play {wild} B") for a in state.legal_actions()):
            return Plan(seed, {}, (wild,))
    raise AssertionError("no seed found")


def stack_knockout_plan(mercy: int = 12) -> Plan:
    """Ann starts with a Wild Draw 6 or 10; Bob cannot stack on it, takes it and reaches
    the Mercy limit: knocked out, Ann wins as the last one standing."""
    rules = {"mercy_limit": mercy}
    for seed in range(50_000):
        state = Match(2, Rules(mercy_limit=mercy), seed).state
        if state.current_player != 0:
            continue
        wild = next((a for a in _plays(state) if a.card.code in ("W+6", "W+10") and not a.uno), None)
        if wild is None:
            continue
        state.apply(wild, 0)
        if [str(a) for a in state.legal_actions()] != ["take"]:
            continue
        state.apply(state.legal_actions()[0], 1)
        if state.outcome is not None and state.outcome.winner == 0:
            return Plan(seed, rules, (wild.card.code,))
    raise AssertionError("no seed found")


def uno_plan() -> Plan:
    """Two cards each: Ann's first play leaves her one (she calls Uno with it); Bob's plain
    number play then leaves him one without a call, so Ann can catch him."""
    rules = {"hand_size": 2}
    for seed in range(50_000):
        state = Match(2, Rules(hand_size=2), seed).state
        if state.current_player != 0:
            continue
        mine = [a for a in _plays(state) if a.uno and a.card.is_number and a.card.face not in (0, 7)]
        if not mine:
            continue
        state.apply(mine[0], 0)
        if state.current_player != 1:
            continue
        his = [
            a
            for a in _plays(state)
            if not a.uno and a.card.is_number and a.card.face not in (0, 7) and a.target is None
        ]
        if not his:
            continue
        state.apply(his[0], 1)
        if state.outcome is None and any(a.kind == "catch" for a in state.legal_actions(0)):
            return Plan(seed, rules, (mine[0].card.code, his[0].card.code))
    raise AssertionError("no seed found")


def challenge_plan() -> Plan:
    """Classic rules (W6): Ann starts with a Wild Draw 4 she plays naming red; Bob faces
    it with the choice to challenge or to take the 4 cards."""
    for seed in range(50_000):
        state = Match(2, Rules.preset("classic"), seed).state
        if state.current_player != 0:
            continue
        wd4 = next((a for a in _plays(state) if a.card.code == "W+4" and not a.uno), None)
        if wd4 is None:
            continue
        state.apply(next(a for a in _plays(state) if str(a) == "play W+4 R"), 0)
        if state.current_player == 1 and {str(a) for a in state.legal_actions()} >= {"challenge", "take"}:
            return Plan(seed, {}, ("W+4",))
    raise AssertionError("no seed found")
