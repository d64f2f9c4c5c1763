"""Levels and characters: the bots as a player knows them, over the existing engines.

A player picks a **level** (how well it plays) and maybe a **character** (how it plays),
not an engine. Each is a configuration of the ``heuristic`` and ``expert`` bots, no new
rule code:

- ``beginner``: the heuristic that makes mistakes: a random legal move ``mistakes`` of the
  time (default 0.9), forgetting Uno (U1) as often, and missing half of its catches (U2).
- ``casual``: the heuristic.
- ``strong``: the expert with a small budget (16 playouts per decision).
- ``expert``: the expert at its full budget (the ``expert`` engine itself).

A character is a :class:`Style`, weights added to the heuristic's scores (and so to the
expert's candidate ranking and protected pick at the ``strong`` level):

- ``stacker``: stacks every Draw card it can rather than take the total (K2), unless the
  total would come back to it (W1, K6), and leads with Draw cards;
- ``hoarder``: keeps its wild cards until nothing else plays;
- ``gambler``: loves Wild Color Roulettes (W4) and hand swaps with Sevens and Zeros (N1, N2).

Every choice is still one of ``view.legal_actions``: a style only reorders them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from nomercy.actions import Action, Play
from nomercy.bots import Bot, register
from nomercy.bots.expert import ExpertBot
from nomercy.bots.heuristic import HeuristicBot, react, score_actions, table_from_view
from nomercy.cards import Face
from nomercy.events import Event
from nomercy.state import Decision
from nomercy.views import PlayerView

__all__ = [
    "CHARACTERS",
    "CHARACTER_LEVELS",
    "LEVELS",
    "STRONG_BUDGET",
    "Style",
    "StyledBot",
    "menu_order",
    "styled_scores",
]

#: The levels, weakest first (``expert`` is the engine of that name).
LEVELS = ("beginner", "casual", "strong", "expert")
#: The levels a character plays at: at ``expert`` the full search decides, and a style
#: would only reorder the moves it searches first (a character there is the expert).
CHARACTER_LEVELS = ("beginner", "casual", "strong")
#: Playouts per decision of the ``strong`` level.
STRONG_BUDGET = 16
_BEGINNER_MISTAKES = 0.9


@dataclass(frozen=True)
class Style:
    """Score bonuses (added to the heuristic's) that give a character its habits."""

    stack: float = 0.0  # facing a pending total: any stacking play (K2)
    lead_draw: float = 0.0  # leading with a Draw card
    wild: float = 0.0  # playing a wild card (negative: keep it)
    roulette: float = 0.0  # playing a Wild Color Roulette (W4)
    swap: float = 0.0  # playing a Seven or a Zero that swaps hands (N1, N2)


#: The characters by name.
CHARACTERS: dict[str, Style] = {
    "stacker": Style(stack=500.0, lead_draw=15.0),
    "hoarder": Style(wild=-45.0),
    "gambler": Style(roulette=40.0, swap=30.0),
}
_PLAIN = Style()


def menu_order(names: list[str]) -> list[str]:
    """``names`` as a person choosing an opponent meets them: the levels weakest first, then
    the characters, then the engines and the rest by name."""
    first = [*LEVELS, *CHARACTERS]
    return [n for n in first if n in names] + sorted(n for n in names if n not in first)


def styled_scores(view: PlayerView, style: Style) -> list[tuple[float, Action]]:
    """The heuristic's scored actions with ``style``'s bonuses, best first."""
    ranked = score_actions(table_from_view(view), view.legal_actions)
    if len(ranked) == 1 or style == _PLAIN:
        return ranked
    stacking = view.decision is Decision.STACK
    seven_zero = view.rules.seven_zero
    out: list[tuple[float, Action]] = []
    for score, a in ranked:
        if type(a) is Play and score < 10_000.0:  # going out stays best (E1)
            card = a.card
            if card.draw_value:
                score += style.stack if stacking else style.lead_draw
            if card.is_wild:
                score += style.wild
            if card.face is Face.WILD_COLOR_ROULETTE:
                score += style.roulette
            if seven_zero and (card.face is Face.SEVEN or card.face is Face.ZERO):
                score += style.swap
        out.append((score, a))
    order = sorted(range(len(out)), key=lambda i: -out[i][0])
    return [out[i] for i in order]


class _StyledExpert(ExpertBot):
    """The expert whose candidates and protected pick come from a styled heuristic."""

    def __init__(self, style: Style, **options: Any) -> None:
        super().__init__(**options)
        self.style = style

    def choose(self, view: PlayerView) -> Action:
        self.last_playouts = 0
        ranked = styled_scores(view, self.style)
        if len(ranked) == 1:
            return ranked[0][1]
        assert view.seat is not None
        self.memory.sync(view)
        return self._search(view, view.seat, [a for _, a in ranked[: self.width]])


class StyledBot(Bot):
    """A level (``level=``) played in a character's style (the class's ``style``)."""

    name: ClassVar[str] = "styled"
    style: ClassVar[Style] = _PLAIN
    default_level: ClassVar[str] = "casual"

    def __init__(
        self, seed: int | None = None, level: str | None = None, mistakes: float | None = None, **options: Any
    ) -> None:
        super().__init__(seed)
        self.level = (level or self.default_level).strip().lower()
        if self.level not in LEVELS:
            raise ValueError(f"level is one of {', '.join(LEVELS)}, got {level!r}")
        if mistakes is None:
            mistakes = _BEGINNER_MISTAKES if self.level == "beginner" else 0.0
        if not 0.0 <= float(mistakes) <= 1.0:
            raise ValueError(f"mistakes must be a probability 0-1, got {mistakes!r}")
        self.mistakes = float(mistakes)
        self.catch_miss = float(options.pop("catch_miss", 0.5 if self.level == "beginner" else 0.2))
        self.search: ExpertBot | None = None
        if self.level in ("strong", "expert"):
            if self.level == "strong":
                options.setdefault("budget", STRONG_BUDGET)
            self.search = _StyledExpert(self.style, seed=seed, catch_miss=self.catch_miss, **options)
            self.search.rng = self.rng  # one generator, so that a saved game restores it
        elif options:
            raise ValueError(f"{self.name} bot: unknown option(s) {', '.join(sorted(options))}")

    def choose(self, view: PlayerView) -> Action:
        if self.search is not None:
            return self.search.choose(view)
        ranked = styled_scores(view, self.style)
        pick = ranked[0][1]
        if self.mistakes and len(ranked) > 1 and self.rng.random() < self.mistakes:
            pick = self.rng.choice(ranked)[1]
        if type(pick) is Play and pick.uno and self.rng.random() < self.mistakes:
            for a in view.legal_actions:  # U1: forgets to call Uno, as often as it blunders
                if (
                    type(a) is Play
                    and not a.uno
                    and (a.card, a.color, a.target) == (pick.card, pick.color, pick.target)
                ):
                    return a
        return pick

    def react(self, view: PlayerView) -> Action | None:
        if self.search is not None:
            return self.search.react(view)
        return react(view, self.rng.random, self.catch_miss)

    def observe(self, events: list[Event]) -> None:
        if self.search is not None:
            self.search.observe(events)


@register("beginner")
class BeginnerBot(StyledBot):
    """The heuristic that plays a random legal move half of the time."""

    name: ClassVar[str] = "beginner"
    default_level: ClassVar[str] = "beginner"


@register("casual")
class CasualBot(HeuristicBot):
    """The heuristic under its level's name."""

    name: ClassVar[str] = "casual"


@register("strong")
class StrongBot(ExpertBot):
    """The expert with a small budget (:data:`STRONG_BUDGET` playouts per decision)."""

    name: ClassVar[str] = "strong"

    def __init__(self, seed: int | None = None, budget: int = STRONG_BUDGET, **options: Any) -> None:
        super().__init__(seed=seed, budget=budget, **options)


@register("stacker")
class StackerBot(StyledBot):
    """Stacks every Draw card it can (K2) and leads with them."""

    name: ClassVar[str] = "stacker"
    style: ClassVar[Style] = CHARACTERS["stacker"]


@register("hoarder")
class HoarderBot(StyledBot):
    """Keeps its wild cards until nothing else plays."""

    name: ClassVar[str] = "hoarder"
    style: ClassVar[Style] = CHARACTERS["hoarder"]


@register("gambler")
class GamblerBot(StyledBot):
    """Plays Roulettes (W4) and swaps hands with Sevens and Zeros (N1, N2) at every chance."""

    name: ClassVar[str] = "gambler"
    style: ClassVar[Style] = CHARACTERS["gambler"]
