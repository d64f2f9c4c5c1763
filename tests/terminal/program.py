"""The real ``nomercy`` program plus two predictable bots, for scripted terminal tests.

``first`` plays its first legal action (so it never calls Uno with a plain play) and
catches anyone it can; ``quiet`` plays the same but never catches. With them a
hand-built position (``--start-state``) unfolds the same way every time.
"""

from __future__ import annotations

from typing import ClassVar

from nomercy.actions import Action, Catch
from nomercy.bots import Bot, register
from nomercy.views import PlayerView


@register("first")
class FirstBot(Bot):
    name: ClassVar[str] = "first"

    def choose(self, view: PlayerView) -> Action:
        return next(a for a in view.legal_actions if not a.out_of_turn)

    def react(self, view: PlayerView) -> Action | None:
        return next((a for a in view.legal_actions if isinstance(a, Catch)), None)


@register("quiet")
class QuietBot(FirstBot):
    name: ClassVar[str] = "quiet"

    def react(self, view: PlayerView) -> Action | None:
        return None


if __name__ == "__main__":
    from nomercy.cli import main

    main()
