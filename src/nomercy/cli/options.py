"""Options shared by commands: choosing the rules from a preset, a file and overrides.

The options that several commands declare alike are ``Annotated`` aliases here, defined
once: a command writes ``preset: PresetOption = None`` and every command's ``--preset``
reads, parses and documents the same way. Help texts are Rich markup (Typer renders them
so): a literal ``[`` is written ``\\[``, or Rich takes ``[fast]`` or ``[default: x]`` for a
style and drops it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from nomercy.errors import InvalidRules
from nomercy.rules import PRESETS, Rules

#: ``--preset``'s help, from the presets themselves so that a new one is listed everywhere.
PRESET_HELP = f"rules preset: {', '.join(PRESETS)} (default: no_mercy)"


def flag(*decls: str, **kwargs: Any) -> Any:
    """``typer.Option`` for an on/off flag: it takes no value, so help shows no type.

    Typer prints a parameter's type (``<bool>``) unless it has a metavar; a flag's empty
    metavar says there is nothing to write after it.
    """
    return typer.Option(*decls, metavar="", **kwargs)


class _HelpFlag:
    """``--help`` declared like our own flags: with an empty metavar, so no ``<bool>``.

    Typer makes the help option itself, the first time a command asks for it; this sets
    its metavar then, the declaration a flag of ours gets from :func:`flag`.
    """

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
        return option


class Command(_HelpFlag, TyperCommand):
    """Every ``nomercy`` command's class (``app.command(name, cls=Command)``)."""


class Group(_HelpFlag, TyperGroup):
    """The class of ``nomercy`` and its command groups (``typer.Typer(cls=Group)``)."""


#: The rules of a run: a preset, then a TOML file, then overrides (:func:`load_rules`).
PresetOption = Annotated[str | None, typer.Option("--preset", help=PRESET_HELP)]
RuleOption = Annotated[
    list[str], typer.Option("--rule", "-r", help="house rule override name=value (repeatable)")
]
RulesFileOption = Annotated[Path | None, typer.Option("--rules", help="TOML file of house rules")]

#: How a batch of games runs (simulate, compare).
BotsOption = Annotated[
    str, typer.Option("--bots", "-b", help="bot per seat, comma-separated (one name: every seat)")
]
WorkersOption = Annotated[
    int | None, typer.Option("--workers", "-w", help="worker processes (default: every core)")
]
#: Worker processes where 0 means one per core (tournament, ladder).
CoresOption = Annotated[
    int, typer.Option("--workers", "-w", min=0, help="worker processes (0: one per core)")
]
#: ``--ray [ADDRESS]``: a bare ``--ray`` is read as a local Ray (``OptionalRayCommand``).
RayOption = Annotated[
    str | None,
    typer.Option(
        "--ray", metavar="[ADDRESS]", help="run on Ray: bare --ray starts a local Ray; or a cluster address"
    ),
]
#: ``--json``: print machine-readable JSON instead of tables.
JsonOption = Annotated[bool, flag("--json", help="print machine-readable JSON")]


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
