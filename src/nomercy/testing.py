"""Check the engine's invariants over seeded random games, for users and for our own tests.

>>> from nomercy import Rules
>>> from nomercy.testing import check_random_games
>>> summary = check_random_games(Rules(), players=3, games=5, seed=0)
>>> summary.games, sum(summary.winners.values())
(5, 5)

Each game is played by random choices among ``legal_actions()`` (:class:`RandomPlayer`),
now and then with an out-of-turn catch or late Uno call (U1-U3). After every step:

- **card conservation**: the hands and piles hold exactly the deck (C3, T4, M2);
- **the Mercy limit**: no active seat holds ``mercy_limit`` cards or more, a knocked-out
  seat holds none (M1, M3);
- **legal actions**: never empty before the end, no duplicates, empty after it; only the
  seats that may act out of turn are offered ``catch N`` / ``uno`` (U1-U3), and every
  chosen legal action applies; the round ends within :data:`MAX_STEPS`;
- **refusals**: illegal actions (random ones from every action the notation can write,
  near misses of legal ones, legal ones by the wrong seat) raise
  :class:`~nomercy.IllegalAction` and leave the state exactly as it was;
- **views**: a view shows its seat's own hand and public facts only, and does not change
  when every card it may not see is dealt again; ``determinize`` samples a state with
  the same view; redacted events hide other seats' drawn cards (Roulette turn-ups are
  public, W4);
- **events**: every applied action yields at least one event (a log or an observer sees
  every step);
- **JSON round trip**: ``from_json(to_json(s)) == s`` and the copy (and a ``clone()``,
  which shares nothing with its original) plays on identically; the finished state loads
  back equal too;
- **replay**: ``replay(record)`` of ``(rules, seed, actions)`` rebuilds the final state.

A broken invariant raises :class:`InvariantError` (an :class:`AssertionError`) whose
message names the game's seed and the call that replays exactly that game. The checks
raise rather than ``assert``, so they also run under ``python -O``. Standard library only.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Final, NamedTuple

from nomercy.actions import Action, CallUno, Catch, ChooseColor, Draw, Pass, Play, Take
from nomercy.cards import BASE_KINDS, Card, Color, deck_cards
from nomercy.engine import GameState
from nomercy.errors import GameOver, IllegalAction, InvalidCard
from nomercy.events import Drew, Event, HandsShuffled, redact
from nomercy.record import GameRecord, replay
from nomercy.rules import Rules
from nomercy.state import KnockOut
from nomercy.views import determinize, player_view

__all__ = [
    "BASE_MIXES",
    "LIGHT",
    "MAX_STEPS",
    "RULE_MIXES",
    "Checks",
    "InvariantError",
    "Policy",
    "RandomPlayer",
    "Step",
    "Summary",
    "check_random_games",
    "check_refusal",
    "deal_cases",
    "in_base_kinds",
    "random_steps",
]

#: Steps after which a round counts as endless. Random rounds average 30-140 steps; the
#: longest seen are about 350.
MAX_STEPS: Final = 5000

#: Named house-rule combinations that reach the rarely used branches of the engine: the
#: project's invariant tests, golden games and behaviour fingerprint draw their rules from
#: here. Each is kept exactly as those files pin it (a golden game's or a fingerprint's
#: rules are part of what it records), so mixes that look alike stay separate.
RULE_MIXES: Final[dict[str, Rules]] = {
    "no_mercy": Rules(),
    "classic": Rules.preset("classic"),
    "classic_112": Rules.preset("classic_112"),
    # Invariant tests: nearly every no_mercy house rule off its default at once.
    "no_mercy_mixed": Rules(
        stack_color="match",
        draw10_stackable=False,
        draw_when_playable=True,
        must_play_drawn=False,
        two_player_reverse_draw="opponent",
        roulette_color="revealed",
        knockout_hand="discard_bottom",
        last_card_draw="apply",
        knockout_bonus_to="knocker",
        first_card="apply",
        uno_penalty=4,
        mercy_limit=15,
        hand_size=5,
    ),
    # Invariant tests: no stacking, no Sevens/Zeros, no Uno calls, one card per draw.
    "no_mercy_plain": Rules(
        draw_rule="one",
        stacking=False,
        seven_zero=False,
        uno_calls=False,
        first_card="apply",
        mercy_limit=12,
        hand_size=4,
        knockout_hand="discard_bottom",
    ),
    # Invariant tests: classic with No Mercy's stacking, Sevens/Zeros and Mercy limit.
    "classic_mixed": Rules.preset("classic").replace(
        wild_draw4_challenge=False,
        first_card="apply",
        wild_draw4_restricted=True,
        draw_rule="until_playable",
        must_play_drawn=True,
        stacking=True,
        seven_zero=True,
        last_card_draw="apply",
        uno_penalty=3,
        mercy_limit=20,
    ),
    # Golden game house_rules_3p (its rules are recorded in the file).
    "golden_house_rules": Rules(
        stack_color="match",
        draw10_stackable=False,
        draw_when_playable=True,
        must_play_drawn=False,
        roulette_color="revealed",
        knockout_hand="discard_bottom",
        knockout_bonus_to="knocker",
        last_card_draw="apply",
        first_card="apply",
        uno_penalty=4,
        mercy_limit=15,
        hand_size=5,
    ),
    # Behaviour fingerprint (benchmarks/fingerprint.py) mixes a, b and c.
    "mix_a": Rules(
        stack_color="match",
        draw10_stackable=False,
        two_player_reverse_draw="opponent",
        roulette_color="revealed",
        knockout_hand="discard_bottom",
        knockout_bonus_to="knocker",
        last_card_draw="apply",
        first_card="apply",
    ),
    "mix_b": Rules(draw_when_playable=True, must_play_drawn=False, draw_rule="one", mercy_limit=15),
    "mix_c": Rules.preset("classic").replace(
        wild_draw4_challenge=False,
        wild_draw4_restricted=True,
        first_card="apply",
        must_play_drawn=True,
        last_card_draw="apply",
    ),
}


def in_base_kinds(rules: Rules) -> bool:
    """Whether every card of the deck is one of the :data:`~nomercy.cards.BASE_KINDS` that
    the fixed-size twins cover (the native engine, the RL tables, the shipped network); a
    deck beyond them (the 112-card deck's Wild Shuffle Hands, W7) plays in Python only.

    >>> in_base_kinds(Rules.preset("classic")), in_base_kinds(Rules.preset("classic_112"))
    (True, False)
    """
    return all(Card.parse(code).index < BASE_KINDS for code, _ in rules.deck)


#: The mixes the native engine and the RL tables play: :data:`RULE_MIXES` within the base kinds.
BASE_MIXES: Final[dict[str, Rules]] = {name: r for name, r in RULE_MIXES.items() if in_base_kinds(r)}


def deal_cases(mixes: Mapping[str, Rules], players: Iterable[int] = range(2, 7)) -> list[tuple[str, int]]:
    """Every ``(mix name, player count)`` whose table can be dealt, in the mixes' order.

    A count is left out where the rules seat fewer players (S1) or the deck cannot give
    every seat its hand plus the first discard (S2). Parametrized tests that run each rule
    mix at several table sizes take their cases from here:

    >>> cases = deal_cases({"small": Rules(deck={"R1": 10}, hand_size=3)}, players=(2, 3, 4))
    >>> cases
    [('small', 2), ('small', 3)]
    >>> [f"{mix}-{n}p" for mix, n in cases]
    ['small-2p', 'small-3p']
    """
    counts = list(players)
    return [
        (name, n)
        for name, rules in mixes.items()
        for n in counts
        if 2 <= n <= rules.max_players and n * rules.hand_size + 1 <= sum(count for _, count in rules.deck)
    ]


class InvariantError(AssertionError):
    """A broken invariant. ``seed`` is the game's seed (``None`` outside a game)."""

    def __init__(self, message: str, seed: int | None = None, step: int | None = None) -> None:
        super().__init__(message)
        self.seed = seed
        self.step = step


@dataclass(frozen=True)
class Checks:
    """Which of the costlier checks run, and how often (the cheap ones run at every step)."""

    #: Random illegal actions tried at every step, besides the near misses of a legal one
    #: and a legal action by each wrong seat (those run whenever this is above 0).
    illegal_per_step: int = 4
    #: Every seat's view (and the spectator's), non-interference and ``determinize``, at
    #: every step. The costliest check by far.
    views: bool = True
    #: Fork a JSON copy and a clone every N steps and play them on in lockstep;
    #: 0: once per game, at a random early step.
    fork_every: int = 25
    #: The chance that, while a seat is open to a catch, a non-deciding seat acts instead.
    catch_rate: float = 0.3

    def __post_init__(self) -> None:
        if self.illegal_per_step < 0 or self.fork_every < 0:
            raise ValueError("illegal_per_step and fork_every must be >= 0")
        if not 0.0 <= self.catch_rate <= 1.0:
            raise ValueError(f"catch_rate must be a probability 0-1, got {self.catch_rate!r}")


#: The every-step checks only (cards, Mercy limit, legal actions, event redaction), one
#: JSON/clone fork per game and the replay: fast enough for thousands of games.
LIGHT: Final = Checks(illegal_per_step=0, views=False, fork_every=0, catch_rate=0.0)


# -- random play ------------------------------------------------------------------------------

#: Chooses ``(seat, action)`` for a state; ``seat=None`` means the deciding seat.
Policy = Callable[[GameState, random.Random], tuple[int | None, Action]]


@dataclass(frozen=True)
class RandomPlayer:
    """Uniform over the deciding seat's legal actions.

    While a seat is open to a catch, with probability ``catch_rate`` it is uniform over
    every other seat's out-of-turn actions instead (a catch, or the late Uno call).
    ``canonical`` chooses among the actions sorted by their text, so that a game depends
    on which actions are legal and not on the order ``legal_actions()`` lists them in
    (the golden games use this). Where a house rule lets a player draw instead of
    playing (T3, ``draw_when_playable``), ``keep_playing`` is the chance that it leaves
    the draw out when it has another choice: a player who always might draw may never
    finish (the pile runs dry with every card held).
    """

    catch_rate: float = 0.0
    canonical: bool = False
    keep_playing: float = 0.9

    def __call__(self, state: GameState, rng: random.Random) -> tuple[int | None, Action]:
        cur = state.current_player
        if cur is None:
            raise ValueError("the round is over: nothing to choose")
        if state.uno_open and self.catch_rate and rng.random() < self.catch_rate:
            others = [(s, a) for s in range(state.players) if s != cur for a in state.legal_actions(s)]
            if others:
                if self.canonical:
                    others.sort(key=lambda sa: (sa[0], str(sa[1])))
                return rng.choice(others)
        legal = state.legal_actions()
        if (
            self.keep_playing
            and state.rules.draw_when_playable
            and len(legal) > 1
            and rng.random() < self.keep_playing
        ):
            legal = [a for a in legal if not isinstance(a, Draw)] or legal
        if self.canonical:
            legal.sort(key=str)
        return cur, rng.choice(legal)


class Step(NamedTuple):
    """One applied action, as :func:`random_steps` yields it."""

    #: The seat as the policy gave it (``None``: the deciding seat).
    seat: int | None
    #: The seat that acted.
    actor: int
    action: Action
    events: list[Event]
    #: True when a seat other than the deciding one acted (a catch or a late Uno call).
    out_of_turn: bool


def random_steps(
    state: GameState, rng: random.Random, policy: Policy | None = None, max_steps: int = MAX_STEPS
) -> Iterator[Step]:
    """Play ``state`` to its end, yielding each applied action; ``policy`` chooses them.

    The state between two steps is the caller's to inspect (that is where the checks go).
    Raises :class:`InvariantError` when the round has not ended after ``max_steps``.
    """
    choose: Policy = policy if policy is not None else RandomPlayer()
    steps = 0
    while not state.is_over:
        if steps >= max_steps:
            raise InvariantError(f"the round did not end within {max_steps} steps (E1)")
        decider = state.current_player
        assert decider is not None
        seat, action = choose(state, rng)
        actor = decider if seat is None else seat
        events = state.apply(action, seat)
        steps += 1
        yield Step(seat, actor, action, events, actor != decider)


# -- the checks ---------------------------------------------------------------------------


def _check_cards(state: GameState, deck: Counter[Card]) -> None:
    """C3/T4/M2: the zones hold exactly the deck, whatever moved."""
    zones = Counter(chain(*state.hands, state.draw_pile, state.discard, state.aside))
    if zones != deck or state.card_count() != deck.total():
        lost, extra = deck - zones, zones - deck
        raise InvariantError(
            "cards not conserved (C3): "
            + f"missing {sorted(c.code for c in lost.elements())}, "
            + f"extra {sorted(c.code for c in extra.elements())}"
        )


def _check_mercy(state: GameState) -> None:
    """M1/M3: no active seat at or over the limit; a knocked-out seat holds nothing."""
    limit = state.rules.mercy_limit
    out = {k.seat for k in state.knocked_out}
    for seat, hand in enumerate(state.hands):
        if state.active[seat] != (seat not in out):
            raise InvariantError(f"P{seat}: active flag disagrees with knocked_out")
        if not state.active[seat]:
            if hand:
                raise InvariantError(f"knocked-out P{seat} holds {len(hand)} cards (M3)")
        elif limit is not None and len(hand) >= limit:
            raise InvariantError(f"P{seat} holds {len(hand)} cards, the Mercy limit is {limit} (M1)")
    if state.active_count != sum(state.active):
        raise InvariantError("active_count disagrees with the active seats")


def _check_legal(state: GameState) -> list[Action]:
    """Legal actions: non-empty before the end, no duplicates; out-of-turn ones (U1-U3)."""
    if state.is_over:
        if state.current_player is not None:
            raise InvariantError("the round is over but a seat is deciding")
        for seat in (None, *range(state.players)):
            if state.legal_actions(seat):
                raise InvariantError(f"legal actions for P{seat} after the end")
        return []
    cur = state.current_player
    if cur is None or not state.active[cur]:
        raise InvariantError(f"the deciding seat P{cur} is not an active seat")
    legal = state.legal_actions()
    if not legal:
        raise InvariantError("no legal action before the end of the round")
    if len(set(legal)) != len(legal):
        raise InvariantError(f"duplicate legal actions: {[str(a) for a in legal]}")
    uno = state.uno_open
    for seat in range(state.players):
        mine = state.legal_actions(seat)
        if seat == cur:
            if mine != legal:
                raise InvariantError("legal_actions(current seat) differs from legal_actions()")
            out_of_turn = [a for a in legal if a.out_of_turn]
        else:
            out_of_turn = mine
            if not all(a.out_of_turn for a in mine):
                raise InvariantError(f"P{seat} is offered a turn action out of turn")
        if not state.active[seat]:
            expected: list[Action] = []
        else:  # U1: a late call of one's own; U2: any other active player may catch
            expected = [CallUno() if x == seat else Catch(x) for x in uno]
        if out_of_turn != expected:
            raise InvariantError(
                f"P{seat} is offered {[str(a) for a in out_of_turn]} out of turn, expected "
                f"{[str(a) for a in expected]} (U1-U3)"
            )
    return legal


_UNIVERSE: dict[int, list[Action]] = {}


def _action_universe(players: int) -> list[Action]:
    """Every action the notation can write, over all cards and seats (and off the table)."""
    if players not in _UNIVERSE:
        seats = range(-1, players + 1)
        plays: list[Action] = [
            Play(card, color, target, uno)
            for card in Card.ALL
            for color in (None, *Color)
            for target in (None, *seats)
            for uno in (False, True)
        ]
        simple: list[Action] = [Draw(), Pass(), Take(), CallUno()]
        simple += [ChooseColor(c) for c in Color]
        simple += [Catch(n) for n in seats]
        _UNIVERSE[players] = plays + simple
    return _UNIVERSE[players]


def _near_misses(action: Action, players: int) -> Iterator[Action]:
    """Actions one detail away from a legal one: the likeliest to slip through a check."""
    if isinstance(action, Play):
        yield Play(action.card, action.color, action.target, not action.uno)
        yield Play(action.card, None if action.color is not None else Color.RED, action.target, action.uno)
        for target in (None, -1, players, *range(players)):
            if target != action.target:
                yield Play(action.card, action.color, target, action.uno)
    elif isinstance(action, Catch):
        for n in range(-1, players + 1):
            yield Catch(n)


def check_refusal(state: GameState, action: Action, seat: int | None = None) -> IllegalAction:
    """Apply an action the rules must refuse; return the refusal.

    Raises :class:`InvariantError` if the action applies, if it raises anything but
    :class:`~nomercy.IllegalAction`, or if the refusal changed the state in any way.
    """
    before = state.to_json()
    try:
        state.apply(action, seat)
    except IllegalAction as exc:
        refusal = exc
    except Exception as exc:
        raise InvariantError(f"'{action}' by P{seat} raised {exc!r} instead of IllegalAction") from exc
    else:
        raise InvariantError(f"'{action}' by P{seat} applied but is not in legal_actions({seat})")
    if state.to_json() != before:
        raise InvariantError(f"refused '{action}' by P{seat} changed the state")
    return refusal


def _check_illegal(state: GameState, legal: list[Action], count: int, rng: random.Random) -> None:
    """Refused actions raise IllegalAction and leave the state exactly as it was."""
    players = state.players
    universe = _action_universe(players)
    tries: list[tuple[int, Action]] = [
        (rng.randrange(-1, players + 1), rng.choice(universe)) for _ in range(count)
    ]
    if legal:
        base = rng.choice(legal)
        tries += [(state.current_player or 0, a) for a in _near_misses(base, players)]
        tries += [(seat, base) for seat in range(players) if seat != state.current_player]  # wrong seat
    for seat, action in tries:
        if 0 <= seat < players and action in state.legal_actions(seat):
            continue
        check_refusal(state, action, seat)


def _card_strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value that is a card code."""
    if isinstance(value, str):
        try:
            Card.parse(value)
        except InvalidCard:
            return
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _card_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _card_strings(v)


#: View fields allowed to name cards: own hand, the public top card, own drawn card, own actions.
_CARD_FIELDS: Final = {"hand", "top", "drawn", "legal_actions"}
_HIDDEN_FIELDS: Final = {"hands", "draw_pile", "discard_pile", "aside", "seed", "shuffles"}


def _check_view(state: GameState, seat: int | None) -> None:
    """A view holds the seat's own hand and public facts only."""
    view = player_view(state, seat)
    data = view.to_dict()
    json.dumps(data)
    if _HIDDEN_FIELDS & data.keys():
        raise InvariantError(f"view of P{seat} has hidden fields {_HIDDEN_FIELDS & data.keys()}")
    for key, value in data.items():
        if key not in _CARD_FIELDS and list(_card_strings(value)):
            raise InvariantError(f"view of P{seat} names cards in {key!r}: {value!r}")
    if seat is None:
        if view.hand != () or data["hand"] != []:
            raise InvariantError("the spectator's view shows a hand")
        if view.legal_actions != () or view.drawn is not None:
            raise InvariantError("the spectator's view offers actions")
        return
    if view.hand != tuple(state.hands[seat]):
        raise InvariantError(f"view of P{seat} does not show its own hand")
    if data["hand"] != [c.code for c in state.hands[seat]]:
        raise InvariantError(f"view of P{seat}: hand differs in to_dict()")
    if list(view.legal_actions) != state.legal_actions(seat):
        raise InvariantError(f"view of P{seat}: legal actions differ")
    own = Counter(state.hands[seat])
    for action in view.legal_actions:
        if isinstance(action, Play) and own[action.card] <= 0:
            raise InvariantError(f"view of P{seat} offers '{action}' for a card it does not hold")
    if seat != state.current_player:
        if view.drawn is not None or data["drawn"] is not None:
            raise InvariantError(f"view of P{seat} shows another seat's drawn card")
    else:
        if view.drawn != state.drawn:
            raise InvariantError(f"view of P{seat} does not show the card it drew")


def _rehide(state: GameState, seat: int | None, rng: random.Random) -> GameState:
    """The same position with every card ``seat`` cannot see dealt again at random.

    Other hands keep their sizes (the deciding seat keeps the card it drew), the draw
    pile and the set-aside cards are reshuffled and the seed changes: nothing a view of
    ``seat`` shows may differ.
    """
    alt = state.clone()
    keep = state.drawn if state.current_player != seat else None
    hidden = [s for s in range(state.players) if s != seat]
    pool: list[Card] = [*chain(*(alt.hands[s] for s in hidden)), *alt.draw_pile, *alt.aside]
    if keep is not None:
        pool.remove(keep)
    rng.shuffle(pool)
    for s in hidden:
        size = len(alt.hands[s]) - (1 if keep is not None and s == state.current_player else 0)
        alt.hands[s], pool = pool[:size], pool[size:]
        if keep is not None and s == state.current_player:
            alt.hands[s].append(keep)
    n = len(alt.draw_pile)
    alt.draw_pile, alt.aside = pool[:n], pool[n:]
    alt.seed = state.seed + 1
    return alt


def _check_views(state: GameState, deck: Counter[Card], rng: random.Random) -> None:
    for seat in [*range(state.players), None]:
        _check_view(state, seat)
        # Non-interference: what a seat sees is a function of what it may see.
        alt = _rehide(state, seat, rng)
        if player_view(alt, seat).to_dict() != player_view(state, seat).to_dict():
            raise InvariantError(f"the view of P{seat} changes with cards it cannot see")
        if seat is not None and state.active[seat]:
            view = player_view(state, seat)
            sample = determinize(view, rng)
            try:
                _check_cards(sample, deck)
            except InvariantError as exc:
                raise InvariantError(f"determinize for P{seat}: {exc}") from None
            if player_view(sample, seat) != view:
                raise InvariantError(f"determinize for P{seat} gives a state with another view")


def _check_events(events: list[Event], players: int) -> None:
    """Redaction: another seat's drawn cards are hidden, Roulette turn-ups are public (W4)."""
    for seat in [*range(players), None]:
        shown = redact(events, seat)
        if len(shown) != len(events):
            raise InvariantError("redaction dropped or added events")
        for original, event in zip(events, shown, strict=True):
            if isinstance(original, HandsShuffled):  # W7: each seat sees its own new hand only
                mine = tuple(h if x == seat else None for x, h in enumerate(original.hands))
                if not isinstance(event, HandsShuffled) or event != replace(original, hands=mine):
                    raise InvariantError(f"redaction for P{seat}: {event!r}")
                continue
            if not isinstance(original, Drew):
                if event != original:
                    raise InvariantError(f"redaction for P{seat} changed {original!r}")
                continue
            if not isinstance(event, Drew) or event.count != original.count:
                raise InvariantError(f"redaction for P{seat}: {event!r}")
            if original.cards is None or len(original.cards) != original.count:
                raise InvariantError(f"{original!r} does not list the cards drawn")
            if original.seat == seat or original.reason == "roulette":
                if event.cards != original.cards:
                    raise InvariantError(f"P{seat} is not shown the cards of {original!r}")
            else:
                if event.cards is not None:
                    raise InvariantError(f"P{seat} is shown the cards P{original.seat} drew")
                text = json.dumps(event.to_dict()).replace('"cards": null', "")
                if "cards" in text:
                    raise InvariantError(f"P{seat} is shown the cards P{original.seat} drew: {text}")


def _check_clone(state: GameState, legal: list[Action], rng: random.Random) -> None:
    """clone() shares nothing mutable with its original."""
    before = state.to_json()
    copy = state.clone()
    if copy != state or copy.to_json() != before:
        raise InvariantError("clone() differs from its original")
    if legal:
        copy.apply(rng.choice(legal))
    for hand in copy.hands:
        hand.append(hand[0] if hand else copy.discard[0])
    copy.draw_pile.clear()
    copy.discard.append(copy.discard[0])
    copy.aside.append(copy.discard[0])
    copy.active[0] = not copy.active[0]
    copy.bonus[0] += 1
    copy.knocked_out.append(KnockOut(0, None))
    if state.to_json() != before:
        raise InvariantError("changing a clone changed its original")


# -- a game, and many ----------------------------------------------------------------------


@dataclass
class Summary:
    """What :func:`check_random_games` played: enough to tell that it played something."""

    games: int = 0
    steps: int = 0
    #: Rounds won, by seat.
    winners: Counter[int] = field(default_factory=Counter)
    #: How the rounds ended (``Outcome.reason``).
    reasons: Counter[str] = field(default_factory=Counter)
    #: Actions applied by a non-deciding seat, by kind (``catch``, ``uno``).
    out_of_turn: Counter[str] = field(default_factory=Counter)
    #: Refused actions tried.
    refusals: int = 0


class _Fork(NamedTuple):
    state: GameState
    step: int


class _Where:
    """How far the game in progress got, for the error message."""

    step = 0


def _check_game(
    rules: Rules,
    players: int,
    seed: int,
    checks: Checks,
    policy: Policy | None,
    summary: Summary,
    where: _Where,
) -> GameState:
    """Play game ``seed``, checking the invariants after every step."""
    rng = random.Random(seed)
    check_rng = random.Random(seed * 7919 + 1)
    record, state = GameRecord.start(players, rules, seed)
    deck = Counter(deck_cards(rules.deck))
    forks: list[_Fork] = []
    fork_at = rng.randrange(1, 40) if checks.fork_every == 0 else 0
    choose = policy if policy is not None else RandomPlayer(checks.catch_rate)
    steps = random_steps(state, rng, choose)
    step = 0
    while True:
        _check_cards(state, deck)
        _check_mercy(state)
        legal = _check_legal(state)
        if checks.illegal_per_step:
            _check_illegal(state, legal, checks.illegal_per_step, check_rng)
            summary.refusals += checks.illegal_per_step
        if checks.views:
            _check_views(state, deck, check_rng)
        if (checks.fork_every and step % checks.fork_every == 0) or step == fork_at:
            _check_clone(state, legal, check_rng)
            copy = GameState.from_json(state.to_json())
            if copy != state or copy.to_json() != state.to_json():
                raise InvariantError("from_json(to_json(s)) != s")
            forks += [_Fork(copy, step), _Fork(state.clone(), step)]
        played = next(steps, None)
        if played is None:
            break
        step += 1
        where.step = step
        if not played.events:
            raise InvariantError(f"{played.action} by P{played.actor} yielded no event")
        record.add(played.actor, played.action)
        if played.out_of_turn:
            summary.out_of_turn[played.action.kind] += 1
        _check_events(played.events, players)
        for fork in forks:
            events = fork.state.apply(played.action, played.seat)
            if events != played.events:
                raise InvariantError(f"a copy made at step {fork.step} gives other events")
    outcome = state.outcome
    if outcome is None or state.current_player is not None:
        raise InvariantError("the round ended without an outcome")
    assert outcome is not None
    if GameState.from_json(state.to_json()) != state:
        raise InvariantError("the finished state does not load back equal: from_json(to_json(s)) != s")
    try:
        state.apply(Draw())
    except GameOver:
        pass
    else:
        raise InvariantError("an action applied after the end of the round")
    for fork in forks:
        if fork.state != state:
            raise InvariantError(f"a copy made at step {fork.step} ends in another state")
    again = replay(GameRecord.from_json(record.to_json()))
    if again != state or again.to_json() != state.to_json():
        raise InvariantError("replay(record) ends in another state")
    summary.games += 1
    summary.steps += step
    summary.winners[outcome.winner] += 1
    summary.reasons[outcome.reason] += 1
    return state


def check_random_games(
    rules: Rules | None = None,
    players: int = 4,
    games: int = 100,
    seed: int = 0,
    *,
    checks: Checks = Checks(),
    policy: Policy | None = None,
) -> Summary:
    """Play ``games`` seeded random games and check every invariant after every step.

    Game ``i`` is dealt and played from seed ``seed + i`` alone, so the game that broke an
    invariant replays with ``games=1, seed=<its seed>`` (the error message gives the call).
    ``checks`` picks the costlier checks (:data:`LIGHT` for the every-step ones only);
    ``policy`` chooses the actions (default: :class:`RandomPlayer` with ``checks.catch_rate``).
    Raises :class:`InvariantError`; returns a :class:`Summary` of what was played.
    """
    rules = rules if rules is not None else Rules()
    summary = Summary()
    for game_seed in range(seed, seed + games):
        where = _Where()
        try:
            _check_game(rules, players, game_seed, checks, policy, summary, where)
        except Exception as exc:
            what = str(exc) if isinstance(exc, InvariantError) else f"{type(exc).__name__}: {exc}"
            call = (
                f"check_random_games(Rules.from_dict({rules.to_dict(only_changes=True)!r}), "
                f"players={players}, games=1, seed={game_seed}, checks={checks!r}"
                + (", policy=..." if policy is not None else "")
                + ")"
            )
            raise InvariantError(
                f"game seed {game_seed} ({players} players) broke an invariant after step {where.step}: "
                f"{what}\nreplay it: {call}",
                seed=game_seed,
                step=where.step,
            ) from exc
    return summary
