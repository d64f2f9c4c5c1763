"""The learned bot with the house rules as an input (encoding 3's ``rules`` section): a
weights file of the width before that section is padded with zero input weights for it
and plays exactly as before, on real positions under more than one set of rules; a file
of any other width is refused, naming both widths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the learned bot plays with numpy")

from nomercy import Rules, new_game  # noqa: E402
from nomercy.bots.heuristic import HeuristicBot  # noqa: E402
from nomercy.bots.learned import (  # noqa: E402
    LAYERS,
    OLD_OBS_SIZE,
    LearnedBot,
    Policy,
    load_policy,
    pad_inputs,
)
from nomercy.encoding import NUM_ACTIONS, OBS_SECTIONS, OBS_SIZE, legal_mask, observe  # noqa: E402
from nomercy.encoding.rules import RULES_SIZE  # noqa: E402
from nomercy.views import player_view  # noqa: E402

RULES = OBS_SECTIONS[-1]


def _old_network(seed: int, hidden: int = 48) -> dict[str, Any]:
    """A random network of the width before the rules section (encoding 2)."""
    rng = np.random.default_rng(seed)
    shapes = {"w0": (OLD_OBS_SIZE, hidden), "b0": (hidden,), "w1": (hidden, hidden), "b1": (hidden,),
              "wp": (hidden, NUM_ACTIONS), "bp": (NUM_ACTIONS,)}  # fmt: skip
    return {k: rng.normal(0.0, 0.3, shapes[k]).astype(np.float32) for k in LAYERS}


def _old_logits(arrays: dict[str, Any], obs: Any) -> Any:
    """The encoding-2 network's forward pass (log1p, two ReLU layers, the policy head)."""
    x = np.log1p(np.maximum(obs, 0.0, dtype=np.float32))
    h = np.maximum(x @ arrays["w0"] + arrays["b0"], 0.0)
    h = np.maximum(h @ arrays["w1"] + arrays["b1"], 0.0)
    return h @ arrays["wp"] + arrays["bp"]


def _positions(rules: Rules, players: int, seed: int) -> tuple[Any, Any]:
    """Observations (today's width) and masks of every decision of a heuristic round."""
    obs, masks = [], []
    state = new_game(players, rules, seed=seed)
    bots = [HeuristicBot(seed=seed + s) for s in range(players)]

    while state.outcome is None:
        seat = state.current
        assert seat is not None
        view = player_view(state, seat)
        obs.append(observe(view))
        masks.append(legal_mask(view))
        state.apply(bots[seat].choose(view))
    return np.array(obs), np.array(masks)


@pytest.mark.parametrize("preset", ["no_mercy", "classic"])
def test_a_padded_old_network_plays_as_before_on_real_positions(preset: str) -> None:
    """Its logits on today's observations are the old network's on the same positions with
    the rules section cut off, and it picks the same action at every decision."""
    rules = Rules.preset(preset)
    old = _old_network(seed=len(preset))
    padded = Policy(old)
    assert padded.layers[0].shape == (OBS_SIZE, 48)
    assert not padded.layers[0][RULES.start :].any()
    checked = 0
    for players, seed in ((2, 1), (4, 2), (6, 3)):
        obs, masks = _positions(rules, players, seed)
        assert obs[:, RULES.start :].any()  # the rules section is written, and ignored
        before = _old_logits(old, obs[:, : RULES.start])
        np.testing.assert_allclose(padded.logits(obs), before, rtol=1e-5, atol=1e-5)
        legal_before = np.where(masks > 0, before, -np.inf).argmax(axis=1)
        np.testing.assert_array_equal(padded(obs, masks), legal_before)
        checked += len(obs)
    assert checked > 100


def test_an_old_weights_file_is_padded_when_loaded(tmp_path: Path) -> None:
    old = _old_network(seed=5)
    np.savez(tmp_path / "old.npz", **old)
    policy = load_policy(tmp_path / "old.npz")
    np.testing.assert_array_equal(policy.layers[0][:OLD_OBS_SIZE], old["w0"])
    assert policy.layers[0].shape[0] == OBS_SIZE and not policy.layers[0][OLD_OBS_SIZE:].any()
    state = new_game(3, Rules.preset("classic"), seed=4)
    view = player_view(state, state.current)
    assert LearnedBot(weights=str(tmp_path / "old.npz")).choose(view) in view.legal_actions


@pytest.mark.parametrize("width", [OLD_OBS_SIZE - 1, OLD_OBS_SIZE + 1, OBS_SIZE + 1, OBS_SIZE + RULES_SIZE])
def test_a_file_of_another_width_is_refused_naming_both_widths(width: int) -> None:
    arrays = _old_network(seed=2)
    arrays["w0"] = np.zeros((width, 48), np.float32)
    with pytest.raises(ValueError, match=rf"takes? {width} inputs.*has {OBS_SIZE}"):
        Policy(arrays)
    with pytest.raises(ValueError, match=str(width)):
        pad_inputs(arrays["w0"])


def test_the_shipped_weights_read_the_rules() -> None:
    """The shipped file was trained with varied house rules (``--rules mix``, docs/bots.md):
    its rules section has weights, so the same position under other rules gives other
    logits (a padded file, above, gives the same)."""
    policy = load_policy()
    w0 = policy.layers[0]
    assert w0.shape[0] == OBS_SIZE
    assert w0[RULES.start : RULES.stop].any() and w0[: RULES.start].any()
    obs, _ = _positions(Rules.preset("classic"), 2, 1)
    other = obs.copy()
    other[:, RULES.start :] = _positions(Rules(), 2, 1)[0][0, RULES.start :]
    assert not np.allclose(policy.logits(obs), policy.logits(other))
