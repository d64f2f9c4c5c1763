"""The differential check: the native engine and the reference stepped side by side.

After every action the native table, converted to a :class:`GameState`, must equal the
reference's state, and every seat's legal actions must be the same set. Games start from
seeds (the deal is compared too) and, along the way, from positions the reference reached
that are written into a fresh table (:meth:`Batch.load`), and from ``determinize``'d
positions no seed deals (hidden cards re-dealt): hand-built states, in effect.
:func:`rule_variants` makes the rule sets that change one house rule at a time, through
every value of every ``Rules`` field. ``tests/native`` runs it at CI size;
``benchmarks/differential.py`` runs it at any size.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from nomercy.actions import Action
from nomercy.cards import NO_MERCY_DECK
from nomercy.engine import GameState, new_game
from nomercy.native.batch import Batch, action_index
from nomercy.rules import Rules
from nomercy.views import determinize, player_view

__all__ = ["DECKS", "INT_VALUES", "Mismatch", "Tally", "check_games", "field_values", "rule_variants"]

#: Steps after which a round counts as endless. Ten times nomercy.testing.MAX_STEPS: random
#: play under classic rules with 5 or 6 players (draw allowed with a playable card, no
#: Mercy limit) has a long tail, and the determinized worlds along the way lengthen it
#: (a million-decision run met a round of 5,914 steps that then ended normally).
MAX_STEPS = 50_000


#: Representative values of the whole-number house rules, besides their defaults: the
#: edges the validation allows and a value far from the default. A new int field must be
#: given some here, or :func:`field_values` refuses it.
INT_VALUES: Mapping[str, tuple[int | None, ...]] = {
    "max_players": (3, 10),
    "hand_size": (1, 12),
    "mercy_limit": (None, 13, 40),
    "uno_penalty": (0, 5),
    "target_score": (1, 250),
}

#: The deck compositions besides a table's own: both named decks and a custom one with
#: the classic wilds among No Mercy's cards (so that W6 meets Sevens and stacking).
DECKS: tuple[object, ...] = ("no_mercy", "classic", {**dict(NO_MERCY_DECK), "W": 4, "W+4": 4})

#: What else a value needs for ``Rules`` to accept it (W6's challenge and stacking
#: exclude each other, and a restricted Wild Draw 4 leaves nothing to challenge).
_COMPANIONS: Mapping[str, Mapping[str, object]] = {
    "wild_draw4_challenge=True": {"stacking": False, "wild_draw4_restricted": False},
    "wild_draw4_restricted=True": {"wild_draw4_challenge": False},
    "stacking=True": {"wild_draw4_challenge": False},
}


def field_values(name: str) -> tuple[Any, ...]:
    """Every value of the ``Rules`` field ``name`` a differential case is made from, as
    ``Rules.fields()`` describes it: each of a choice field's choices, both of a flag,
    :data:`INT_VALUES` of a number, the :data:`DECKS`; :class:`LookupError` for a field of
    a kind this does not know, so that a new one is given values before it can pass untested."""
    field = next(f for f in Rules.fields() if f.name == name)
    if field.choices is not None:
        return field.choices
    if field.type == "bool":
        return (False, True)
    if field.type == "int" and name in INT_VALUES:
        return INT_VALUES[name]
    if field.type == "deck":
        return DECKS
    raise LookupError(f"Rules.{name} ({field.type}): give the differential its values (nomercy.native.check)")


def rule_variants(base: Rules) -> dict[str, Rules]:
    """``base`` with one field changed, for every field and every value of it that is not
    ``base``'s, by name (``"stack_color=match"``), with :data:`_COMPANIONS` where the value
    needs them; :class:`~nomercy.InvalidRules` if ``Rules`` refuses one all the same (give
    it companions then: a value left out would be a rule the differential never meets)."""
    out = {}
    for name in Rules.field_names():
        for value in field_values(name):
            label = f"{name}={'custom' if isinstance(value, dict) else value}"
            rules = base.replace(**{name: value, **_COMPANIONS.get(label, {})})
            if getattr(rules, name) != getattr(base, name):
                out[label] = rules
    return out


class Mismatch(AssertionError):
    """The two engines disagree; the message says where (seed, step) and how."""


@dataclass
class Tally:
    games: int = 0
    decisions: int = 0
    reloads: int = 0
    determinized: int = 0
    cut: int = 0  # games stopped at max_steps, compared that far


def _diff(native: GameState, ref: GameState) -> str:
    a, b = native.to_dict(), ref.to_dict()
    return "; ".join(f"{k}: native {a[k]!r} != reference {b[k]!r}" for k in a if a[k] != b[k])


def _compare(batch: Batch, table: int, ref: GameState, where: str) -> None:
    native = batch.state(table)
    if native != ref:
        raise Mismatch(f"{where}: states differ: {_diff(native, ref)}")
    for seat in range(ref.players):
        want = {action_index(a, seat, ref.players) for a in ref.legal_actions(seat)}
        got = set(np.flatnonzero(batch.legal_mask(table, seat)).tolist())
        if seat == ref.current:  # the deciding seat's list, through the default seat too
            got_default = set(np.flatnonzero(batch.legal_mask(table)).tolist())
            if got_default != got:
                raise Mismatch(f"{where}: legal_mask() and legal_mask(current) differ")
        if want != got:
            raise Mismatch(
                f"{where}: P{seat}'s legal actions differ: native only "
                f"{sorted(got - want)}, reference only {sorted(want - got)}"
            )


def _choose(state: GameState, rng: random.Random) -> tuple[int, Action]:
    """A random legal action; while a seat is open to a catch, sometimes another seat's."""
    if state.uno_open and rng.random() < 0.3:
        seats = [x for x in range(state.players) if x != state.current and state.legal_actions(x)]
        if seats:
            seat = rng.choice(seats)
            return seat, rng.choice(state.legal_actions(seat))
    assert state.current is not None
    return state.current, rng.choice(state.legal_actions())


def check_games(
    rules: Rules,
    players: int,
    seeds: range | list[int],
    *,
    reload_every: int = 40,
    determinize_every: int = 60,
    tally: Tally | None = None,
    max_steps: int | None = None,
) -> Tally:
    """Play one random game per seed in both engines, comparing after every step.

    Every ``reload_every`` steps the reference position is written into the table afresh
    (GameState -> table), every ``determinize_every`` steps a determinized copy of it
    replaces both (a position no seed deals); 0 turns either off. Raises
    :class:`Mismatch` at the first difference. ``max_steps`` compares each game that far
    and moves on (a short look at many rule sets); without it a game is played to its
    end, and one longer than :data:`MAX_STEPS` is a mismatch.
    """
    tally = tally if tally is not None else Tally()
    batch = Batch(rules, 1, players)
    for seed in seeds:
        rng = random.Random(seed)
        ref = new_game(players, rules, seed)
        batch.deal(0, seed)
        _compare(batch, 0, ref, f"seed {seed}, deal")
        steps = 0
        while ref.current is not None:
            if max_steps is not None and steps >= max_steps:
                tally.cut += 1
                break
            if steps >= MAX_STEPS:
                raise Mismatch(f"{players}p seed {seed}: no end after {MAX_STEPS} steps")
            seat, action = _choose(ref, rng)
            ref.apply(action, seat)
            batch.step(0, action, seat)
            steps += 1
            tally.decisions += 1
            where = f"{players}p seed {seed} step {steps} ({action} by P{seat})"
            _compare(batch, 0, ref, where)
            if ref.current is None:
                break
            if reload_every and steps % reload_every == 0:
                batch.load(0, GameState.from_json(ref.to_json()))
                tally.reloads += 1
                _compare(batch, 0, ref, where + " reloaded")
            if determinize_every and steps % determinize_every == 0:
                ref = determinize(player_view(ref, ref.current), rng)
                batch.load(0, ref)
                tally.determinized += 1
                _compare(batch, 0, ref, where + " determinized")
        tally.games += 1
    return tally
