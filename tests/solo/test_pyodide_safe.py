"""``nomercy.solo.worker`` imports and plays a match where Pyodide's Python would leave
it: pydantic, FastAPI, SQLAlchemy, numpy, babel and the native C extension cannot be
imported (a ``sys.meta_path`` blocker in a fresh interpreter). A new import of any of
them by the solo table, the bots or what they use fails here, before a page does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BLOCKED = ("pydantic", "fastapi", "sqlalchemy", "numpy", "babel", "starlette", "uvicorn", "alembic")

SCRIPT = """
import json, sys

BLOCKED = {blocked!r}

class Blocker:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in BLOCKED or name.startswith("nomercy.native._engine"):
            raise ImportError(f"{{name}} is not in the page")
        return None

sys.meta_path.insert(0, Blocker())
from nomercy.solo import worker

config = {{"name": "Ada", "bots": {bots!r}, "mode": "match", "seed": 9,
          "delays": {{"bot_delay": 0, "reaction_delay": 0, "between_rounds": 0}}}}
assert json.loads(worker.start(json.dumps(config)))[0]["type"] == "welcome"
rounds = 0
while True:
    if worker.due() >= 0:
        worker.advance()
        continue
    table = worker._table[0]
    if table.finished:
        break
    choices = table.state_message([])["decisions"]["choices"]
    move = {{"type": "action", "action": choices[-1]["action"], "version": table.version}}
    answer = json.loads(worker.receive(json.dumps(move)))
    assert answer[0]["type"] != "error", answer
kept = json.loads(worker.kept())
replayed = json.loads(worker.replay(json.dumps(kept[0])))
hint_table = json.loads(worker.start(json.dumps({{**config, "mode": "round"}})))
while worker.due() >= 0:
    worker.advance()
hint = json.loads(worker.receive('{{"type": "hint"}}'))
loaded = sorted(set(sys.modules) & {{m for m in sys.modules if m.partition(".")[0] in BLOCKED}})
print(json.dumps({{"rounds": len(kept), "frames": len(replayed["frames"]), "hint": hint[0]["type"],
                  "blocked_loaded": loaded,
                  "native": any(m.startswith("nomercy.native._engine") for m in sys.modules)}}))
"""


def test_the_worker_plays_a_match_without_what_the_page_lacks(tmp_path: Path) -> None:
    bots = ["random", "careful", "beginner", "strong", "expert"]
    script = SCRIPT.format(blocked=BLOCKED, bots=bots)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["rounds"] >= 1 and result["frames"] > 1
    assert result["hint"] == "hint"
    assert result["blocked_loaded"] == [] and result["native"] is False
