"""Hand-built positions for bot tests (piles written top card first, as in the state format)."""

from __future__ import annotations

from typing import Any

from nomercy import GameState


def position(hands: list[str], discard: str = "R5", draw: str = "", **fields: Any) -> GameState:
    """One hand string per seat (``"R1 B+2"``); other fields pass through to ``from_dict``."""
    data: dict[str, Any] = {
        "players": len(hands),
        "hands": [h.split() for h in hands],
        "discard_pile": discard.split(),
        "draw_pile": draw.split(),
        "current": 0,
    }
    data.update(fields)
    return GameState.from_dict(data)


def filler(n: int, avoid: str = "") -> str:
    """``n`` harmless cards for padding hands (no 5s, no reds, no action cards)."""
    pool = [f"{c}{d}" for c in "YGB" for d in (1, 2, 3, 4, 6, 8, 9) for _ in range(2)]
    pool = [p for p in pool if p not in avoid.split()]
    return " ".join(pool[:n])
