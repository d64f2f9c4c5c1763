"""Options shared by commands: choosing the rules from a preset, a file and overrides."""

from __future__ import annotations

import tomllib
from pathlib import Path

import typer

from nomercy.errors import InvalidRules
from nomercy.rules import Rules


def load_rules(preset: str | None, rule: list[str] | None, rules_file: Path | None = None) -> Rules:
    """Preset, then a TOML file's table, then ``--rule name=value`` overrides."""
    try:
        rules = Rules.preset(preset) if preset else Rules()
        if rules_file is not None:
            try:
                data = tomllib.loads(rules_file.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise typer.BadParameter(f"cannot read rules file {rules_file}: {exc}") from None
            rules = Rules.from_dict(data.get("rules", data), base=rules)
        return rules.with_overrides(rule or [])
    except InvalidRules as exc:
        raise typer.BadParameter(str(exc)) from None
