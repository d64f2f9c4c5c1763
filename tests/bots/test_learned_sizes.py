"""A learned weights file with a network of its own for some table sizes (issue 43): the
bot plays each table with the network of its size, and every other table with the file's
main network; a file that names a size's network but lacks some of its arrays is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the learned bot plays with numpy")

from nomercy import new_game  # noqa: E402
from nomercy.bots.learned import LAYERS, LearnedBot, load_policies, load_policy, seat_key  # noqa: E402
from nomercy.views import player_view  # noqa: E402


def _file(tmp_path: Path, sizes: tuple[int, ...]) -> Path:
    shipped = load_policy()
    arrays: dict[str, Any] = dict(zip(LAYERS, shipped.layers, strict=True))
    for n in sizes:
        for key, array in zip(LAYERS, shipped.layers, strict=True):
            arrays[seat_key(n, key)] = array * 0.5
    path = tmp_path / "sizes.npz"
    np.savez(path, **arrays)
    return path


class _Spy:
    """A policy that records that it was asked and answers as the one it wraps."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0

    def __call__(self, obs: Any, masks: Any) -> Any:
        self.calls += 1
        return self.inner(obs, masks)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_each_table_is_played_by_the_network_of_its_size(tmp_path: Path, players: int) -> None:
    bot = LearnedBot(weights=str(_file(tmp_path, (3, 6))))
    assert sorted(bot.policies) == [0, 3, 6]
    spies = {k: _Spy(p) for k, p in bot.policies.items()}
    bot.policies = spies  # type: ignore[assignment]
    bot.policy = spies[0]  # type: ignore[assignment]
    state = new_game(players, seed=players)
    view = player_view(state, state.current)
    assert bot.choose(view) in view.legal_actions
    asked = {k for k, s in spies.items() if s.calls}
    assert asked == ({players} if players in (3, 6) else {0})


def test_load_policy_gives_a_sizes_network_and_the_main_one_elsewhere(tmp_path: Path) -> None:
    path = _file(tmp_path, (5,))
    policies = load_policies(path)
    np.testing.assert_array_equal(load_policy(path, 5).layers[0], policies[5].layers[0])
    np.testing.assert_array_equal(load_policy(path, 4).layers[0], policies[0].layers[0])
    np.testing.assert_array_equal(load_policy(path).layers[0], policies[0].layers[0])
    assert not np.array_equal(policies[5].layers[0], policies[0].layers[0])


def test_a_sizes_network_with_missing_arrays_is_refused(tmp_path: Path) -> None:
    shipped = load_policy()
    arrays: dict[str, Any] = dict(zip(LAYERS, shipped.layers, strict=True))
    arrays[seat_key(4, "w0")] = shipped.layers[0]
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="p4_b0"):
        LearnedBot(weights=str(tmp_path / "bad.npz"))
