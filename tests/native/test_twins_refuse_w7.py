"""W7: the twins built for a fixed set of card kinds (the native engine, the RL tables,
the shipped network) refuse the 112-card deck's Wild Shuffle Hands with a clear message,
keep their shapes for every other deck, and a search bot plays it in Python instead."""

from __future__ import annotations

import pytest

from nomercy import Rules, new_game
from nomercy.cards import BASE_KINDS, Card
from nomercy.errors import InvalidRules
from nomercy.views import player_view

np = pytest.importorskip("numpy", reason="the native engine needs the fast extra")

CLASSIC_112 = Rules.preset("classic_112")


def test_W7_native_engine_refuses_the_shuffle_hands() -> None:
    """W7: Batch names the deck and the card, and says where the deck plays."""
    from nomercy.native.batch import Batch

    with pytest.raises(InvalidRules, match=r"WSH.*W7.*Python engine") as info:
        Batch(CLASSIC_112, 1, 4)
    assert info.value.field == "deck"
    Batch(Rules.preset("classic"), 1, 4)  # the 108-card edition still plays natively
    with pytest.raises(InvalidRules, match="WSH"):
        Batch(Rules.preset("classic").replace(deck={"R1": 40, "WSH": 1}), 1, 2)


def test_W7_rl_tables_keep_their_shapes_and_refuse_the_deck() -> None:
    """W7: the encoding covers the 70 kinds it was built for; an environment refuses more."""
    from nomercy import encoding
    from nomercy.native import slots

    assert encoding.NUM_CARDS == BASE_KINDS == Card.parse("WSH").index == 70
    assert len(Card.ALL) == BASE_KINDS + 1
    assert all(a.card is not Card.parse("WSH") for a in encoding.ACTIONS if hasattr(a, "card"))
    assert slots.ACTIONS is encoding.ACTIONS  # one table, not a copy
    with pytest.raises(ValueError, match=r"no place for WSH.*W7"):
        encoding.check_table(4, CLASSIC_112)
    encoding.check_table(4, Rules.preset("classic"))


def test_W7_shipped_network_keeps_its_sizes_and_refuses() -> None:
    """W7: the learned bot loads as before and refuses a 112-card table on its first look."""
    from nomercy.bots.learned import LearnedBot
    from nomercy.encoding import NUM_ACTIONS, OBS_SIZE

    bot = LearnedBot(seed=1)
    assert bot._obs.shape == (1, OBS_SIZE) and bot._mask.shape == (1, NUM_ACTIONS)
    classic = new_game(3, Rules.preset("classic"), seed=1)
    assert bot.choose(player_view(classic, classic.current)) in classic.legal_actions()
    s = new_game(3, CLASSIC_112, seed=1)
    with pytest.raises(ValueError, match="WSH"):
        bot.choose(player_view(s, s.current))


def test_W7_expert_plays_out_in_python() -> None:
    """W7: the expert's native playouts step aside for the 112-card deck (Python ones)."""
    from nomercy.bots.expert import ExpertBot

    bot = ExpertBot(seed=1, budget=8)
    s = new_game(3, CLASSIC_112, seed=1)
    view = player_view(s, s.current)
    assert bot._native_playouts(view) is None
    assert bot.choose(view) in s.legal_actions()
