"""Rich renderables for the terminal game: cards, the table, the hand, the log, scores.

Every card is written with its code (color letter and face symbol, ``R7``, ``G+4``,
``WCR``) and colored on top of that, so the game reads the same without color: Rich
drops the colors when ``NO_COLOR`` is set or the output is not a terminal, never the
letters. Playable cards carry their number, the one the player types.

Every word comes from the message catalog (:mod:`nomercy.i18n`, ``--lang``); what the
player may do and why not comes from :func:`nomercy.decisions.decisions`, the sentences
of the log from :func:`nomercy.narration.event_lines`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from nomercy.cards import Card, Color
from nomercy.decisions import Decisions, decisions
from nomercy.events import Event
from nomercy.i18n import Catalog, Words, catalog
from nomercy.match import RoundResult
from nomercy.narration import event_lines
from nomercy.state import Decision, Outcome
from nomercy.tui.hand import grouped, playable
from nomercy.views import PlayerView

#: A card face: white or black on its color; wilds on magenta.
FACE_STYLE: dict[Color | None, str] = {
    Color.RED: "bold white on red3",
    Color.YELLOW: "bold black on yellow3",
    Color.GREEN: "bold white on green4",
    Color.BLUE: "bold white on blue",
    None: "bold white on magenta",
}
#: A card that cannot be played now: its color as text only.
DIM_STYLE: dict[Color | None, str] = {
    Color.RED: "red",
    Color.YELLOW: "yellow",
    Color.GREEN: "green",
    Color.BLUE: "bright_blue",
    None: "magenta",
}
#: Warn when a hand is this close to the Mercy limit (M1).
MERCY_WARNING = 6


def english() -> Catalog:
    return catalog("en")


def words_for(seat: int | None, names: Sequence[str]) -> Words:
    """Sentences for the reader at ``seat``: seats by ``P<n> name``, cards by code."""
    return Words(me=seat, seat_name=lambda s: player_name(s, names), card=lambda c: c.code)


def describe(
    events: Sequence[Event], cat: Catalog | None = None, words: Words | None = None, outcome: bool = True
) -> str:
    """One log line for the events of one action (already redacted for the reader);
    ``outcome=False`` leaves out the round's end, for a screen that announces it itself."""
    cat = cat or english()
    words = words or Words(card=lambda c: c.code)
    parts = []
    for event, line in zip(events, event_lines(events), strict=True):
        if line is None or (not outcome and event.type == "round_over"):
            continue
        text = cat.line(line, words)
        cards = getattr(event, "cards", None)
        if event.type == "drew" and cards:  # the sentence, its cards, then a full stop
            text = text.rstrip(".") + ": " + " ".join(c.code for c in cards) + "."
        parts.append(text)
    return " ".join(parts)


def card_text(card: Card, number: int | None = None, dim: bool = False) -> Text:
    """``R7`` on red; ``3:R7`` when it is playable card number 3; dim text when not playable."""
    text = Text()
    if number is not None:
        text.append(f"{number}:", style="bold")
    if dim:
        text.append(card.code, style=DIM_STYLE[card.color])
    else:
        text.append(f" {card.code} ", style=FACE_STYLE[card.color])
    return text


def color_text(color: Color | None, cat: Catalog | None = None) -> Text:
    """The color in play, written out in full (``RED``) and colored."""
    cat = cat or english()
    if color is None:
        return Text(cat.color(None))
    return Text(f" {cat.color(color).upper()} ", style=FACE_STYLE[color])


def player_name(seat: int, names: Sequence[str]) -> str:
    return f"P{seat} {names[seat]}"


def player_cell(view: PlayerView, seat: int, names: Sequence[str], cat: Catalog | None = None) -> Text:
    """One seat: whose turn, name, card count, Uno and Mercy warnings (M1, U2)."""
    cat = cat or english()
    limit = view.rules.mercy_limit
    turn = seat == view.current_player
    text = Text("▶ " if turn else "  ", style="bold")
    style = "bold" if turn else ""
    if seat == view.seat:
        style += " underline"
    text.append(player_name(seat, names), style=style.strip())
    if not view.active[seat]:
        text.append("  " + cat.phrase("term.knocked_out"), style="bold red")
        return text
    size = view.hand_sizes[seat]
    text.append("  " + cat.phrase("term.cards", count=size))
    if size == 1:
        text.append(" " + cat.text("term.uno"), style="bold yellow")
        if seat in view.uno_open:
            text.append(" " + cat.text("term.uno_not_called"), style="bold red")
    if limit is not None and size >= limit - MERCY_WARNING:
        text.append(" " + cat.text("term.to_mercy", count=limit - size), style="bold red")
    return text


def players_grid(view: PlayerView, names: Sequence[str], cat: Catalog | None = None) -> Table:
    """Every seat, two to a row from four players on, so six fit in three lines."""
    per_row = 2 if view.players > 3 else 1
    grid = Table.grid(padding=(0, 3))
    for _ in range(per_row):
        grid.add_column(no_wrap=True)
    cells = [player_cell(view, seat, names, cat) for seat in range(view.players)]
    for i in range(0, len(cells), per_row):
        row = cells[i : i + per_row]
        grid.add_row(*row, *([Text()] * (per_row - len(row))))
    return grid


def turn_order(view: PlayerView) -> str:
    """The active seats in playing order from the deciding one: ``P1 → P2 → P0``."""
    start = view.current_player if view.current_player is not None else 0
    order: list[str] = []
    for i in range(view.players):
        seat = (start + i * view.direction) % view.players
        if view.active[seat]:
            order.append(f"P{seat}")
    return " → ".join(order) + " → …"


def table_line(view: PlayerView, cat: Catalog | None = None) -> Text:
    """The top card, the color in play and the draw pile."""
    cat = cat or english()
    text = Text(cat.text("term.top") + " ")
    text.append_text(card_text(view.top))
    text.append("   " + cat.phrase("term.color_in_play") + " ")
    text.append_text(color_text(view.color, cat))
    text.append("   " + cat.phrase("term.draw_pile", count=view.draw_pile_size), style="dim")
    return text


def order_line(view: PlayerView, cat: Catalog | None = None) -> Text:
    """The direction of play (A2, W1) and the order it gives from the deciding seat."""
    cat = cat or english()
    key = "term.clockwise" if view.direction == 1 else "term.counter_clockwise"
    text = Text(cat.text(key), style="bold")
    text.append(f": {turn_order(view)}")
    return text


def stack_text(
    view: PlayerView, names: Sequence[str], cat: Catalog | None = None, d: Decisions | None = None
) -> Text | None:
    """The pending draw total (K1) and who faces it, or None when no stack is running."""
    if view.pending_total <= 0 or view.current_player is None:
        return None
    cat = cat or english()
    d = d or decisions(view)
    words = words_for(view.seat, names)
    banner = "term.wd4_banner" if view.decision is Decision.CHALLENGE else "term.stack_banner"
    text = Text(f" {cat.text(banner, total=view.pending_total)} ", style="bold white on red")
    text.append(" " + cat.phrase("term.pending_on", words, seat=view.current_player), style="bold")
    if view.current_player == view.seat:
        text.append(": " + decision_hint(view, d, cat, words))
    return text


def hand_panel(view: PlayerView, cat: Catalog | None = None, d: Decisions | None = None) -> RenderableType:
    """The seat's hand grouped by color; playable cards bright and numbered."""
    cat = cat or english()
    d = d or decisions(view)
    numbers = {card: i + 1 for i, card in enumerate(playable(view, d))} if view.is_my_turn else {}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True, min_width=6)
    grid.add_column()
    for color, cards in grouped(view.hand):
        row = Text()
        counts = Counter(cards)
        for i, card in enumerate(counts):  # copies of a card are one choice: shown once, "x2"
            if i:
                row.append(" ")
            number = numbers.get(card)
            dim = number is None and bool(numbers)
            row.append_text(card_text(card, number, dim=dim))
            if counts[card] > 1:  # "B+2 x2" either way: a dim code has no padding of its own
                row.append(f"{' ' if dim else ''}x{counts[card]}", style="bold")
        group = cat.text("term.group.wild") if color is None else cat.text("color." + color.letter)
        grid.add_row(group, row)
    title = Text(cat.text("term.your_hand", count=len(view.hand)), style="bold")
    if numbers:
        title.append("  " + cat.text("term.numbered"), style="dim")
    return Group(title, grid)


def log_panel(lines: Sequence[str], limit: int = 6, cat: Catalog | None = None) -> RenderableType:
    """The last ``limit`` lines of what happened."""
    cat = cat or english()
    shown = list(lines[-limit:])
    text = Text()
    if len(lines) > limit:
        text.append("  " + cat.text("term.earlier", count=len(lines) - limit) + "\n", style="dim")
    for i, line in enumerate(shown):
        text.append(f"  {line}")
        if i < len(shown) - 1:
            text.append("\n")
    return text


#: The key that makes each kind of choice, in the order the hint names them.
_KEYS = (("draw", "term.keys.draw"), ("take", "term.keys.take"), ("pass", "term.keys.pass"))


def decision_hint(
    view: PlayerView, d: Decisions | None = None, cat: Catalog | None = None, words: Words | None = None
) -> str:
    """What the player must do now, in one line: the core's prompt and the keys for it."""
    cat = cat or english()
    d = d or decisions(view)
    words = words or Words(me=view.seat, card=lambda c: c.code)
    kinds = {c.kind for c in d.choices}
    keys = [cat.phrase(key) for kind, key in _KEYS if kind in kinds]
    if "challenge" in kinds:
        keys.append(cat.phrase("term.keys.challenge"))
    if "color" in kinds:
        keys.append(cat.phrase("term.keys.color"))
    text = cat.line(d.prompt, words)
    return f"{text} ({', '.join(keys)})" if keys else text


def screen(
    view: PlayerView,
    names: Sequence[str],
    log: Sequence[str],
    title: str,
    notices: Sequence[str] = (),
    log_limit: int = 6,
    cat: Catalog | None = None,
) -> RenderableType:
    """The whole table as the person at ``view.seat`` sees it."""
    cat = cat or english()
    d = decisions(view)
    parts: list[RenderableType] = [
        Rule(title, style="dim"),
        players_grid(view, names, cat),
        table_line(view, cat),
        order_line(view, cat),
    ]
    stack = stack_text(view, names, cat, d)
    if stack is not None:
        parts.append(stack)
    if log:
        parts.append(log_panel(log, log_limit, cat))
    parts.append(hand_panel(view, cat, d))
    parts.extend(Text(notice, style="bold yellow") for notice in notices)
    return Group(*parts)


def outcome_panel(outcome: Outcome, names: Sequence[str], cat: Catalog | None = None) -> RenderableType:
    """How a round ended: the winner, why, the knock-outs and the points (E1-E3)."""
    cat = cat or english()
    words = words_for(None, names)
    key = "term.outcome_out" if outcome.reason == "played_out" else "term.outcome_last"
    text = Text(
        cat.text(key, words, seat=outcome.winner, points=outcome.points[outcome.winner]), style="bold"
    )
    for ko in outcome.knocked_out:
        if ko.by is not None:
            line = cat.text("term.outcome_ko_by", words, seat=ko.seat, by=ko.by)
        else:
            line = cat.text("term.outcome_ko", words, seat=ko.seat)
        text.append("\n" + line)
    return text


def scoreboard(
    rounds: Sequence[RoundResult],
    scores: Sequence[int],
    names: Sequence[str],
    target: int,
    cat: Catalog | None = None,
) -> Table:
    """Each round's points and the running totals (E3, E4); ``*`` marks a round's winner."""
    cat = cat or english()
    table = Table(title=cat.text("term.scores_title", points=target), show_footer=True)
    table.add_column(cat.text("term.round"), footer=cat.text("term.total"))
    for seat, name in enumerate(names):
        table.add_column(f"P{seat} {name}", justify="right", footer=Text(str(scores[seat]), style="bold"))
    for r in rounds:
        cells: list[RenderableType] = [str(r.number)]
        for seat in range(len(names)):
            cell = Text(str(r.points[seat]))
            if seat == r.winner:
                cell = Text(f"*{r.points[seat]}", style="bold green")
            elif seat in r.knocked_out:
                cell = Text(cat.phrase("term.out"), style="red")
            cells.append(cell)
        table.add_row(*cells)
    return table
