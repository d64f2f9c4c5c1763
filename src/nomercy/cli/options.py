"""Options shared by commands: choosing the rules from a preset, a file and overrides.

Help texts are Rich markup (Typer renders them so): a literal ``[`` is written ``\\[``,
or Rich takes ``[fast]`` or ``[default: x]`` for a style and drops it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import typer

from nomercy.errors import InvalidRules
from nomercy.rules import PRESETS, Rules

#: ``--preset``'s help, from the presets themselves so that a new one is listed everywhere.
PRESET_HELP = f"rules preset: {', '.join(PRESETS)} (default: no_mercy)"


def load_rules(preset: str | None, rule: list[str] | None, rules_file: Path | None = None) -> Rules:
    """Preset, then a TOML file's table, then ``--rule name=value`` overrides.

    A mistake is a usage error that names the option it came from.
    """
    try:
        rules = Rules.preset(preset) if preset else Rules()
    except InvalidRules as exc:
        raise typer.BadParameter(str(exc).removeprefix("preset: "), param_hint="--preset") from None
    if rules_file is not None:
        try:
            data = tomllib.loads(rules_file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise typer.BadParameter(
                f"cannot read {rules_file}: {exc.strerror or exc}", param_hint="--rules"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            raise typer.BadParameter(f"{rules_file} is not valid TOML: {exc}", param_hint="--rules") from None
        try:
            rules = Rules.from_dict(data.get("rules", data), base=rules)
        except InvalidRules as exc:
            raise typer.BadParameter(f"{rules_file}: {exc}", param_hint="--rules") from None
    try:
        return rules.with_overrides(rule or [])
    except InvalidRules as exc:
        raise typer.BadParameter(str(exc), param_hint="--rule") from None
