"""Readings the sources disagree on, made house rules (docs/rules.md): when Uno must be
called (``uno_timing``, U1/U3), the challenged Wild Draw 4 (``wild_draw4_challenge``,
W6) and classic Uno's first-card effects (``first_card=official``, S3).
"""

from __future__ import annotations

from nomercy import Decision, Face, GameState, Rules, new_game
from nomercy.actions import Take

from .builders import act, bag, hand, legal, make, refused, sizes

# -- U1/U3: uno_timing --------------------------------------------------------------------

# Seat 0 plays its Seven at seat 2 and hands over its last other card: seat 2 holds one.
SEVEN = ["R7 G1", "R1 R2 R3", "B5 B6 B8 B9", "Y1 Y2 Y3"]


def test_U1_holding_one_a_seven_that_hands_you_one_card() -> None:
    """U1 default ``uno_timing=holding_one``: a player handed a one-card hand by another's
    Seven must call; until then any other active player may catch them (U2)."""
    s = make(SEVEN, "R5", "G3 G4 G5 G6")
    act(s, "play R7 @2")
    assert sizes(s) == [4, 3, 1, 3] and s.current == 1
    assert "catch 2" in legal(s, 3) and "catch 2" in legal(s, 1) and "uno" in legal(s, 2)
    act(s, "catch 2", seat=3)
    assert hand(s, 2) == bag("G1 G3 G4") and s.current == 1


def test_U3_holding_one_window_closes_when_the_next_player_acts() -> None:
    """U3 ``uno_timing=holding_one``: the window opened by a Seven closes as soon as the next
    player to act takes an action; a later catch is refused and costs nothing."""
    s = make(SEVEN, "R5", "G3 G4 G5 G6")
    act(s, "play R7 @2")
    assert "catch 2" in legal(s, 3)
    act(s, "play R1")
    assert "catch 2" not in legal(s, 3)
    refused(s, "catch 2", "U3", seat=3)
    assert sizes(s)[2] == 1


def test_U1_holding_one_called_in_time_is_safe() -> None:
    """U1/U3 ``uno_timing=holding_one``: the player handed one card calls; no catch then."""
    s = make(SEVEN, "R5", "G3 G4 G5 G6")
    act(s, "play R7 @2")
    act(s, "uno", seat=2)
    assert "catch 2" not in legal(s, 3)
    refused(s, "catch 2", "U3", seat=3)


def test_U1_own_play_a_hand_received_needs_no_call() -> None:
    """U1 ``uno_timing=own_play``: only a player's own play obliges a call; a one-card hand
    received through a Seven cannot be caught."""
    s = make(SEVEN, "R5", "G3 G4 G5 G6", rules={"uno_timing": "own_play"})
    act(s, "play R7 @2")
    assert sizes(s)[2] == 1
    assert legal(s, 3) == set() and legal(s, 2) == set()
    refused(s, "catch 2", "U3", seat=3)
    s = make(["R5 G1", "R1 R2 R3", "B5 B6 B8"], "R0", "G3 G4", rules={"uno_timing": "own_play"})
    act(s, "play R5")
    assert "catch 0" in legal(s, 2)  # the player's own play still does


# -- W6: wild_draw4_challenge -------------------------------------------------------------

CHALLENGE = {"deck": "classic", "draw_rule": "one", "stacking": False, "seven_zero": False,
             "mercy_limit": None, "wild_draw4_challenge": True}  # fmt: skip
PILE = "G3 G4 G5 G6 G7 G9 B7"


def test_W6_take_accepts_the_wild_draw4() -> None:
    """W6 ``wild_draw4_challenge=true``: the next player may challenge or take; taking draws
    the 4 and misses the turn."""
    s = make(["W+4 G2 G8", "Y1 Y2 Y3", "B2 B3 B4"], "R5", PILE, rules=CHALLENGE)
    act(s, "play W+4 B")
    assert s.current == 1 and legal(s) == {"challenge", "take"}
    act(s, "take")
    assert hand(s, 1) == bag("Y1 Y2 Y3 G3 G4 G5 G6")
    assert (s.current, s.decision, s.color.letter) == (2, Decision.PLAY, "B")


def test_W6_challenge_of_an_unlawful_wild_draw4() -> None:
    """W6: its player held a card of the color in play (red), so the challenge succeeds:
    they draw the 4, and the challenger plays their turn in the named color."""
    s = make(["W+4 R7 G2", "Y1 Y2 B3", "B2 B4 B6"], "R5", PILE, rules=CHALLENGE)
    act(s, "play W+4 B")
    act(s, "challenge")
    assert hand(s, 0) == bag("R7 G2 G3 G4 G5 G6") and hand(s, 1) == bag("Y1 Y2 B3")
    assert (s.current, s.decision, s.color.letter) == (1, Decision.PLAY, "B")
    assert "play B3" in legal(s)


def test_W6_challenge_of_a_lawful_wild_draw4() -> None:
    """W6: a Wild and a card matching by number only do not make a Wild Draw 4 unlawful; the
    failed challenger draws 6 and misses the turn."""
    s = make(["W+4 W G5", "Y1 Y2 Y3", "B2 B3 B4"], "R5", PILE, rules=CHALLENGE)
    act(s, "play W+4 B")
    act(s, "challenge")
    assert hand(s, 0) == bag("W G5") and hand(s, 1) == bag("Y1 Y2 Y3 G3 G4 G5 G6 G7 G9")
    assert (s.current, s.decision, s.color.letter) == (2, Decision.PLAY, "B")


def test_W6_no_challenge_without_the_house_rule() -> None:
    """W5/W6 ``wild_draw4_challenge=false`` (default): the Wild Draw 4 is drawn at once."""
    rules = {**CHALLENGE, "wild_draw4_challenge": False}
    s = make(["W+4 R7 G2", "Y1 Y2 Y3", "B2 B3 B4"], "R5", PILE, rules=rules)
    act(s, "play W+4 B")
    assert hand(s, 1) == bag("Y1 Y2 Y3 G3 G4 G5 G6") and s.current == 2


# -- S3: first_card="official" ------------------------------------------------------------


def _first(face: Face, players: int = 4, stacking: bool = False) -> GameState:
    """A classic deal (dealer 0) whose first card turned up is ``face``, read official-ly:
    the seed is found by dealing the same seed under ``first_card=apply``."""
    classic = Rules.preset("classic")
    if stacking:  # W6's challenge is refused with stacking
        classic = classic.replace(stacking=True, wild_draw4_challenge=False)
    apply, official = (classic.replace(first_card=r) for r in ("apply", "official"))
    for seed in range(3000):
        if new_game(players, apply, seed=seed, dealer=0).discard[-1].face is face:
            return new_game(players, official, seed=seed, dealer=0)
    raise AssertionError(f"no seed in 0-2999 turns up a {face} first")


def test_S3_official_reverse_dealer_starts_the_other_way() -> None:
    """S3 ``first_card=official``, a first Reverse: the dealer plays first, counter-clockwise."""
    s = _first(Face.REVERSE)
    assert (s.current, s.direction, s.decision) == (0, -1, Decision.PLAY)


def test_S3_official_skip_and_draw_two() -> None:
    """S3 ``first_card=official``: a first Skip skips the first player; a first Draw Two
    makes them draw 2 and skips them."""
    s = _first(Face.SKIP)
    assert (s.current, s.direction, s.decision) == (2, 1, Decision.PLAY)
    assert sizes(s) == [7, 7, 7, 7]
    s = _first(Face.DRAW_2)
    assert (s.current, s.decision) == (2, Decision.PLAY)
    assert sizes(s) == [7, 9, 7, 7]


def test_S3_K1_official_first_draw_two_with_stacking_is_a_pending_total() -> None:
    """S3 ``first_card=official`` with ``stacking`` on: a first Draw Two is a pending total
    the first player faces as K1 says, so they may stack on it or take it."""
    s = _first(Face.DRAW_2, stacking=True)
    assert (s.current, s.decision, s.pending_total) == (1, Decision.STACK, 2)
    assert sizes(s) == [7, 7, 7, 7]
    s.apply(Take())
    assert sizes(s) == [7, 9, 7, 7] and (s.current, s.decision) == (2, Decision.PLAY)


def test_S3_official_wild_first_player_names_the_color_and_plays() -> None:
    """S3 ``first_card=official``, a first Wild: the first player names the color, then plays."""
    s = _first(Face.WILD)
    assert s.current == 1 and legal(s) == {"color R", "color Y", "color G", "color B"}
    act(s, "color G")
    assert (s.current, s.decision, s.color.letter) == (1, Decision.PLAY, "G")


def test_S3_official_wild_draw4_goes_back_and_another_card_is_turned() -> None:
    """S3 ``first_card=official``, a first Wild Draw 4: it goes back into the shuffled draw
    pile and another first card is turned up in its place; the deal is unchanged."""
    s = _first(Face.WILD_DRAW_4)
    apply = new_game(4, Rules.preset("classic").replace(first_card="apply"), seed=s.seed, dealer=0)
    assert s.hands == apply.hands
    assert len(s.discard) == 1 and s.discard[-1].face is not Face.WILD_DRAW_4
    assert s.card_count() == 108 and any(c.face is Face.WILD_DRAW_4 for c in s.draw_pile)
