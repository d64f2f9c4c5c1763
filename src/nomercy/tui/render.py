"""Rich renderables for the terminal game: cards, the table, the hand, the log, scores.

Every card is written with its code (color letter and face symbol, ``R7``, ``G+4``,
``WCR``) and colored on top of that, so the game reads the same without color: Rich
drops the colors when ``NO_COLOR`` is set or the output is not a terminal, never the
letters. Playable cards carry their number, the one the player types.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from nomercy.cards import Card, Color
from nomercy.events import Event
from nomercy.match import RoundResult
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
GROUP_NAMES: dict[Color | None, str] = {
    Color.RED: "Red",
    Color.YELLOW: "Yellow",
    Color.GREEN: "Green",
    Color.BLUE: "Blue",
    None: "Wild",
}
#: Warn when a hand is this close to the Mercy limit (M1).
MERCY_WARNING = 6


def describe(events: Sequence[Event]) -> str:
    """One log line for the events of one action (already redacted for the reader)."""
    return "; ".join(e.describe() for e in events)


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


def color_text(color: Color | None) -> Text:
    """The color in play, written out in full (``RED``) and colored."""
    if color is None:
        return Text("none")
    return Text(f" {color.name} ", style=FACE_STYLE[color])


def player_name(seat: int, names: Sequence[str]) -> str:
    return f"P{seat} {names[seat]}"


def player_cell(view: PlayerView, seat: int, names: Sequence[str]) -> Text:
    """One seat: whose turn, name, card count, Uno and Mercy warnings (M1, U2)."""
    limit = view.rules.mercy_limit
    turn = seat == view.current_player
    text = Text("▶ " if turn else "  ", style="bold")
    style = "bold" if turn else ""
    if seat == view.seat:
        style += " underline"
    text.append(player_name(seat, names), style=style.strip())
    if not view.active[seat]:
        text.append("  knocked out", style="bold red")
        return text
    size = view.hand_sizes[seat]
    text.append(f"  {size} card{'s' if size != 1 else ''}")
    if size == 1:
        text.append(" UNO", style="bold yellow")
        if seat in view.uno_open:
            text.append(" (not called!)", style="bold red")
    if limit is not None and size >= limit - MERCY_WARNING:
        text.append(f" ⚠ {limit - size} to Mercy", style="bold red")
    return text


def players_grid(view: PlayerView, names: Sequence[str]) -> Table:
    """Every seat, two to a row from four players on, so six fit in three lines."""
    per_row = 2 if view.players > 3 else 1
    grid = Table.grid(padding=(0, 3))
    for _ in range(per_row):
        grid.add_column(no_wrap=True)
    cells = [player_cell(view, seat, names) for seat in range(view.players)]
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


def table_line(view: PlayerView) -> Text:
    """The top card, the color in play and the draw pile."""
    text = Text("Top ")
    text.append_text(card_text(view.top))
    text.append("   color in play ")
    text.append_text(color_text(view.color))
    text.append(f"   draw pile {view.draw_pile_size}", style="dim")
    return text


def order_line(view: PlayerView) -> Text:
    """The direction of play (A2, W1) and the order it gives from the deciding seat."""
    text = Text("↻ clockwise" if view.direction == 1 else "↺ counter-clockwise", style="bold")
    text.append(f": {turn_order(view)}")
    return text


def stack_text(view: PlayerView, names: Sequence[str]) -> Text | None:
    """The pending draw total (K1) and who faces it, or None when no stack is running."""
    if view.pending_total <= 0 or view.current_player is None:
        return None
    who = "you" if view.current_player == view.seat else player_name(view.current_player, names)
    if view.decision is Decision.CHALLENGE:  # W6: no stacking, a challenge instead
        text = Text(f" WILD DRAW 4 +{view.pending_total} ", style="bold white on red")
        text.append(f" on {who}", style="bold")
        if view.current_player == view.seat:
            text.append(": x to challenge it, or t to take the 4")
        return text
    text = Text(f" STACK +{view.pending_total} ", style="bold white on red")
    text.append(f" pending on {who}", style="bold")
    if view.current_player == view.seat:
        least = max(view.last_draw_value, 1)
        text.append(f": stack a Draw card of {least} or more, or t to take {view.pending_total} cards")
    return text


def hand_panel(view: PlayerView) -> RenderableType:
    """The seat's hand grouped by color; playable cards bright and numbered."""
    numbers = {card: i + 1 for i, card in enumerate(playable(view))} if view.is_my_turn else {}
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
            row.append_text(card_text(card, number, dim=number is None and bool(numbers)))
            if counts[card] > 1:
                row.append(f"x{counts[card]}", style="bold")
        grid.add_row(GROUP_NAMES[color], row)
    size = len(view.hand)
    title = Text(f"Your hand: {size} card{'s' if size != 1 else ''}", style="bold")
    if numbers:
        title.append("  (numbered cards can be played)", style="dim")
    return Group(title, grid)


def log_panel(lines: Sequence[str], limit: int = 6) -> RenderableType:
    """The last ``limit`` lines of what happened."""
    shown = list(lines[-limit:])
    text = Text()
    if len(lines) > limit:
        text.append(f"  … {len(lines) - limit} earlier\n", style="dim")
    for i, line in enumerate(shown):
        text.append(f"  {line}")
        if i < len(shown) - 1:
            text.append("\n")
    return text


def decision_hint(view: PlayerView) -> str:
    """What the player must do now, in one line."""
    if view.decision is Decision.STACK:
        return f"You face +{view.pending_total}: stack a Draw card, or t to take."
    if view.decision is Decision.PLAY_DRAWN and view.drawn is not None:
        keep = " (or p to keep it)" if not view.rules.must_play_drawn else ""
        return f"You drew {view.drawn.code}: play it{keep}."
    if view.decision is Decision.ROULETTE:
        return "Wild Color Roulette: name a color to turn up cards for (r, y, g or b)."
    if view.decision is Decision.CHOOSE_COLOR:
        return "The first card is a wild: name the color in play (r, y, g or b)."
    if view.decision is Decision.CHALLENGE:
        return "A Wild Draw 4 at you: x to challenge it (wrong: you draw 6), or t to take the 4."
    if any(a.kind == "draw" for a in view.legal_actions):
        if not playable(view):
            return "Nothing matches: d to draw."
        return "Play a card: its number or code, or d to draw (T3)."
    return "Play a card: its number or code."


def screen(
    view: PlayerView,
    names: Sequence[str],
    log: Sequence[str],
    title: str,
    notices: Sequence[str] = (),
    log_limit: int = 6,
) -> RenderableType:
    """The whole table as the person at ``view.seat`` sees it."""
    parts: list[RenderableType] = [
        Rule(title, style="dim"),
        players_grid(view, names),
        table_line(view),
        order_line(view),
    ]
    stack = stack_text(view, names)
    if stack is not None:
        parts.append(stack)
    if log:
        parts.append(log_panel(log, log_limit))
    parts.append(hand_panel(view))
    for notice in notices:
        parts.append(Text(notice, style="bold yellow"))
    return Group(*parts)


def outcome_panel(outcome: Outcome, names: Sequence[str]) -> RenderableType:
    """How a round ended: the winner, why, the knock-outs and the points (E1-E3)."""
    how = "played their last card" if outcome.reason == "played_out" else "is the last one standing"
    text = Text(f"{player_name(outcome.winner, names)} {how} and wins the round", style="bold")
    text.append(f", scoring {outcome.points[outcome.winner]} points.")
    for ko in outcome.knocked_out:
        by = f" by {player_name(ko.by, names)}" if ko.by is not None else ""
        text.append(f"\n{player_name(ko.seat, names)} was knocked out{by} (M1).")
    return text


def scoreboard(
    rounds: Sequence[RoundResult], scores: Sequence[int], names: Sequence[str], target: int
) -> Table:
    """Each round's points and the running totals (E3, E4); ``*`` marks a round's winner."""
    table = Table(title=f"Scores (first to {target} wins the match)", show_footer=True)
    table.add_column("Round", footer="Total")
    for seat, name in enumerate(names):
        table.add_column(f"P{seat} {name}", justify="right", footer=Text(str(scores[seat]), style="bold"))
    for r in rounds:
        cells: list[RenderableType] = [str(r.number)]
        for seat in range(len(names)):
            cell = Text(str(r.points[seat]))
            if seat == r.winner:
                cell = Text(f"*{r.points[seat]}", style="bold green")
            elif seat in r.knocked_out:
                cell = Text("out", style="red")
            cells.append(cell)
        table.add_row(*cells)
    return table
