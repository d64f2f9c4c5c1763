"""The learned bot: its shipped weights load, fit the size limit, play only legal actions
from its seat's view, and need no torch to play."""

from __future__ import annotations

import random
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the learned bot plays with numpy")

from nomercy import new_game  # noqa: E402
from nomercy.bots import available, make  # noqa: E402
from nomercy.bots.learned import DEFAULT_WEIGHTS, LAYERS, LearnedBot, load_policy  # noqa: E402
from nomercy.bots.runner import play_round  # noqa: E402
from nomercy.rules import Rules  # noqa: E402
from nomercy.views import player_view  # noqa: E402

MAX_BYTES = 5 * 1024 * 1024


def test_the_shipped_weights_load_and_fit_in_five_megabytes() -> None:
    weights = resources.files("nomercy.bots").joinpath(DEFAULT_WEIGHTS)
    assert len(weights.read_bytes()) <= MAX_BYTES
    policy = load_policy()
    w0, *_, wp, bp = policy.layers
    assert w0.shape[0] == 428 and wp.shape[1] == 224 and bp.shape == (224,)  # OBS_SIZE, NUM_ACTIONS
    assert all(a.dtype == np.float32 and np.isfinite(a).all() for a in policy.layers)
    assert "learned" in available()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_it_plays_only_legal_actions_from_many_random_positions(players: int) -> None:
    """Random play reaches positions the bot's own games would not; at each one, its turn
    decision and its out-of-turn reaction (U1, U2) are legal for its seat."""
    bot = make("learned", seed=0)
    rng = random.Random(players)
    rules = Rules() if players != 6 else Rules.preset("classic")
    asked = 0
    for game in range(6):
        state = new_game(players, rules, seed=100 * players + game)
        while state.outcome is None:
            seat = state.current
            assert seat is not None
            view = player_view(state, seat)
            assert bot.choose(view) in view.legal_actions
            asked += 1
            for other in range(players):
                if other != seat and state.active[other]:
                    reaction = bot.react(player_view(state, other))
                    assert reaction is None or reaction in player_view(state, other).legal_actions
            state.apply(rng.choice(view.legal_actions), seat)
    assert asked > 100


def test_it_plays_whole_rounds_against_the_other_bots() -> None:
    for opponent in ("heuristic", "random"):
        state = play_round(new_game(2, seed=3), [make("learned", seed=1), make(opponent, seed=2)])
        assert state.outcome is not None


def test_the_same_view_gives_the_same_decision() -> None:
    state = new_game(4, seed=9)
    view = player_view(state, state.current)
    assert LearnedBot(seed=1).choose(view) == LearnedBot(seed=2).choose(view)


def test_other_weights_files_are_read_and_bad_ones_refused(tmp_path: Path) -> None:
    policy = load_policy()
    path = tmp_path / "mine.npz"
    np.savez(path, **dict(zip(LAYERS, policy.layers, strict=True)))
    state = new_game(2, seed=4)
    view = player_view(state, state.current)
    assert LearnedBot(weights=str(path)).choose(view) == LearnedBot().choose(view)
    with pytest.raises(ValueError, match="cannot read"):
        LearnedBot(weights=str(tmp_path / "missing.npz"))
    np.savez(tmp_path / "other.npz", w0=policy.layers[0])
    with pytest.raises(ValueError, match="lack"):
        LearnedBot(weights=str(tmp_path / "other.npz"))


def test_playing_needs_numpy_only() -> None:
    """No torch, and no gymnasium (the rl extra): both are made unimportable, and a
    whole round still plays."""
    code = (
        "import sys\n"
        "sys.modules['torch'] = sys.modules['gymnasium'] = None\n"
        "import nomercy\n"
        "from nomercy.bots import make\n"
        "from nomercy.bots.runner import play_round\n"
        "play_round(nomercy.new_game(2, seed=1), [make('learned'), make('random', seed=1)])\n"
        "assert 'nomercy.rl.gymnasium_env' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_with_search_the_networks_pick_is_the_candidate_the_expert_protects() -> None:
    """``search=true``: the expert's search runs over the network's pick first (the one it
    leaves only for a clear gain) and the heuristic's best others; decisions stay legal."""
    plain, searching = make("learned"), make("learned", search=True, budget=8, native=False, seed=3)
    assert isinstance(searching, LearnedBot) and searching.expert is not None
    search = searching.expert._search
    first: list[object] = []

    def spy(view: object, seat: int, candidates: list[object]) -> object:
        first.append(candidates[0])
        assert len(set(candidates)) == len(candidates)
        return search(view, seat, candidates)  # type: ignore[arg-type]

    searching.expert._search = spy  # type: ignore[method-assign,assignment]
    for game in range(3):
        state = new_game(2, seed=50 + game)
        for _ in range(15):
            if state.outcome is not None:
                break
            view = player_view(state, state.current)
            first.clear()
            choice = searching.choose(view)
            assert choice in view.legal_actions
            assert first in ([], [plain.choose(view)])
            state.apply(choice, state.current)
    with pytest.raises(ValueError, match="without search"):
        make("learned", budget=10)
    with pytest.raises(ValueError, match="search is true or false"):
        make("learned", search="yes")
