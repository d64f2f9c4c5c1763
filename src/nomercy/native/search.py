"""The expert bot's native playouts on a plain install: the C extension, and no numpy.

:class:`Playouts` is :class:`nomercy.native.playout.Playouts` (its kernel is
``playout.playout_values``, whose docstring says what a playout is) with its tables,
scratch and results in buffers of the standard library (``array``, ``memoryview``), which
the extension takes as it takes numpy arrays. So the expert, and the review and coach that
use it, search natively with nothing but the package installed; numpy stays the batched
research APIs' need (the ``fast`` extra). The same worlds, candidates and weights give the
same values, to the bit, as the numpy class (a test checks it without numpy importable).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from nomercy.actions import Action
from nomercy.cards import Card, deck_cards
from nomercy.engine import GameState
from nomercy.errors import InvalidRules
from nomercy.native._compiled import _ENGINE
from nomercy.native.convert import from_state, write_cards, write_hidden
from nomercy.native.slots import (
    ASIDE_LEN,
    DECISION,
    DISC_LEN,
    DRAWN,
    HANDS,
    HLEN,
    LAST_BY,
    MAX_PLAYERS,
    NUM_ACTIONS,
    PILE_LEN,
    WD4_CARDS,
    WD4_COLOR,
    WD4_GUILTY,
    action_index,
    pile_at,
    rule_codes,
    width,
)
from nomercy.native.weights import WEIGHTS
from nomercy.rules import Rules

__all__ = ["Playouts", "available"]

#: The extension's export of ``playout.playout_values`` (``_compiled.export_name``).
_KERNEL = "playout_playout_values"


def available() -> bool:
    """Whether the compiled extension is importable here (numpy is not needed)."""
    return _ENGINE is not None and hasattr(_ENGINE, _KERNEL)


def _floats(values: Sequence[float] | Any) -> array[float]:
    return array("d", [float(v) for v in values])


class Playouts:
    """Sampled worlds of one table kind, loaded once, and their playouts in one call.

    The arguments are :class:`nomercy.native.playout.Playouts`'s: ``weights`` score a hand
    by its size (the expert's table), ``mine`` and ``theirs`` are the heuristic's score
    weights for the searching seat and the others (the reference's by default).
    """

    def __init__(
        self,
        rules: Rules,
        players: int,
        weights: Sequence[float],
        capacity: int = 64,  # the numpy class's argument; the tables here grow as worlds come
        mine: Sequence[float] | None = None,
        theirs: Sequence[float] | None = None,
    ) -> None:
        if not 2 <= players <= MAX_PLAYERS:
            raise ValueError(f"native playouts seat 2 to {MAX_PLAYERS} players, not {players}")
        if players > rules.max_players:
            raise InvalidRules("players", f"{players} players: these rules seat at most {rules.max_players}")
        if len(weights) < 1:
            raise ValueError("weights needs at least one entry")
        if _ENGINE is None:
            raise ImportError("nomercy.native's C extension is not built: install the package with pip")
        self._kernel = getattr(_ENGINE, _KERNEL)
        base = [value for _, value in WEIGHTS]
        self.mine = _floats(base if mine is None else mine)
        self.theirs = _floats(base if theirs is None else theirs)
        if len(self.mine) != len(base) or len(self.theirs) != len(base):
            raise ValueError(f"score weights are {len(base)} numbers (native.heuristic.WEIGHTS)")
        self.rules = rules
        self.players = players
        self._deck = array("i", [c.index for c in deck_cards(rules.deck)])
        self._rules = array("q", rule_codes(rules))
        self._width = width(len(self._deck))
        self._weights = _floats(weights)
        # The tables, one row after another, grown a row at a time (array over-allocates):
        # allocating them all up front cost more than a small search's playouts.
        self._tables = array("i")
        self._rows = 0
        self._zero = array("i", bytes(4 * self._width))
        self._scratch = array("i", bytes(4 * self._width))
        self._mask = array("B", bytes(NUM_ACTIONS))
        self._no_mask = array("B", bytes(NUM_ACTIONS))
        self._list = array("q", bytes(8 * (NUM_ACTIONS + 1)))
        self._count = 0
        #: The first world's table since :meth:`clear` with its hidden cards taken out.
        self._blank: array[int] | None = None

    def __len__(self) -> int:
        """The worlds loaded since the last :meth:`clear`."""
        return self._count

    def clear(self) -> None:
        """Forget the loaded worlds (their tables are reused)."""
        self._count = 0
        self._blank = None

    def table(self, world: int) -> list[int]:
        """World ``world``'s table, as the numpy class's row would hold it."""
        return self._tables[world * self._width : (world + 1) * self._width].tolist()

    def add(self, world: GameState, like_first: bool = False) -> int:
        """Load ``world`` (as :meth:`nomercy.native.playout.Playouts.add`); its index."""
        deck = len(self._deck)
        if like_first and self._blank is not None:
            at = self._next_row(self._blank)
            t = self._tables
            write_cards(t, world, deck, at)
            t[at + DRAWN] = -1 if world.drawn is None else world.drawn.index
            t[at + DECISION] = int(world.decision)
            t[at + WD4_GUILTY] = int(world.wd4_guilty)  # W6: a sampled hand's verdict
        else:
            at = self._next_row(self._zero)
            with memoryview(self._tables) as view, view[at : at + self._width] as row:
                from_state(world, row, deck)
            if self._count == 0:
                blank = self._tables[at : at + self._width]
                blank[HANDS : pile_at(deck) + 3 * deck] = array(
                    "i", bytes(4 * (pile_at(deck) + 3 * deck - HANDS))
                )
                blank[HLEN : HLEN + MAX_PLAYERS] = array("i", bytes(4 * MAX_PLAYERS))
                blank[PILE_LEN] = blank[DISC_LEN] = blank[ASIDE_LEN] = 0
                self._blank = blank
        self._count += 1
        return self._count - 1

    def add_hidden(
        self,
        hands: Sequence[Sequence[int]],
        draw_pile: Sequence[int],
        discard: Sequence[int],
        aside: Sequence[int],
        seed: int,
    ) -> int:
        """Load a world by its cards' indices and seed (as the numpy class's method)."""
        if self._blank is None:
            raise ValueError("add_hidden needs a first world: add() one since clear()")
        at = self._next_row(self._blank)
        t = self._tables
        write_hidden(t, hands, draw_pile, discard, aside, seed, len(self._deck), at)
        color, by = t[at + WD4_COLOR], t[at + LAST_BY]
        guilty = False  # W6: the verdict the sampled hands give (views.world_from)
        if color >= 0 and 0 <= by < len(hands):
            held = (Card.ALL[i].color for i in hands[by][: t[at + WD4_CARDS]])
            guilty = any(c is not None and int(c) == color for c in held)
        t[at + WD4_GUILTY] = int(guilty)
        self._count += 1
        return self._count - 1

    def _next_row(self, start: array[int]) -> int:
        """The offset of the table the next world is written into, holding ``start``."""
        at = self._count * self._width
        if self._count == self._rows:
            self._tables.extend(start)
            self._rows += 1
        else:
            self._tables[at : at + self._width] = start
        return at

    def values(self, worlds: Sequence[int], actions: Sequence[Action], seat: int, depth: int) -> list[float]:
        """The playout value for ``seat`` of ``actions[j]`` applied to world ``worlds[j]``."""
        if len(worlds) != len(actions):
            raise ValueError(f"{len(worlds)} worlds for {len(actions)} actions")
        self._check(seat, depth)
        if worlds and (min(worlds) < 0 or max(worlds) >= self._count):
            raise ValueError(f"world indices must be 0-{self._count - 1}")
        codes: dict[Action, int] = {}
        for a in actions:
            if a not in codes:
                codes[a] = action_index(a, seat, self.players)
        return self._run(array("q", worlds), array("q", [codes[a] for a in actions]), seat, depth).tolist()

    def codes(self, actions: Sequence[Action], seat: int) -> list[int]:
        """The native table's codes of ``actions`` by ``seat``, for :meth:`grid`."""
        return [action_index(a, seat, self.players) for a in actions]

    def grid(self, first: int, count: int, codes: Sequence[int], seat: int, depth: int) -> list[list[float]]:
        """:meth:`values` of every code in ``codes`` on each of the worlds ``first`` to
        ``first + count - 1``: ``count`` rows of ``len(codes)`` values."""
        self._check(seat, depth)
        if first < 0 or count < 0 or first + count > self._count:
            raise ValueError(f"worlds {first}-{first + count - 1} are not all loaded (0-{self._count - 1})")
        n = len(codes)
        index = array("q", [w for w in range(first, first + count) for _ in range(n)])
        out = self._run(index, array("q", codes) * count, seat, depth).tolist()
        return [out[i * n : (i + 1) * n] for i in range(count)]

    def _check(self, seat: int, depth: int) -> None:
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not at this {self.players}-player table")
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")

    def _run(self, index: array[int], moves: array[int], seat: int, depth: int) -> array[float]:
        """The playout kernel over (world, action code) pairs, already checked."""
        out = array("d", bytes(8 * len(index)))
        self._mask[:] = self._no_mask
        with (
            memoryview(self._tables) as flat,
            flat.cast("B") as raw,
            raw.cast("i", [self._rows, self._width]) as tables,
        ):
            self._kernel(
                tables,
                self._rules,
                self._deck,
                index,
                moves,
                seat,
                depth,
                self._weights,
                self._scratch,
                self._mask,
                self._list,
                out,
                self.mine,
                self.theirs,
            )
        return out
