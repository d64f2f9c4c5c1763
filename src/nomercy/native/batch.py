"""A batch of native tables under one set of house rules: deal, ask, act, convert, play.

The tables live in one ``(tables, width)`` int32 array (``Batch.tables``), one row per
table; the methods are thin Python over the compiled kernels, and :meth:`Batch.random_play`
runs whole random games without leaving native code.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from nomercy.actions import Action
from nomercy.cards import Card, deck_cards
from nomercy.engine import GameState
from nomercy.errors import IllegalAction, InvalidRules
from nomercy.native import kernels as K
from nomercy.native import layout as L
from nomercy.native.convert import from_state, to_state
from nomercy.native.slots import action_index, index_action
from nomercy.rules import Rules

__all__ = ["Batch", "action_index", "index_action"]


class Batch:
    """``tables`` native tables of ``players`` seats under ``rules``.

    ``Batch(rules, tables, players).reset(seeds)`` deals every table as
    ``nomercy.new_game(players, rules, seed)`` would; :meth:`legal_mask`, :meth:`step`
    and :meth:`state` ask and act on one table; :meth:`load` writes any ``GameState`` of
    these rules into a table, so that any position can be played on natively.
    """

    def __init__(self, rules: Rules | None = None, tables: int = 1, players: int = 4) -> None:
        rules = rules if rules is not None else Rules()
        if not isinstance(players, int) or not 2 <= players <= min(L.MAX_PLAYERS, rules.max_players):
            raise InvalidRules(
                "players",
                f"{players!r} players: a native table seats 2 to {min(L.MAX_PLAYERS, rules.max_players)}",
            )
        beyond = [code for code, _ in rules.deck if Card.parse(code).index >= L.NUM_CARDS]
        if beyond:
            raise InvalidRules(
                "deck",
                f"the native engine does not play {', '.join(beyond)} (the 112-card deck's Wild "
                "Shuffle Hands, W7): play this deck on the Python engine",
            )
        deck = np.array([c.index for c in deck_cards(rules.deck)], np.int32)
        if players * rules.hand_size + 1 > len(deck):
            raise InvalidRules(
                "players",
                f"a {len(deck)}-card deck cannot deal {rules.hand_size} cards to {players} players (S2)",
            )
        if tables < 1:
            raise ValueError(f"a batch has at least one table, not {tables}")
        self.rules = rules
        self.players = players
        self.deck = deck
        self.encoded = L.encode_rules(rules)
        #: One row per table: the vector that ``nomercy.native.layout`` describes.
        self.tables: npt.NDArray[np.int32] = np.zeros((tables, L.width(len(deck))), np.int32)
        # Scratch for the kernels, which allocate nothing themselves.
        self._mask = np.zeros(L.NUM_ACTIONS, np.uint8)
        self._list = np.zeros(L.NUM_ACTIONS + 1, np.int64)
        self._no_one = np.zeros(L.MAX_PLAYERS, np.int64)
        # Random play's seeding scratch (about 480 KB), made on its first call and kept:
        # allocating it on every call cost page faults worth a few percent of a short one.
        self._seeding: npt.NDArray[np.uint32] | None = None  # random_play's seeding pool

    def __len__(self) -> int:
        return int(self.tables.shape[0])

    def deal(self, table: int, seed: int, dealer: int | None = None, sitting_out: Iterable[int] = ()) -> None:
        """Deal ``table`` as ``new_game(players, rules, seed, dealer, sitting_out)``."""
        if not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ValueError(f"a native seed is a whole number 0 <= seed < 2**64, got {seed!r}")
        sitting = self._no_one
        out = frozenset(sitting_out)
        if out:
            if any(not 0 <= x < self.players for x in out) or self.players - len(out) < 2:
                raise InvalidRules("sitting_out", f"{sorted(out)} must be seats leaving two players")
            sitting = np.array([seat in out for seat in range(L.MAX_PLAYERS)], np.int64)
        if dealer is not None and not 0 <= dealer < self.players:
            raise InvalidRules("dealer", f"dealer must be a seat 0-{self.players - 1}, got {dealer!r}")
        K.deal(
            self.tables[table],
            self.encoded,
            self.deck,
            self.players,
            seed & 0xFFFFFFFF,
            seed >> 32,
            -1 if dealer is None else dealer,
            sitting,
        )

    def reset(self, seeds: Iterable[int]) -> None:
        """Deal every table, table ``i`` with ``seeds[i]``."""
        seeds = list(seeds)
        if len(seeds) != len(self):
            raise ValueError(f"{len(seeds)} seeds for {len(self)} tables")
        for table, seed in enumerate(seeds):
            self.deal(table, seed)

    def state(self, table: int) -> GameState:
        """The table as a :class:`GameState` (a new object, equal to the reference's)."""
        return to_state(self.tables[table], self.rules)

    def load(self, table: int, state: GameState) -> None:
        """Write ``state`` into ``table``: its rules must be this batch's."""
        if state.rules != self.rules:
            raise ValueError("the state's house rules are not this batch's")
        if state.players != self.players:
            raise ValueError(f"the state seats {state.players}, this batch's tables {self.players}")
        from_state(state, self.tables[table], len(self.deck))

    def legal_mask(self, table: int, seat: int | None = None) -> npt.NDArray[np.uint8]:
        """``legal_actions(seat)`` of ``table`` as a 0/1 mask over :data:`ACTIONS` (a new array)."""
        mask = np.zeros(L.NUM_ACTIONS, np.uint8)
        K.legal_mask(self.tables[table], self.encoded, -1 if seat is None else seat, mask, self._list)
        return mask

    def legal_actions(self, table: int, seat: int | None = None) -> list[Action]:
        """The legal actions as ``Action`` values (seats made absolute), in table order."""
        mask = self.legal_mask(table, seat)
        actor = seat if seat is not None else int(self.tables[table, L.CURRENT])
        return [index_action(int(i), actor, self.players) for i in np.flatnonzero(mask)]

    def step(self, table: int, action: int | Action, seat: int | None = None) -> None:
        """Apply ``action`` (an index or an ``Action``) by ``seat`` (default: the deciding
        seat); raises :class:`~nomercy.IllegalAction` and changes nothing if illegal."""
        row = self.tables[table]
        actor = seat if seat is not None else int(row[L.CURRENT])
        if isinstance(action, Action):
            try:
                action = action_index(action, actor, self.players)
            except ValueError as exc:
                raise IllegalAction(str(exc)) from None
        if not 0 <= action < L.NUM_ACTIONS:
            raise IllegalAction(f"action index {action} is outside 0..{L.NUM_ACTIONS - 1}")
        if K.step(row, self.encoded, -1 if seat is None else seat, action, self._mask, self._list) != 0:
            taken = index_action(action, actor, self.players) if actor >= 0 else L.ACTIONS[action]
            raise IllegalAction(f"{taken} by P{actor} is not legal now (action index {action})")

    def current(self, table: int) -> int | None:
        seat = int(self.tables[table, L.CURRENT])
        return None if seat < 0 else seat

    def random_play(self, decisions: int, seed: int = 0, first_game_seed: int = 0) -> int:
        """Play ``decisions`` random legal actions of the deciding seats: a table's round to
        its end, dealt again with the next game seed, then the next table's (the last
        round may stop part way). Returns the rounds finished.

        Deal the tables first (:meth:`reset`); ``seed`` seeds the random player's own
        generator, and new rounds take the seeds ``first_game_seed``, ``+1``, ...
        """
        rng = np.array([((seed * 2 + 0x9E3779B97F4A7C15) & (2**64 - 1)) or 1], np.uint64)
        seeds = np.array([first_game_seed], np.int64)
        self._mask[:] = 0
        if self._seeding is None:
            self._seeding = np.zeros((K.POOL_ROWS, K.SEED_LANES), np.uint32)
        played = K.random_play(
            self.tables,
            self.encoded,
            self.deck,
            self.players,
            seeds,
            rng,
            decisions,
            self._mask,
            self._list,
            self._no_one,
            self._seeding,
        )
        return int(played)
