// The solo table, in a module Web Worker: nomercy's own Python engine (nomercy.solo.worker,
// the same rules, bots and words as the server's) in Pyodide, loaded from this site's own
// files. It speaks the server's protocol (docs/protocol.md) to the page's workerTransport,
// runs the bots' clock with due()/advance(), and saves the table to IndexedDB after every
// change, so a tab closed mid-round resumes where it was. The page posts
//   {op: "boot"}                  load Python and the engine (answers progress, then ready)
//   {op: "new", config}           the next hello starts this table (config: docs/offline.md)
//   {op: "send", msg}             a client message (hello, action, ping, hint, rematch, ...)
//   {op: "replay", id, record}    the frames of a kept round, for the replay view
//   {op: "forget"}                the player left the table: nothing to resume
// and hears {op: "progress", step, of}, {op: "ready"}, {op: "failed", error},
// {op: "msg", msg} (a server message) and {op: "replayed", id, game | error}.
import { addRound, dropTable, loadTable, saveTable } from "./db.js";

const ROOT = new URL("../../../", import.meta.url); // static/js/solo/ -> the site's root
const ENGINE_DIR = "/lib/nomercy-engine";
const STEPS = 3;

let engine = null; // nomercy.solo.worker, once loaded
let records = null; // kept() -> each record as its own JSON text (Python's, seeds exact)
let booting = null;
let live = false; // a table is in the engine
let pending = null; // the config the next hello starts
let timer = null;
let chain = Promise.resolve(); // the saves, one after another

const post = (obj) => self.postMessage(obj);
const progress = (step) => post({ op: "progress", step, of: STEPS });

async function boot() {
  progress(0);
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", ROOT).href);
  const py = await loadPyodide({ indexURL: new URL("pyodide/", ROOT).href, fullStdLib: false });
  progress(1);
  const res = await fetch(new URL("engine/nomercy.zip", ROOT));
  if (!res.ok) throw new Error(`engine/nomercy.zip: ${res.status}`);
  py.unpackArchive(new Uint8Array(await res.arrayBuffer()), "zip", { extractDir: ENGINE_DIR });
  progress(2);
  py.runPython(`import sys\nif ${JSON.stringify(ENGINE_DIR)} not in sys.path: sys.path.insert(0, ${JSON.stringify(ENGINE_DIR)})`);
  engine = py.pyimport("nomercy.solo.worker");
  // The records as Python wrote them: parsed here, a 64-bit seed would lose its low bits.
  records = py.runPython("import json\ndef _records(text):\n    return json.dumps([json.dumps(r, separators=(',', ':')) for r in json.loads(text)])\n_records");
  progress(3);
}

/** A call into the engine: its JSON answer, parsed. */
function call(name, ...args) { return JSON.parse(engine[name](...args)); }

function emit(msgs) { for (const m of msgs || []) post({ op: "msg", msg: m }); }

/** After every change: the table saved, its finished rounds kept, the clock set again. */
function changed() {
  if (!live) return;
  const saved = engine.save();
  const kept = JSON.parse(records(engine.kept()));
  chain = chain.then(async () => {
    await saveTable(saved);
    for (const r of kept) await addRound(r, resultOf(r));
    if (kept.length) post({ op: "kept", count: kept.length });
  }).catch((err) => console.error("solo: not saved", err));
  schedule();
}

function schedule() {
  clearTimeout(timer);
  timer = null;
  if (!live) return;
  const due = engine.due();
  if (due < 0) return;
  timer = setTimeout(() => {
    timer = null;
    try { emit(call("advance")); } catch (err) { failed(err); return; }
    changed();
  }, Math.max(0, due * 1000));
}

function failed(err) {
  console.error(err);
  emit([{ type: "error", code: "other", message: String(err && err.message ? err.message : err).slice(0, 500) }]);
}

/** A kept round's result (its winner, for the list): the engine replays its record. */
function resultOf(record) {
  try { return call("replay", record).result || null; } catch { return null; }
}

const refused = (msgs) => msgs.length > 0 && msgs[0].type === "error";

async function hello() {
  let msgs;
  if (pending) {
    const config = pending;
    pending = null;
    msgs = call("start", JSON.stringify(config));
  } else if (live) {
    msgs = call("load", engine.save());
  } else {
    const saved = await loadTable();
    if (!saved) { emit([{ type: "error", code: "not_found", message: "no table on this device" }]); return; }
    try { msgs = call("load", saved); } catch (err) { msgs = [{ type: "error", code: "not_found", message: String(err).slice(0, 200) }]; }
    // A table saved by an engine that this one cannot continue is ended, with a word.
    if (refused(msgs)) await dropTable();
  }
  live = !refused(msgs);
  emit(msgs);
  changed();
}

async function receive(msg) {
  if (!engine) return;
  try {
    if (msg.type === "hello") { await hello(); return; }
    if (!live) { emit([{ type: "error", code: "not_found", message: "no table" }]); return; }
    emit(call("receive", JSON.stringify(msg)));
  } catch (err) { failed(err); return; }
  changed();
}

const ready = () => (booting = booting || boot());

async function handle(m) {
  try {
    if (m.op === "boot") {
      await ready();
      post({ op: "ready" });
    } else if (m.op === "new") {
      pending = m.config;
      live = false;
      clearTimeout(timer);
    } else if (m.op === "send") {
      await ready();
      await receive(m.msg);
    } else if (m.op === "forget") {
      live = false;
      pending = null;
      clearTimeout(timer);
      await chain;
      await dropTable();
    } else if (m.op === "replay") {
      await ready();
      try { post({ op: "replayed", id: m.id, game: call("replay", m.record) }); } catch (err) { post({ op: "replayed", id: m.id, error: String(err).slice(0, 500) }); }
    }
  } catch (err) {
    console.error(err);
    booting = m.op === "boot" ? null : booting; // a failed load may be tried again
    post({ op: "failed", error: String(err && err.message ? err.message : err).slice(0, 500) });
  }
}

// One message at a time, in order: a hello that reads the saved table finishes before the
// action that follows it.
let queue = Promise.resolve();
self.onmessage = (e) => { const m = e.data || {}; queue = queue.then(() => handle(m)); };
