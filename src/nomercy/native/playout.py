"""The ``expert`` bot's playouts as native code: many (world, candidate) playouts per call.

``bots/expert.py`` stays the reference: its :func:`~nomercy.bots.expert.playout` applies a
candidate to a sampled world, lets every seat play the heuristic for up to ``depth``
decisions, and scores the end for one seat. :func:`playout_values` does the same on native
tables, for a whole list of (world, action) pairs in one call, so that the search pays
Python's overhead once per round rather than once per playout:

* the heuristic is :func:`nomercy.native.heuristic.weighted_choose` with the reference's
  weights, exactly the reference's choice, and the engine is exactly the reference's
  (reshuffles included: a loaded world keeps its seed), so each playout reaches the same
  position (the expert's default ``policy="tuned"`` passes the tuned weights of
  :mod:`nomercy.native.policy` instead: other playouts, by design);
* like the reference playout, no seat reacts out of turn (the heuristic always calls Uno,
  so nobody is open to a catch unless the world starts so, and nobody catches then);
* the score is ``expert._evaluate``'s: 1 or 0 for a finished round, else the seat's share
  of ``weights[hand size]`` among the active seats, summed in seat order with the weights
  the caller passes (the expert's own table), so the float results are the same bits.

Worlds are loaded once (:meth:`Playouts.add`) and copied into a scratch row for every
playout: a candidate's playout never changes the world the next candidate starts from.
"""

# The kernels are unannotated, as in kernels.py: the translator infers their types from the arrays
# passed in (pyproject.toml's mypy override for this module says so). The Python API below
# them is typed.

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nomercy.actions import Action
from nomercy.cards import Card
from nomercy.engine import GameState
from nomercy.native.batch import Batch, action_index
from nomercy.native.cdecl import F64Array, I32Array, I32Array2, I64Array, U8Array
from nomercy.native.convert import write_cards, write_hidden
from nomercy.native.heuristic import BASE_WEIGHTS, weighted_choose
from nomercy.native.kernels import _inline, _kernel, apply_action
from nomercy.native.layout import (
    ACTIVE,
    ASIDE_LEN,
    CURRENT,
    DECISION,
    DISC_LEN,
    DRAWN,
    HANDS,
    HLEN,
    LAST_BY,
    MAX_PLAYERS,
    PILE_LEN,
    PLAYERS,
    WD4_CARDS,
    WD4_COLOR,
    WD4_GUILTY,
    WINNER,
    pile_at,
)
from nomercy.rules import Rules

__all__ = ["Playouts", "playout_values"]


@_inline
def _evaluate(s: I32Array, seat: int, weights: F64Array):
    """``expert._evaluate``: 1/0 when the round is over, else the seat's weight share."""
    winner = s[WINNER]
    if winner >= 0:
        return 1.0 if winner == seat else 0.0
    if not s[ACTIVE + seat]:
        return 0.0
    last = weights.shape[0] - 1
    total = 0.0
    mine = 0.0
    for other in range(s[PLAYERS]):
        if s[ACTIVE + other]:
            w = weights[min(s[HLEN + other], last)]
            total += w
            if other == seat:
                mine = w
    return mine / total


@_kernel
def playout_values(
    W: I32Array2,
    R: I64Array,
    deck: I32Array,
    world: I64Array,
    action: I64Array,
    seat: int,
    depth: int,
    weights: F64Array,
    s: I32Array,
    mask: U8Array,
    lst: I64Array,
    values: F64Array,
    mine: F64Array,
    theirs: F64Array,
):
    """For every ``j``: copy table ``W[world[j]]`` into ``s``, apply the legal action
    ``action[j]`` by ``seat``, play the heuristic for every deciding seat for up to
    ``depth`` decisions and write the score for ``seat`` into ``values[j]``.

    ``R``, ``deck``, ``mask`` (zeros) and ``lst`` are as :func:`heuristic_choose` takes
    them; ``weights`` float64 (``weights[k]``: a hand of ``k`` cards, the last entry for
    any larger hand); ``s`` an int32 scratch row as wide as ``W``'s. ``seat`` plays the
    heuristic with the score weights ``mine``, the other seats with ``theirs``
    (:func:`weighted_choose`; ``BASE_WEIGHTS`` is the reference heuristic).
    """
    width = W.shape[1]
    for j in range(world.shape[0]):
        src = W[world[j]]
        for k in range(width):
            s[k] = src[k]
        apply_action(s, R, seat, action[j])
        for _ in range(depth):
            cur = s[CURRENT]
            if cur < 0:
                break
            policy = mine if cur == seat else theirs
            apply_action(s, R, cur, weighted_choose(s, R, cur, deck, mask, lst, policy))
        values[j] = _evaluate(s, seat, weights)


def _blank(row: np.ndarray, deck: int) -> np.ndarray:
    """A copy of ``row`` with every hand and pile emptied."""
    blank = row.copy()
    blank[HANDS : pile_at(deck) + 3 * deck] = 0
    blank[HLEN : HLEN + MAX_PLAYERS] = 0
    blank[PILE_LEN] = blank[DISC_LEN] = blank[ASIDE_LEN] = 0
    return blank


def _load_hidden(row: np.ndarray, blank: np.ndarray, world: GameState, deck: int) -> None:
    """``from_state`` for a world whose public fields are ``blank``'s: the cards, the
    seed, the drawn card and the decision written over a copy of it."""
    row[:] = blank
    write_cards(row, world, deck)
    row[DRAWN] = -1 if world.drawn is None else world.drawn.index
    row[DECISION] = int(world.decision)
    row[WD4_GUILTY] = int(world.wd4_guilty)  # W6: a sampled hand's verdict, not the first world's


def _judge_wd4(row: np.ndarray, hands: Sequence[Sequence[int]]) -> None:
    """W6: the verdict on a pending Wild Draw 4 that a world's sampled hands give, as
    ``views.world_from`` gives it: a view hides the verdict, so each world has its own
    (its player out of the round, with no hand, is held lawful)."""
    color, by = int(row[WD4_COLOR]), int(row[LAST_BY])
    guilty = False
    if color >= 0 and 0 <= by < len(hands):
        held = (Card.ALL[i].color for i in hands[by][: int(row[WD4_CARDS])])
        guilty = any(c is not None and int(c) == color for c in held)
    row[WD4_GUILTY] = int(guilty)


class Playouts:
    """Sampled worlds of one table kind, loaded once, and their playouts in one call.

    ``weights`` is the score of a hand by its size (``weights[k]`` for ``k`` cards, the
    last entry for larger hands): the expert passes its own table. ``mine`` and
    ``theirs`` are the heuristic's score weights for the searching seat and the others
    in the playouts (``native.heuristic.WEIGHTS``; the reference's by default, the
    tuned ones of :mod:`nomercy.native.policy` for the expert's ``policy="tuned"``).
    """

    def __init__(
        self,
        rules: Rules,
        players: int,
        weights: Sequence[float],
        capacity: int = 64,
        mine: Sequence[float] | np.ndarray | None = None,
        theirs: Sequence[float] | np.ndarray | None = None,
    ) -> None:
        if not 2 <= players <= MAX_PLAYERS:
            raise ValueError(f"native playouts seat 2 to {MAX_PLAYERS} players, not {players}")
        if len(weights) < 1:
            raise ValueError("weights needs at least one entry")
        self.rules = rules
        self.players = players
        self._batch = Batch(rules, max(1, capacity), players)
        self._weights = np.array(weights, np.float64)
        #: The heuristic's score weights for the searching seat and for the others.
        self.mine = np.array(BASE_WEIGHTS if mine is None else mine, np.float64)
        self.theirs = np.array(BASE_WEIGHTS if theirs is None else theirs, np.float64)
        if self.mine.shape != BASE_WEIGHTS.shape or self.theirs.shape != BASE_WEIGHTS.shape:
            raise ValueError(f"score weights are {len(BASE_WEIGHTS)} numbers (native.heuristic.WEIGHTS)")
        self._scratch = np.zeros(self._batch.tables.shape[1], np.int32)
        self._count = 0
        #: The first world's table since :meth:`clear` with its hidden cards taken out.
        self._blank: np.ndarray | None = None

    def __len__(self) -> int:
        """The worlds loaded since the last :meth:`clear`."""
        return self._count

    def clear(self) -> None:
        """Forget the loaded worlds (their tables are reused)."""
        self._count = 0
        self._blank = None

    def add(self, world: GameState, like_first: bool = False) -> int:
        """Load ``world`` (a state of these rules and players); returns its index.

        ``like_first``: the caller promises that ``world`` differs from the first world
        loaded since :meth:`clear` only in its hidden cards (hands, piles), seed, drawn
        card and decision, as the worlds sampled from one view do; only those are
        written then, over a copy of the first world's table (the same table as a full
        load, several times faster).
        """
        row = self._next_row()
        if like_first and self._blank is not None:
            _load_hidden(row, self._blank, world, len(self._batch.deck))
        else:
            self._batch.load(self._count, world)
            if self._count == 0:
                self._blank = _blank(self._batch.tables[0], len(self._batch.deck))
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
        """Load a world given by its cards' indices (``Card.index``) and seed, like the
        first world loaded since :meth:`clear` in everything else (as ``add(world,
        like_first=True)`` with the state of those cards; a world of one view needs no
        state then). Returns its index."""
        if self._blank is None:
            raise ValueError("add_hidden needs a first world: add() one since clear()")
        row = self._next_row()
        row[:] = self._blank
        write_hidden(row, hands, draw_pile, discard, aside, seed, len(self._batch.deck))
        _judge_wd4(row, hands)
        self._count += 1
        return self._count - 1

    def _next_row(self) -> np.ndarray:
        """The table the next world is written into (the batch doubled when full)."""
        if self._count == len(self._batch):
            bigger = Batch(self.rules, 2 * len(self._batch), self.players)
            bigger.tables[: self._count] = self._batch.tables
            self._batch = bigger
        row: np.ndarray = self._batch.tables[self._count]
        return row

    def values(self, worlds: Sequence[int], actions: Sequence[Action], seat: int, depth: int) -> list[float]:
        """The playout value for ``seat`` of ``actions[j]`` (legal for ``seat`` in every
        world) applied to world ``worlds[j]``, then ``depth`` heuristic decisions."""
        if len(worlds) != len(actions):
            raise ValueError(f"{len(worlds)} worlds for {len(actions)} actions")
        self._check(seat, depth)
        index = np.array(worlds, np.int64)
        if index.size and (index.min() < 0 or index.max() >= self._count):
            raise ValueError(f"world indices must be 0-{self._count - 1}")
        codes: dict[Action, int] = {}
        for a in actions:
            if a not in codes:
                codes[a] = action_index(a, seat, self.players)
        moves = np.array([codes[a] for a in actions], np.int64)
        return [float(v) for v in self._run(index, moves, seat, depth)]

    def codes(self, actions: Sequence[Action], seat: int) -> np.ndarray:
        """The native table's codes of ``actions`` by ``seat``, for :meth:`grid`."""
        return np.array([action_index(a, seat, self.players) for a in actions], np.int64)

    def grid(self, first: int, count: int, codes: np.ndarray, seat: int, depth: int) -> np.ndarray:
        """:meth:`values` of every action code in ``codes`` (:meth:`codes`) on each of the
        worlds ``first`` to ``first + count - 1``: a ``(count, len(codes))`` array. The
        expert's search calls this once per look at the clock with the codes of its
        candidates, so the codes are not checked again; the seat, depth and worlds are."""
        self._check(seat, depth)
        if first < 0 or count < 0 or first + count > self._count:
            raise ValueError(f"worlds {first}-{first + count - 1} are not all loaded (0-{self._count - 1})")
        index = np.repeat(np.arange(first, first + count, dtype=np.int64), len(codes))
        moves = np.tile(codes, count)
        return self._run(index, moves, seat, depth).reshape(count, len(codes))

    def _check(self, seat: int, depth: int) -> None:
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not at this {self.players}-player table")
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")

    def _run(self, index: np.ndarray, moves: np.ndarray, seat: int, depth: int) -> np.ndarray:
        """The playout kernel over (world, action code) pairs, already checked."""
        out = np.zeros(len(index), np.float64)
        batch = self._batch
        batch._mask[:] = 0
        playout_values(
            batch.tables,
            batch.encoded,
            batch.deck,
            index,
            moves,
            seat,
            depth,
            self._weights,
            self._scratch,
            batch._mask,
            batch._list,
            out,
            self.mine,
            self.theirs,
        )
        return out
