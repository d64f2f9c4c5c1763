// Plays a solo match in real Pyodide under Node, as the page's worker does: load Pyodide's
// core files from a folder, unpack the engine's zip, import nomercy.solo.worker, then play
// (the bots through due()/advance(), the person through receive()). Prints one JSON line.
// Usage: node pyodide_round.mjs PYODIDE_DIR ENGINE_ZIP BOTS_JSON
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pyodideDir, zipPath, botsJson] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const began = performance.now();
const py = await loadPyodide({ indexURL: pyodideDir + path.sep, fullStdLib: false });
py.unpackArchive(new Uint8Array(readFileSync(zipPath)), "zip", { extractDir: "/lib/nomercy-engine" });
py.runPython("import sys\nsys.path.insert(0, '/lib/nomercy-engine')");
const worker = py.pyimport("nomercy.solo.worker");
const loaded = performance.now();
const config = { name: "Ada", bots: JSON.parse(botsJson), mode: "match", seed: 12,
  delays: { bot_delay: 0, reaction_delay: 0, between_rounds: 0 } };
let messages = JSON.parse(worker.start(JSON.stringify(config)));
const first = messages.map((m) => m.type);
let state = messages.find((m) => m.type === "state");
let room = messages.find((m) => m.type === "welcome").room;
let moves = 0;
const decisions = [];
for (let guard = 0; guard < 20000 && room.status !== "finished"; guard += 1) {
  if (worker.due() >= 0) {
    const t0 = performance.now();
    messages = JSON.parse(worker.advance());
    decisions.push(performance.now() - t0);
  } else {
    const choices = state.decisions.choices.filter((c) => c.kind !== "uno" && c.kind !== "catch");
    const pick = (choices.length ? choices : state.decisions.choices)[0];
    messages = JSON.parse(worker.receive(JSON.stringify({ type: "action", action: pick.action, version: state.version })));
    moves += 1;
  }
  for (const m of messages) {
    if (m.type === "error") throw new Error(JSON.stringify(m));
    if (m.type === "state") state = m;
    if (m.type === "room") room = m.room;
  }
}
// Each record as Python's JSON text: JavaScript's numbers would round a 63-bit seed.
const texts = py.runPython("import json\ndef _texts(text):\n    return json.dumps([json.dumps(r) for r in json.loads(text)])\n_texts");
const kept = JSON.parse(texts(worker.kept()));
const replayed = JSON.parse(worker.replay(kept[kept.length - 1]));
if (!replayed.frames) throw new Error(JSON.stringify(replayed).slice(0, 2000));
decisions.sort((a, b) => a - b);
console.log(JSON.stringify({
  first, status: room.status, scores: room.scores, rounds_played: room.rounds, records: kept, winner: room.match_winner, rounds: kept.length,
  moves, frames: replayed.frames.length, result: replayed.result, version: py.version,
  load_ms: Math.round(loaded - began),
  advance_ms_median: decisions[Math.floor(decisions.length / 2)],
  advance_ms_p99: decisions[Math.floor(decisions.length * 0.99)],
  moves_log: replayed.record.actions.length,
}));
