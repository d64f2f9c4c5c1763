"""Write the golden games: seeded random games with their full action and event logs.

Run from the repository root after a change of behaviour that you mean::

    .venv/bin/python tests/golden/regenerate.py          # rewrite tests/golden/*.json
    .venv/bin/python tests/golden/regenerate.py --check  # exit 1 if any file would change

then read the diff and explain it in the commit message. ``tests/golden/test_golden.py``
replays every file and asserts the identical logs and final state.

Each choice is ``rng.choice(sorted(candidates, key=str))``, so the games do not depend
on the order in which ``legal_actions()`` lists the actions, only on which are legal.
Out-of-turn catches and late Uno calls (U1-U3) are injected the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomercy import Action, Rules, new_game
from nomercy.engine import GameState, started_event

HERE = Path(__file__).resolve().parent
FORMAT = "nomercy.golden"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    rules: Rules
    players: int
    seed: int


#: Seeds picked so that, together, the games show every kind of event.
SPECS = (
    Spec("no_mercy_2p", "no_mercy preset, 2 players", Rules(), 2, 229),
    Spec("no_mercy_4p", "no_mercy preset, 4 players", Rules(), 4, 64),
    Spec("classic_2p", "classic preset, 2 players", Rules.preset("classic"), 2, 47),
    Spec(
        "house_rules_3p",
        "no_mercy with many house rules changed, 3 players",
        Rules(
            stack_color="match",
            draw10_stackable=False,
            draw_when_playable=True,
            must_play_drawn=False,
            roulette_color="revealed",
            knockout_hand="discard_bottom",
            knockout_bonus_to="knocker",
            last_card_draw="apply",
            first_card="apply",
            uno_penalty=4,
            mercy_limit=15,
            hand_size=5,
        ),
        3,
        51,
    ),
)

CATCH_RATE = 0.5  # chance that a seat acts out of turn while someone is open to a catch


def choose(state: GameState, rng: random.Random) -> tuple[int, Action]:
    """The next (seat, action): the deciding seat's, or now and then an out-of-turn one."""
    cur = state.current_player
    assert cur is not None
    if state.uno_open and rng.random() < CATCH_RATE:
        others = [(s, a) for s in range(state.players) if s != cur for a in state.legal_actions(s)]
        if others:
            return rng.choice(sorted(others, key=lambda sa: (sa[0], str(sa[1]))))
    return cur, rng.choice(sorted(state.legal_actions(), key=str))


def play(spec: Spec) -> dict[str, Any]:
    """Play the game of ``spec``; its header, steps and final state as JSON-ready data."""
    state = new_game(spec.players, spec.rules, spec.seed)
    rng = random.Random(spec.seed)
    started = started_event(state).to_dict()
    steps: list[dict[str, Any]] = []
    while not state.is_over:
        seat, action = choose(state, rng)
        events = state.apply(action, seat)
        steps.append({"seat": seat, "action": str(action), "events": [e.to_dict() for e in events]})
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": spec.name,
        "description": spec.description,
        "rules": spec.rules.to_dict(only_changes=True),
        "players": spec.players,
        "seed": spec.seed,
        "dealer": state.dealer,
        "started": started,
        "steps": steps,
        "final_state": state.to_dict(),
    }


def render(game: dict[str, Any]) -> str:
    """JSON with one step per line, so that a change of behaviour diffs step by step."""
    lines = ["{"]
    for key, value in game.items():
        if key == "steps":
            body = ",\n".join("    " + json.dumps(step) for step in value)
            lines.append(f'  "steps": [\n{body}\n  ],')
        elif key == "final_state":
            inner = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f'  "final_state": {{\n{inner}\n  }}')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def path_of(spec: Spec) -> Path:
    return HERE / f"{spec.name}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files that would change")
    args = parser.parse_args(argv)
    changed = []
    for spec in SPECS:
        text = render(play(spec))
        path = path_of(spec)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            changed.append(path.name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    verb = "would change" if args.check else "rewritten"
    print(f"{verb}: {', '.join(changed)}" if changed else "golden games unchanged")
    return 1 if (changed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
