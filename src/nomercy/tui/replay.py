"""Show a saved or finished game move by move (``nomercy replay``).

Reads a save file of ``nomercy play`` (a session), a saved match, or a bare game record.
Each move is one line, paced like the live game; cards drawn by other seats stay hidden
as they were at the table, unless ``reveal`` is asked for (a finished game has no
secrets left worth keeping).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from nomercy.actions import Action
from nomercy.engine import GameState, new_game, started_event
from nomercy.errors import NoMercyError
from nomercy.events import redact
from nomercy.match import Match
from nomercy.record import GameRecord
from nomercy.tui import render
from nomercy.tui.hand import grouped
from nomercy.tui.session import SESSION_FORMAT, SESSION_VERSION, SaveError


class Replayable:
    """What a file holds: the round's start, its actions, names and earlier results."""

    def __init__(
        self,
        start: GameState,
        actions: list[tuple[int, Action]],
        names: list[str],
        human: int | None,
        match: Match | None = None,
        match_mode: bool = False,
        hints: list[tuple[int, int]] | None = None,
    ) -> None:
        self.start = start
        self.actions = actions
        self.names = names
        self.human = human
        self.match = match
        self.match_mode = match_mode
        #: The coach's hints of the round, as its record keeps them: ``(seat, actions before)``.
        self.hints = list(hints or [])


def load_replayable(path: Path) -> Replayable:
    """Read any of the three file kinds; problems raise :class:`SaveError`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SaveError(f"cannot read {path}: {reason}") from None
    except json.JSONDecodeError:
        raise SaveError(f"{path} is not a nomercy save file (it is not JSON)") from None
    try:
        return _from_data(data)
    except SaveError as exc:
        raise SaveError(f"{path}: {exc}") from None
    except NoMercyError as exc:
        raise SaveError(f"{path}: the saved game is damaged: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise SaveError(f"{path}: the saved game is damaged ({type(exc).__name__}: {exc})") from None


def _from_data(data: Any) -> Replayable:
    kind = data.get("format") if isinstance(data, dict) else None
    if kind == SESSION_FORMAT:
        if data.get("format_version") != SESSION_VERSION:
            raise SaveError(f"save format version {data.get('format_version')!r} is not supported")
        names = [str(n) for n in data["names"]]
        human = int(data["human"])
        if "match" in data:
            return _from_match(data["match"], names, human, bool(data.get("match_mode")))
        start = GameState.from_dict(data["start_state"])
        actions = [(int(seat), Action.parse(text)) for seat, text in data["actions"]]
        hints = [(int(seat), int(n)) for seat, n in data.get("hints", [])]
        return Replayable(start, actions, names, human, hints=hints)
    if kind == "nomercy.match":
        return _from_match(data, None, None, True)
    if kind == "nomercy.record":
        record = GameRecord.from_dict(data)
        return Replayable(
            _start(record), record.actions, _bot_names(record.players), None, hints=record.hints
        )
    raise SaveError("not a nomercy save file (nor a saved match or game record)")


def _from_match(data: Any, names: list[str] | None, human: int | None, match_mode: bool) -> Replayable:
    match = Match.from_dict(data)
    record = match.record
    names = names or _bot_names(match.players)
    return Replayable(_start(record), record.actions, names, human, match, match_mode, record.hints)


def _start(record: GameRecord) -> GameState:
    return new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)


def _bot_names(players: int) -> list[str]:
    return ["player"] * players


def replay(game: Replayable, console: Console, delay: float = 0.4, reveal: bool = False) -> None:
    """Print the round in play move by move; a match's scoreboard follows it."""
    names = game.names
    match = game.match
    number = f"round {match.round_number}" if match is not None else "a round"
    console.print(Text(f"Replay of {number}: {game.start.players} players", style="bold"))
    for seat in range(game.start.players):
        you = " (the person)" if seat == game.human else ""
        console.print(Text(f"  {render.player_name(seat, names)}{you}"))
    if game.hints:
        console.print(Text(f"The coach gave {len(game.hints)} hint(s) in this round.", style="yellow"))
    state = game.start.clone()
    words = render.words_for(game.human, names)
    console.print("  " + render.describe([started_event(state)], words=words))
    hinted = {n: seat for seat, n in game.hints}
    for i, (seat, action) in enumerate(game.actions, start=1):
        if i - 1 in hinted:
            asked = render.player_name(hinted[i - 1], names)
            console.print(Text(f"       the coach gave {asked} a hint here", style="yellow"))
        if seat == game.human or reveal:
            hand = Text(f"  {render.player_name(seat, names)} holds ", style="dim")
            for _group, cards in grouped(state.hands[seat]):
                for card in cards:
                    hand.append_text(render.card_text(card))
                    hand.append(" ")
            console.print(hand)
        try:
            events = state.apply(action, seat)
        except NoMercyError as exc:
            raise SaveError(f"move {i} ({action} by P{seat}) is illegal: {exc}") from None
        shown = events if reveal else redact(events, game.human)
        line = Text(f"{i:>4} ", style="dim")
        line.append(render.describe(shown, words=words), style="bold" if seat == game.human else "")
        console.print(line)
        if delay > 0:
            time.sleep(delay)
    if state.outcome is not None:
        console.print(render.outcome_panel(state.outcome, names))
    else:
        console.print(Text("The game was saved here, in the middle of the round.", style="bold"))
    if match is not None and game.match_mode and match.rounds:
        console.print(render.scoreboard(match.rounds, match.scores, names, match.rules.target_score))
