"""Dealing and seeding: the deck, its shuffles and the deal (S1-S4, T4).

A round's randomness is two integers, its seed and how many shuffles it has had, so a
state serialises, clones and replays exactly on every machine: the deal is shuffle 0
and each reshuffle (T4) the next, each with its own generator, seeded by the integer
:func:`shuffle_key` (the native engine reproduces it bit for bit).
"""

from __future__ import annotations

import random
import secrets
from typing import Final, TypeVar

from nomercy.cards import Card, deck_cards
from nomercy.errors import InvalidRules
from nomercy.rules import Rules

__all__ = ["SEED_MASK", "Deal", "deal", "shuffle", "shuffle_key", "shuffle_rng"]

_T = TypeVar("_T")


#: The seed's bits that key a shuffle: a seed is read modulo 2**64 (``docs/state-format.md``).
SEED_MASK: Final = (1 << 64) - 1
_NUMBER_MASK: Final = (1 << 32) - 1


def shuffle_key(seed: int, shuffle_number: int) -> int:
    """The integer that seeds shuffle ``shuffle_number`` of ``seed``:
    ``(seed mod 2**64) * 2**32 + (shuffle_number mod 2**32)``.

    An integer key, not a string: ``random.Random(int)`` is MT19937's ``init_by_array``
    over the key's 32-bit words, which the native engine (``nomercy.native``) reproduces
    exactly, where a string seed goes through SHA-512 first (state format 3).
    """
    return ((seed & SEED_MASK) << 32) | (shuffle_number & _NUMBER_MASK)


def shuffle_rng(seed: int, shuffle_number: int) -> random.Random:
    """The RNG of one shuffle: the deal is shuffle 0, each reshuffle (T4) the next."""
    return random.Random(shuffle_key(seed, shuffle_number))


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


class Deal:
    """What the deal leaves on the table: hands, the draw pile (top last) and the seats."""

    __slots__ = ("dealer", "draw_pile", "hands", "seed", "sitting_out")

    def __init__(
        self,
        hands: list[list[Card]],
        draw_pile: list[Card],
        dealer: int,
        seed: int,
        sitting_out: tuple[int, ...],
    ) -> None:
        self.hands = hands
        self.draw_pile = draw_pile
        self.dealer = dealer
        self.seed = seed
        self.sitting_out = sitting_out


def deal(
    players: int,
    rules: Rules,
    seed: int | None,
    dealer: int | None,
    sitting_out: frozenset[int] | set[int] | tuple[int, ...],
) -> Deal:
    """Shuffle a fresh deck with shuffle 0 of ``seed`` and deal ``rules.hand_size`` cards
    to every seat not sitting out, from the dealer's left (S1, S2, S4).

    ``seed=None`` picks a fresh one; ``dealer=None`` draws the dealer from the same
    shuffle's generator. A seat sitting out never deals: the deal passes to its left.
    """
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
    hands: list[list[Card]] = [[] for _ in range(players)]
    size = rules.hand_size
    for i in range(1, players + 1):  # S2, from the dealer's left (a shuffled pile: blocks
        seat = (dealer + i) % players  # deal the same as one card at a time)
        if seat not in out:
            hands[seat] = pile[-size:]
            del pile[-size:]
    return Deal(hands, pile, dealer, seed, tuple(sorted(out)))


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
