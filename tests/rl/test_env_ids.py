"""One name and one version per environment: the ids, PettingZoo's name and ENV_VERSION
agree, and the former id still makes the environment, with a warning naming the current one."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
import gymnasium
import numpy as np
import pettingzoo

import nomercy.rl  # registers the ids
from nomercy.encoding import ENV_VERSION
from nomercy.rl.gymnasium_env import GYM_ENV_ID, NoMercyEnv
from nomercy.rl.pettingzoo_env import PZ_ENV_ID, NoMercyAECEnv

ROOT = Path(__file__).resolve().parents[2]
CURRENT = f"nomercy/NoMercy-v{ENV_VERSION}"
FORMER = "nomercy/NoMercy-v1"
ADVICE = f"{FORMER} is deprecated: use {CURRENT}"


def test_ids_and_name_carry_env_version() -> None:
    assert GYM_ENV_ID == PZ_ENV_ID == nomercy.rl.GYM_ENV_ID == CURRENT
    assert NoMercyAECEnv.metadata["name"] == f"nomercy_v{ENV_VERSION}"
    assert CURRENT in gymnasium.registry
    assert CURRENT in pettingzoo.aec_registry


def test_the_current_ids_do_not_warn() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium.make(CURRENT, players=2).close()
        pettingzoo.make("aec", CURRENT, players=2).close()
    assert not [w for w in caught if "deprecated" in str(w.message) or "out of date" in str(w.message)]


@pytest.mark.filterwarnings("ignore:.*is out of date")  # Gymnasium's own note, beside ours
def test_gymnasium_former_id_warns_and_makes_the_same_environment() -> None:
    with pytest.warns(DeprecationWarning, match=ADVICE) as caught:
        old = gymnasium.make(FORMER, players=2, opponents="random")
    # the warning is the caller's, not Gymnasium's: Python shows it to a script by default
    assert [w.filename for w in caught if ADVICE in str(w.message)] == [__file__]
    new = gymnasium.make(CURRENT, players=2, opponents="random")
    assert isinstance(old.unwrapped, NoMercyEnv)
    old_obs, old_info = old.reset(seed=3)
    new_obs, new_info = new.reset(seed=3)
    assert np.array_equal(old_obs, new_obs)
    assert np.array_equal(old_info["action_mask"], new_info["action_mask"])


def test_pettingzoo_former_id_warns_and_makes_the_same_environment() -> None:
    with pytest.warns(DeprecationWarning, match=ADVICE) as caught:
        old = pettingzoo.make("aec", FORMER, players=3)
    assert [w.filename for w in caught if ADVICE in str(w.message)] == [__file__]
    assert isinstance(old.unwrapped, NoMercyAECEnv)
    assert old.metadata["name"] == f"nomercy_v{ENV_VERSION}"
    new = pettingzoo.make("aec", CURRENT, players=3)
    old.reset(seed=5)
    new.reset(seed=5)
    assert np.array_equal(old.observe("player_0")["observation"], new.observe("player_0")["observation"])


def test_the_docs_name_the_current_ids() -> None:
    for path in ("README.md", "docs/rl.md", "examples/train_maskable_ppo.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert FORMER not in text and "nomercy_v0" not in text, path


def test_the_version_history_is_in_the_docstrings() -> None:
    for module in (nomercy.rl.gymnasium_env, nomercy.rl.pettingzoo_env):
        doc = module.__doc__ or ""
        assert "Version history" in doc
        assert f"* v{ENV_VERSION} (``{CURRENT}``" in doc
