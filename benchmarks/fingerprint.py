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
from nomercy import Action, GameState
from nomercy.testing import RULE_MIXES, check_refusal, random_steps

#: (label, rules, player counts). The mixes (nomercy.testing.RULE_MIXES) reach the less
#: common code paths.
CASES: list[tuple[str, nomercy.Rules, tuple[int, ...]]] = [
    ("no_mercy", RULE_MIXES["no_mercy"], (2, 3, 4, 6)),
    ("classic", RULE_MIXES["classic"], (2, 4)),
    ("mix_a", RULE_MIXES["mix_a"], (2, 5)),
    ("mix_b", RULE_MIXES["mix_b"], (3, 4)),
    ("mix_c", RULE_MIXES["mix_c"], (2, 3)),
]
if "rlcard" in nomercy.PRESETS:
    CASES.append(("rlcard", nomercy.Rules.preset("rlcard"), (2, 3)))

#: Actions tried on every seventh state to fingerprint the refusals too.
_PROBES = [Action.parse(t) for t in ("draw", "take", "pass", "color R", "play R7", "play W+6 B", "catch 1")]


def _feed(h: hashlib._Hash, text: str) -> None:
    h.update(text.encode())
    h.update(b"\n")


class _Fingerprinter:
    """The random policy of the fingerprint; it hashes each state before choosing.

    Its choices are pinned by the recorded digests: the deciding seat's (``seat=None``),
    or with probability 0.3, while someone is open to a catch, a random other seat's
    out-of-turn action when it has one.
    """

    def __init__(self, h: hashlib._Hash) -> None:
        self.h = h
        self.steps = 0

    def __call__(self, state: GameState, rng: random.Random) -> tuple[int | None, Action]:
        h = self.h
        _feed(h, state.to_json())
        legal = state.legal_actions()
        _feed(h, "|".join(str(a) for a in legal))
        others = [s for s in range(state.players) if s != state.current_player]
        for seat in others:
            _feed(h, f"{seat}:" + "|".join(str(a) for a in state.legal_actions(seat)))
        if self.steps % 7 == 0:  # refusals: an IllegalAction, the state unchanged
            probe = rng.choice(_PROBES)
            if probe not in legal:
                refusal = check_refusal(state, probe)
                _feed(h, f"refused {probe}: {type(refusal).__name__}")  # messages get reworded
        self.steps += 1
        if state.uno_open and rng.random() < 0.3:  # an out-of-turn catch or call
            seat = rng.choice(others)
            outside = state.legal_actions(seat)
            if outside:
                return seat, rng.choice(outside)
        return None, rng.choice(legal)


def fingerprint_game(rules: nomercy.Rules, players: int, seed: int, h: hashlib._Hash) -> int:
    """Play one seeded random game into ``h``; return its number of steps."""
    state = nomercy.new_game(players=players, rules=rules, seed=seed)
    steps = 0
    for step in random_steps(state, random.Random(seed), _Fingerprinter(h)):
        _feed(h, f"{step.seat} {step.action}: " + repr([e.to_dict() for e in step.events]))
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
