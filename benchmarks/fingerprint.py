"""A behaviour fingerprint of the engine, to prove a speed-up changes nothing.

Plays seeded random games for several presets, player counts and house-rule mixes and
hashes, at every step, the state's JSON, the deciding seat's legal actions (in order),
the out-of-turn actions of every other seat, the events of the applied action and the
error types of a few refused actions (not their wording, which is edited for
clarity independently of behaviour). Run it before and after an optimisation: the
digests must be identical.

    .venv/bin/python benchmarks/fingerprint.py [--games 300]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time

import nomercy
from nomercy import Action, NoMercyError, Rules

#: (label, rules, player counts). The mixes reach the less common code paths.
CASES: list[tuple[str, Rules, tuple[int, ...]]] = [
    ("no_mercy", Rules(), (2, 3, 4, 6)),
    ("classic", Rules.preset("classic"), (2, 4)),
    (
        "mix_a",
        Rules(
            stack_color="match",
            draw10_stackable=False,
            two_player_reverse_draw="opponent",
            roulette_color="revealed",
            knockout_hand="discard_bottom",
            knockout_bonus_to="knocker",
            last_card_draw="apply",
            first_card="apply",
        ),
        (2, 5),
    ),
    (
        "mix_b",
        Rules(draw_when_playable=True, must_play_drawn=False, draw_rule="one", mercy_limit=15),
        (3, 4),
    ),
    (
        "mix_c",
        Rules.preset("classic").replace(
            wild_draw4_challenge=False,
            wild_draw4_restricted=True,
            first_card="apply",
            must_play_drawn=True,
            last_card_draw="apply",
        ),
        (2, 3),
    ),
]
if "rlcard" in nomercy.PRESETS:
    CASES.append(("rlcard", Rules.preset("rlcard"), (2, 3)))

#: Actions tried on every state to fingerprint the refusals too.
_PROBES = [Action.parse(t) for t in ("draw", "take", "pass", "color R", "play R7", "play W+6 B", "catch 1")]


def _feed(h: hashlib._Hash, text: str) -> None:
    h.update(text.encode())
    h.update(b"\n")


def fingerprint_game(rules: Rules, players: int, seed: int, h: hashlib._Hash) -> int:
    """Play one seeded random game into ``h``; return its number of steps."""
    rng = random.Random(seed)
    state = nomercy.new_game(players=players, rules=rules, seed=seed)
    steps = 0
    while not state.is_over:
        _feed(h, state.to_json())
        legal = state.legal_actions()
        _feed(h, "|".join(str(a) for a in legal))
        others = [s for s in range(players) if s != state.current_player]
        for seat in others:
            _feed(h, f"{seat}:" + "|".join(str(a) for a in state.legal_actions(seat)))
        if steps % 7 == 0:  # refusals: same message, state unchanged
            probe = rng.choice(_PROBES)
            if probe not in legal:
                before = state.to_json()
                try:
                    state.apply(probe)
                except NoMercyError as exc:
                    _feed(h, f"refused {probe}: {type(exc).__name__}")  # messages get reworded
                assert state.to_json() == before
        seat = None
        if state.uno_open and rng.random() < 0.3:  # an out-of-turn catch or call
            seat = rng.choice(others)
            outside = state.legal_actions(seat)
            action = rng.choice(outside) if outside else rng.choice(legal)
            if not outside:
                seat = None
        else:
            action = rng.choice(legal)
        events = state.apply(action, seat)
        _feed(h, f"{seat} {action}: " + repr([e.to_dict() for e in events]))
        steps += 1
    _feed(h, state.to_json())
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per case and player count")
    args = parser.parse_args()
    total = hashlib.sha256()
    start = time.perf_counter()
    for label, rules, counts in CASES:
        for players in counts:
            h = hashlib.sha256()
            steps = sum(fingerprint_game(rules, players, seed, h) for seed in range(args.games))
            digest = h.hexdigest()
            total.update(digest.encode())
            print(f"{label:9} {players}p  {steps:8} steps  {digest[:16]}")
    print(f"overall   {total.hexdigest()}  ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
