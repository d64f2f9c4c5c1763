"""S1-S4: players, the deal, the first card (both readings) and the order of play."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from nomercy import Decision, Face, GameState, InvalidRules, InvalidState, Match, Rules, full_deck, new_game
from nomercy.views import player_view

from .builders import act, hand, legal

APPLY = Rules(first_card="apply")


def _all_cards(s: GameState) -> Counter[str]:
    return Counter(c.code for zone in [*s.hands, s.draw_pile, s.discard, s.aside] for c in zone)


def _seed_where(rules: Rules, players: int, test: Callable[[GameState], bool], dealer: int = 0) -> GameState:
    """The first seeded deal (seeds 0-2999) that ``test`` accepts, for setting up S3 cases."""
    for seed in range(3000):
        s = new_game(players, rules, seed=seed, dealer=dealer)
        if test(s):
            return s
    raise AssertionError("no seed in 0-2999 deals this first card")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_S1_two_to_six_players(players: int) -> None:
    """S1: a table seats 2 to 6 players."""
    s = new_game(players, seed=1)
    assert s.players == players and len(s.hands) == players


@pytest.mark.parametrize("players", [0, 1, 7, 12])
def test_S1_other_player_counts_are_refused(players: int) -> None:
    """S1: fewer than 2 or more than 6 players fails with a clear error naming S1."""
    with pytest.raises(InvalidRules, match=r"table seats 2 to 6 \(S1\)") as info:
        new_game(players, seed=1)
    assert info.value.field == "players"


def test_S1_max_players_house_rule() -> None:
    """S1 house rule ``max_players``: more seats where the deck can deal them."""
    s = new_game(8, Rules(max_players=8), seed=3)
    assert [len(h) for h in s.hands] == [7] * 8
    with pytest.raises(InvalidRules, match=r"cannot deal.*\(S2\)"):
        new_game(24, Rules(max_players=30), seed=3)  # 24 x 7 + 1 > 168
    with pytest.raises(InvalidState, match=r"S1"):
        GameState.from_dict({"hands": [["R1"]] * 7, "discard_pile": ["R5"]})


@pytest.mark.parametrize("players", [2, 4, 6])
def test_S2_deal_seven_each_rest_is_draw_pile(players: int) -> None:
    """S2: all 168 cards shuffled, 7 to each player, the rest face down as the draw pile."""
    s = new_game(players, seed=11, dealer=0)
    assert [len(h) for h in s.hands] == [7] * players
    assert len(s.draw_pile) + len(s.discard) == 168 - 7 * players
    assert _all_cards(s) == Counter(c.code for c in full_deck())
    assert player_view(s, 1).draw_pile_size == len(s.draw_pile)


def test_S2_hand_size_house_rule_and_seeded_shuffle() -> None:
    """S2 house rule ``hand_size``; the same seed deals the same cards, another seed others."""
    s = new_game(3, Rules(hand_size=10), seed=5, dealer=1)
    assert [len(h) for h in s.hands] == [10, 10, 10]
    again = new_game(3, Rules(hand_size=10), seed=5, dealer=1)
    assert again == s
    assert new_game(3, Rules(hand_size=10), seed=6, dealer=1).hands != s.hands


def test_S3_first_card_number_turns_up_until_a_number() -> None:
    """S3 default: action and wild cards are passed over and stay beneath the first number."""
    s = _seed_where(Rules(), 4, lambda g: len(g.discard) >= 3)
    assert s.discard[-1].is_number
    assert all(not c.is_number for c in s.discard[:-1])
    assert any(c.is_wild for c in _seed_where(Rules(), 4, lambda g: g.discard[0].is_wild).discard[:-1])
    assert s.color is s.discard[-1].color
    assert s.decision is Decision.PLAY and s.current == 1 and s.pending_total == 0
    assert _all_cards(s) == Counter(c.code for c in full_deck())


def test_S3_first_card_number_when_it_is_already_a_number() -> None:
    """S3: a number card turned up first is simply the start of the discard pile."""
    s = _seed_where(Rules(), 3, lambda g: len(g.discard) == 1)
    assert s.discard[-1].is_number and s.color is s.discard[-1].color


def test_S3_apply_first_wild_color_named_by_first_player_then_effect() -> None:
    """S3 ``first_card=apply``, a first Wild Draw 6: the first player names the color, then
    faces +6 as if the dealer had played it (and may stack, K2)."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.WILD_DRAW_6)
    assert len(s.discard) == 1
    assert s.current == 1 and s.decision is Decision.CHOOSE_COLOR and s.color is None
    assert legal(s) == {"color R", "color Y", "color G", "color B"}
    first_hand = hand(s, 1)
    events = act(s, "color G")
    assert [e.type for e in events] == ["color_named", "stack"]
    assert s.color is not None and s.color.letter == "G"
    assert (s.current, s.decision, s.pending_total, s.last_draw_value) == (1, Decision.STACK, 6, 6)
    assert s.last_draw_by == 0  # the dealer "played" it
    act(s, "take")
    assert sum(hand(s, 1).values()) == sum(first_hand.values()) + 6
    assert (s.current, s.decision, s.color.letter) == (2, Decision.PLAY, "G")


def test_S3_apply_first_roulette_first_player_turns_up() -> None:
    """S3 ``first_card=apply`` with a first Wild Color Roulette: the first player names a color
    and turns up cards (W4), then play goes on with the next."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.WILD_COLOR_ROULETTE)
    assert (s.current, s.decision, s.roulette_by) == (1, Decision.ROULETTE, 0)
    events = act(s, "color B")
    assert s.color is not None and s.color.letter == "B"
    drew = next(e for e in events if e.type == "drew")
    turned = [c.code for c in drew.cards]
    assert turned[-1].startswith("B") and not any(code.startswith("B") for code in turned[:-1])
    assert sum(hand(s, 1).values()) == 7 + len(turned) and Counter(turned) <= hand(s, 1)
    assert (s.current, s.decision) == (2, Decision.PLAY)


def test_S3_apply_first_skip_skips_the_first_player() -> None:
    """S3 ``first_card=apply``, a first Skip: the first player loses their turn (A1)."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.SKIP)
    assert len(s.discard) == 1 and s.color is s.discard[-1].color
    assert (s.current, s.decision, s.direction) == (2, Decision.PLAY, 1)


def test_S3_apply_first_reverse_as_if_the_dealer_played_it() -> None:
    """S3 ``first_card=apply``, a first Reverse: direction flips and, as if the dealer had
    played it, play starts with the seat on the dealer's right (our reading of "as if the
    dealer had played it"; classic Uno's "dealer starts, play goes right" would give the
    same direction but the dealer first)."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.REVERSE)
    assert (s.direction, s.current, s.decision) == (-1, 3, Decision.PLAY)


def test_S3_apply_first_draw_card_first_player_faces_it() -> None:
    """S3 ``first_card=apply``, a first Draw 2: the first player faces +2 (stack or take)."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.DRAW_2)
    assert (s.current, s.decision, s.pending_total, s.last_draw_value) == (1, Decision.STACK, 2, 2)
    assert "take" in legal(s)


def test_S3_apply_first_number_card_needs_nothing() -> None:
    """S3 ``first_card=apply``: a first number card has no effect; the first player plays."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].is_number)
    assert (s.current, s.decision, s.pending_total, len(s.discard)) == (1, Decision.PLAY, 0, 1)


@pytest.mark.parametrize(("players", "dealer"), [(2, 1), (4, 0), (4, 3), (6, 5)])
def test_S4_dealers_left_starts_clockwise(players: int, dealer: int) -> None:
    """S4: the player on the dealer's left (next seat number) starts; play goes clockwise."""
    s = new_game(players, seed=2, dealer=dealer)
    assert s.dealer == dealer
    assert s.current == (dealer + 1) % players
    assert s.direction == 1


def test_S4_random_dealer_and_deal_passes_left_in_a_match() -> None:
    """S4: a dealer chosen at random (seeded); in a scored match the deal passes left."""
    dealers = {new_game(4, seed=seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    m = Match(players=3, rules=Rules(target_score=100_000), seed=9, dealer=2)
    seen = [m.state.dealer]
    for _ in range(3):
        while not m.round_over:
            m.apply(m.state.legal_actions()[0])
        m.next_round()
        seen.append(m.state.dealer)
    assert seen == [2, 0, 1, 2]
    assert m.state.current == 0


def test_S3_apply_first_wild_reverse_draw4_reading() -> None:
    """S3 ``first_card=apply``, a first Wild Reverse Draw 4: the first player names the color;
    then, as if the dealer had played it (W1), direction reverses and the player before the
    dealer (on the dealer's right) faces +4. Our reading: "as if the dealer had played it"
    decides who is hit, since W1 hits the player before the card's player."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.WILD_REVERSE_DRAW_4)
    assert (s.current, s.decision) == (1, Decision.CHOOSE_COLOR)
    act(s, "color Y")
    assert (s.direction, s.current, s.decision, s.pending_total) == (-1, 3, Decision.STACK, 4)


def test_S3_apply_first_skip_everyone_dealer_goes_first() -> None:
    """S3 ``first_card=apply``, a first Skip Everyone: as if the dealer had played it, every
    other player is skipped and the dealer takes the first turn (our reading)."""
    s = _seed_where(APPLY, 4, lambda g: g.discard[-1].face is Face.SKIP_EVERYONE)
    assert (s.current, s.decision) == (0, Decision.PLAY)
