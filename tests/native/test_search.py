"""The expert's native playouts without numpy (``nomercy.native.search``) against the numpy
class (``nomercy.native.playout.Playouts``): the same worlds give the same tables and the
same values, to the bit, and a process where numpy cannot be imported searches natively."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from nomercy import GameState, Rules, new_game
from nomercy.bots.expert import _EXP, ExpertBot
from nomercy.testing import BASE_MIXES
from nomercy.views import determinize, player_view

pytest.importorskip("numpy", reason="the comparison runs the numpy class: pip install 'nomercy[fast]'")

from nomercy.native.playout import Playouts
from nomercy.native.policy import TUNED_WEIGHTS
from nomercy.native.search import Playouts as Plain


def _worlds(state: GameState, count: int, seed: int) -> list[GameState]:
    view = player_view(state, state.current)
    rng = random.Random(seed)
    return [determinize(view, rng) for _ in range(count)]


@pytest.mark.parametrize("mix", sorted(BASE_MIXES))
@pytest.mark.parametrize("players", [2, 4])
def test_plain_buffers_play_out_as_numpy(mix: str, players: int) -> None:
    """Every world's table and every (world, candidate) value equal the numpy class's,
    with the reference's and the tuned weights, full loads and hidden-card loads."""
    rules = BASE_MIXES[mix]
    state = new_game(players, rules, seed=11)
    seat = state.current
    assert seat is not None
    worlds = _worlds(state, 9, seed=3)
    actions = list(state.legal_actions())
    for weights in (None, TUNED_WEIGHTS):
        numpy_side = Playouts(rules, players, _EXP, capacity=2, mine=weights, theirs=weights)
        plain = Plain(rules, players, _EXP, capacity=2, mine=weights, theirs=weights)  # grows
        for i, world in enumerate(worlds):
            if i % 3 == 2:
                hidden = ([[c.index for c in h] for h in world.hands], [c.index for c in world.draw_pile])
                rest = ([c.index for c in world.discard], [c.index for c in world.aside], world.seed)
                numpy_side.add_hidden(*hidden, *rest)
                plain.add_hidden(*hidden, *rest)
            else:
                numpy_side.add(world, like_first=i % 3 == 1)
                plain.add(world, like_first=i % 3 == 1)
        for i in range(len(worlds)):
            assert plain.table(i) == numpy_side._batch.tables[i].tolist()
        codes = plain.codes(actions, seat)
        assert codes == numpy_side.codes(actions, seat).tolist()
        assert (
            plain.grid(0, len(worlds), codes, seat, 30)
            == numpy_side.grid(0, len(worlds), codes, seat, 30).tolist()
        )
        index = [j % len(worlds) for j in range(len(actions))]
        assert plain.values(index, actions, seat, 30) == numpy_side.values(index, actions, seat, 30)


def test_plain_playouts_refuse_bad_calls() -> None:
    """The numpy class's checks: seats, depth, loaded worlds, weights."""
    with pytest.raises(ValueError, match="2 to 6"):
        Plain(Rules(), 7, _EXP)
    with pytest.raises(ValueError, match="score weights"):
        Plain(Rules(), 2, _EXP, mine=[1.0, 2.0])
    plain = Plain(Rules(), 2, _EXP)
    with pytest.raises(ValueError, match="first world"):
        plain.add_hidden([[], []], [], [], [], 1)
    state = new_game(2, seed=1)
    plain.add(state)
    codes = plain.codes(list(state.legal_actions())[:1], 0)
    with pytest.raises(ValueError, match="not all loaded"):
        plain.grid(0, 2, codes, 0, 5)
    with pytest.raises(ValueError, match="seat 2"):
        plain.grid(0, 1, codes, 2, 5)
    with pytest.raises(ValueError, match="depth"):
        plain.grid(0, 1, codes, 0, 0)


_NO_NUMPY = """
import json, random, sys
sys.modules['numpy'] = None  # numpy cannot be imported in this process
from nomercy import new_game
from nomercy.bots.expert import ExpertBot
from nomercy.views import player_view
state = new_game(4, seed=23)
view = player_view(state, state.current)
bot = ExpertBot(seed=5)
assert bot.native, 'the expert searches natively without numpy'
candidates = list(view.legal_actions)[:4]
values = bot.estimate(view, candidates, 12, random.Random(9))
choice = ExpertBot(seed=5).choose(view)
assert [m for m in sys.modules if m.split('.')[0] == 'numpy' and sys.modules[m] is not None] == []
print(json.dumps({'values': values, 'choice': str(choice)}))
"""


def test_expert_searches_natively_without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process where numpy cannot be imported: the expert's native estimates and its
    decision on a seed equal this process's (numpy importable), and its estimates equal
    the numpy class's playouts of the same worlds. (The hand sampler draws its worlds
    another way where numpy is installed, so this process samples as a plain one does.)"""
    from nomercy.bots import inference

    monkeypatch.setattr(inference, "_NUMPY", [None])
    done = subprocess.run(
        [sys.executable, "-c", _NO_NUMPY], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    state = new_game(4, seed=23)
    view = player_view(state, state.current)
    candidates = list(view.legal_actions)[:4]
    assert got["values"] == ExpertBot(seed=5).estimate(view, candidates, 12, random.Random(9))
    assert got["choice"] == str(ExpertBot(seed=5).choose(view))
    # The numpy class on the expert's worlds: sampled as estimate() samples them.
    bot = ExpertBot(seed=5)
    bot.memory.sync(view)
    sampler = bot._sampler(view)
    rng = random.Random(9)
    numpy_side = Playouts(view.rules, view.players, _EXP, mine=TUNED_WEIGHTS, theirs=TUNED_WEIGHTS)
    for _ in range(12):
        deal = sampler.deal(rng)
        if isinstance(deal, GameState):
            numpy_side.add(deal, like_first=True)
        elif len(numpy_side):
            numpy_side.add_hidden(deal.hands, deal.draw_pile, deal.discard, deal.aside, deal.seed)
        else:
            numpy_side.add(sampler.world(deal))
    seat = view.seat
    assert seat is not None
    grid = numpy_side.grid(0, 12, numpy_side.codes(candidates, seat), seat, bot.depth)
    assert got["values"] == grid.T.tolist()
