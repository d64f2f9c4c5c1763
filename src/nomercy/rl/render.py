"""Plain-text rendering of a seat's view (render modes "human" and "ansi")."""

from __future__ import annotations

from nomercy.cards import Card
from nomercy.views import PlayerView

__all__ = ["render_view"]


def render_view(view: PlayerView) -> str:
    """A few lines describing the table as ``view``'s seat sees it (never other hands)."""
    color = view.color.name.lower() if view.color is not None else "unnamed"
    arrow = "clockwise" if view.direction == 1 else "counter-clockwise"
    lines = [f"step {view.step}: top {view.top.code} ({color}), {arrow}, draw pile {view.draw_pile_size}"]
    if view.pending_total:
        lines.append(f"pending draw: {view.pending_total}")
    seats = []
    for seat, size in enumerate(view.hand_sizes):
        mark = "*" if seat == view.current_player else " "
        status = f"{size} cards" if view.active[seat] else "knocked out"
        seats.append(f"{mark}P{seat}: {status}")
    lines.append("  ".join(seats))
    if view.seat is not None:
        hand = " ".join(c.code for c in sorted(view.hand, key=Card.sort_key))
        lines.append(f"P{view.seat} holds: {hand}")
    if view.outcome is not None:
        lines.append(f"round over: P{view.outcome.winner} wins ({view.outcome.reason})")
    elif view.is_my_turn:
        lines.append(
            f"P{view.seat} to {view.decision.label}: " + ", ".join(str(a) for a in view.legal_actions)
        )
    return "\n".join(lines)
