"""Seeds found with the engine itself, so each browser test meets the situation it checks.

A browser test cannot wait for chance to deal a Roulette or a stack; these functions
search seeds until the engine deals the wanted cards, and return what the test needs to
click. The server deals the same cards for the same seed (test_options lets a room fix it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomercy.match import Match
from nomercy.rules import Rules

COLOUR_WILDS = ("W+6", "W+10", "W", "W+4")


@dataclass(frozen=True)
class Plan:
    seed: int
    rules: dict[str, Any]
    cards: tuple[str, ...]


def _plays(state: Any, seat: int | None = None) -> list[Any]:
    return [a for a in state.legal_actions() if a.kind == "play"]


def colour_plan() -> Plan:
    """Ann (seat 0) starts with a Roulette and a wild that needs a colour; Bob, the Roulette's
    victim, names green; then it is Ann's turn again and her colour wild is still playable."""
    for seed in range(50_000):
        state = Match(2, Rules(), seed).state
        if state.current_player != 0:
            continue
        plays = _plays(state)
        roulette = next((a for a in plays if a.card.code == "WCR" and not a.uno), None)
        wilds = [a.card.code for a in plays if a.card.code in ("W+6", "W+10") and a.color is not None]
        wild = wilds[0] if wilds else None
        if roulette is None or wild is None:
            continue
        state.apply(roulette, 0)
        if state.current_player != 1 or state.decision.label != "roulette":
            continue
        colour = next(a for a in state.legal_actions() if str(a) == "color G")
        state.apply(colour, 1)
        if state.outcome is not None or state.current_player != 0:
            continue
        if any(str(a).startswith(f"play {wild} B") for a in state.legal_actions()):
            return Plan(seed, {}, (wild,))
    raise AssertionError("no seed found")


def stack_knockout_plan(mercy: int = 12) -> Plan:
    """Ann starts with a Wild Draw 6 or 10; Bob cannot stack on it, takes it and reaches
    the Mercy limit: knocked out, Ann wins as the last one standing."""
    rules = {"mercy_limit": mercy}
    for seed in range(50_000):
        state = Match(2, Rules(mercy_limit=mercy), seed).state
        if state.current_player != 0:
            continue
        wild = next((a for a in _plays(state) if a.card.code in ("W+6", "W+10") and not a.uno), None)
        if wild is None:
            continue
        state.apply(wild, 0)
        if [str(a) for a in state.legal_actions()] != ["take"]:
            continue
        state.apply(state.legal_actions()[0], 1)
        if state.outcome is not None and state.outcome.winner == 0:
            return Plan(seed, rules, (wild.card.code,))
    raise AssertionError("no seed found")


def uno_plan() -> Plan:
    """Two cards each: Ann's first play leaves her one (she calls Uno with it); Bob's plain
    number play then leaves him one without a call, so Ann can catch him."""
    rules = {"hand_size": 2}
    for seed in range(50_000):
        state = Match(2, Rules(hand_size=2), seed).state
        if state.current_player != 0:
            continue
        mine = [a for a in _plays(state) if a.uno and a.card.is_number and a.card.face not in (0, 7)]
        if not mine:
            continue
        state.apply(mine[0], 0)
        if state.current_player != 1:
            continue
        his = [
            a
            for a in _plays(state)
            if not a.uno and a.card.is_number and a.card.face not in (0, 7) and a.target is None
        ]
        if not his:
            continue
        state.apply(his[0], 1)
        if state.outcome is None and any(a.kind == "catch" for a in state.legal_actions(0)):
            return Plan(seed, rules, (mine[0].card.code, his[0].card.code))
    raise AssertionError("no seed found")


def challenge_plan() -> Plan:
    """Classic rules (W6): Ann starts with a Wild Draw 4 she plays naming red; Bob faces
    it with the choice to challenge or to take the 4 cards."""
    for seed in range(50_000):
        state = Match(2, Rules.preset("classic"), seed).state
        if state.current_player != 0:
            continue
        wd4 = next((a for a in _plays(state) if a.card.code == "W+4" and not a.uno), None)
        if wd4 is None:
            continue
        state.apply(next(a for a in _plays(state) if str(a) == "play W+4 R"), 0)
        if state.current_player == 1 and {str(a) for a in state.legal_actions()} >= {"challenge", "take"}:
            return Plan(seed, {}, ("W+4",))
    raise AssertionError("no seed found")


# -- a whole round of two people and two bots, decided in advance -------------------------
#
# Bots: the server's "heuristic" bot chooses from its view alone, without chance, so the
# engine can play the round here exactly as the server will. The two people follow
# :func:`person_choice`; the browser test computes the same choice from the page's state
# and makes it through the page (cards, dialogs, keys). Only one move is out of turn: Bob
# "forgets" UNO once when Ann plays next, and Ann catches him before she plays.

WHOLE_ROUND_FEATURES = (
    "wild colour", "roulette victim", "seven target", "stack taken", "uno call", "catch", "knock-out",
)  # fmt: skip
PEOPLE = (0, 1)


def best_colour(hand: list[str]) -> str:
    """The colour a person holds most of (ties: R, Y, G, B)."""
    counts = {c: sum(1 for code in hand if code[0] == c) for c in "RYGB"}
    return max("RYGB", key=lambda c: (counts[c], -"RYGB".index(c)))


def person_choice(view: dict[str, Any], forget_uno: bool = False) -> str:
    """What a person at the table does, as action text, from ``PlayerView.to_dict()``:
    name the colour they hold most; play the first card that is not a wild (wilds last),
    with UNO when it leaves one card; a Seven goes to the player with the fewest cards;
    stack when possible, else take; play a drawn card; draw when nothing fits."""
    legal: list[str] = view["legal_actions"]
    colour = best_colour(view["hand"])
    if view["decision"] in ("roulette", "choose_color"):
        return f"color {colour}"
    plays = [a for a in legal if a.startswith("play ")]
    if not plays:
        for fallback in ("take", "pass", "draw"):
            if fallback in legal:
                return fallback
        raise AssertionError(f"no choice in {legal}")
    cards = sorted({a.split()[1] for a in plays}, key=lambda c: (c.startswith("W"), c))
    options = [a for a in plays if a.split()[1] == cards[0]]
    colours = {a.split()[2] for a in options if len(a.split()) > 2 and a.split()[2] in "RYGB"}
    if colours:
        options = [a for a in options if len(a.split()) > 2 and a.split()[2] == colour] or [
            a for a in options if len(a.split()) > 2 and a.split()[2] == sorted(colours)[0]
        ]
    targets = sorted({int(a.split("@")[1].split()[0]) for a in options if "@" in a})
    if targets:
        fewest = min(targets, key=lambda s: (view["hand_sizes"][s], s))
        options = [a for a in options if f"@{fewest}" in a]
    with_uno = [a for a in options if a.endswith(" uno")]
    if with_uno and not forget_uno:
        return with_uno[0]
    return next((a for a in options if not a.endswith(" uno")), options[0])


@dataclass
class WholeRound:
    seed: int
    rules: dict[str, Any]
    #: The actions of the round in order, ``(seat, text)``: the browser test checks it
    #: follows the same game.
    moves: list[tuple[int, str]]
    features: dict[str, int]


def play_whole_round(seed: int, rules: dict[str, Any]) -> WholeRound:
    """The round the server will deal for ``seed``, played by two people and two bots."""
    from nomercy.actions import Action
    from nomercy.bots.heuristic import HeuristicBot
    from nomercy.views import player_view

    match = Match(4, Rules.from_dict(rules, base=Rules.preset("no_mercy")), seed)
    bots = {2: HeuristicBot(), 3: HeuristicBot()}
    moves: list[tuple[int, str]] = []
    features: dict[str, int] = {}
    forgot = False

    def seen(name: str) -> None:
        features.setdefault(name, len(moves))

    while not match.round_over and len(moves) < 600:
        state = match.state
        seat = state.current_player
        assert seat is not None
        view = player_view(state, seat)
        if seat in bots:
            text = str(bots[seat].choose(view))
        else:
            d = view.to_dict()
            text = person_choice(d)
            # Bob forgets UNO once, when Ann plays next and can catch him in her turn.
            if seat == 1 and not forgot and text.endswith(" uno"):
                probe = state.clone()
                plain = person_choice(d, forget_uno=True)
                probe.apply(Action.parse(plain), 1)
                if probe.current_player == 0 and 1 in probe.uno_open and probe.outcome is None:
                    text, forgot = plain, True
        events = match.apply(Action.parse(text), seat)
        moves.append((seat, text))
        if seat in PEOPLE:
            words = text.split()
            if words[0] == "play" and words[1] in COLOUR_WILDS and len(words) > 2:
                seen("wild colour")
            if words[0] == "color" and view.decision.label == "roulette":
                seen("roulette victim")
            if words[0] == "play" and "@" in text:
                seen("seven target")
            if words[0] == "take":
                seen("stack taken")
            if words[-1] == "uno":
                seen("uno call")
        if any(e.type == "knocked_out" for e in events):
            seen("knock-out")
        if forgot and "catch" not in features and 1 in match.state.uno_open and not match.round_over:
            events = match.apply(Action.parse("catch 1"), 0)
            moves.append((0, "catch 1"))
            seen("catch")
    return WholeRound(seed, rules, moves, features)


def whole_round_plan(rules: dict[str, Any] | None = None, tries: int = 3_000) -> WholeRound:
    """A seed whose round, played as above, has every feature the browser test checks."""
    rules = rules if rules is not None else {"mercy_limit": 18}
    for seed in range(tries):
        game = play_whole_round(seed, rules)
        if set(WHOLE_ROUND_FEATURES) <= set(game.features):
            return game
    raise AssertionError("no seed found")


def big_take_plan(mercy: int = 17) -> Plan:
    """Ann starts with a Wild Draw 10; Bob holds nothing to stack, takes the 10 (a big take)
    and reaches the Mercy limit: knocked out, and Ann wins the round."""
    rules = {"mercy_limit": mercy}
    for seed in range(50_000):
        state = Match(2, Rules(mercy_limit=mercy), seed).state
        if state.current_player != 0:
            continue
        wild = next(
            (a for a in _plays(state) if a.card.code == "W+10" and not a.uno and str(a).endswith(" R")), None
        )
        if wild is None:
            continue
        state.apply(wild, 0)
        if [str(a) for a in state.legal_actions()] != ["take"]:
            continue
        state.apply(state.legal_actions()[0], 1)
        if state.outcome is not None and state.outcome.winner == 0:
            return Plan(seed, rules, ("W+10",))
    raise AssertionError("no seed found")


def seven_plan(players: int = 3) -> Plan:
    """Ann (seat 0) starts and holds a Seven she can play without calling UNO."""
    for seed in range(20_000):
        state = Match(players, Rules(), seed).state
        if state.current_player == 0:
            sevens = [a for a in _plays(state) if a.card.code.endswith("7") and not a.uno]
            if sevens:
                return Plan(seed, {}, (sevens[0].card.code,))
    raise AssertionError("no seed found")
