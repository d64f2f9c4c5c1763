"""The rules: dealing a round, listing legal actions, applying an action.

This module is the hot loop of every simulation, search and training run, so it trades
a little elegance for speed: plain lists, interned cards and actions, local variables,
and work proportional to the cards an action moves. Rule IDs in comments point into
``RULES.md``.
"""

from __future__ import annotations

import random
import secrets
from itertools import filterfalse, repeat
from operator import attrgetter, indexOf, is_
from typing import Final, TypeVar

from nomercy.actions import (
    CALL_UNO,
    CHOOSE_COLOR,
    DRAW,
    PASS,
    TAKE,
    Action,
    CallUno,
    Catch,
    ChooseColor,
    Draw,
    Pass,
    Play,
    Take,
)
from nomercy.cards import COMPILED, Card, Color, Face, deck_cards
from nomercy.errors import GameOver, IllegalAction, InvalidRules, NotYourTurn
from nomercy.events import (
    Caught,
    ColorNamed,
    DiscardedAll,
    Drew,
    Event,
    HandsPassed,
    HandsSwapped,
    KnockedOut,
    Passed,
    Played,
    Reshuffled,
    Reversed,
    RoundOver,
    Skipped,
    StackGrew,
    Started,
    UnoCalled,
)
from nomercy.rules import Rules
from nomercy.state import Decision, GameState, KnockOut, Outcome

__all__ = ["apply", "legal_actions", "new_game", "shuffle", "shuffle_rng"]

# A note on finding a card in a hand. Cards compare by identity, but Card defines __lt__
# (to sort hands), so CPython compares two cards through Python-level slot lookups:
# ``card in hand`` and ``hand.remove(card)`` cost about 60 ns for every card they pass.
# The engine scans hands by identity with C iterators instead,
# ``indexOf(map(is_, hand, repeat(card)), True)``: the same answer, 2-3x faster on the
# long hands of No Mercy, where these scans were a sixth of all the time.

_T = TypeVar("_T")

_PLAY: Final = Decision.PLAY
_PLAY_DRAWN: Final = Decision.PLAY_DRAWN
_STACK: Final = Decision.STACK
_CHOOSE_COLOR: Final = Decision.CHOOSE_COLOR
_ROULETTE: Final = Decision.ROULETTE
_OVER: Final = Decision.OVER

_SEVEN: Final = Face.SEVEN
_ZERO: Final = Face.ZERO
_SKIP: Final = Face.SKIP
_REVERSE: Final = Face.REVERSE
_SKIP_EVERYONE: Final = Face.SKIP_EVERYONE
_DISCARD_ALL: Final = Face.DISCARD_ALL
_WRD4: Final = Face.WILD_REVERSE_DRAW_4
_ROULETTE_FACE: Final = Face.WILD_COLOR_ROULETTE
_WD4: Final = Face.WILD_DRAW_4
KNOCKOUT_POINTS: Final = 250  # E3

# Interned play actions, per card index: the plain play (or one per color for wilds).
_PLAIN: Final[list[tuple[Play, ...]]] = []
_WITH_UNO: Final[list[tuple[Play, ...]]] = []
for _card in Card.ALL:
    if _card.is_wild and _card.face is not _ROULETTE_FACE:
        _PLAIN.append(tuple(Play(_card, c) for c in Color))
        _WITH_UNO.append(tuple(Play(_card, c, None, True) for c in Color))
    else:
        _PLAIN.append((Play(_card),))
        _WITH_UNO.append((Play(_card, None, None, True),))
_SEVENS: Final[dict[tuple[int, int, bool], Play]] = {}
_CATCH: Final = [Catch(seat) for seat in range(64)]


def _seven_play(card: Card, target: int, uno: bool) -> Play:
    key = (card.index, target, uno)
    play = _SEVENS.get(key)
    if play is None:
        play = _SEVENS[key] = Play(card, None, target, uno)
    return play


def shuffle_rng(seed: int, shuffle_number: int) -> random.Random:
    """The RNG of one shuffle: the deal is shuffle 0, each reshuffle (T4) the next.

    Deriving each shuffle from ``(seed, number)`` keeps the state's randomness two
    integers, so states serialise, clone and replay exactly on every machine.
    """
    return random.Random(f"nomercy:{seed}:{shuffle_number}")


def shuffle(rng: random.Random, cards: list[_T]) -> None:
    """``rng.shuffle(cards)``: the same permutation, in about half the time.

    ``random.shuffle`` calls the Python method ``rng._randbelow(i + 1)`` for every card,
    which calls ``rng.getrandbits(k)`` until a value is below ``i + 1``. This is the same
    loop with that method inlined: the same ``getrandbits`` calls in the same order, so
    the same permutation and the RNG left in the same state (tests/test_shuffle.py checks
    both against ``random.shuffle``). Dealing was a sixth of a 2-player game's time.
    """
    getrandbits = rng.getrandbits
    bits = _BITS if len(cards) < len(_BITS) else [n.bit_length() for n in range(len(cards) + 1)]
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = bits[n]
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_BITS: Final = [n.bit_length() for n in range(1024)]


# -- dealing ----------------------------------------------------------------------------


def new_game(
    players: int = 4,
    rules: Rules | None = None,
    seed: int | None = None,
    dealer: int | None = None,
    sitting_out: frozenset[int] | set[int] | tuple[int, ...] = (),
) -> GameState:
    """Deal a new round (S1-S4). ``seed=None`` picks a fresh one, kept in the state.

    ``sitting_out`` lists seats of a scored match that take no part in this round
    (``knocked_out_return=False``, E4); they are dealt nothing.
    """
    rules = rules if rules is not None else Rules()
    if not isinstance(players, int) or not 2 <= players <= rules.max_players:
        raise InvalidRules("players", f"{players!r} players: a table seats 2 to {rules.max_players} (S1)")
    pile = _fresh_deck(rules)
    total = len(pile)
    if players * rules.hand_size + 1 > total:
        raise InvalidRules(
            "players", f"a {total}-card deck cannot deal {rules.hand_size} cards to {players} players (S2)"
        )
    if seed is None:
        seed = secrets.randbits(63)
    if not isinstance(seed, int) or seed < 0:
        raise InvalidRules("seed", f"a seed is a whole number >= 0, got {seed!r}")
    out = frozenset(sitting_out)
    if any(not isinstance(x, int) or not 0 <= x < players for x in out) or players - len(out) < 2:
        raise InvalidRules("sitting_out", f"{sorted(out)} must be seats 0-{players - 1}, leaving two players")
    rng = shuffle_rng(seed, 0)
    shuffle(rng, pile)
    if dealer is None:
        dealer = rng.randrange(players)
    elif not isinstance(dealer, int) or not 0 <= dealer < players:
        raise InvalidRules("dealer", f"dealer must be a seat 0-{players - 1}, got {dealer!r}")
    while dealer in out:
        dealer = (dealer + 1) % players

    s = GameState.__new__(GameState)
    s.rules = rules
    s.players = players
    s.dealer = dealer
    s.hands = [[] for _ in range(players)]
    size = rules.hand_size
    for i in range(1, players + 1):  # S2, from the dealer's left (a shuffled pile: blocks
        seat = (dealer + i) % players  # deal the same as one card at a time)
        if seat not in out:
            s.hands[seat] = pile[-size:]
            del pile[-size:]
    s.draw_pile = pile
    s.discard = [pile.pop()]
    s.aside = []
    s.direction = 1
    s.active = [seat not in out for seat in range(players)]
    s.active_count = players - len(out)
    s.current = _next(s, dealer)  # S4
    s.decision = _PLAY
    s.pending_total = 0
    s.last_draw_value = 0
    s.last_draw_by = None
    s.drawn = None
    s.roulette_by = None
    s.knocked_out = []
    s.uno_seat = None
    s.bonus = [0] * players
    s.seed = seed
    s.shuffles = 0
    s.step = 0
    s.outcome = None
    if rules.first_card == "number":  # S3: turn cards up until a number card
        while not s.discard[-1].is_number and pile:
            s.discard.append(pile.pop())
    top = s.discard[-1]
    s.color = top.color
    if rules.first_card == "apply" and not top.is_number:
        if top.is_wild and top.face is not _ROULETTE_FACE:
            s.decision = _CHOOSE_COLOR  # the first player names it, then the effect applies
        else:
            _effect(s, dealer, top, [])
    return s


def _fresh_deck(rules: Rules) -> list[Card]:
    """``deck_cards(rules.deck)``, cached by the Rules object: hashing a 60-entry deck
    composition for every deal costs as much as a few decisions."""
    cached = _DECKS.get(id(rules))
    if cached is None or cached[0] is not rules:
        if len(_DECKS) >= 64:  # many distinct Rules (property tests): keep the cache small
            _DECKS.clear()
        cached = _DECKS[id(rules)] = (rules, deck_cards(rules.deck))
    return cached[1][:]


_DECKS: Final[dict[int, tuple[Rules, list[Card]]]] = {}


def started_event(s: GameState) -> Started:
    """The :class:`Started` event that describes a freshly dealt round."""
    return Started(s.dealer, _next(s, s.dealer), tuple(s.discard))


# -- helpers ------------------------------------------------------------------------------


def _next(s: GameState, seat: int) -> int:
    """The next active seat after ``seat`` in the direction of play (M3)."""
    n = s.players
    d = s.direction
    active = s.active
    seat = (seat + d) % n
    while not active[seat]:
        seat = (seat + d) % n
    return seat


def _previous(s: GameState, seat: int) -> int:
    n = s.players
    d = s.direction
    active = s.active
    seat = (seat - d) % n
    while not active[seat]:
        seat = (seat - d) % n
    return seat


def _playable(s: GameState, card: Card, hand: list[Card]) -> bool:
    """T1 matching, outside a stack."""
    if card.is_wild:
        if card.face is _WD4 and s.rules.wild_draw4_restricted:
            # Only when no other card of the hand matches; set operations in C.
            return _matching(s).intersection(hand) <= _WD4_CARDS
        return True
    return card.color is s.color or card.face is s.discard[-1].face


def _holds(hand: list[Card], card: Card) -> bool:
    """``card in hand``, two to three times faster: see the note at the imports."""
    return True in map(is_, hand, repeat(card))


def _stackable(s: GameState, card: Card) -> bool:
    """K2-K5: may ``card`` be stacked on the pending total?"""
    value = card.draw_value
    last = s.last_draw_value
    if not value or value < last:
        return False
    if last == 10 and not s.rules.draw10_stackable:
        return False
    if card.color is not None and s.rules.stack_color == "match":
        return card.color is s.color or card.face is s.discard[-1].face
    return True


def _size_after(s: GameState, seat: int, card: Card, target: int | None) -> int:
    """How many cards ``seat`` holds after playing ``card`` (N1/N2 move hands)."""
    hand = s.hands[seat]
    left = len(hand) - 1
    if left == 0:
        return 0
    face = card.face
    if face is _DISCARD_ALL:
        assert card.color is not None
        return left - sum(map(_OF_COLOR[card.color].__contains__, hand)) + 1  # counted in C
    if s.rules.seven_zero:
        if face is _SEVEN and target is not None:
            return len(s.hands[target])
        if face is _ZERO:
            return len(s.hands[_previous(s, seat)])
    return left


def _out_of_turn(s: GameState, seat: int) -> list[Action]:
    uno = s.uno_seat
    if uno is None or not 0 <= seat < s.players or not s.active[seat]:  # U2: active seats only
        return []
    return [CALL_UNO] if uno == seat else [_CATCH[uno]]


# -- legal actions ---------------------------------------------------------------------


def legal_actions(s: GameState, seat: int | None = None) -> list[Action]:
    """Every legal action of ``seat`` (default: the deciding seat)."""
    cur = s.current
    if cur is None:
        return []
    if seat is not None and seat != cur:
        return _out_of_turn(s, seat)
    decision = s.decision
    out: list[Action]
    if decision is _PLAY:
        # T1, the most frequent question of all: the cards that match, found by one set
        # intersection in C against a table cached per top card and color in play.
        hand = s.hands[cur]
        top = s.discard[-1]
        try:
            allowed = _MATCH_BY_TOP[top.index][s.color]  # type: ignore[index]
        except TypeError:  # no color in play: only in a state edited by hand
            allowed = _match_set(s.color, top.face)
        cards = allowed.intersection(hand)
        out = _card_plays(s, cur, hand, cards, False) if cards else []
        if not out or s.rules.draw_when_playable:
            out.append(DRAW)
    elif decision is _STACK:
        hand = s.hands[cur]
        cards = _stack_set(s).intersection(hand)
        out = _card_plays(s, cur, hand, cards, True) if cards else []
        out.append(TAKE)
    elif decision is _PLAY_DRAWN:
        drawn = s.drawn
        assert drawn is not None
        out = _variants(s, cur, drawn)
        if not s.rules.must_play_drawn:
            out.append(PASS)
    else:  # CHOOSE_COLOR, ROULETTE
        out = list(CHOOSE_COLOR)
    if s.uno_seat is not None:
        out.extend(_out_of_turn(s, cur))
    return out


def _card_plays(
    s: GameState, seat: int, hand: list[Card], cards: frozenset[Card], stacking: bool
) -> list[Action]:
    """The plays of ``cards`` (the hand's matching cards), in card index order."""
    rules = s.rules
    # Two cards left: any plain play leaves one, so it comes with and without Uno (U1).
    pairs = rules.uno_calls and len(hand) == 2
    if cards.isdisjoint(_SPECIAL_SEVEN_ZERO if rules.seven_zero else _SPECIAL_CARDS):
        # Fast path: every card's plays are fixed tuples. One or two cards (most turns)
        # are ordered by hand, since sorted() with a key costs more than the rest.
        table = _PLAIN_AND_UNO if pairs else _PLAIN_OF
        if len(cards) == 1:
            for card in cards:
                return list(table[card])
        if len(cards) == 2:
            a, b = cards
            if a.index > b.index:
                a, b = b, a
            return [*table[a], *table[b]]
        out: list[Action] = []
        for card in sorted(cards, key=_BY_INDEX):
            out.extend(table[card])
        return out
    out = []
    for card in sorted(cards, key=_BY_INDEX):  # a set: sort for a deterministic order
        index = card.index
        if _SPECIAL[index]:
            restricted = card.face is _WD4 and rules.wild_draw4_restricted and not stacking
            if restricted and not _playable(s, card, hand):
                continue
            out.extend(_variants(s, seat, card))
        else:
            out.extend(_PLAIN[index])
            if pairs:
                out.extend(_WITH_UNO[index])
    return out


_BY_INDEX: Final = attrgetter("index")
# The cards of each color, to count and filter a hand by color in C (A5).
_OF_COLOR: Final = [frozenset(c for c in Card.ALL if c.color is color) for color in Color]


def _match_set(color: Color | None, face: Face) -> frozenset[Card]:
    """T1: the cards that may be played on ``face`` with ``color`` in play (cached)."""
    key = (color, face)
    cards = _MATCH_SETS.get(key)
    if cards is None:
        cards = _MATCH_SETS[key] = frozenset(
            c for c in Card.ALL if c.is_wild or c.color is color or c.face is face
        )
    return cards


def _matching(s: GameState) -> frozenset[Card]:
    """T1: the cards that may be played now, outside a stack (the body is inlined in
    legal_actions)."""
    top = s.discard[-1]
    if s.color is None:
        return _match_set(None, top.face)
    return _MATCH_BY_TOP[top.index][s.color]


def _stack_set(s: GameState) -> frozenset[Card]:
    """K2-K5: the cards that may be stacked now (cached by what decides it)."""
    rules = s.rules
    key = (s.last_draw_value, rules.draw10_stackable, rules.stack_color, s.color, s.discard[-1].face)
    cards = _STACK_SETS.get(key)
    if cards is None:
        cards = _STACK_SETS[key] = frozenset(c for c in Card.ALL if c.is_draw and _stackable(s, c))
    return cards


_MATCH_SETS: Final[dict[tuple[Color | None, Face], frozenset[Card]]] = {}
_STACK_SETS: Final[dict[tuple[object, ...], frozenset[Card]]] = {}
# Cards whose plays depend on more than the card: Sevens (targets), Zeros and Discard
# All (how many cards they leave), and the restricted classic Wild Draw 4.
_SPECIAL: Final = [c.face in (Face.SEVEN, Face.ZERO, Face.DISCARD_ALL, Face.WILD_DRAW_4) for c in Card.ALL]
# Cards whose plays need the full legality check: wilds (a color) and Sevens (a target).
_SPECIAL_CHECK: Final = [c.is_wild or c.face is Face.SEVEN for c in Card.ALL]
# The same as sets, for one C-level isdisjoint() test of a hand's matching cards. Without
# N1-N2 (seven_zero off) Sevens and Zeros are plain cards.
_SPECIAL_SEVEN_ZERO: Final = frozenset(c for c in Card.ALL if _SPECIAL[c.index])
_SPECIAL_CARDS: Final = frozenset(c for c in _SPECIAL_SEVEN_ZERO if c.face not in (Face.SEVEN, Face.ZERO))
# Per card: its plain plays, and those followed by the same plays calling Uno (U1).
_PLAIN_OF: Final = {c: _PLAIN[c.index] for c in Card.ALL}
_PLAIN_AND_UNO: Final = {c: _PLAIN[c.index] + _WITH_UNO[c.index] for c in Card.ALL}
# T1 match sets by top card index, then color in play: two list lookups instead of a
# call and a dict lookup on the hottest line. Built from 88 shared sets in C.
_WILDS: Final = frozenset(c for c in Card.ALL if c.is_wild)
_OF_FACE: Final = {face: frozenset(c for c in Card.ALL if c.face is face) for face in Face}
for _color in Color:
    for _face in Face:
        _MATCH_SETS[(_color, _face)] = _WILDS | _OF_COLOR[_color] | _OF_FACE[_face]
_MATCH_BY_TOP: Final = [[_MATCH_SETS[(color, c.face)] for color in Color] for c in Card.ALL]
_WD4_CARDS: Final = _OF_FACE[Face.WILD_DRAW_4]


def _variants(s: GameState, seat: int, card: Card) -> list[Action]:
    """Every play of ``card`` by ``seat``: colors, Seven targets, with and without Uno."""
    rules = s.rules
    hand_size = len(s.hands[seat])
    if card.face is _SEVEN and rules.seven_zero and hand_size > 1:
        out: list[Action] = []
        n = s.players
        for t in range(n):
            if t != seat and s.active[t]:
                out.append(_seven_play(card, t, False))
                if rules.uno_calls and len(s.hands[t]) == 1:
                    out.append(_seven_play(card, t, True))
        return out
    plain = _PLAIN[card.index]
    if rules.uno_calls:
        face = card.face
        if face is _DISCARD_ALL or (face is _ZERO and rules.seven_zero):
            needs_call = _size_after(s, seat, card, None) == 1
        else:
            needs_call = hand_size == 2
        if needs_call:
            return [*plain, *_WITH_UNO[card.index]]
    return list(plain)


# -- applying ---------------------------------------------------------------------------


def apply(s: GameState, action: Action, seat: int | None = None) -> list[Event]:
    """Check ``action`` against the rules and apply it; return what happened."""
    cur = s.current
    if cur is None:  # the same as s.outcome is not None, one attribute fewer
        raise GameOver("the round is over (E1)")
    if seat is None:
        seat = cur
    # Dispatch on the action's class, not its ``kind`` text: the same speed interpreted,
    # and a type test in C where compiled.
    if isinstance(action, Play) and seat == cur:
        play = action
        card = play.card
        hand = s.hands[seat]
        try:  # where the card is held: found once, for the check and the removal
            at = indexOf(map(is_, hand, repeat(card)), True)
        except ValueError:
            at = -1
        # Fast path, most steps of every game: a held plain colored card matching the
        # top, no color, target or call to check. Everything else takes the full check.
        if not (
            at >= 0
            and s.decision is _PLAY
            and not _SPECIAL_CHECK[card.index]
            and not play.uno
            and (card.color is s.color or card.face is s.discard[-1].face)
            and play.color is None
            and play.target is None
        ):
            _check_play(s, seat, play)
            if at < 0:  # a drawn card missing from its hand: only in a state edited by hand
                raise IllegalAction(f"you have no {card.title} ({card}) to play (T2)")
        s.uno_seat = None  # U2: the next player's turn has begun
        s.step += 1
        events: list[Event] = []
        del hand[at]
        _play(s, seat, play, events)
        return events
    if isinstance(action, Catch):
        return _catch(s, action, seat)
    if isinstance(action, CallUno):
        return _call_uno(s, seat)
    if seat != cur:
        raise NotYourTurn(f"it is P{cur}'s turn, not P{seat}'s (T1)")
    decision = s.decision
    events = []
    if isinstance(action, Draw):
        if decision is not _PLAY:
            raise IllegalAction(_not_now(s, "draw"))
        if not s.rules.draw_when_playable:
            hand = s.hands[seat]
            # T3 in one C-level set test (a hand matches iff a card is playable, even a
            # restricted Wild Draw 4); the loop only runs to name the card in the refusal.
            if not _matching(s).isdisjoint(hand):
                for card in hand:
                    if _playable(s, card, hand):
                        raise IllegalAction(
                            f"you hold a playable card ({card}): you may draw only when none of "
                            "your cards can be played (T3)"
                        )
        s.uno_seat = None
        s.step += 1
        _draw(s, seat, events)
        return events
    if isinstance(action, Take):
        if decision is not _STACK:
            raise IllegalAction("there is no pending draw total to take (K2)")
        s.uno_seat = None
        s.step += 1
        _take(s, seat, events)
        return events
    if isinstance(action, Pass):
        if decision is not _PLAY_DRAWN or s.rules.must_play_drawn:
            if decision is _PLAY_DRAWN:
                raise IllegalAction(f"you must play the {s.drawn} you drew (T2, must_play_drawn)")
            raise IllegalAction(_not_now(s, "pass"))
        s.uno_seat = None
        s.step += 1
        events.append(Passed(seat))
        s.drawn = None
        _advance(s, _next(s, seat))
        return events
    if isinstance(action, ChooseColor):
        if decision is not _CHOOSE_COLOR and decision is not _ROULETTE:
            raise IllegalAction(_not_now(s, "name a color"))
        s.uno_seat = None
        s.step += 1
        color = action.color
        if decision is _ROULETTE:
            _roulette(s, seat, color, events)
        else:
            s.color = color
            events.append(ColorNamed(seat, color))
            s.decision = _PLAY
            _effect(s, s.dealer, s.discard[-1], events)
        return events
    raise IllegalAction(f"unknown action {action!r}")


def _not_now(s: GameState, what: str) -> str:
    decision = s.decision
    if decision is _STACK:
        return f"you face +{s.pending_total}: stack a Draw card or take it (K2, K4)"
    if decision is _PLAY_DRAWN:
        return f"play the {s.drawn} you drew (T2)"
    if decision is _ROULETTE:
        return "name a color for the Wild Color Roulette first (W4)"
    if decision is _CHOOSE_COLOR:
        return "name the color of the first card first (S3)"
    return f"you cannot {what} now: play a card or draw (T1, T2)"


def _check_play(s: GameState, seat: int, play: Play) -> None:
    """Raise :class:`IllegalAction` unless ``play`` is legal now; changes nothing."""
    card = play.card
    decision = s.decision
    hand = s.hands[seat]
    if decision is _PLAY_DRAWN:
        if card is not s.drawn:
            raise IllegalAction(f"you may only play the {s.drawn} you just drew (T2)")
    elif not _holds(hand, card):
        raise IllegalAction(f"you have no {card.title} ({card}) to play (T1)")
    if decision is _STACK:
        if not card.is_draw:
            raise IllegalAction(
                f"you face +{s.pending_total}: only a Draw card answers it, a {card.face.title} "
                "does not; stack or take (K4)"
            )
        if not _stackable(s, card):
            raise IllegalAction(_why_not_stackable(s, card))
    elif decision is _PLAY or decision is _PLAY_DRAWN:
        if not _playable(s, card, hand):
            if card.face is _WD4 and s.rules.wild_draw4_restricted:
                raise IllegalAction(
                    "a Wild Draw 4 may be played only when nothing else can (wild_draw4_restricted)"
                )
            top = s.discard[-1]
            raise IllegalAction(
                f"a {card.title} does not match the {top.title}"
                + (f" with {s.color.name.lower()} in play" if top.is_wild and s.color is not None else "")
                + " (T1)"
            )
    else:
        raise IllegalAction(_not_now(s, "play a card"))
    if card.is_wild and card.face is not _ROULETTE_FACE:
        if play.color is None:
            raise IllegalAction(f"name a color for the {card.title} (T5): e.g. 'play {card} R'")
    elif play.color is not None:
        if card.face is _ROULETTE_FACE:
            raise IllegalAction("the Wild Color Roulette's color is named by its victim, not its player (W4)")
        raise IllegalAction(f"only a wild card names a color; a {card.title} keeps its own (T5)")
    target = play.target
    if card.face is _SEVEN and s.rules.seven_zero and len(hand) > 1:
        if target is None:
            raise IllegalAction(
                f"a Seven swaps hands: name a player to swap with, e.g. 'play {card} @{_next(s, seat)}' (N1)"
            )
        if not isinstance(target, int) or not 0 <= target < s.players or target == seat:
            raise IllegalAction(f"P{target} is not another player at this table (N1)")
        if not s.active[target]:
            raise IllegalAction(f"P{target} is knocked out and cannot be swapped with (M3)")
    elif target is not None:
        raise IllegalAction("only a Seven is played at another player (N1)")
    if play.uno:
        if not s.rules.uno_calls:
            raise IllegalAction("this table plays without Uno calls (U1, uno_calls is off)")
        if _size_after(s, seat, card, target) != 1:
            raise IllegalAction("call Uno only with a play that leaves you one card (U1)")


def _why_not_stackable(s: GameState, card: Card) -> str:
    last = s.last_draw_value
    if last == 10 and not s.rules.draw10_stackable:
        return "nothing stacks on a Wild Draw 10 at this table: take it (K3, draw10_stackable)"
    if card.draw_value < last:
        top = s.discard[-1]
        name = top.face.title if top.draw_value == last else f"Draw {last}"
        return f"a {card.face.title} cannot be stacked on a {name}: stack equal or higher (K3)"
    return f"a {card.title} must match the color in play or the last card to be stacked (K5, stack_color)"


def _play(s: GameState, seat: int, play: Play, events: list[Event]) -> None:
    """Apply a checked play whose card has left the hand already."""
    card = play.card
    hand = s.hands[seat]
    s.discard.append(card)
    s.drawn = None
    events.append(Played(seat, card, play.color, play.target, play.uno))
    face = card.face
    if card.is_wild:
        if play.color is not None:
            s.color = play.color
    else:
        s.color = card.color
    if face is _DISCARD_ALL:  # A5: the rest of its color goes under it
        assert card.color is not None
        same_color = _OF_COLOR[card.color].__contains__  # filtered in C, order kept
        gone = list(filter(same_color, hand))
        if gone:
            hand[:] = list(filterfalse(same_color, hand))
            s.discard[-1:-1] = gone
            events.append(DiscardedAll(seat, tuple(gone)))
    if not hand:  # E1 (N4: a last 7 or 0 moves no hands)
        _went_out(s, seat, card, events)
        return
    rules = s.rules
    if rules.seven_zero:
        if face is _SEVEN:  # N1
            target = play.target
            assert target is not None
            s.hands[seat], s.hands[target] = s.hands[target], s.hands[seat]
            events.append(HandsSwapped(seat, target))
        elif face is _ZERO:  # N2
            order = [seat]
            nxt = _next(s, seat)
            while nxt != seat:
                order.append(nxt)
                nxt = _next(s, nxt)
            moved = [s.hands[x] for x in order]
            for i, hand_moved in enumerate(moved):
                s.hands[order[(i + 1) % len(order)]] = hand_moved
            events.append(HandsPassed(s.direction))
    if rules.uno_calls and len(s.hands[seat]) == 1:  # U1
        if play.uno:
            events.append(UnoCalled(seat))
        else:
            s.uno_seat = seat
    if card.is_number:
        nxt = (seat + s.direction) % s.players  # _next(s, seat), inline: most plays
        s.current = nxt if s.active[nxt] else _next(s, nxt)
        s.decision = _PLAY
    else:
        _effect(s, seat, card, events)


def _effect(s: GameState, seat: int, card: Card, events: list[Event]) -> None:
    """Apply the effect of ``card`` played by ``seat`` and pass the turn on."""
    face = card.face
    if card.draw_value:
        if face is _WRD4:  # W1, K6
            s.direction = -s.direction
            events.append(Reversed(s.direction))
            if s.active_count == 2 and s.rules.two_player_reverse_draw == "self":
                victim = seat
            else:
                victim = _next(s, seat)
        else:
            victim = _next(s, seat)
        if s.rules.stacking:  # K1
            s.pending_total += card.draw_value
            s.last_draw_value = card.draw_value
            s.last_draw_by = seat
            s.current = victim
            s.decision = _STACK
            events.append(StackGrew(victim, s.pending_total))
        else:  # K2 stacking=false: the victim draws and loses the turn
            _give(s, victim, card.draw_value, "penalty", seat, events)
            if s.outcome is None:
                _advance(s, _next(s, victim))
        return
    if face is _SKIP:  # A1
        victim = _next(s, seat)
        events.append(Skipped((victim,)))
        _advance(s, _next(s, victim))
    elif face is _REVERSE:  # A2
        s.direction = -s.direction
        events.append(Reversed(s.direction))
        again = s.active_count == 2 and s.rules.two_player_reverse == "self"  # P1
        _advance(s, seat if again else _next(s, seat))
    elif face is _SKIP_EVERYONE:  # A6
        events.append(Skipped(tuple(x for x in range(s.players) if x != seat and s.active[x])))
        _advance(s, seat)
    elif face is _ROULETTE_FACE:  # W4: the next player names the color
        s.roulette_by = seat
        s.current = _next(s, seat)
        s.decision = _ROULETTE
    else:
        _advance(s, _next(s, seat))


def _advance(s: GameState, seat: int) -> None:
    s.current = seat
    s.decision = _PLAY


def _went_out(s: GameState, seat: int, card: Card, events: list[Event]) -> None:
    s.current = None
    s.decision = _OVER
    if card.draw_value and s.rules.last_card_draw == "apply":  # E2
        total = s.pending_total + card.draw_value
        if card.face is _WRD4:
            s.direction = -s.direction
        victim = _next(s, seat)
        s.pending_total = 0
        _give(s, victim, total, "penalty", seat, events)
    _finish(s, seat, "played_out", events)


def _finish(s: GameState, winner: int, reason: str, events: list[Event]) -> None:
    """E3: count the round's points and end it."""
    rules = s.rules
    points = s.bonus[:]
    won = 0
    for seat in range(s.players):
        if seat != winner and s.active[seat]:
            won += sum(c.points for c in s.hands[seat])
    if rules.knockout_bonus_to == "winner":
        won += KNOCKOUT_POINTS * len(s.knocked_out)
    points[winner] += won
    s.current = None
    s.decision = _OVER
    s.pending_total = 0
    s.drawn = None
    s.uno_seat = None
    s.outcome = Outcome(winner, reason, tuple(s.knocked_out), tuple(points))
    events.append(RoundOver(winner, reason, dict(enumerate(points))))


def _draw_card(s: GameState, events: list[Event]) -> Card | None:
    """The top card of the draw pile, reshuffling first if it is empty (T4)."""
    pile = s.draw_pile
    if not pile:
        discard = s.discard
        if len(discard) <= 1 and not s.aside:
            return None
        pile.extend(discard[:-1])
        pile.extend(s.aside)
        del discard[:-1]
        s.aside.clear()
        s.shuffles += 1
        shuffle(shuffle_rng(s.seed, s.shuffles), pile)
        events.append(Reshuffled(len(pile)))
    return pile.pop()


def _give(s: GameState, seat: int, count: int, reason: str, by: int | None, events: list[Event]) -> bool:
    """``seat`` draws ``count`` cards one at a time (M1 after each). True if knocked out."""
    hand = s.hands[seat]
    limit = s.rules.mercy_limit
    pile = s.draw_pile  # refilled in place by _draw_card (T4)
    if 0 < count <= len(pile) and (limit is None or len(hand) + count < limit):
        # Fast path, most stacks taken: the pile holds them all and the Mercy limit
        # cannot be reached, so one slice moves the cards in the order of one by one.
        got = pile[-count:]
        got.reverse()
        del pile[-count:]
        hand.extend(got)
        events.append(Drew(seat, count, tuple(got), reason))
        return False
    got = []
    knocked = False
    for _ in range(count):
        card = pile.pop() if pile else _draw_card(s, events)
        if card is None:
            break
        hand.append(card)
        got.append(card)
        if limit is not None and len(hand) >= limit:
            knocked = True
            break
    if got:
        events.append(Drew(seat, len(got), tuple(got), reason))
    if knocked:
        _knock_out(s, seat, by, events)
    return knocked


def _knock_out(s: GameState, seat: int, by: int | None, events: list[Event]) -> None:
    """M1-M4: out of the round; the hand is set aside (or under the discard pile)."""
    hand = s.hands[seat]
    events.append(KnockedOut(seat, by, len(hand)))
    if s.rules.knockout_hand == "aside":
        s.aside.extend(hand)
    else:
        s.discard[0:0] = hand
    s.hands[seat] = []
    s.active[seat] = False
    s.active_count -= 1
    s.knocked_out.append(KnockOut(seat, by))
    if s.uno_seat == seat:
        s.uno_seat = None
    if by is not None and by != seat and s.rules.knockout_bonus_to == "knocker":
        s.bonus[by] += KNOCKOUT_POINTS
    if s.active_count == 1 and s.decision is not _OVER:  # M4
        winner = s.active.index(True)
        _finish(s, winner, "last_standing", events)


def _draw(s: GameState, seat: int, events: list[Event]) -> None:
    """T2/T4: draw until playable (or one card)."""
    hand = s.hands[seat]
    rules = s.rules
    limit = rules.mercy_limit
    until_playable = rules.draw_rule == "until_playable"
    pile = s.draw_pile  # refilled in place by _draw_card (T4), which keeps the top card
    color = s.color
    face = s.discard[-1].face
    got: list[Card] = []
    found: Card | None = None
    knocked = False
    while True:
        card = pile.pop() if pile else _draw_card(s, events)
        if card is None:
            break
        hand.append(card)
        got.append(card)
        if limit is not None and len(hand) >= limit:
            knocked = True
            break
        # _playable(s, card, hand), inline for colored cards: drawing until playable
        # asks it for every card drawn.
        if card.is_wild:
            playable = _playable(s, card, hand)
        else:
            playable = card.color is color or card.face is face
        if playable:
            found = card
            break
        if not until_playable:
            break
    if got:
        events.append(Drew(seat, len(got), tuple(got), "draw"))
    if knocked:
        _knock_out(s, seat, None, events)
        if s.outcome is None:
            _advance(s, _next(s, seat))
        return
    if found is None:
        events.append(Passed(seat))
        _advance(s, _next(s, seat))
        return
    s.drawn = found
    s.decision = _PLAY_DRAWN
    if rules.play_drawn_at_once and rules.must_play_drawn:
        plays = _variants(s, seat, found)
        if len(plays) == 1:  # a forced play: no color, target or Uno call to choose
            del hand[-1]  # the card found is the last one drawn
            _play(s, seat, plays[0], events)  # type: ignore[arg-type]


def _take(s: GameState, seat: int, events: list[Event]) -> None:
    """K2: take the whole total card by card (K8), lose the turn; K7: play goes on."""
    total = s.pending_total
    by = s.last_draw_by
    s.pending_total = 0
    s.last_draw_value = 0
    s.last_draw_by = None
    _give(s, seat, total, "stack", by, events)
    if s.outcome is None:
        _advance(s, _next(s, seat))


def _roulette(s: GameState, seat: int, color: Color, events: list[Event]) -> None:
    """W4: turn up cards until one of the named color; keep them all; lose the turn."""
    events.append(ColorNamed(seat, color))
    hand = s.hands[seat]
    limit = s.rules.mercy_limit
    pile = s.draw_pile  # refilled in place by _draw_card (T4)
    got: list[Card] = []
    knocked = False
    while True:
        card = pile.pop() if pile else _draw_card(s, events)
        if card is None:
            break
        hand.append(card)
        got.append(card)
        if limit is not None and len(hand) >= limit:
            knocked = True
            break
        if card.color is color:
            break
    if got:
        events.append(Drew(seat, len(got), tuple(got), "roulette"))
    s.color = color
    if s.rules.roulette_color == "revealed":
        colored = [c for c in got if c.color is not None]
        if colored:
            s.color = colored[-1].color
    by = s.roulette_by
    s.roulette_by = None
    if knocked:
        _knock_out(s, seat, by, events)
    if s.outcome is None:
        _advance(s, _next(s, seat))


def _catch(s: GameState, action: Catch, seat: int) -> list[Event]:
    """U2/U3: catch a seat that did not call Uno before the next turn began."""
    target = action.seat
    if not s.rules.uno_calls:
        raise IllegalAction("this table plays without Uno calls (U1, uno_calls is off)")
    if not 0 <= seat < s.players or not s.active[seat]:
        raise IllegalAction(f"P{seat} is not an active player and cannot catch (U2)")
    if target == seat:
        raise IllegalAction("you cannot catch yourself: call 'uno' instead (U1)")
    if s.uno_seat != target:
        raise IllegalAction(
            f"P{target} cannot be caught: only a player who was left one card without calling "
            "Uno can be, and only until the next player begins their turn (U3)"
        )
    events: list[Event] = [Caught(target, seat)]
    s.uno_seat = None
    s.step += 1
    knocked = _give(s, target, s.rules.uno_penalty, "uno_penalty", seat, events)
    if knocked and s.outcome is None and s.current == target:
        s.pending_total = 0
        s.last_draw_value = 0
        s.drawn = None
        _advance(s, _next(s, target))
    return events


def _call_uno(s: GameState, seat: int) -> list[Event]:
    if s.uno_seat != seat:
        if not s.rules.uno_calls:
            raise IllegalAction("this table plays without Uno calls (U1, uno_calls is off)")
        raise IllegalAction("nothing to call: Uno is called when a play leaves you one card (U1)")
    s.uno_seat = None
    s.step += 1
    return [UnoCalled(seat)]


# Interpreted, the two methods every simulation calls millions of times are bound straight
# to these functions: same signature and docs as GameState's, one Python call frame less a
# step. Compiled (a native class, whose methods are fixed), GameState's own methods call
# them, at the cost of a C call.
if not COMPILED:
    legal_actions.__doc__ = GameState.legal_actions.__doc__
    apply.__doc__ = GameState.apply.__doc__
    setattr(GameState, "legal_actions", legal_actions)  # noqa: B010
    setattr(GameState, "apply", apply)  # noqa: B010
