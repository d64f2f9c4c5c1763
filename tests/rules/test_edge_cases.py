"""Corners of the rules where two rules meet: a Wild Draw 4 that ends the round or whose
player is knocked out before the challenge (W6), a take with nothing left to draw (T4),
the Roulette stopped by the Mercy Rule (W4), the first card at two players (S3), a Wild
Reverse Draw 4 stacked at two players (K6) and who earns a knock-out's 250 (E3).
"""

from __future__ import annotations

import pytest

from nomercy import Action, Decision, GameState, Rules, new_game
from nomercy.events import Challenged, Drew, KnockedOut, Passed, Played, Reversed, StackGrew

from .builders import C, act, bag, cs, hand, make

CLASSIC = Rules.preset("classic")


def test_W6_E1_a_round_won_with_a_wild_draw4_loads_back() -> None:
    """W6/E1: a Wild Draw 4 played as the last card ends the round; it is past challenging,
    so the finished state keeps no challenge and loads back equal."""
    s = GameState.from_dict(
        {
            "rules": {"preset": "classic"},
            "hands": [["W+4"], ["Y1", "Y2", "Y3"], ["B3", "B4"]],
            "discard_pile": ["R5"],
            "draw_pile": ["G1", "G3", "G4", "G6", "G7"],
        }
    )
    events = s.apply(Action.parse("play W+4 G"))
    assert s.is_over and s.outcome is not None and s.outcome.winner == 0
    assert events[1] == Drew(1, 4, cs("G1 G3 G4 G6"), "penalty")  # E2, classic's "apply"
    assert s.to_dict()["challenge"] is None and s.wd4_color is None
    assert GameState.from_json(s.to_json()) == s


# Classic with a Mercy limit of 3: P0's Wild Draw 4 leaves it one card, P2 catches it.
MERCY3 = {"preset": "classic", "mercy_limit": 3, "hand_size": 2}
GREENS = " ".join(f"G{i}" for i in range(1, 10))


def _knocked_before_the_challenge(hand0: str) -> GameState:
    s = make([hand0, "B2 B3", "Y1 Y2"], "R5", GREENS, rules=MERCY3)
    act(s, "play W+4 G")
    assert act(s, "catch 0", seat=2)[-1] == KnockedOut(0, 2, 3)
    assert (s.current, s.decision, s.active) == (1, Decision.CHALLENGE, [False, True, True])
    assert GameState.from_json(s.to_json()) == s  # the verdict travels with the state
    return s


def test_W6_M1_guilt_is_judged_on_the_hand_as_played_not_the_hand_left() -> None:
    """W6/M1: P0 played its Wild Draw 4 holding R1 (red in play): unlawful. Caught without
    Uno and knocked out before P1 challenges, its hand is gone; the challenge still finds it
    unlawful. A player out of the round draws nothing: the 4 are void and P1 plays on."""
    s = _knocked_before_the_challenge("W+4 R1")
    events = act(s, "challenge")
    assert events == [Challenged(1, 0, True)]
    assert hand(s, 1) == bag("B2 B3") and hand(s, 0) == bag("")
    assert (s.current, s.decision, s.pending_total, s.color.letter) == (1, Decision.PLAY, 0, "G")
    assert GameState.from_json(s.to_json()) == s


def test_W6_M1_a_lawful_wild_draw4_of_a_knocked_out_player_costs_the_challenger_six() -> None:
    """W6/M1/E3: P0 held no red besides its Wild Draw 4, so the card was lawful: the
    challenger of a player since knocked out draws 6 (here up to the Mercy limit, which
    knocks P1 out too, caused by the card's player)."""
    s = _knocked_before_the_challenge("W+4 G1")
    events = act(s, "challenge")
    assert events[0] == Challenged(1, 0, False)
    assert KnockedOut(1, 0, 3) in events and s.is_over
    assert s.outcome is not None and s.outcome.winner == 2
    assert GameState.from_json(s.to_json()) == s


def test_W6_the_verdict_is_kept_in_the_state_and_checked_when_read() -> None:
    """W6: a saved challenge carries its verdict; one that contradicts the hand of its
    player (who is still in) is refused, one without a verdict is judged on that hand."""
    s = make(["W+4 R1 G2", "B2 B3", "Y1 Y2"], "R5", GREENS, rules={"preset": "classic"})
    act(s, "play W+4 G")
    data = s.to_dict()
    assert data["challenge"] == {"color": "R", "cards": 2, "guilty": True}
    del data["challenge"]["guilty"]
    assert GameState.from_dict(data) == s
    data["challenge"]["guilty"] = False
    with pytest.raises(Exception, match="W6"):
        GameState.from_dict(data)


def test_T4_a_take_with_nothing_left_to_draw_is_seen() -> None:
    """T4/K2: taking a total when no card is left to draw loses the turn all the same, and
    the table is told: the take yields a ``passed`` event, as a draw does there."""
    s = GameState.from_dict(
        {
            "hands": [["G9"], ["B8"]],
            "discard_pile": ["W+6"],
            "color": "R",
            "decision": "stack",
            "pending": {"total": 6, "last_value": 6},
        }
    )
    assert s.apply(Action.parse("take")) == [Passed(0)]
    assert (s.current, s.decision, s.pending_total) == (1, Decision.PLAY, 0)
    s = make(["G9", "B8"], "R5")
    assert act(s, "draw") == [Passed(0)]


def test_T4_W6_a_challenge_taken_with_nothing_to_draw_is_seen() -> None:
    """T4/W6: taking a Wild Draw 4 with no card left to draw also yields ``passed``."""
    s = make(
        ["G2", "B2 B3", "Y1 Y2"],
        "W+4",
        rules={"preset": "classic"},
        current=1,
        color="G",
        decision="challenge",
        pending=(4, 4, 0),
        challenge={"color": "R", "cards": 1},
    )
    assert act(s, "take") == [Passed(1)]
    assert (s.current, s.decision) == (2, Decision.PLAY)


@pytest.mark.parametrize(("setting", "after"), [("named", "G"), ("revealed", "R")])
def test_W4_M1_the_mercy_rule_stops_the_roulette_and_the_colors_differ(setting: str, after: str) -> None:
    """W4/M1: the reveal stops at the Mercy limit before the named color (green) shows, so
    ``roulette_color=named`` leaves green in play and ``revealed`` the last colored card's
    red; the player is knocked out by the Roulette's player."""
    rules = {"mercy_limit": 4, "hand_size": 2, "roulette_color": setting}
    s = make(["WCR R1", "B1 B2", "Y1 Y2"], "R5", "B3 R2 G1", rules=rules)
    act(s, "play WCR")
    events = act(s, "color G")
    assert events[-1] == KnockedOut(1, 0, 4)
    assert s.color is not None and s.color.letter == after
    assert (s.current, s.decision) == (2, Decision.PLAY)


def _two_player_first(face_code: str, **overrides: object) -> GameState:
    """A two-player deal (dealer 0) whose first card is ``face_code``, read as ``apply``."""
    rules = Rules(first_card="apply").replace(**overrides)  # type: ignore[arg-type]
    for seed in range(5000):
        s = new_game(2, rules, seed=seed, dealer=0)
        if s.discard[-1].face is C(face_code).face:
            return s
    raise AssertionError(f"no seed turns up {face_code} first")


def test_S3_P1_two_players_a_first_reverse_skip_or_skip_everyone_lets_the_dealer_start() -> None:
    """S3/P1 ``first_card=apply`` at two players: as though the dealer had just played it, a
    first Reverse (``two_player_reverse=self``), Skip or Skip Everyone gives the dealer the
    first turn; with ``two_player_reverse=opponent`` a Reverse lets the other player start."""
    for code in ("RR", "RS", "RSE"):
        s = _two_player_first(code)
        assert (s.current, s.decision) == (0, Decision.PLAY), code
    s = _two_player_first("RR", two_player_reverse="opponent")
    assert (s.current, s.direction) == (1, -1)


@pytest.mark.parametrize(("setting", "victim"), [("self", 0), ("opponent", 1)])
def test_S3_P3_two_players_a_first_wild_reverse_draw4_hits_as_if_the_dealer_played_it(
    setting: str, victim: int
) -> None:
    """S3/P3 ``first_card=apply`` at two players: the other player names the color of a first
    Wild Reverse Draw 4; then it hits the dealer under ``two_player_reverse_draw=self`` (the
    dealer, who "played" it, faces it) and the other player under ``opponent``."""
    s = _two_player_first("WR+4", two_player_reverse_draw=setting)
    assert (s.current, s.decision) == (1, Decision.CHOOSE_COLOR)
    act(s, "color Y")
    assert (s.direction, s.current, s.decision, s.pending_total) == (-1, victim, Decision.STACK, 4)


@pytest.mark.parametrize(("setting", "faces"), [("self", 1), ("opponent", 0)])
def test_K6_P3_two_players_a_stacked_wild_reverse_draw4_comes_back_to_its_stacker(
    setting: str, faces: int
) -> None:
    """K6/P3: at two players a Wild Reverse Draw 4 stacked on a pending total sends the grown
    total to its own stacker under ``two_player_reverse_draw=self``, to the opponent under
    ``opponent``."""
    rules = {"two_player_reverse_draw": setting}
    s = make(["R1 R2", "WR+4 Y3"], "R+2", current=1, pending=(2, 2, 0), rules=rules)
    assert act(s, "play WR+4 B")[-2:] == [Reversed(-1), StackGrew(faces, 6)]
    assert (s.current, s.decision, s.pending_total) == (faces, Decision.STACK, 6)


KNOCKER = {"preset": "classic", "knockout_bonus_to": "knocker", "mercy_limit": 5, "hand_size": 2}


@pytest.mark.parametrize(("held", "knocked", "knocker"), [("R1 R2 R3", 0, 1), ("G1 G2", 1, 0)])
def test_E3_W6_knocker_earns_the_250_in_a_challenge(held: str, knocked: int, knocker: int) -> None:
    """E3/W6 ``knockout_bonus_to=knocker``: a challenge that knocks out the card's player
    earns the challenger the 250; one that knocks out the challenger earns the card's
    player the 250."""
    s = make([f"W+4 {held}", "B2 B3", "Y1 Y2 Y3"], "R5", GREENS, rules=KNOCKER)
    act(s, "play W+4 G")
    events = act(s, "challenge")
    assert [(e.seat, e.by) for e in events if isinstance(e, KnockedOut)] == [(knocked, knocker)]
    assert s.bonus[knocker] == 250 and sum(s.bonus) == 250


def test_E3_E2_knocker_earns_the_250_for_a_last_draw_card() -> None:
    """E3/E2 ``knockout_bonus_to=knocker``, ``last_card_draw=apply``: the next player draws
    for a last Draw card and reaches the Mercy limit; the player who went out earns the 250,
    and wins the round."""
    rules = {"preset": "classic", "knockout_bonus_to": "knocker", "mercy_limit": 5, "hand_size": 2}
    s = make(["R+2", "B1 B2 B3", "Y1 Y2 Y3"], "R5", GREENS, rules=rules)
    events = act(s, "play R+2")
    assert events[0] == Played(0, C("R+2"))
    assert any(isinstance(e, KnockedOut) and (e.seat, e.by) == (1, 0) for e in events)
    assert s.outcome is not None and s.outcome.winner == 0
    assert s.bonus[0] == 250 and s.outcome.points[0] >= 250
