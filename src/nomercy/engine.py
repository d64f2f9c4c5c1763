"""The rules: dealing a round, listing legal actions, applying an action.

:class:`GameState` is the round's data (:class:`nomercy.state.StateData`) with the
rules that read and change it. This module is the hot loop of every simulation, search
and training run, so it trades a little elegance for speed: plain lists, interned cards
and actions, local variables, and work proportional to the cards an action moves. Rule
IDs in comments point into ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import filterfalse
from operator import attrgetter
from typing import Final

from nomercy.actions import (
    CALL_UNO,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    PASS,
    TAKE,
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Pass,
    Play,
    Take,
)
from nomercy.cards import Card, Color, Face
from nomercy.dealing import deal, shuffle, shuffle_rng
from nomercy.errors import GameOver, IllegalAction, NotYourTurn
from nomercy.events import (
    Caught,
    Challenged,
    ColorNamed,
    DiscardedAll,
    DrawReason,
    Drew,
    Event,
    HandsPassed,
    HandsShuffled,
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
from nomercy.state import Decision, KnockOut, Outcome, OutcomeReason, StateData, wd4_guilt
from nomercy.tables import (
    CATCH,
    MATCH_BY_TOP,
    OF_COLOR,
    PLAIN_AND_UNO,
    PLAIN_PLAYS,
    SPECIAL,
    SPECIAL_CARDS,
    SPECIAL_CHECK,
    SPECIAL_SEVEN_ZERO,
    UNO_PLAYS,
    WD4_CARDS,
    match_set,
    seven_play,
)

__all__ = [
    "KNOCKOUT_POINTS",
    "GameState",
    "apply",
    "draw_victim",
    "legal_actions",
    "new_game",
    "next_seat",
    "playable",
    "previous_seat",
    "seat_after",
    "shuffle",
    "shuffle_rng",
    "started_event",
]

_PLAY: Final = Decision.PLAY
_PLAY_DRAWN: Final = Decision.PLAY_DRAWN
_STACK: Final = Decision.STACK
_CHOOSE_COLOR: Final = Decision.CHOOSE_COLOR
_ROULETTE: Final = Decision.ROULETTE
_OVER: Final = Decision.OVER
_CHALLENGE: Final = Decision.CHALLENGE

_SEVEN: Final = Face.SEVEN
_ZERO: Final = Face.ZERO
_SKIP: Final = Face.SKIP
_REVERSE: Final = Face.REVERSE
_SKIP_EVERYONE: Final = Face.SKIP_EVERYONE
_DISCARD_ALL: Final = Face.DISCARD_ALL
_WRD4: Final = Face.WILD_REVERSE_DRAW_4
_ROULETTE_FACE: Final = Face.WILD_COLOR_ROULETTE
_WD4: Final = Face.WILD_DRAW_4
_SHUFFLE_HANDS: Final = Face.WILD_SHUFFLE_HANDS
#: E3: the points a knock-out is worth to the round's winner (or its knocker).
KNOCKOUT_POINTS: Final = 250


class GameState(StateData):
    """One round of No Mercy. Create with :func:`nomercy.new_game` or :meth:`from_json`.

    Everything a caller asks goes through two methods: :meth:`legal_actions` lists the
    legal actions exactly, and :meth:`apply` checks one and applies it.
    """

    __slots__ = ()

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the deciding seat), nothing else.

        For a seat that is not deciding, this lists its out-of-turn actions: ``catch``
        while another seat is open to a catch (U2), ``uno`` for a seat that is.
        """
        s = self
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
            color = s.color
            allowed = MATCH_BY_TOP[top.index][color] if color is not None else match_set(None, top.face)
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
        elif decision is _CHALLENGE:  # W6
            out = [CHALLENGE, TAKE]
        else:  # CHOOSE_COLOR, ROULETTE
            out = list(CHOOSE_COLOR)
        if s.uno_open:
            out.extend(_out_of_turn(s, cur))
        return out

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Apply ``action`` for ``seat`` (default: the deciding seat); return the events.

        Raises :class:`~nomercy.IllegalAction` (and leaves the state unchanged) when the
        rules refuse it.
        """
        s = self
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
            # Fast path, most steps of every game: a held plain colored card matching the
            # top, no color, target or call to check. Everything else takes the full check.
            try:  # where the card is held: found once, for the check and the removal
                at = hand.index(card)
            except ValueError:
                at = -1
            if not (
                at >= 0
                and s.decision is _PLAY
                and not SPECIAL_CHECK[card.index]
                and not play.uno
                and (card.color is s.color or card.face is s.discard[-1].face)
                and play.color is None
                and play.target is None
            ):
                _check_play(s, seat, play)  # raises unless the card is held
            s.uno_open = ()  # U3: the next player's turn has begun
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
                        if playable(s, card, hand):
                            raise IllegalAction(
                                f"you hold a playable card ({card}): you may draw only when none of "
                                "your cards can be played (T3)"
                            )
            s.uno_open = ()
            s.step += 1
            _draw(s, seat, events)
            return events
        if isinstance(action, Take):
            if decision is not _STACK and decision is not _CHALLENGE:
                raise IllegalAction("there is no pending draw total to take (K2)")
            s.uno_open = ()
            s.step += 1
            _take(s, seat, events)
            return events
        if isinstance(action, Challenge):
            if decision is not _CHALLENGE:
                raise IllegalAction("there is no Wild Draw 4 to challenge: only its victim may, at once (W6)")
            s.uno_open = ()
            s.step += 1
            _challenge(s, seat, events)
            return events
        if isinstance(action, Pass):
            if decision is not _PLAY_DRAWN or s.rules.must_play_drawn:
                if decision is _PLAY_DRAWN:
                    raise IllegalAction(f"you must play the {s.drawn} you drew (T2, must_play_drawn)")
                raise IllegalAction(_not_now(s, "pass"))
            s.uno_open = ()
            s.step += 1
            events.append(Passed(seat))
            s.drawn = None
            _advance(s, next_seat(s, seat))
            return events
        if isinstance(action, ChooseColor):
            if decision is not _CHOOSE_COLOR and decision is not _ROULETTE:
                raise IllegalAction(_not_now(s, "name a color"))
            # W7: a Wild Shuffle Hands' player names the color after the deal, still on
            # their turn, so a catch window the deal opened stays open (U3).
            shuffled = decision is _CHOOSE_COLOR and _named_after_shuffle(s)
            if not shuffled:
                s.uno_open = ()
            s.step += 1
            color = action.color
            if decision is _ROULETTE:
                _roulette(s, seat, color, events)
            else:
                s.color = color
                events.append(ColorNamed(seat, color, shuffled))
                s.decision = _PLAY
                if shuffled:
                    _advance(s, next_seat(s, seat))
                else:  # S3: the first card's color, then its effect
                    _effect(s, s.dealer, s.discard[-1], events)
            return events
        raise IllegalAction(f"unknown action {action!r}")

    def clone(self) -> GameState:
        """An independent copy; cost is proportional to the number of cards."""
        return GameState(
            rules=self.rules,
            players=self.players,
            dealer=self.dealer,
            hands=[h[:] for h in self.hands],
            draw_pile=self.draw_pile[:],
            discard=self.discard[:],
            buried=self.buried,
            aside=self.aside[:],
            color=self.color,
            direction=self.direction,
            current=self.current,
            decision=self.decision,
            pending_total=self.pending_total,
            last_draw_value=self.last_draw_value,
            last_draw_by=self.last_draw_by,
            drawn=self.drawn,
            roulette_by=self.roulette_by,
            active=self.active[:],
            active_count=self.active_count,
            knocked_out=self.knocked_out[:],
            sitting_out=self.sitting_out,
            uno_open=self.uno_open,
            bonus=self.bonus[:],
            seed=self.seed,
            shuffles=self.shuffles,
            step=self.step,
            outcome=self.outcome,
            wd4_color=self.wd4_color,
            wd4_cards=self.wd4_cards,
            wd4_guilty=self.wd4_guilty,
        )


#: The two questions as plain functions, ``legal_actions(state, seat)`` and
#: ``apply(state, action, seat)``: the same objects as the methods.
legal_actions: Final = GameState.legal_actions
apply: Final = GameState.apply


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
    dealt = deal(players, rules, seed, dealer, sitting_out)
    pile = dealt.draw_pile
    out = dealt.sitting_out
    s = GameState(
        rules=rules,
        players=players,
        dealer=dealt.dealer,
        hands=dealt.hands,
        draw_pile=pile,
        discard=[pile.pop()],
        buried=0,
        aside=[],
        color=None,
        direction=1,
        current=None,
        decision=_PLAY,
        pending_total=0,
        last_draw_value=0,
        last_draw_by=None,
        drawn=None,
        roulette_by=None,
        active=[seat not in out for seat in range(players)],
        active_count=players - len(out),
        knocked_out=[],
        sitting_out=out,
        uno_open=(),
        bonus=[0] * players,
        seed=dealt.seed,
        shuffles=0,
        step=0,
        outcome=None,
        wd4_color=None,
        wd4_cards=0,
        wd4_guilty=False,
    )
    s.current = next_seat(s, s.dealer)  # S4
    first_card = rules.first_card
    if first_card == "number":  # S3: turn cards up until a number card
        while not s.discard[-1].is_number and pile:
            s.discard.append(pile.pop())
    elif first_card == "official":  # S3: a Wild Draw 4 goes back into the deck
        while s.discard[-1].face is _WD4 and pile:
            pile.append(s.discard.pop())
            s.shuffles += 1
            shuffle(shuffle_rng(s.seed, s.shuffles), pile)
            s.discard.append(pile.pop())
    top = s.discard[-1]
    s.color = top.color
    if first_card != "number" and not top.is_number:
        if top.is_wild and top.face is not _ROULETTE_FACE:
            s.decision = _CHOOSE_COLOR  # the first player names it, then the effect applies
        elif first_card == "official" and top.face is _REVERSE:  # S3: the dealer starts,
            s.direction = -1  # and play goes the other way
            s.current = s.dealer
        else:
            _effect(s, s.dealer, top, [])
    return s


def started_event(s: StateData) -> Started:
    """The :class:`Started` event that describes a freshly dealt round: the first player
    is the one to act (S4, or S3 where the first card moved the turn)."""
    first = s.current if s.current is not None else next_seat(s, s.dealer)
    return Started(s.dealer, first, tuple(s.discard))


# -- helpers ------------------------------------------------------------------------------


def seat_after(active: Sequence[bool], direction: int, seat: int) -> int:
    """M3: the next active seat after ``seat`` going ``direction`` (1 or -1); knocked-out
    seats and seats sitting out are passed over."""
    n = len(active)
    seat = (seat + direction) % n
    while not active[seat]:
        seat = (seat + direction) % n
    return seat


def draw_victim(active: Sequence[bool], direction: int, seat: int, card: Card, rules: Rules) -> int:
    """K6, W1: the seat that must answer the Draw card ``card`` when ``seat`` plays it.

    The next seat in the direction of play, except a Wild Reverse Draw 4: it turns play
    round first, so its victim is the seat that played before; with two active players
    under ``two_player_reverse_draw="self"`` it comes back to its own player. Bots and
    views ask this instead of repeating the rule.
    """
    if card.face is _WRD4:
        if rules.two_player_reverse_draw == "self" and sum(active) == 2:
            return seat
        return seat_after(active, -direction, seat)
    return seat_after(active, direction, seat)


def next_seat(s: StateData, seat: int) -> int:
    """The next active seat after ``seat`` in the direction of play (M3)."""
    return seat_after(s.active, s.direction, seat)


def previous_seat(s: StateData, seat: int) -> int:
    """The active seat that plays just before ``seat`` (M3)."""
    return seat_after(s.active, -s.direction, seat)


def playable(s: StateData, card: Card, hand: list[Card]) -> bool:
    """T1: may ``card`` from ``hand`` be played now, outside a stack?"""
    if card.is_wild:
        if card.face is _WD4 and s.rules.wild_draw4_restricted:
            # Only when no other card of the hand matches; set operations in C.
            return _matching(s).intersection(hand) <= WD4_CARDS
        return True
    return card.color is s.color or card.face is s.discard[-1].face


def _named_after_shuffle(s: StateData) -> bool:
    """W7: whether the color to be named is a Wild Shuffle Hands' played in the round (its
    player names it after the deal), not a first card's (S3, no color in play yet)."""
    return s.discard[-1].face is _SHUFFLE_HANDS and s.color is not None


def _stackable(s: StateData, card: Card) -> bool:
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


def _size_after(s: StateData, seat: int, card: Card, target: int | None) -> int:
    """How many cards ``seat`` holds after playing ``card`` (N1/N2 move hands)."""
    hand = s.hands[seat]
    left = len(hand) - 1
    if left == 0:
        return 0
    face = card.face
    if face is _DISCARD_ALL:
        assert card.color is not None
        return left - sum(map(OF_COLOR[card.color].__contains__, hand)) + 1  # counted in C
    if face is _SHUFFLE_HANDS:  # W7: dealt last of the active seats, so the fewest
        held = sum(len(h) for x, h in enumerate(s.hands) if s.active[x]) - 1
        return held // s.active_count
    if s.rules.seven_zero:
        if face is _SEVEN and target is not None:
            return len(s.hands[target])
        if face is _ZERO:
            return len(s.hands[previous_seat(s, seat)])
    return left


def _out_of_turn(s: StateData, seat: int) -> list[Action]:
    """U1-U3: a seat's actions outside its turn: call its own Uno, catch another's."""
    if not 0 <= seat < s.players or not s.active[seat]:  # U2: active seats only
        return []
    return [CALL_UNO if x == seat else CATCH[x] for x in s.uno_open]


# -- legal actions ---------------------------------------------------------------------


def _card_plays(
    s: StateData, seat: int, hand: list[Card], cards: frozenset[Card], stacking: bool
) -> list[Action]:
    """The plays of ``cards`` (the hand's matching cards), in card index order."""
    rules = s.rules
    # Two cards left: any plain play leaves one, so it comes with and without Uno (U1).
    pairs = rules.uno_calls and len(hand) == 2
    if cards.isdisjoint(SPECIAL_SEVEN_ZERO if rules.seven_zero else SPECIAL_CARDS):
        # Fast path: every card's plays are fixed tuples. One or two cards (most turns)
        # are ordered by hand, since sorted() with a key costs more than the rest.
        table = PLAIN_AND_UNO if pairs else PLAIN_PLAYS
        if len(cards) == 1:
            for card in cards:
                return list(table[card.index])
        if len(cards) == 2:
            a, b = cards
            if a.index > b.index:
                a, b = b, a
            return [*table[a.index], *table[b.index]]
        out: list[Action] = []
        for card in sorted(cards, key=_BY_INDEX):
            out.extend(table[card.index])
        return out
    out = []
    for card in sorted(cards, key=_BY_INDEX):  # a set: sort for a deterministic order
        index = card.index
        if SPECIAL[index]:
            restricted = card.face is _WD4 and rules.wild_draw4_restricted and not stacking
            if restricted and not playable(s, card, hand):
                continue
            out.extend(_variants(s, seat, card))
        else:
            out.extend(PLAIN_PLAYS[index])
            if pairs:
                out.extend(UNO_PLAYS[index])
    return out


_BY_INDEX: Final = attrgetter("index")


def _matching(s: StateData) -> frozenset[Card]:
    """T1: the cards that may be played now, outside a stack (inlined in legal_actions)."""
    color = s.color
    top = s.discard[-1]
    return MATCH_BY_TOP[top.index][color] if color is not None else match_set(None, top.face)


def _stack_set(s: StateData) -> frozenset[Card]:
    """K2-K5: the cards that may be stacked now (cached by what decides it)."""
    rules = s.rules
    key = (s.last_draw_value, rules.draw10_stackable, rules.stack_color, s.color, s.discard[-1].face)
    cards = _STACK_SETS.get(key)
    if cards is None:
        cards = _STACK_SETS[key] = frozenset(c for c in Card.ALL if c.is_draw and _stackable(s, c))
    return cards


_STACK_SETS: Final[dict[tuple[object, ...], frozenset[Card]]] = {}


def _variants(s: StateData, seat: int, card: Card) -> list[Action]:
    """Every play of ``card`` by ``seat``: colors, Seven targets, with and without Uno."""
    rules = s.rules
    hand_size = len(s.hands[seat])
    if card.face is _SEVEN and rules.seven_zero and hand_size > 1:
        out: list[Action] = []
        n = s.players
        for t in range(n):
            if t != seat and s.active[t]:
                out.append(seven_play(card, t, False))
                if rules.uno_calls and len(s.hands[t]) == 1:
                    out.append(seven_play(card, t, True))
        return out
    plain = PLAIN_PLAYS[card.index]
    if rules.uno_calls:
        face = card.face
        if face is _DISCARD_ALL or face is _SHUFFLE_HANDS or (face is _ZERO and rules.seven_zero):
            needs_call = _size_after(s, seat, card, None) == 1
        else:
            needs_call = hand_size == 2
        if needs_call:
            return [*plain, *UNO_PLAYS[card.index]]
    return list(plain)


# -- applying ---------------------------------------------------------------------------


def _not_now(s: GameState, what: str) -> str:
    decision = s.decision
    if decision is _STACK:
        return f"you face +{s.pending_total}: stack a Draw card or take it (K2, K4)"
    if decision is _PLAY_DRAWN:
        return f"play the {s.drawn} you drew (T2)"
    if decision is _ROULETTE:
        return "name a color for the Wild Color Roulette first (W4)"
    if decision is _CHALLENGE:
        return "you face a Wild Draw 4: challenge it or take the 4 (W6)"
    if decision is _CHOOSE_COLOR:
        if _named_after_shuffle(s):
            return "name the color for your Wild Shuffle Hands first (W7)"
        return "name the color of the first card first (S3)"
    return f"you cannot {what} now: play a card or draw (T1, T2)"


def _check_play(s: GameState, seat: int, play: Play) -> None:
    """Raise :class:`IllegalAction` unless ``play`` is legal now; changes nothing."""
    card = play.card
    decision = s.decision
    hand = s.hands[seat]
    if decision is _PLAY_DRAWN and card is not s.drawn:
        raise IllegalAction(f"you may only play the {s.drawn} you just drew (T2)")
    if card not in hand:
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
        if not playable(s, card, hand):
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
    if card.is_wild and card.face is not _ROULETTE_FACE and card.face is not _SHUFFLE_HANDS:
        if play.color is None:
            raise IllegalAction(f"name a color for the {card.title} (T5): e.g. 'play {card} R'")
    elif play.color is not None:
        if card.face is _SHUFFLE_HANDS:
            raise IllegalAction(
                f"the Wild Shuffle Hands' color is named after the deal: 'play {card}', then 'color R' (W7)"
            )
        if card.face is _ROULETTE_FACE:
            raise IllegalAction("the Wild Color Roulette's color is named by its victim, not its player (W4)")
        raise IllegalAction(f"only a wild card names a color; a {card.title} keeps its own (T5)")
    target = play.target
    if card.face is _SEVEN and s.rules.seven_zero and len(hand) > 1:
        if target is None:
            example = f"play {card} @{next_seat(s, seat)}"
            raise IllegalAction(f"a Seven swaps hands: name a player to swap with, e.g. '{example}' (N1)")
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
    rules = s.rules
    if face is _WD4 and rules.wild_draw4_challenge:  # W6: judged on the hand as it is now
        color = s.color
        assert color is not None
        s.wd4_color = color
        s.wd4_cards = len(hand)
        s.wd4_guilty = wd4_guilt(hand, color, len(hand))
    if card.is_wild:
        if play.color is not None:
            s.color = play.color
    else:
        s.color = card.color
    if face is _DISCARD_ALL:  # A5: the rest of its color goes under it
        assert card.color is not None
        same_color = OF_COLOR[card.color].__contains__  # filtered in C, order kept
        gone = list(filter(same_color, hand))
        if gone:
            hand[:] = list(filterfalse(same_color, hand))
            s.discard[-1:-1] = gone
            events.append(DiscardedAll(seat, tuple(gone)))
    if not hand:  # E1 (N4: a last 7 or 0 moves no hands)
        _went_out(s, seat, card, events)
        return
    handed: list[int] = []  # seats handed another hand (N1, N2, W7)
    if face is _SHUFFLE_HANDS:
        handed = _shuffle_hands(s, seat, events)
    elif rules.seven_zero:
        if face is _SEVEN:  # N1
            target = play.target
            assert target is not None
            s.hands[seat], s.hands[target] = s.hands[target], s.hands[seat]
            events.append(HandsSwapped(seat, target))
            handed.append(target)
        elif face is _ZERO:  # N2
            order = [seat]
            nxt = next_seat(s, seat)
            while nxt != seat:
                order.append(nxt)
                nxt = next_seat(s, nxt)
            moved = [s.hands[x] for x in order]
            for i, hand_moved in enumerate(moved):
                s.hands[order[(i + 1) % len(order)]] = hand_moved
            events.append(HandsPassed(s.direction))
            handed = order[1:]
    if rules.uno_calls:  # U1: a call made with the play is in its Played event
        if len(s.hands[seat]) == 1 and not play.uno:
            s.uno_open = (seat,)
        if handed and rules.uno_timing == "holding_one":  # a hand of one received
            received = tuple(x for x in handed if len(s.hands[x]) == 1)
            if received:
                s.uno_open += received
    if card.is_number:
        nxt = (seat + s.direction) % s.players  # next_seat(s, seat), inline: most plays
        s.current = nxt if s.active[nxt] else next_seat(s, nxt)
        s.decision = _PLAY
    elif face is _SHUFFLE_HANDS:  # W7: its player names the color now, after the deal
        s.current = seat
        s.decision = _CHOOSE_COLOR
    else:
        _effect(s, seat, card, events)


def _shuffle_hands(s: GameState, seat: int, events: list[Event]) -> list[int]:
    """W7: gather every active hand, shuffle them with the round's next shuffle (like a
    reshuffle, T4, so a replay deals the same), deal them out one card at a time from the
    next seat round to ``seat``. Returns the seats dealt to besides ``seat``."""
    order = []  # the deal's order: the next seat in the direction of play first
    nxt = next_seat(s, seat)
    while nxt != seat:
        order.append(nxt)
        nxt = next_seat(s, nxt)
    order.append(seat)
    gathered: list[Card] = []
    for x in range(s.players):
        if s.active[x]:
            gathered.extend(s.hands[x])
    s.shuffles += 1
    shuffle(shuffle_rng(s.seed, s.shuffles), gathered)
    gathered.reverse()  # dealt from the top, the pile's last card
    k = len(order)
    for i, x in enumerate(order):
        s.hands[x] = gathered[i::k]
    events.append(
        HandsShuffled(
            seat,
            tuple(len(h) for h in s.hands),
            tuple(tuple(h) if s.active[x] else None for x, h in enumerate(s.hands)),
        )
    )
    return order[:-1]


def _effect(s: GameState, seat: int, card: Card, events: list[Event]) -> None:
    """Apply the effect of ``card`` played by ``seat`` and pass the turn on."""
    face = card.face
    if card.draw_value:
        if face is _WRD4:  # W1, K6
            victim = draw_victim(s.active, s.direction, seat, card, s.rules)
            s.direction = -s.direction
            events.append(Reversed(s.direction))
        else:
            victim = next_seat(s, seat)
        if s.rules.stacking:  # K1
            s.pending_total += card.draw_value
            s.last_draw_value = card.draw_value
            s.last_draw_by = seat
            s.current = victim
            s.decision = _STACK
            events.append(StackGrew(victim, s.pending_total))
        elif s.wd4_color is not None:  # W6: the victim may challenge it first
            s.pending_total = card.draw_value
            s.last_draw_value = card.draw_value
            s.last_draw_by = seat
            s.current = victim
            s.decision = _CHALLENGE
        else:  # K2 stacking=false: the victim draws and loses the turn
            _give(s, victim, card.draw_value, "penalty", seat, events)
            if s.outcome is None:
                _advance(s, next_seat(s, victim))
        return
    if face is _SKIP:  # A1
        victim = next_seat(s, seat)
        events.append(Skipped((victim,)))
        _advance(s, next_seat(s, victim))
    elif face is _REVERSE:  # A2
        s.direction = -s.direction
        events.append(Reversed(s.direction))
        again = s.active_count == 2 and s.rules.two_player_reverse == "self"  # P1
        _advance(s, seat if again else next_seat(s, seat))
    elif face is _SKIP_EVERYONE:  # A6
        events.append(Skipped(tuple(x for x in range(s.players) if x != seat and s.active[x])))
        _advance(s, seat)
    elif face is _ROULETTE_FACE:  # W4: the next player names the color
        s.roulette_by = seat
        s.current = next_seat(s, seat)
        s.decision = _ROULETTE
    else:
        _advance(s, next_seat(s, seat))


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
            events.append(Reversed(s.direction))
        victim = next_seat(s, seat)
        s.pending_total = 0
        _give(s, victim, total, "penalty", seat, events)
    _finish(s, seat, "played_out", events)


def _finish(s: GameState, winner: int, reason: OutcomeReason, events: list[Event]) -> None:
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
    s.uno_open = ()
    s.wd4_color = None  # W6: a Wild Draw 4 that ended the round is past challenging
    s.wd4_cards = 0
    s.wd4_guilty = False
    s.outcome = Outcome(winner, reason, tuple(s.knocked_out), tuple(points))
    events.append(RoundOver(winner, reason, dict(enumerate(points))))


# How a draw ends (_draw_cards): after ``count`` cards, or once a card is playable (T2),
# or once a card of the named color turns up (W4).
_COUNT: Final = 0
_UNTIL_PLAYABLE: Final = 1
_UNTIL_COLOR: Final = 2


def _draw_cards(
    s: GameState,
    seat: int,
    count: int,
    until: int,
    color: Color | None,
    reason: DrawReason,
    events: list[Event],
) -> tuple[Card | None, bool]:
    """``seat`` draws one card at a time: every draw of the game goes through here.

    It stops after ``count`` cards (``count < 0``: no limit), or with ``until`` at the
    first playable card (T2) or the first card of ``color`` (W4); at the Mercy limit
    (M1); or when no card is left to draw. An empty draw pile is refilled by a reshuffle
    (T4). Returns the card the search stopped at (or None) and whether the seat reached
    the Mercy limit; the caller knocks it out, since only it knows who caused it.
    """
    hand = s.hands[seat]
    limit = s.rules.mercy_limit
    pile = s.draw_pile
    if s.uno_open and seat in s.uno_open:  # U1-U3: it holds more than one card now
        s.uno_open = tuple(x for x in s.uno_open if x != seat)
    if until == _COUNT and 0 < count <= len(pile) and (limit is None or len(hand) + count < limit):
        # Fast path, most stacks taken: the pile holds them all and the Mercy limit
        # cannot be reached, so one slice moves the cards in the order of one by one.
        got = pile[-count:]
        got.reverse()
        del pile[-count:]
        hand.extend(got)
        events.append(Drew(seat, count, tuple(got), reason))
        return None, False
    top_color = s.color
    top_face = s.discard[-1].face
    got = []
    found: Card | None = None
    knocked = False
    drew_before = 0  # cards drawn before a reshuffle, already reported
    while count:
        if not pile:
            if len(got) > drew_before:  # T4: report them before the reshuffle
                events.append(Drew(seat, len(got) - drew_before, tuple(got[drew_before:]), reason))
                drew_before = len(got)
            if not _reshuffle(s, events):
                break
        card = pile.pop()
        hand.append(card)
        got.append(card)
        count -= 1
        if limit is not None and len(hand) >= limit:
            knocked = True
            break
        if until == _UNTIL_PLAYABLE:
            # playable(s, card, hand), inline for colored cards: asked for every card drawn
            if playable(s, card, hand) if card.is_wild else card.color is top_color or card.face is top_face:
                found = card
                break
        elif until == _UNTIL_COLOR and card.color is color:
            found = card
            break
    if len(got) > drew_before:
        events.append(Drew(seat, len(got) - drew_before, tuple(got[drew_before:]), reason))
    return found, knocked


def _reshuffle(s: GameState, events: list[Event]) -> bool:
    """T4: shuffle the discard pile under its top card (and set-aside hands) into a new
    draw pile. False when there is nothing to shuffle."""
    discard = s.discard
    if len(discard) <= 1 and not s.aside:
        return False
    pile = s.draw_pile
    pile.extend(discard[:-1])
    pile.extend(s.aside)
    del discard[:-1]
    s.buried = 0
    s.aside.clear()
    s.shuffles += 1
    shuffle(shuffle_rng(s.seed, s.shuffles), pile)
    events.append(Reshuffled(len(pile)))
    return True


def _give(
    s: GameState, seat: int, count: int, reason: DrawReason, by: int | None, events: list[Event]
) -> bool:
    """``seat`` draws ``count`` cards, knocked out by ``by`` at the Mercy limit. True if so."""
    _, knocked = _draw_cards(s, seat, count, _COUNT, None, reason, events)
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
        s.discard[0:0] = hand  # face down: no view shows them
        s.buried += len(hand)
    s.hands[seat] = []
    s.active[seat] = False
    s.active_count -= 1
    s.knocked_out.append(KnockOut(seat, by))
    if seat in s.uno_open:
        s.uno_open = tuple(x for x in s.uno_open if x != seat)
    if by is not None and by != seat and s.rules.knockout_bonus_to == "knocker":
        s.bonus[by] += KNOCKOUT_POINTS
    if s.active_count == 1 and s.decision is not _OVER:  # M4
        winner = s.active.index(True)
        _finish(s, winner, "last_standing", events)


def _draw(s: GameState, seat: int, events: list[Event]) -> None:
    """T2/T4: draw until playable (or one card)."""
    rules = s.rules
    count = -1 if rules.draw_rule == "until_playable" else 1
    found, knocked = _draw_cards(s, seat, count, _UNTIL_PLAYABLE, None, "draw", events)
    if knocked:
        _knock_out(s, seat, None, events)
        if s.outcome is None:
            _advance(s, next_seat(s, seat))
        return
    if found is None:
        events.append(Passed(seat))
        _advance(s, next_seat(s, seat))
        return
    s.drawn = found
    s.decision = _PLAY_DRAWN
    if rules.play_drawn_at_once and rules.must_play_drawn:
        plays = _variants(s, seat, found)
        if len(plays) == 1:  # a forced play: no color, target or Uno call to choose
            del s.hands[seat][-1]  # the card found is the last one drawn
            _play(s, seat, plays[0], events)  # type: ignore[arg-type]


def _take(s: GameState, seat: int, events: list[Event]) -> None:
    """K2: take the whole total card by card (K8), lose the turn; K7: play goes on."""
    total = s.pending_total
    by = s.last_draw_by
    reason: DrawReason = "stack" if s.decision is _STACK else "penalty"  # W6: accepted
    before = len(events)
    s.pending_total = 0
    s.last_draw_value = 0
    s.last_draw_by = None
    s.wd4_color = None
    s.wd4_cards = 0
    s.wd4_guilty = False
    _give(s, seat, total, reason, by, events)
    if len(events) == before:
        events.append(Passed(seat))  # T4: nothing was left to draw; the turn is lost all the same
    if s.outcome is None:
        _advance(s, next_seat(s, seat))


def _challenge(s: GameState, seat: int, events: list[Event]) -> None:
    """W6: judge the Wild Draw 4 on its player's hand as it was played (the verdict was
    fixed then): holding a card of the color in play makes it unlawful (a wild matches by
    being wild, so it does not count). Unlawful: its player draws the 4 and the challenger
    plays on; a player already out of the round draws nothing, and the 4 are void. Lawful:
    the challenger draws 6 and loses the turn."""
    by = s.last_draw_by
    assert by is not None and s.wd4_color is not None
    guilty = s.wd4_guilty
    total = s.pending_total
    s.pending_total = 0
    s.last_draw_value = 0
    s.last_draw_by = None
    s.wd4_color = None
    s.wd4_cards = 0
    s.wd4_guilty = False
    events.append(Challenged(seat, by, guilty))
    if guilty:
        if s.active[by]:  # knocked out since (a catch, M1): no hand to draw into
            _give(s, by, total, "challenge", seat, events)
        if s.outcome is None:
            _advance(s, seat)
    else:
        _give(s, seat, total + 2, "challenge", by, events)
        if s.outcome is None:
            _advance(s, next_seat(s, seat))


def _roulette(s: GameState, seat: int, color: Color, events: list[Event]) -> None:
    """W4: turn up cards until one of the named color; keep them all; lose the turn."""
    events.append(ColorNamed(seat, color))
    start = len(s.hands[seat])
    _, knocked = _draw_cards(s, seat, -1, _UNTIL_COLOR, color, "roulette", events)
    s.color = color
    if s.rules.roulette_color == "revealed":
        colored = [c for c in s.hands[seat][start:] if c.color is not None]
        if colored:
            s.color = colored[-1].color
    by = s.roulette_by
    s.roulette_by = None
    if knocked:
        _knock_out(s, seat, by, events)
    if s.outcome is None:
        _advance(s, next_seat(s, seat))


def _catch(s: GameState, action: Catch, seat: int) -> list[Event]:
    """U2/U3: catch a seat that did not call Uno before the next turn began."""
    target = action.seat
    if not s.rules.uno_calls:
        raise IllegalAction("this table plays without Uno calls (U1, uno_calls is off)")
    if not 0 <= seat < s.players or not s.active[seat]:
        raise IllegalAction(f"P{seat} is not an active player and cannot catch (U2)")
    if target == seat:
        raise IllegalAction("you cannot catch yourself: call 'uno' instead (U1)")
    if target not in s.uno_open:
        raise IllegalAction(
            f"P{target} cannot be caught: only a player who was left one card without calling "
            "Uno can be, and only until the next player begins their turn (U3)"
        )
    events: list[Event] = [Caught(target, seat)]
    s.uno_open = tuple(x for x in s.uno_open if x != target)
    s.step += 1
    knocked = _give(s, target, s.rules.uno_penalty, "uno_penalty", seat, events)
    if knocked and s.outcome is None and s.current == target:
        s.pending_total = 0
        s.last_draw_value = 0
        s.drawn = None
        _advance(s, next_seat(s, target))
    return events


def _call_uno(s: GameState, seat: int) -> list[Event]:
    if seat not in s.uno_open:
        if not s.rules.uno_calls:
            raise IllegalAction("this table plays without Uno calls (U1, uno_calls is off)")
        raise IllegalAction("nothing to call: Uno is called when a play leaves you one card (U1)")
    s.uno_open = tuple(x for x in s.uno_open if x != seat)
    s.step += 1
    return [UnoCalled(seat)]
