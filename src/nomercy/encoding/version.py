"""What the two tables share: their version, their extent, and the tables they refuse.

The standard library only, like :mod:`nomercy.encoding.actions` and
:mod:`nomercy.encoding.sections`: the native engine's layout numbers its actions by this
table on a plain install.
"""

from __future__ import annotations

from typing import Final

from nomercy.cards import BASE_KINDS, Card
from nomercy.rules import Rules

__all__ = ["ENV_VERSION", "MAX_PLAYERS", "NUM_CARDS", "check_deck", "check_table"]

#: Version of both tables; the environment IDs end in ``-v{ENV_VERSION}``.
# 2: the Wild Draw 4 challenge (W6), a decision and an action.
# 3: the house rules are an input (the ``rules`` section, appended after the others), so
# one network can be trained for many rules; the observation is wider.
ENV_VERSION: Final = 3
#: Most seats the tables can describe (docs/rules.md S1); larger tables are refused.
MAX_PLAYERS: Final = 6
#: Card kinds, indexed by ``Card.index`` (64 colored, then 6 wilds incl. the classic ones):
#: the kinds the tables were built for (``BASE_KINDS``); :func:`check_table` refuses a
#: deck holding a later one (the Wild Shuffle Hands of ``classic_112``, W7).
NUM_CARDS: Final = BASE_KINDS


def check_table(players: int, rules: Rules) -> None:
    """Refuse tables the fixed encoding cannot describe, with a reason."""
    if not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"the RL environments seat 2 to {MAX_PLAYERS} players (S1), got {players!r}")
    if players > rules.max_players:
        raise ValueError(f"{players} players, but these rules seat at most {rules.max_players} (S1)")
    check_deck(rules)


def check_deck(rules: Rules) -> None:
    """Refuse a deck with a card kind the fixed tables have no place for (W7)."""
    beyond = [code for code, _ in rules.deck if Card.parse(code).index >= NUM_CARDS]
    if beyond:
        raise ValueError(
            f"the RL encoding has no place for {', '.join(beyond)}: it covers the card kinds of the "
            "no_mercy and classic decks, not the 112-card deck's Wild Shuffle Hands (W7)"
        )
