// The device's own store for solo play (IndexedDB, database "nomercy-solo"): the live table
// (the engine's save(), so a closed tab resumes mid-round) and the finished rounds, each in
// the record format of the server's kept games. The page and the worker both open it.
const NAME = "nomercy-solo";
const VERSION = 1;

function opened() {
  return new Promise((ok, fail) => {
    const req = indexedDB.open(NAME, VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains("table")) db.createObjectStore("table");
      if (!db.objectStoreNames.contains("rounds")) db.createObjectStore("rounds", { keyPath: "id", autoIncrement: true });
    };
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error);
  });
}

let dbp = null;
const db = () => (dbp = dbp || opened());

async function run(store, mode, fn) {
  const d = await db();
  return new Promise((ok, fail) => {
    const tx = d.transaction(store, mode);
    const req = fn(tx.objectStore(store));
    tx.oncomplete = () => ok(req ? req.result : undefined);
    tx.onerror = () => fail(tx.error);
    tx.onabort = () => fail(tx.error);
  });
}

/** The saved table (a string), or null. */
export const loadTable = () => run("table", "readonly", (s) => s.get("live")).then((v) => v ?? null);
export const saveTable = (saved) => run("table", "readwrite", (s) => s.put(saved, "live"));
export const dropTable = () => run("table", "readwrite", (s) => s.delete("live"));

/** A finished round: its record kept as the engine wrote it (a string: JSON numbers in
 *  JavaScript would round the deal's 64-bit seed), with what the list shows beside it. */
export function addRound(record, result) {
  let players = null;
  try { players = JSON.parse(record).players; } catch { /* kept as it came: the replay names what is wrong */ }
  const winner = result && Number.isInteger(result.winner) ? result.winner : null;
  return run("rounds", "readwrite", (s) => s.add({ record, at: Date.now(), players, winner }));
}

/** The kept rounds, newest first. */
export const listRounds = () => run("rounds", "readonly", (s) => s.getAll()).then((all) => all.sort((a, b) => b.at - a.at));
export const dropRound = (id) => run("rounds", "readwrite", (s) => s.delete(id));
