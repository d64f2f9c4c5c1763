"""Levels and characters: every one plays only legal moves, and each character's style shows.

The positions are those of heuristic self-play (a few hundred decisions); a style is
measured as how often a bot takes the kind of play its character loves, where that play
is on offer, against the plain heuristic on the same positions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest

import nomercy
from nomercy.actions import Action, Play
from nomercy.bots import Bot, make
from nomercy.bots.heuristic import table_from_view
from nomercy.bots.levels import LEVELS, StyledBot
from nomercy.bots.runner import play_round, step
from nomercy.cards import Face
from nomercy.state import Decision
from nomercy.views import PlayerView, player_view

NAMES = ["beginner", "casual", "strong", "careful", "stacker", "hoarder", "gambler"]


@cache
def positions() -> tuple[PlayerView, ...]:
    """Every turn decision of heuristic self-play rounds, 3 and 4 players."""
    views: list[PlayerView] = []
    for seed in range(12):
        players = 3 + seed % 2
        state = nomercy.new_game(players, seed=seed)
        bots = [make("heuristic", seed=seed * 10 + s) for s in range(players)]
        while not state.is_over and len(views) < 100 * (seed + 1):
            seat = state.current
            assert seat is not None
            views.append(player_view(state, seat))
            step(state, bots)
    return tuple(views)


def rate(bot: Bot, offered: Callable[[PlayerView], bool], loved: Callable[[Action], bool]) -> float:
    """How often ``bot`` takes a ``loved`` play in the positions where ``offered``."""
    where = [v for v in positions() if offered(v)]
    assert len(where) >= 20, "too few positions to measure a style"
    return sum(loved(bot.choose(v)) for v in where) / len(where)


def _plays(v: PlayerView) -> list[Play]:
    return [a for a in v.legal_actions if type(a) is Play]


def _is_stack(a: Action) -> bool:
    return type(a) is Play and a.card.draw_value > 0


def _is_wild(a: Action) -> bool:
    return type(a) is Play and a.card.is_wild


def _is_gamble(a: Action) -> bool:
    return type(a) is Play and a.card.face in (Face.WILD_COLOR_ROULETTE, Face.SEVEN, Face.ZERO)


@pytest.mark.parametrize("name", [*NAMES, "stacker:beginner", "gambler:strong"])
def test_every_level_and_character_plays_only_legal_moves(name: str) -> None:
    bot_name, _, level = name.partition(":")
    options = {"level": level} if level else {}
    if bot_name == "strong" or level == "strong":
        options["budget"] = 4
    bot = make(bot_name, seed=3, **options)
    for view in positions()[::7]:
        assert bot.choose(view) in view.legal_actions
    seats = [make(bot_name, seed=s, **options) for s in range(3)]
    state = play_round(nomercy.new_game(3, seed=5), seats)  # the engine rejects an illegal move
    assert state.is_over


def test_stacker_stacks_more_often_than_the_heuristic() -> None:
    """K2: facing a total it could pass on (not one that comes back to it, W1/K6), the
    stacker always stacks; the heuristic sometimes takes it."""

    def offered(v: PlayerView) -> bool:
        table = table_from_view(v)
        return v.decision is Decision.STACK and any(
            type(a) is Play and a.card.draw_value and table.victim_of(a.card) != v.seat
            for a in v.legal_actions
        )

    plain, styled = rate(make("heuristic"), offered, _is_stack), rate(make("stacker"), offered, _is_stack)
    assert styled == 1.0 and plain < styled


def test_hoarder_plays_wilds_less_often_than_the_heuristic() -> None:
    def offered(v: PlayerView) -> bool:
        plays = _plays(v)
        return (
            v.decision is Decision.PLAY and any(_is_wild(a) for a in plays) and not all(map(_is_wild, plays))
        )

    plain, styled = rate(make("heuristic"), offered, _is_wild), rate(make("hoarder"), offered, _is_wild)
    assert styled < plain / 2


def test_gambler_plays_roulettes_and_swaps_more_often_than_the_heuristic() -> None:
    def offered(v: PlayerView) -> bool:
        plays = _plays(v)
        return v.decision is Decision.PLAY and any(map(_is_gamble, plays)) and not all(map(_is_gamble, plays))

    plain, styled = rate(make("heuristic"), offered, _is_gamble), rate(make("gambler"), offered, _is_gamble)
    assert styled > plain + 0.2


def test_casual_character_without_mistakes_follows_its_style_deterministically() -> None:
    views = positions()[:50]
    a, b = make("stacker", seed=1), make("stacker", seed=2)
    assert [a.choose(v) for v in views] == [b.choose(v) for v in views]


def test_levels_are_named_weakest_first_and_bad_options_are_refused() -> None:
    assert LEVELS == ("beginner", "casual", "strong", "expert")
    assert isinstance(make("beginner"), StyledBot)
    with pytest.raises(ValueError, match="level is one of"):
        make("stacker", level="grandmaster")
    with pytest.raises(ValueError, match="mistakes must be a probability"):
        make("beginner", mistakes=2)
    with pytest.raises(ValueError, match="unknown option"):
        make("hoarder", budget=3)
