"""``careful``: a scripted careful beginner, the reference the ``beginner`` level must lose to.

It plays as a person who has just learnt the rules and plays them carefully, nothing more:

- it goes out when it can (E1) and always calls Uno (U1) with its second-to-last card;
- facing a pending total (K2) it stacks when it can, with its lowest Draw card, and takes
  the total otherwise; it never challenges a Wild Draw 4 (W6);
- it follows the color: a colored card of the current color first, then another colored
  card that matches the top card's face, and a wild card only when nothing else plays;
- a wild names the color it holds most of (T5); as a Roulette's victim too (W4);
- it plays a Seven or a Zero (N1, N2) only when it gets a hand no bigger than its own,
  and then like any other card of its color;
- it draws when nothing plays (T3), plays a drawn card that plays, and catches (U2) every
  player who forgets Uno.

It reads only its :class:`~nomercy.PlayerView`, like every bot.
"""

from __future__ import annotations

from typing import ClassVar

from nomercy.actions import Action, Play
from nomercy.bots import Bot, register
from nomercy.cards import Face
from nomercy.state import Decision
from nomercy.views import PlayerView

__all__ = ["CarefulBot"]


def _held(view: PlayerView) -> list[int]:
    counts = [0, 0, 0, 0]
    for card in view.hand:
        if card.color is not None:
            counts[card.color] += 1
    return counts


@register("careful")
class CarefulBot(Bot):
    """The careful beginner of the module docstring."""

    name: ClassVar[str] = "careful"

    def choose(self, view: PlayerView) -> Action:
        legal = [a for a in view.legal_actions if not a.out_of_turn]
        held = _held(view)
        if view.decision is Decision.ROULETTE or view.decision is Decision.CHOOSE_COLOR:
            colored = [a for a in legal if getattr(a, "color", None) is not None]
            if colored:
                return max(colored, key=lambda a: held[getattr(a, "color", 0)])
            return legal[0]
        plays: list[Play] = [a for a in legal if isinstance(a, Play)]
        if any(a.uno for a in plays):  # U1: of a play with and without the call, the call
            plays = [a for a in plays if a.uno]
        if len(view.hand) == 1 and plays:
            return plays[0]  # E1
        if view.decision is Decision.STACK:
            stacks = [a for a in plays if a.card.draw_value]
            if stacks:
                return min(stacks, key=lambda a: a.card.draw_value)
            for a in legal:
                if a.kind == "take":
                    return a
            return legal[0]
        if plays:
            ordinary = [a for a in plays if not a.card.is_wild and self._keeps_hand(view, a)]
            same = [a for a in ordinary if a.card.color is view.color]
            pool = same or ordinary
            if pool:
                return pool[0]
            wilds = [a for a in plays if a.card.is_wild]
            if wilds:
                return max(wilds, key=lambda a: held[a.color] if a.color is not None else -1)
            return plays[0]
        for kind in ("take", "draw", "pass"):
            for a in legal:
                if a.kind == kind:
                    return a
        return legal[0]

    @staticmethod
    def _keeps_hand(view: PlayerView, a: Play) -> bool:
        """Whether a Seven or a Zero (N1, N2) would not swap this hand for a bigger one."""
        mine = len(view.hand) - 1
        if a.target is not None:
            return view.hand_sizes[a.target] <= mine
        if a.card.face is Face.ZERO and view.rules.seven_zero:
            return view.hand_sizes[view.previous_seat(view.seat or 0)] <= mine
        return True

    def react(self, view: PlayerView) -> Action | None:
        for a in view.legal_actions:
            if a.kind == "uno":
                return a
        for a in view.legal_actions:
            if a.kind == "catch":
                return a
        return None
