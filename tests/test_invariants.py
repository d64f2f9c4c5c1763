"""Invariants over thousands of seeded random games (DESIGN.md, "Tests that mean something" 2).

Every game is played by uniformly random choices among ``legal_actions()``, for both
presets, for 2-6 players, and with several house rules combined. After EVERY step the
checks below hold; some costlier ones (illegal actions, views, JSON forks) run on a
subset of games or steps so that this file stays well under 90 s on one core.

- every card is accounted for: the zones together are exactly the deck (C3, T4, M2);
- no active player holds ``mercy_limit`` or more cards (M1), knocked-out seats hold none;
- the round ends within a generous bound; ``legal_actions()`` is never empty before the
  end, has no duplicates, and each of its actions applies;
- only the seats that may act out of turn get ``catch N`` / ``uno`` (U1-U3);
- random illegal actions, drawn from the whole action universe and from near misses of
  legal ones, by any seat, raise :class:`nomercy.IllegalAction` and change nothing;
- a view never shows another seat's cards, and does not depend on them at all;
  redacted events carry no other seat's drawn cards (Roulette turn-ups are public, W4);
- ``replay(record)`` rebuilds the final state; ``from_json(to_json(s)) == s`` and the
  copy plays on identically; ``clone()`` is independent of its original.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain

import pytest

import nomercy
from nomercy import (
    Action,
    CallUno,
    Card,
    Catch,
    ChooseColor,
    Color,
    Draw,
    GameRecord,
    GameState,
    IllegalAction,
    Pass,
    Play,
    Rules,
    Take,
    determinize,
    redact,
    replay,
)
from nomercy.events import Drew, Event
from nomercy.views import player_view

MAX_STEPS = 5000  # random games average ~30-140 steps; the longest seen are ~350
PLAYERS = (2, 3, 4, 5, 6)

PRESETS: dict[str, Rules] = {"no_mercy": Rules(), "classic": Rules.preset("classic")}

#: Non-default house rules combined, so that the rarely used branches run too.
HOUSE_RULES: dict[str, Rules] = {
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
}


@dataclass
class Checks:
    """Which of the costlier checks a game runs, and how often."""

    illegal_per_step: int = 0  #: illegal actions tried per step
    views: bool = False  #: view contents, non-interference and determinize, every step
    fork_every: int = 0  #: fork a JSON copy and a clone every N steps (0: once per game)
    catch_rate: float = 0.0  #: chance to inject an out-of-turn catch / late Uno
    rng: random.Random = field(default_factory=random.Random)


# -- the action universe -------------------------------------------------------------------

_UNIVERSE: dict[int, list[Action]] = {}


def action_universe(players: int) -> list[Action]:
    """Every action text the engine can parse, over all cards and seats (and off the table)."""
    if players not in _UNIVERSE:
        seats = range(-1, players + 1)
        plays = [
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


def near_misses(action: Action, players: int) -> Iterator[Action]:
    """Actions one detail away from a legal one: most likely to slip through a check."""
    if isinstance(action, Play):
        yield Play(action.card, action.color, action.target, not action.uno)
        yield Play(action.card, None if action.color is not None else Color.RED, action.target, action.uno)
        for target in (None, -1, players, *range(players)):
            if target != action.target:
                yield Play(action.card, action.color, target, action.uno)
    elif isinstance(action, Catch):
        for n in range(-1, players + 1):
            yield Catch(n)


# -- the checks ------------------------------------------------------------------------------


def deck_counter(rules: Rules) -> Counter[Card]:
    return Counter(nomercy.full_deck(rules))


def check_cards(state: GameState, deck: Counter[Card]) -> None:
    """C3/T4/M2: the zones hold exactly the deck, whatever moved."""
    assert state.card_count() == sum(deck.values())
    zones = Counter(chain(*state.hands, state.draw_pile, state.discard, state.aside))
    assert zones == deck


def check_mercy(state: GameState) -> None:
    """M1/M3: no active seat at or over the limit; a knocked-out seat holds nothing."""
    limit = state.rules.mercy_limit
    out = {k.seat for k in state.knocked_out}
    for seat, hand in enumerate(state.hands):
        assert state.active[seat] == (seat not in out)
        if not state.active[seat]:
            assert hand == []
        elif limit is not None:
            assert len(hand) < limit, (seat, len(hand))
    assert state.active_count == sum(state.active)


def check_legal(state: GameState) -> list[Action]:
    """Legal actions: non-empty before the end, no duplicates; out-of-turn ones (U2)."""
    if state.is_over:
        assert state.current_player is None
        assert state.legal_actions() == []
        assert all(state.legal_actions(seat) == [] for seat in range(state.players))
        return []
    cur = state.current_player
    assert cur is not None and state.active[cur]
    legal = state.legal_actions()
    assert legal, "no legal action before the end of the round"
    assert len(set(legal)) == len(legal), legal
    uno = state.uno_open
    for seat in range(state.players):
        mine = state.legal_actions(seat)
        if seat == cur:
            assert mine == legal
            out_of_turn: list[Action] = [a for a in legal if isinstance(a, (Catch, CallUno))]
        else:
            out_of_turn = mine
        if not state.active[seat]:
            assert out_of_turn == []
        else:  # U1: a late call of one's own; U2: any other active player may catch
            assert out_of_turn == [CallUno() if x == seat else Catch(x) for x in uno]
    return legal


def check_illegal(state: GameState, legal: list[Action], checks: Checks) -> None:
    """Refused actions raise IllegalAction and leave the state exactly as it was."""
    rng = checks.rng
    players = state.players
    universe = action_universe(players)
    before = state.to_json()
    tries: list[tuple[int, Action]] = []
    for _ in range(checks.illegal_per_step):
        tries.append((rng.randrange(-1, players + 1), rng.choice(universe)))
    if legal:
        base = rng.choice(legal)
        tries += [(state.current_player or 0, a) for a in near_misses(base, players)]
        # A legal action from every other seat (wrong seat).
        tries += [(seat, base) for seat in range(players) if seat != state.current_player]
    for seat, action in tries:
        if 0 <= seat < players and action in state.legal_actions(seat):
            continue
        try:
            state.apply(action, seat)
        except IllegalAction:
            pass
        else:
            pytest.fail(f"'{action}' by P{seat} applied but is not in legal_actions({seat}) of {state!r}")
        assert state.to_json() == before, f"refused '{action}' by P{seat} changed the state"


def _card_strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value that is a card code."""
    if isinstance(value, str):
        try:
            Card.parse(value)
        except nomercy.InvalidCard:
            return
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _card_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _card_strings(v)


#: View fields allowed to name cards: own hand, the public top card, own drawn card, own actions.
_CARD_FIELDS = {"hand", "top", "drawn", "legal_actions"}


def check_view(state: GameState, seat: int | None) -> None:
    """A view holds the seat's own hand and public facts only."""
    view = player_view(state, seat)
    data = view.to_dict()
    json.dumps(data)
    assert not {"hands", "draw_pile", "discard_pile", "aside", "seed", "shuffles"} & data.keys()
    for key, value in data.items():
        if key not in _CARD_FIELDS:
            assert list(_card_strings(value)) == [], (key, value)
    if seat is None:
        assert view.hand == () and data["hand"] == []
        assert view.legal_actions == () and view.drawn is None
        return
    assert view.hand == tuple(state.hands[seat])
    assert data["hand"] == [c.code for c in state.hands[seat]]
    assert list(view.legal_actions) == state.legal_actions(seat)
    own = Counter(state.hands[seat])
    for action in view.legal_actions:
        if isinstance(action, Play):
            assert own[action.card] > 0
    if seat != state.current_player:
        assert view.drawn is None and data["drawn"] is None
    else:
        assert view.drawn == state.drawn


def rehide(state: GameState, seat: int | None, rng: random.Random) -> GameState:
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


def check_views(state: GameState, rng: random.Random) -> None:
    for seat in [*range(state.players), None]:
        check_view(state, seat)
        # Non-interference: what a seat sees is a function of what it may see.
        alt = rehide(state, seat, rng)
        assert player_view(alt, seat).to_dict() == player_view(state, seat).to_dict()
        if seat is not None and state.active[seat]:
            view = player_view(state, seat)
            sample = determinize(view, rng)
            check_cards(sample, deck_counter(state.rules))
            assert player_view(sample, seat) == view


def check_events(events: list[Event], players: int) -> None:
    """Redaction: another seat's drawn cards are hidden, Roulette turn-ups are public (W4)."""
    for seat in [*range(players), None]:
        shown = redact(events, seat)
        assert len(shown) == len(events)
        for original, event in zip(events, shown, strict=True):
            if type(original) is not Drew:
                assert event == original
                continue
            assert isinstance(event, Drew) and event.count == original.count
            assert original.cards is not None and len(original.cards) == original.count
            if original.seat == seat or original.reason == "roulette":
                assert event.cards == original.cards
            else:
                assert event.cards is None
                assert "cards" not in json.dumps(event.to_dict()).replace('"cards": null', "")


def check_clone(state: GameState, legal: list[Action], rng: random.Random) -> None:
    """clone() shares nothing mutable with its original."""
    before = state.to_json()
    copy = state.clone()
    assert copy == state and copy.to_json() == before
    if legal:
        copy.apply(rng.choice(legal))
    for hand in copy.hands:
        hand.append(hand[0] if hand else copy.discard[0])
    copy.draw_pile.clear()
    copy.discard.append(copy.discard[0])
    copy.aside.append(copy.discard[0])
    copy.active[0] = not copy.active[0]
    copy.bonus[0] += 1
    copy.knocked_out.append(nomercy.KnockOut(0, None))
    assert state.to_json() == before


# -- a game ----------------------------------------------------------------------------------


@dataclass
class Fork:
    """A copy made at ``step``, played on with the same actions in lockstep."""

    state: GameState
    step: int


def play_game(rules: Rules, players: int, seed: int, checks: Checks | None = None) -> GameState:
    """Play one seeded random game, checking the invariants after every step."""
    checks = checks or Checks()
    rng = random.Random(seed)
    checks.rng = random.Random(seed * 7919 + 1)
    record, state = GameRecord.start(players, rules, seed)
    deck = deck_counter(rules)
    forks: list[Fork] = []
    fork_at = rng.randrange(1, 40) if checks.fork_every == 0 else 0
    steps = 0
    while True:
        check_cards(state, deck)
        check_mercy(state)
        legal = check_legal(state)
        if checks.illegal_per_step:
            check_illegal(state, legal, checks)
        if checks.views:
            check_views(state, checks.rng)
        if (checks.fork_every and steps % checks.fork_every == 0) or steps == fork_at:
            check_clone(state, legal, checks.rng)
            copy = GameState.from_json(state.to_json())
            assert copy == state and copy.to_json() == state.to_json()
            forks += [Fork(copy, steps), Fork(state.clone(), steps)]
        if state.is_over:
            break
        steps += 1
        assert steps <= MAX_STEPS, "the round did not end"
        seat, action = _choose(state, legal, rng, checks.catch_rate)
        events = state.apply(action, seat)
        record.add(seat, action)
        check_events(events, players)
        for fork in forks:
            assert fork.state.apply(action, seat) == events
    assert state.outcome is not None and state.current_player is None
    with pytest.raises(nomercy.GameOver):
        state.apply(Draw())
    for fork in forks:
        assert fork.state == state and fork.state.to_json() == state.to_json()
    again = replay(GameRecord.from_json(record.to_json()))
    assert again == state and again.to_json() == state.to_json()
    return state


def _choose(
    state: GameState, legal: list[Action], rng: random.Random, catch_rate: float
) -> tuple[int, Action]:
    """The deciding seat's random choice, or now and then an out-of-turn catch / late Uno."""
    cur = state.current_player
    assert cur is not None
    if state.uno_open and catch_rate and rng.random() < catch_rate:
        others = [(s, a) for s in range(state.players) if s != cur for a in state.legal_actions(s)]
        if others:
            return rng.choice(others)
    if state.rules.draw_when_playable and len(legal) > 1 and rng.random() < 0.9:
        # T3 lets a player draw instead of playing: a player who always might never
        # finish (the pile runs dry and every card is held), so random players mostly play.
        legal = [a for a in legal if not isinstance(a, Draw)] or legal
    return cur, rng.choice(legal)


# -- the tests ------------------------------------------------------------------------------

CASES = [(name, p) for name in PRESETS for p in PLAYERS]
LIGHT_GAMES = 150  # per preset and player count: 1500 games with the every-step checks
HEAVY_GAMES = 6  # per preset and player count, with every check at every step


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_random_games_keep_every_invariant(preset: str, players: int) -> None:
    """C3, M1, T4, E1: thousands of random games, checked after every step."""
    rules = PRESETS[preset]
    winners: Counter[int] = Counter()
    for seed in range(LIGHT_GAMES):
        state = play_game(rules, players, seed)
        assert state.outcome is not None
        winners[state.outcome.winner] += 1
    assert set(winners) <= set(range(players))


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_illegal_actions_views_and_forks(preset: str, players: int) -> None:
    """Refused actions change nothing; views hide other hands; JSON and clones play on."""
    rules = PRESETS[preset]
    for seed in range(1000, 1000 + HEAVY_GAMES):
        play_game(rules, players, seed, Checks(illegal_per_step=8, views=True, fork_every=25))


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_out_of_turn_catches(preset: str, players: int) -> None:
    """U2: catches (and late Uno calls) by non-deciding seats, injected at random."""
    rules = PRESETS[preset]
    for seed in range(2000, 2040):
        play_game(rules, players, seed, Checks(catch_rate=0.5))


@pytest.mark.parametrize("name", sorted(HOUSE_RULES))
@pytest.mark.parametrize("players", PLAYERS)
def test_house_rules_combined(name: str, players: int) -> None:
    """Several non-default house rules at once keep every invariant."""
    rules = HOUSE_RULES[name]
    for seed in range(3000, 3040):
        play_game(rules, players, seed, Checks(catch_rate=0.3))
    for seed in range(3100, 3102):
        play_game(rules, players, seed, Checks(illegal_per_step=6, views=True, fork_every=20, catch_rate=0.3))


def test_catches_happen_and_late_calls_happen() -> None:
    """The catch injection really exercises U2 (else the tests above would prove little)."""
    kinds: Counter[str] = Counter()
    for seed in range(40):
        state = nomercy.new_game(4, Rules(), seed)
        rng = random.Random(seed)
        while not state.is_over:
            cur = state.current_player
            seat, action = _choose(state, state.legal_actions(), rng, 0.5)
            state.apply(action, seat)
            if seat != cur:
                kinds[action.kind] += 1
    assert kinds["catch"] > 0 and kinds["uno"] > 0, kinds
