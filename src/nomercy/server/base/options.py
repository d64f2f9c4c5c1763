"""The house rules as the host's form offers them: ``GET /api/options``'s ``rules``.

Pure (the core alone, no pydantic): ``nomercy site build`` writes the same list into a
static site's ``options.json`` with this very function.
"""

from __future__ import annotations

from typing import Any

from nomercy.rules import GROUPS, Rules

__all__ = ["rules_options"]


def rules_options() -> list[dict[str, Any]]:
    """Every house rule the host's form can set (all but ``deck``), from ``Rules.fields()``:
    its type, choices and default, and the group, rule ID and catalog key it is shown by,
    in the order of its group (``nomercy.rules.GROUPS``)."""
    shown = [f for f in Rules.fields() if f.type != "deck"]
    shown.sort(key=lambda f: GROUPS.index(f.group))
    return [
        {
            "name": f.name,
            "default": f.default,
            "doc": f.doc,
            "type": f.type,
            "nullable": f.nullable,
            "choices": list(f.choices) if f.choices else None,
            "minimum": f.minimum,
            "group": f.group,
            "rule_id": f.rule_id,
            "key": f.key,
        }
        for f in shown
    ]
