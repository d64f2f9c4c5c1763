"""``nomercy review``: the expert's review of a saved round, as a table or as JSON.

Reads a game record, a saved match (its round in play) or a save file of ``nomercy play``.
Each step that can fail says so by name: reading the file, parsing its JSON, loading the
game, replaying its actions. The review itself is :mod:`nomercy.bots.review`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from nomercy.actions import Action
from nomercy.bots.review import DEFAULT_WORLDS, ReviewError, RoundReview, review
from nomercy.cli.options import flag
from nomercy.decisions import decisions
from nomercy.engine import GameState, new_game
from nomercy.errors import NoMercyError
from nomercy.i18n import Catalog, Words, catalog, resolve_language
from nomercy.match import Match
from nomercy.record import GameRecord, replay
from nomercy.tui.session import seat_names
from nomercy.views import player_view

#: The largest file read: a round's record is a few kilobytes, a long match's save less
#: than a megabyte.
MAX_BYTES = 4 * 1024 * 1024
#: How many of the costliest decisions the table marks.
MARKED = 5
#: The steps of loading a file, each with the words that name it.
STEPS = {
    "read": "term.review.step.read",
    "parse": "term.review.step.parse",
    "load": "term.review.step.load",
    "replay": "term.review.step.replay",
}
COLUMNS = (
    "term.review.col.move",
    "term.review.col.seat",
    "term.review.col.position",
    "term.review.col.chosen",
    "term.review.col.win",
    "term.review.col.expert",
    "term.review.col.expert_win",
    "term.review.col.loss",
)


class LoadError(Exception):
    """A file that cannot be reviewed; ``step`` names the step that failed."""

    def __init__(self, step: str, message: str) -> None:
        super().__init__(message)
        self.step = step


@dataclass(frozen=True, slots=True)
class Position:
    """What the seat saw when it decided: the top card (and the color named for a wild),
    its hand size, the pending total, and its choices in words (action -> label)."""

    top: str
    hand: int
    stack: int
    labels: dict[Action, str]


@dataclass(slots=True)
class Round:
    """A round to review: its record, and a hand-built start when it has one."""

    record: GameRecord
    start: GameState | None = None
    names: list[str] | None = None
    #: A save file's bots by seat (their specs; None for the person) and the person's seat.
    bots: list[str | None] | None = None
    human: int | None = None


def load_round(path: Path) -> Round:
    """Read ``path`` step by step; any failure raises :class:`LoadError` naming the step."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise LoadError("read", f"{size} bytes is too large for a saved game (at most {MAX_BYTES})")
        raw = path.read_bytes()
    except OSError as exc:
        raise LoadError("read", str(exc.strerror or exc)) from None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise LoadError("parse", f"not JSON ({exc})") from None
    try:
        found = _round(data)
    except LoadError:
        raise
    except NoMercyError as exc:
        raise LoadError("load", str(exc)) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise LoadError("load", f"damaged ({type(exc).__name__}: {exc})") from None
    try:
        if found.start is not None:
            state = found.start.clone()
            for i, (seat, action) in enumerate(found.record.actions):
                try:
                    state.apply(action, seat)
                except NoMercyError as exc:
                    raise ReviewError(f"action {i} ({action} by P{seat}) is illegal: {exc}") from None
        else:
            replay(found.record)
    except (NoMercyError, ReviewError) as exc:
        raise LoadError("replay", str(exc)) from None
    return found


def _round(data: Any) -> Round:
    kind = data.get("format") if isinstance(data, dict) else None
    if kind == "nomercy.record":
        return Round(GameRecord.from_dict(data))
    if kind == "nomercy.match":
        return Round(Match.from_dict(data).record)
    if kind == "nomercy.session":
        names = [str(n) for n in data["names"]]
        bots = [None if b is None else str(b["name"]) for b in data["bots"]]
        human = int(data["human"])
        if "match" in data:
            return Round(Match.from_dict(data["match"]).record, names=names, bots=bots, human=human)
        start = GameState.from_dict(data["start_state"])
        actions = [(int(seat), Action.parse(text)) for seat, text in data["actions"]]
        hints = [(int(seat), int(n)) for seat, n in data.get("hints", [])]
        record = GameRecord(start.rules, start.players, start.seed, actions=actions, hints=hints)
        return Round(record, start, names, bots, human)
    raise LoadError(
        "load", f"format {kind!r} is not a game record, a saved match or a save file of nomercy play"
    )


def review_cmd(
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="a game record, a saved match or a save file of nomercy play"),
    ],
    seat: Annotated[
        list[int], typer.Option("--seat", "-s", help="review only this seat's decisions (repeatable)")
    ] = [],
    as_json: Annotated[bool, flag("--json", help="print the review as JSON (docs/review.md)")] = False,
    worlds: Annotated[
        int, typer.Option("--worlds", min=2, help="sampled worlds per decision")
    ] = DEFAULT_WORLDS,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="the review's seed: the same seed, the same review")
    ] = 0,
    python: Annotated[
        bool, flag("--python", help="play out in Python even when native is installed")
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option("--lang", help="language: en (English) or nb (Norwegian Bokmål) \\[default: from LANG]"),
    ] = None,
) -> None:
    """The expert's review of a round: each decision's win chance, the expert's choice and the loss."""
    console = Console(highlight=False, soft_wrap=as_json)
    try:
        cat = catalog(resolve_language(lang))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--lang") from None
    try:
        found = load_round(file)
    except LoadError as exc:
        step = cat.phrase(STEPS[exc.step])
        message = cat.text("term.review.error", path=str(file), step=step, reason=str(exc))
        console.print(Text.assemble(("✗ ", "bold red"), message), soft_wrap=True)
        raise typer.Exit(1) from None
    players = found.record.players
    bad = [s for s in seat if not 0 <= s < players]
    if bad:
        raise typer.BadParameter(f"seat {bad[0]}: this round seats P0 to P{players - 1}", param_hint="--seat")
    result = review(
        found.record,
        seed=seed,
        seats=seat or None,
        worlds=worlds,
        native=False if python else None,
        start=found.start,
    )
    if as_json:
        data = result.to_dict()
        data["hints"] = [[s, n] for s, n in found.record.hints]
        typer.echo(json.dumps(data, indent=1))
        return
    show(console, cat, result, found)


def positions(found: Round, cat: Catalog, words: Words) -> list[Position]:
    """The position before each action of the round, as its actor saw it; the labels of
    its choices come from the core (:func:`nomercy.decisions.decisions`), in ``cat``'s words."""
    record = found.record
    if found.start is not None:
        state = found.start.clone()
    else:
        state = new_game(record.players, record.rules, record.seed, record.dealer, record.sitting_out)
    out = []
    for seat, action in record.actions:
        view = player_view(state, seat)
        top = view.top.code
        if view.top.is_wild and view.color is not None:
            top += " " + view.color.letter
        labels = {c.action: cat.line(c.label, words) for c in decisions(view).choices}
        out.append(Position(top, view.hand_sizes[seat], view.pending_total, labels))
        state.apply(action, seat)
    return out


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.0f}%"


def show(console: Console, cat: Catalog, result: RoundReview, found: Round) -> None:
    """The review as a table: every estimated decision, the costliest marked."""
    names = [f"P{s}" for s in range(result.players)]
    if found.names is not None:  # bots by character or level, in the review's language
        names = seat_names(found.names, found.bots or [], found.human, cat)

    def who(seat: int) -> str:
        return f"P{seat} {names[seat]}" if found.names else f"P{seat}"

    words = Words(seat_name=who, card=lambda card: card.code)
    at = positions(found, cat, words)

    def said(index: int, action: Action) -> str:
        return at[index].labels.get(action, str(action))

    winner = cat.phrase("term.review.nobody") if result.winner is None else who(result.winner)
    console.print(
        Text(
            cat.text("term.review.title", count=result.actions, name=winner, worlds=result.worlds),
            style="bold",
        )
    )
    if found.record.hints:
        console.print(Text(cat.text("term.review.coached", count=len(found.record.hints)), style="yellow"))
    estimated = [v for v in result.verdicts if not v.forced]
    worst = sorted(estimated, key=lambda v: (-v.loss, v.index))[:MARKED]
    marked = {v.index for v in worst if v.loss > 0}
    table = Table(box=None, pad_edge=False)
    for key in COLUMNS:  # the choices in words wrap; the short columns keep to one line
        words_column = key.endswith(("position", "chosen", "expert"))
        table.add_column(
            cat.phrase(key),
            justify="left" if words_column else "right",
        )
    for v in estimated:
        loss = f"{100 * v.loss:.0f} ± {196 * v.loss_stderr:.0f}" if v.loss > 0 else "0"
        style = "bold red" if v.index in marked else ""
        where = at[v.index]
        position = (
            cat.text("term.review.at_stack", top=where.top, count=where.hand, total=where.stack)
            if where.stack
            else cat.text("term.review.at", top=where.top, count=where.hand)
        )
        table.add_row(
            str(v.index + 1),
            who(v.seat),
            position,
            said(v.index, v.chosen),
            _pct(v.win),
            "" if v.best == v.chosen else said(v.index, v.best),
            "" if v.best == v.chosen else _pct(v.best_win),
            loss,
            style=style,
        )
    console.print(table)
    forced = len(result.verdicts) - len(estimated)
    console.print(Text(cat.text("term.review.forced", count=forced), style="dim"))
    for s, row in sorted(result.seats().items()):
        console.print(
            cat.text(
                "term.review.seat_total",
                name=who(s),
                count=int(row["estimated"]),
                loss=f"{100 * row['total_loss']:.0f}",
            )
        )
    console.print(Text(cat.text("term.review.legend"), style="dim"))
