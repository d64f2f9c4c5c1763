"""One name and one version per environment: the ids, PettingZoo's name and ENV_VERSION
agree, and the ids of an older encoding are no longer made."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
import gymnasium
import pettingzoo

import nomercy.rl  # registers the ids
from nomercy.encoding import ENV_VERSION
from nomercy.rl.gymnasium_env import GYM_ENV_ID
from nomercy.rl.pettingzoo_env import PZ_ENV_ID, NoMercyAECEnv

ROOT = Path(__file__).resolve().parents[2]
CURRENT = f"nomercy/NoMercy-v{ENV_VERSION}"
#: Ids of encoding 2, no longer made since encoding 3 (the rules section).
FORMER = ("nomercy/NoMercy-v1", "nomercy/NoMercy-v2")


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


@pytest.mark.filterwarnings("ignore:.*is out of date")  # Gymnasium's own note on a newer version
@pytest.mark.parametrize("former", FORMER)
def test_the_former_ids_are_no_longer_made(former: str) -> None:
    """v1 and v2 gave encoding 2's narrower observations: neither registry makes them now."""
    assert former not in gymnasium.registry
    assert former not in pettingzoo.aec_registry
    with pytest.raises(gymnasium.error.Error):
        gymnasium.make(former, players=2)


def test_the_docs_name_the_current_ids() -> None:
    for path in ("README.md", "docs/rl.md", "examples/train_maskable_ppo.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not any(f'"{old}"' in text for old in FORMER) and "nomercy_v0" not in text, path


def test_the_version_history_is_in_the_docstrings() -> None:
    for module in (nomercy.rl.gymnasium_env, nomercy.rl.pettingzoo_env):
        doc = module.__doc__ or ""
        assert "Version history" in doc
        assert f"* v{ENV_VERSION} (``{CURRENT}``" in doc
