"""``nomercy play``: a person against bots in the terminal (one round or a match)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Annotated

import platformdirs
import typer
from rich.console import Console
from rich.text import Text

from nomercy import bots as bot_registry
from nomercy.cli.options import PresetOption, RuleOption, RulesFileOption, flag, load_rules
from nomercy.engine import GameState
from nomercy.errors import NoMercyError
from nomercy.i18n import catalog, resolve_language
from nomercy.tui.game import Game
from nomercy.tui.session import SaveError, Session, new_session


def default_bots() -> str:
    """The strongest everyday opponent available: ``heuristic``, else ``random``."""
    return "heuristic" if "heuristic" in bot_registry.available() else "random"


def default_save_path() -> Path:
    """A new file under the user's data directory (e.g. ``~/.local/share/nomercy/saves``)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return platformdirs.user_data_path("nomercy") / "saves" / f"game-{stamp}.json"


def fail(console: Console, message: str) -> typer.Exit:
    console.print(Text.assemble(("Error: ", "bold red"), message), soft_wrap=True)
    return typer.Exit(1)


def play(
    players: Annotated[
        int, typer.Option("--players", "-p", help="players at the table, you included (2-6)")
    ] = 4,
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            "-b",
            help="bots for the other seats, comma-separated, repeated to fill them \\[default: heuristic]",
        ),
    ] = None,
    preset: PresetOption = None,
    rule: RuleOption = [],
    rules_file: RulesFileOption = None,
    match: Annotated[bool, flag("--match", help="play a scored match to the target score (E4)")] = False,
    seed: Annotated[
        int | None, typer.Option("--seed", "-s", min=0, help="seed: the same seed deals the same game")
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="your name at the table \\[default: You]")
    ] = None,
    speed: Annotated[
        float, typer.Option("--speed", min=0.0, help="seconds to pause after each bot move")
    ] = 0.6,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="language of the game: en (English) or nb (Norwegian Bokmål) \\[default: from LANG]",
        ),
    ] = None,
    fast: Annotated[bool, flag("--fast", help="no pauses between bot moves")] = False,
    save: Annotated[
        Path | None, typer.Option("--save", help="save file (default: under your data directory)")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="continue a game saved with q or Ctrl-C")
    ] = None,
    start_state: Annotated[
        Path | None,
        typer.Option(
            "--start-state", hidden=True, help="tutorials/debugging: play one round from a GameState JSON"
        ),
    ] = None,
    coach_python: Annotated[
        bool, flag("--coach-python", hidden=True, help="tests/debugging: the coach plays out in Python")
    ] = False,
) -> None:
    """Play No Mercy against bots. q or Ctrl-C saves; --resume FILE continues."""
    console = Console(highlight=False)
    try:
        language = resolve_language(lang)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--lang") from None
    if resume is not None:
        try:
            session = Session.load(resume)
        except SaveError as exc:
            raise fail(console, str(exc)) from None
        if session.finished:
            raise fail(console, f"that game is over; watch it with: nomercy replay {resume}")
        save_path = save or resume
    else:
        if name is None:
            name = catalog(language).text("term.default_name")
        session = _new(console, players, bots, preset, rule, rules_file, match, seed, name, start_state)
        save_path = save or default_save_path()
    game = Game(
        session,
        console,
        save_path,
        delay=0.0 if fast else speed,
        lang=language,
        coach_native=False if coach_python else None,
    )
    try:
        game.run()
    except SaveError as exc:
        raise fail(console, str(exc)) from None


def _new(
    console: Console,
    players: int,
    bots: str | None,
    preset: str | None,
    rule: list[str],
    rules_file: Path | None,
    match: bool,
    seed: int | None,
    name: str,
    start_state: Path | None,
) -> Session:
    rules = load_rules(preset, rule, rules_file)
    names = [b.strip() for b in (bots or default_bots()).split(",") if b.strip()]
    known = bot_registry.available()
    for bot in names:
        if bot.lower().split(":")[0] not in known:
            raise typer.BadParameter(
                f"unknown bot {bot!r}: choose from {', '.join(known)}", param_hint="--bots"
            )
        try:  # a character at a level (stacker:level=strong): its options checked now
            bot_registry.make(bot)
        except (ValueError, TypeError) as exc:
            raise typer.BadParameter(f"{bot}: {exc}", param_hint="--bots") from None
    start: GameState | None = None
    if start_state is not None:
        try:
            start = GameState.from_json(start_state.read_text(encoding="utf-8"))
        except OSError as exc:
            raise fail(console, f"cannot read {start_state}: {exc.strerror or exc}") from None
        except NoMercyError as exc:
            raise fail(console, f"{start_state} is not a usable game state: {exc}") from None
        players = start.players
        if start.is_over or start.current is None:
            raise fail(console, f"{start_state}: that round is already over")
    if not 2 <= players <= rules.max_players:
        raise typer.BadParameter(
            f"{players} players: a table seats 2 to {rules.max_players} (S1)", param_hint="--players"
        )
    if len(names) > players - 1:
        raise typer.BadParameter(
            f"{len(names)} bots for {players - 1} seats: name at most one bot per seat other than yours",
            param_hint="--bots",
        )
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    try:
        return new_session(players, rules, [n.lower() for n in names], seed, name, match, start)
    except NoMercyError as exc:
        raise fail(console, str(exc)) from None
