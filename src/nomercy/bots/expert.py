"""``expert``: determinized Monte Carlo search over the information set.

The bot never sees hidden cards. At each decision with more than one sensible action it:

1. **Samples worlds** consistent with its view and with what the other seats' actions
   revealed (:mod:`nomercy.bots.inference`, ``infer=True``, the default): the cards it
   *knows* are in a hand (:class:`~nomercy.bots.memory.CardMemory`: its old hand after a
   Seven or a Zero, Roulette cards turned up face up) go there, and a seat that drew on
   its turn (T3: only with no playable card) gets none of the cards that were playable
   then, for the cards it held and those it drew before the last; the rest of the unseen
   cards are dealt at random (``assume=True`` adds a modelling assumption, not a rule:
   a seat that named a color with its last wild holds the most of it, as the heuristic
   names colors). ``infer=False`` samples as the expert did before inference
   (:func:`nomercy.determinize`, then the known cards moved in). Worlds are drawn lazily
   and *reused* for every candidate action (common random numbers: candidates are
   compared on the same worlds, which removes most of the deal's noise).
2. **Ranks candidates** with the heuristic (:mod:`nomercy.bots.heuristic`) and keeps the
   best ``width`` of them (progressive widening by a prior: a hand of wilds offers dozens
   of plays, and the weak ones need no playouts); ``colors=True`` adds every other color
   the heuristic's wild may name (T5).
3. **Allocates playouts by sequential halving** (Karnin et al. 2013, the fixed-budget
   best-arm method used at the root of Gumbel MuZero): every round each surviving
   candidate gets an equal share of the round's playouts, then the worse half is
   dropped; the heuristic's own pick is never dropped.
4. **Plays out** each (world, candidate): the candidate is applied, then every seat plays
   the heuristic policy (reading only its own hand of the sampled world) for up to
   ``depth`` decisions. A finished round scores 1 for a win and 0 otherwise; a playout cut
   at ``depth`` scores this seat's share of ``exp(-hand size / 3)`` among active players.
5. **Picks** the candidate with the best mean, but leaves the heuristic's pick only when
   the gain is clear: the mean paired difference on the same worlds must exceed
   ``confidence`` standard errors. With few playouts per candidate the noise would
   otherwise replace good heuristic moves by lucky ones.

This is the root of information-set MCTS with a heuristic default policy (flat
determinized search, "perfect-information Monte Carlo"): with a budget small enough to
answer a human at once, a flat root with a strong playout policy beats a deeper but
thinner tree in this game, where hidden hands and a shuffled pile make deep lines
mostly noise.

Budget: ``budget`` playouts per decision (default below; reproducible: same seed, same
decisions). ``ms`` adds a wall-clock limit per decision; a time limit makes decisions
depend on the machine's speed, so runs with ``ms`` set are *not* reproducible. Decisions
with one sensible action return at once, without search.

Playouts run on the native engine (:mod:`nomercy.native.search`, the package's compiled
extension, which every wheel carries; no numpy needed) when it is built (``native=None``,
the default; ``True`` requires it, ``False`` keeps them in Python). With
``policy="heuristic"`` they give the Python playouts' values bit for bit, so the same
decisions for a seed and a budget, in a tenth of the time or less. The
native default is ``policy="tuned"``: every seat of a playout plays the heuristic with
score weights tuned by self-play (:mod:`nomercy.native.policy`, which wins 55% of two-player
games against the reference's weights), because a playout is only as good an
estimate as the play in it. The candidates and the pick the search protects stay the
reference heuristic's. Everything else stays here.
"""

from __future__ import annotations

import importlib.machinery
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from nomercy.actions import Action, Play
from nomercy.bots import Bot, register
from nomercy.bots.heuristic import best_action, react, score_actions, table_from_state, table_from_view
from nomercy.bots.inference import Deal, HandInference
from nomercy.bots.memory import CardMemory
from nomercy.cards import BASE_KINDS, Card
from nomercy.engine import GameState
from nomercy.events import Event
from nomercy.views import PlayerView, determinize

if TYPE_CHECKING:
    from nomercy.native.search import Playouts

__all__ = ["DEFAULT_BUDGET", "ExpertBot", "native_available", "playout"]

DEFAULT_BUDGET = 160
#: The playouts' policies: the reference heuristic, or its tuned weights in every seat.
_POLICIES = ("heuristic", "tuned")
_EXP = [math.exp(-k / 3.0) for k in range(200)]


def _evaluate(state: GameState, seat: int) -> float:
    """This seat's chance to win, estimated from hand sizes (finished: 1 or 0)."""
    outcome = state.outcome
    if outcome is not None:
        return 1.0 if outcome.winner == seat else 0.0
    if not state.active[seat]:
        return 0.0
    total = 0.0
    mine = 0.0
    for other, hand in enumerate(state.hands):
        if state.active[other]:
            w = _EXP[min(len(hand), 199)]
            total += w
            if other == seat:
                mine = w
    return mine / total


def native_available() -> bool:
    """Whether the native engine's compiled extension is installed (every wheel carries
    it; numpy is not needed), so playouts can run natively (looked up, not imported: a bot
    that never searches never loads it)."""
    native = Path(__file__).resolve().parent.parent / "native"
    return any((native / f"_engine{suffix}").exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _columns(grid: list[list[float]], width: int) -> list[list[float]]:
    """A native grid's columns (one per candidate) from its rows (one per world)."""
    return [[row[c] for row in grid] for c in range(width)]


def playout(state: GameState, seat: int, depth: int) -> float:
    """Play the heuristic policy for every seat for ``depth`` decisions; the value for ``seat``."""
    for _ in range(depth):
        if state.current is None:
            break
        legal = state.legal_actions()
        action = legal[0] if len(legal) == 1 else best_action(table_from_state(state), legal)
        state.apply(action)
    return _evaluate(state, seat)


def _other_colors(pick: Action, ranked: list[tuple[float, Action]], have: list[Action]) -> list[Action]:
    """The plays of ``pick``'s wild card naming another color (T5), not yet in ``have``:
    which color an opponent cannot follow is what the inferred worlds can tell."""
    if not isinstance(pick, Play) or pick.color is None:
        return []
    return [
        a
        for _, a in ranked
        if isinstance(a, Play)
        and a.card is pick.card
        and a.target == pick.target
        and a.uno == pick.uno
        and a.color != pick.color
        and a not in have
    ]


class _Worlds(Protocol):
    """A decision's world sampler (:class:`~nomercy.bots.inference.WorldSampler`)."""

    def deal(self, rng: random.Random) -> Deal | GameState: ...

    def world(self, deal: Deal) -> GameState: ...


class _Uniform:
    """Worlds as the expert sampled them before inference: ``determinize``, then the
    cards the memory knows moved into their hands (always a state, never a deal)."""

    def __init__(self, view: PlayerView, memory: CardMemory) -> None:
        self.view = view
        self.memory = memory

    def deal(self, rng: random.Random) -> GameState:
        world = determinize(self.view, rng)
        self.memory.constrain(world, rng)
        return world

    def world(self, deal: Deal) -> GameState:  # pragma: no cover - deal() gives no Deal
        raise TypeError("the uniform sampler deals states")


@register("expert")
class ExpertBot(Bot):
    """Determinized search at the root with heuristic playouts (see the module docstring)."""

    name: ClassVar[str] = "expert"

    def __init__(
        self,
        seed: int | None = None,
        budget: int = DEFAULT_BUDGET,
        ms: float | None = None,
        depth: int = 20,
        width: int = 5,
        catch_miss: float = 0.0,
        confidence: float = 1.0,
        native: bool | None = None,
        infer: bool = True,
        colors: bool = False,
        assume: bool = False,
        policy: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(seed)
        if options:
            raise ValueError(f"expert bot: unknown option(s) {', '.join(sorted(options))}")
        if int(budget) < 1:
            raise ValueError(f"budget is the number of playouts per decision (>= 1), got {budget!r}")
        if ms is not None and float(ms) <= 0:
            raise ValueError(f"ms is a time limit per decision in milliseconds (> 0), got {ms!r}")
        if int(depth) < 1 or int(width) < 1:
            raise ValueError("depth and width must be >= 1")
        if not 0.0 <= float(catch_miss) <= 1.0:
            raise ValueError(f"catch_miss must be a probability 0-1, got {catch_miss!r}")
        if infer not in (True, False):
            raise ValueError(f"infer is true or false, got {infer!r}")
        if native not in (None, True, False):
            raise ValueError(f"native is true, false or none (native when installed), got {native!r}")
        if policy not in (None, *_POLICIES):
            raise ValueError(f"policy is {' or '.join(_POLICIES)} (the playouts' heuristic), got {policy!r}")
        if native:
            import nomercy.native.search  # noqa: F401 - its ImportError says how to build the extension
        self.budget = int(budget)
        self.ms = float(ms) if ms is not None else None
        self.depth = int(depth)
        self.width = int(width)
        self.catch_miss = float(catch_miss)
        self.confidence = float(confidence)
        #: Whether playouts run natively; chosen automatically (None), a table of more
        #: seats than a native one holds plays out in Python.
        self.native: bool = native_available() if native is None else bool(native)
        self._required = native is True
        if policy not in (None, "heuristic") and not self.native:
            raise ValueError(
                f"policy={policy} plays native playouts: it needs native=true and the native extension"
            )
        #: The playouts' policy: the reference heuristic, or its tuned weights (native only).
        self.policy: str = policy if policy is not None else ("tuned" if self.native else "heuristic")
        self._native: Playouts | None = None
        #: Playouts run by the last decision (0 when it was trivial).
        self.last_playouts = 0
        #: Whether worlds respect what other seats' draws revealed (:mod:`.inference`).
        self.infer = bool(infer)
        self.memory: CardMemory = HandInference() if self.infer else CardMemory()
        if isinstance(self.memory, HandInference):
            #: A modelling assumption, off by default: others name the color they hold most of.
            self.memory.assume = bool(assume)
        #: Whether every color the heuristic's wild may name is a candidate too.
        self.colors = bool(colors)

    def observe(self, events: list[Event]) -> None:
        self.memory.observe(events)

    def react(self, view: PlayerView) -> Action | None:
        return react(view, self.rng.random, self.catch_miss)

    def choose(self, view: PlayerView) -> Action:
        self.last_playouts = 0
        ranked = score_actions(table_from_view(view), view.legal_actions)
        if len(ranked) == 1:
            return ranked[0][1]
        candidates = [a for _, a in ranked[: self.width]]
        if self.colors:
            candidates += _other_colors(candidates[0], ranked, candidates)
        assert view.seat is not None
        self.memory.sync(view)
        return self._search(view, view.seat, candidates)

    def _search(self, view: PlayerView, seat: int, candidates: list[Action]) -> Action:
        """Sequential halving over ``candidates`` (the heuristic's pick first, never dropped)."""
        deadline = time.perf_counter() + self.ms / 1000.0 if self.ms is not None else None
        rng = self.rng
        native = self._native_playouts(view)
        codes = native.codes(candidates, seat) if native is not None else None
        sampler = self._sampler(view)
        worlds: list[GameState] = []  # for Python playouts; native ones keep theirs loaded
        sampled = 0
        values: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        rounds, n = 1, len(candidates)
        while n > 2:
            rounds, n = rounds + 1, 1 + max(1, n // 2 - 1)
        left = self.budget
        # Worlds played between two looks at the clock: a whole round without one.
        step = 4 if deadline is not None else self.budget
        for r in range(rounds):
            share = max(1, (left // (rounds - r)) // len(alive))
            for j0 in range(0, share, step):
                first = len(values[0])
                count = min(step, share - j0)
                while sampled < first + count:  # drawn in order, before any playout of theirs
                    deal = sampler.deal(rng)
                    sampled += 1
                    if native is None:
                        worlds.append(deal if isinstance(deal, GameState) else sampler.world(deal))
                    elif isinstance(deal, GameState):
                        native.add(deal, like_first=True)  # every world of one view
                    elif len(native):  # no state needed: the hidden cards over the first world's
                        native.add_hidden(deal.hands, deal.draw_pile, deal.discard, deal.aside, deal.seed)
                    else:
                        native.add(sampler.world(deal))
                if native is not None and codes is not None:
                    grid = native.grid(first, count, [codes[c] for c in alive], seat, self.depth)
                    for c, column in zip(alive, _columns(grid, len(alive)), strict=True):
                        values[c].extend(column)
                else:
                    for w in range(first, first + count):
                        for c in alive:
                            values[c].append(self._playout(worlds[w], candidates[c], seat))
                left -= count * len(alive)
                if deadline is not None and count == step and time.perf_counter() > deadline:
                    left = 0
                    break
            if left <= 0 or len(alive) <= 2:
                break
            ranked = sorted(alive[1:], key=lambda c: (-sum(values[c]) / len(values[c]), c))
            alive = [0, *sorted(ranked[: max(1, len(alive) // 2 - 1)])]
        self.last_playouts = sum(len(v) for v in values)
        best = max(alive, key=lambda c: (sum(values[c]) / len(values[c]), -c))
        if best != 0 and not self._better(values[best], values[0]):
            best = 0
        return candidates[best]

    def estimate(
        self, view: PlayerView, candidates: Sequence[Action], worlds: int, rng: random.Random | None = None
    ) -> list[list[float]]:
        """Every candidate played out on the same ``worlds`` sampled worlds: ``values[c][w]``.

        The worlds are sampled as a decision samples them (from this seat's view and what
        its memory observed, :meth:`observe`); every candidate meets every world (common
        random numbers, no halving), so two candidates' values pair world by world. The
        review (:mod:`nomercy.bots.review`) and the coach read win chances from them:
        with a ``depth`` that lets playouts finish, a value is 1 for a won round, 0 else."""
        if worlds < 1 or not candidates:
            raise ValueError("an estimate needs at least one world and one candidate")
        assert view.seat is not None
        seat = view.seat
        rng = rng or self.rng
        self.memory.sync(view)
        native = self._native_playouts(view)
        sampler = self._sampler(view)
        if native is not None:
            codes = native.codes(list(candidates), seat)
            for _ in range(worlds):
                deal = sampler.deal(rng)
                if isinstance(deal, GameState):
                    native.add(deal, like_first=True)
                elif len(native):
                    native.add_hidden(deal.hands, deal.draw_pile, deal.discard, deal.aside, deal.seed)
                else:
                    native.add(sampler.world(deal))
            grid = native.grid(0, worlds, codes, seat, self.depth)
            return _columns(grid, len(candidates))
        states = []
        for _ in range(worlds):
            deal = sampler.deal(rng)
            states.append(deal if isinstance(deal, GameState) else sampler.world(deal))
        return [[self._playout(world, action, seat) for world in states] for action in candidates]

    def _sampler(self, view: PlayerView) -> _Worlds:
        """How this decision samples worlds: with the inferred groups, or (``infer=false``)
        uniformly with the known cards moved in."""
        memory = self.memory
        if isinstance(memory, HandInference):
            return memory.sampler(view)
        return _Uniform(view, memory)

    def _playout(self, world: GameState, action: Action, seat: int) -> float:
        """One Python playout: ``action`` applied to a copy of ``world``."""
        s = world.clone()
        s.apply(action, seat)
        return playout(s, seat, self.depth)

    def _native_playouts(self, view: PlayerView) -> Playouts | None:
        """The native playouts for this table (worlds cleared), or None for Python ones."""
        if not self.native:
            return None
        if self._native is None or self._native.rules != view.rules or self._native.players != view.players:
            from nomercy.native.search import Playouts
            from nomercy.native.slots import MAX_PLAYERS

            if view.players > MAX_PLAYERS:
                if self._required:
                    raise ValueError(
                        f"native playouts seat at most {MAX_PLAYERS} players, not {view.players}"
                    )
                return None
            if any(Card.parse(code).index >= BASE_KINDS for code, _ in view.rules.deck):
                if self._required:  # W7: the native engine does not play the Wild Shuffle Hands
                    raise ValueError("native playouts do not play the 112-card deck's Wild Shuffle Hands")
                return None
            mine = theirs = None
            if self.policy != "heuristic":
                from nomercy.native.weights import TUNED

                mine = theirs = TUNED
            self._native = Playouts(view.rules, view.players, _EXP, mine=mine, theirs=theirs)
        self._native.clear()
        return self._native

    def _better(self, challenger: list[float], prior: list[float]) -> bool:
        """Leave the heuristic's pick only for a clear gain on the same worlds (paired test)."""
        n = min(len(challenger), len(prior))
        diffs = [challenger[i] - prior[i] for i in range(n)]
        mean = sum(diffs) / n
        if n < 2:
            return mean > 0
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean > self.confidence * math.sqrt(var / n)
