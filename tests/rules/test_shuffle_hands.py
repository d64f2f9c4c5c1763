"""W7-W8 and C3: today's 112-card classic deck, its Wild Shuffle Hands and blank wilds."""

from __future__ import annotations

from collections import Counter

from nomercy import Decision, Rules
from nomercy.cards import CLASSIC_112_DECK, CLASSIC_DECK, Card, deck_cards
from nomercy.dealing import shuffle, shuffle_rng
from nomercy.engine import GameState
from nomercy.events import ColorNamed, HandsShuffled, Played, RoundOver, redact
from nomercy.views import player_view

from .builders import C, act, color, hand, legal, make, refused, sizes

CLASSIC_112 = Rules.preset("classic_112")


def _dealt(s: GameState, order: list[int]) -> dict[int, list[str]]:
    """W7 written out: every active hand gathered in seat order, shuffled with the round's
    next shuffle, dealt from the top one card at a time along ``order``."""
    gathered = [c for x, h in enumerate(s.hands) if s.active[x] for c in h]
    shuffle(shuffle_rng(s.seed, s.shuffles + 1), gathered)
    out: dict[int, list[str]] = {x: [] for x in order}
    for i, card in enumerate(reversed(gathered)):
        out[order[i % len(order)]].append(card.code)
    return out


def test_C3_classic_112_deck_counts() -> None:
    """C3/W8: 112 cards = the 108 (76 numbers, 24 colored actions, 8 wilds) + 1 Wild
    Shuffle Hands + 3 blank wilds counted as Wilds; ``classic`` keeps the 108."""
    cards = deck_cards(CLASSIC_112_DECK)
    count = Counter(c.code for c in cards)
    assert len(cards) == 112 and len(deck_cards(CLASSIC_DECK)) == 108
    assert sum(c.is_number for c in cards) == 4 * (1 + 2 * 9) == 76
    assert sum(not c.is_number and not c.is_wild for c in cards) == 4 * 3 * 2 == 24
    assert (count["W"], count["W+4"], count["WSH"]) == (4 + 3, 4, 1)
    assert Counter(deck_cards(CLASSIC_112_DECK)) - Counter(deck_cards(CLASSIC_DECK)) == Counter(
        {C("W"): 3, C("WSH"): 1}
    )
    assert Rules.preset("classic2018") is CLASSIC_112 and Rules.preset("classic_108") is Rules.preset(
        "classic"
    )
    assert CLASSIC_112.replace(deck=CLASSIC_DECK) == Rules.preset("classic")  # only the deck differs
    assert CLASSIC_112.to_dict(only_changes=True)["deck"] == "classic_112"
    wsh = C("WSH")
    assert (wsh.is_wild, wsh.is_draw, wsh.points, wsh.title, str(wsh)) == (
        True, False, 50, "Wild Shuffle Hands", "WSH",
    )  # fmt: skip


def test_W7_shuffle_deals_from_the_next_player() -> None:
    """W7: all hands gathered, shuffled, dealt one at a time from the next seat round to
    the player (dealt last); counts differ by one at most; the player then names the color."""
    s = make(
        ["G1 G2 G3", "WSH R1 B9 Y4", "Y1 Y2", "B4 B5 B6 B7 G8"], "R5", rules=CLASSIC_112, current=1, seed=7
    )
    before = Counter(c.code for h in s.hands for c in h) - Counter(["WSH"])
    expected = _dealt(_without(s, 1, "WSH"), [2, 3, 0, 1])
    events = act(s, "play WSH")
    assert [len(expected[x]) for x in range(4)] == [3, 3, 4, 3] == sizes(s)  # 13 cards, P2 first
    assert {x: [c.code for c in s.hands[x]] for x in range(4)} == expected
    assert Counter(c.code for h in s.hands for c in h) == before
    assert events == [
        Played(1, C("WSH")),
        HandsShuffled(1, (3, 3, 4, 3), tuple(tuple(s.hands[x]) for x in range(4))),
    ]
    assert (s.current, s.decision, s.shuffles, s.color) == (1, Decision.CHOOSE_COLOR, 1, color("R"))
    assert legal(s) == {"color R", "color Y", "color G", "color B"}
    assert act(s, "color G") == [ColorNamed(1, color("G"), True)]
    assert (s.current, s.decision, s.color) == (2, Decision.PLAY, color("G"))


def _without(s: GameState, seat: int, code: str) -> GameState:
    """A copy of ``s`` with one ``code`` card taken out of ``seat``'s hand (as played)."""
    copy = s.clone()
    copy.hands[seat].remove(C(code))
    return copy


def test_W7_direction_and_knocked_out_seats() -> None:
    """W7/M3: the deal follows the direction of play and skips a seat out of the round."""
    s = make(
        ["WSH G1 G2", "Y1 Y2 Y3 Y4", "B1", ""], "R5", rules=CLASSIC_112, current=0, seed=11,
        direction=-1, knocked_out=[{"seat": 3, "by": None}],
    )  # fmt: skip
    expected = _dealt(_without(s, 0, "WSH"), [2, 1, 0])
    act(s, "play WSH")
    assert {x: [c.code for c in s.hands[x]] for x in (0, 1, 2)} == expected
    assert sizes(s) == [2, 2, 3, 0]  # 7 cards: P2, P1, P0, P2, ...
    act(s, "color B")
    assert (s.current, s.direction) == (2, -1)


def test_W7_replays_deal_the_same() -> None:
    """W7: the deal comes from the round's seed and shuffle count, so it replays exactly."""
    one = make(["WSH G1 G2", "Y1 Y2 Y3", "B1 B2 B3"], "R5", rules=CLASSIC_112, seed=3)
    two = GameState.from_json(one.to_json())
    act(one, "play WSH")
    act(two, "play WSH")
    assert one.hands == two.hands and one.to_json() == two.to_json()
    three = make(["WSH G1 G2", "Y1 Y2 Y3", "B1 B2 B3"], "R5", rules=CLASSIC_112, seed=4)
    act(three, "play WSH")
    assert Counter(map(str, three.hands[0] + three.hands[1] + three.hands[2])) == Counter(
        map(str, one.hands[0] + one.hands[1] + one.hands[2])
    )


def test_W7_views_see_only_their_own_new_hand() -> None:
    """W7: the event shows each seat its own new hand and only the counts of the others."""
    s = make(["WSH G1 G2", "Y1 Y2 Y3", "B1 B2 B3"], "R5", rules=CLASSIC_112, seed=5)
    events = act(s, "play WSH")
    for seat in (0, 1, 2):
        (shuffled,) = (e for e in redact(events, seat) if isinstance(e, HandsShuffled))
        assert shuffled.hands[seat] == tuple(s.hands[seat]) == player_view(s, seat).hand
        assert all(h is None for x, h in enumerate(shuffled.hands) if x != seat)
        assert shuffled.counts == (2, 3, 3)  # 8 cards from P1: P1, P2, P0, P1, ...
        assert "hands" in shuffled.to_dict()
    spectator = [e for e in redact(events, None) if isinstance(e, HandsShuffled)]
    assert spectator[0].hands == (None, None, None)


def test_W7_refusals() -> None:
    """W7/K4: no color with the play; no answer to a pending total; name the color first."""
    s = make(["WSH G1 G2", "Y1 Y2 Y3"], "R5", rules=CLASSIC_112, seed=1)
    refused(s, "play WSH R", "W7", contains="after the deal")
    assert "play WSH" in legal(s) and "play WSH R" not in legal(s)
    stacked = make(
        ["WSH G1", "Y1 Y2"], "R+2", rules=CLASSIC_112.replace(stacking=True, wild_draw4_challenge=False),
        pending=(2, 2, 1),
    )  # fmt: skip
    refused(stacked, "play WSH", "K4")
    act(s, "play WSH")
    refused(s, f"play {s.hands[0][0]}", "W7", contains="Wild Shuffle Hands")
    refused(s, "draw", "W7")


def test_W7_last_card_ends_the_round_and_moves_no_hands() -> None:
    """W7/E1: a Wild Shuffle Hands played last goes out; the hands stay as they were."""
    s = make(["WSH", "Y1 Y2 Y3", "B1 B2"], "R5", rules=CLASSIC_112.replace(last_card_draw="ignore"))
    events = act(s, "play WSH")
    assert [type(e) for e in events] == [Played, RoundOver]
    assert hand(s, 1) == Counter(["Y1", "Y2", "Y3"]) and s.outcome is not None and s.outcome.winner == 0


def test_W7_uno_with_the_deal() -> None:
    """W7/U1: the play may call Uno when the deal leaves its player one card; without the
    call, every seat the deal leaves one card is open to a catch while the color is named."""
    s = make(["WSH R1", "G2"], "R5", rules=CLASSIC_112, seed=2)
    assert {"play WSH", "play WSH uno"} <= legal(s)
    act(s, "play WSH")
    assert sizes(s) == [1, 1] and set(s.uno_open) == {0, 1}
    act(s, "color Y")
    assert set(s.uno_open) == {0, 1} and s.current == 1
    called = make(["WSH R1", "G2"], "R5", rules=CLASSIC_112, seed=2)
    act(called, "play WSH uno")
    assert called.uno_open == (1,)


def test_W7_first_card_plays_as_a_wild() -> None:
    """W7/S3: turned up first, it shuffles nothing: the first player names the color."""
    s = make(
        ["G1 G2", "Y1 Y2", "B1 B2"], "WSH", rules=CLASSIC_112, current=1, dealer=0,
        decision="choose_color", color=None,
    )  # fmt: skip
    events = act(s, "color B")
    assert events == [ColorNamed(1, color("B"))]
    assert (s.current, s.decision, s.shuffles, sizes(s)) == (1, Decision.PLAY, 0, [2, 2, 2])


def test_W8_blank_wilds_play_as_wilds() -> None:
    """W8: a blank wild is a Wild (W5): it names the color and does nothing else."""
    s = make(["W G1", "Y1 Y2", "B1 B2"], "R5", rules=CLASSIC_112)
    assert act(s, "play W B") == [Played(0, C("W"), color("B"))]
    assert (s.current, s.color, sizes(s)) == (1, color("B"), [1, 2, 2])
    assert Card.parse("w") is C("W")
