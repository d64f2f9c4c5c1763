"""docs/rl.md's tables are generated from the encoding and must be current."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from nomercy.encoding import NUM_ACTIONS, action_meaning, docs


def test_docs_rl_md_is_current() -> None:
    current = docs.DOC.read_text(encoding="utf-8")
    assert docs.render(current) == current, "docs/rl.md is out of date: run python -m nomercy.encoding.docs"


def test_every_action_is_listed_with_its_index() -> None:
    text = docs.tables()
    for i in range(NUM_ACTIONS):
        assert f"| {i} | `{action_meaning(i)}` |" in text
