"""Write the golden games: seeded random games with their full action and event logs.

Run from the repository root after a change of behaviour that you mean::

    .venv/bin/python tests/golden/regenerate.py          # rewrite tests/golden/*.json
    .venv/bin/python tests/golden/regenerate.py --check  # exit 1 if any file would change

then read the diff and explain it in the commit message. ``tests/golden/test_golden.py``
replays every file and asserts the identical logs and final state.

The games are played by :class:`nomercy.testing.RandomPlayer` with ``canonical=True``:
each choice is ``rng.choice`` among the candidates sorted by text, so the games do not
depend on the order in which ``legal_actions()`` lists the actions, only on which are
legal. Out-of-turn catches and late Uno calls (U1-U3) are injected the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomercy import Rules, new_game
from nomercy.engine import started_event
from nomercy.testing import RULE_MIXES, RandomPlayer, random_steps

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
    Spec("no_mercy_2p", "no_mercy preset, 2 players", RULE_MIXES["no_mercy"], 2, 229),
    Spec("no_mercy_4p", "no_mercy preset, 4 players", RULE_MIXES["no_mercy"], 4, 64),
    Spec("classic_2p", "classic preset, 2 players", RULE_MIXES["classic"], 2, 47),
    Spec(
        "house_rules_3p",
        "no_mercy with many house rules changed, 3 players",
        RULE_MIXES["golden_house_rules"],
        3,
        51,
    ),
)

#: The deciding seat's choice, or with probability 0.5, while someone is open to a catch,
#: an out-of-turn one; among the actions sorted by text (see the module docstring). A
#: draw stays as likely as any other choice under draw_when_playable (keep_playing=0), as
#: when these games were first written.
CHOOSE = RandomPlayer(catch_rate=0.5, canonical=True, keep_playing=0.0)


def play(spec: Spec) -> dict[str, Any]:
    """Play the game of ``spec``; its header, steps and final state as JSON-ready data."""
    state = new_game(spec.players, spec.rules, spec.seed)
    started = started_event(state).to_dict()
    steps = [
        {"seat": step.actor, "action": str(step.action), "events": [e.to_dict() for e in step.events]}
        for step in random_steps(state, random.Random(spec.seed), CHOOSE)
    ]
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
