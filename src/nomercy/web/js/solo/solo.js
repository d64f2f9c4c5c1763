// Play against the bots with no server: the solo panel of the first screen (how many bots,
// each one's level or character, the rules' preset, a round or a match), the engine's Web
// Worker (js/solo/worker.js, loaded only when solo play is chosen, with its progress), and
// the rounds kept on this device (IndexedDB: replay here, download, open on a server).
// The table itself is the online one: the controller talks to the worker through
// workerTransport, as it talks to a server through a WebSocket.
import { $, el, button, clear } from "../dom.js";
import { workerTransport } from "./transport.js";
import { dropTable, listRounds, loadTable } from "./db.js";

export const SOLO = "SOLO"; // the solo table's room code: never a server's (six letters)
const MAX_BOTS = 5;
const LIVE = "solo:live"; // localStorage: this browser has played solo (main.js loads us then)

// What the engine is doing, step by step (the worker's progress: 0..3).
const LOADING = ["solo.loading.python", "solo.loading.engine", "solo.loading.start", "solo.loading.deal"];

let worker = null;
let booted = null;
const listeners = new Set();

function engine() {
  if (!worker) {
    worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    worker.onmessage = (e) => { for (const fn of [...listeners]) fn(e.data); };
  }
  return worker;
}

function listen(fn) { listeners.add(fn); return () => listeners.delete(fn); }

/** The worker's side of the table, for workerTransport. */
export const port = {
  post: (msg) => engine().postMessage({ op: "send", msg }),
  listen: (fn) => listen((m) => { if (m.op === "msg") fn(m.msg); }),
};

export const soloTransport = () => workerTransport(port);

/** Load Python and the engine once, showing each step; resolves when the engine answers. */
function boot(ctx) {
  if (booted) return booted;
  const box = $("solo-loading");
  const bar = $("solo-progress");
  box.hidden = false;
  $("solo-loading-text").textContent = ctx.t(LOADING[0]);
  booted = new Promise((ok, fail) => {
    const stop = listen((m) => {
      if (m.op === "progress") {
        bar.max = m.of;
        bar.value = m.step;
        $("solo-loading-text").textContent = ctx.t(LOADING[Math.min(m.step, LOADING.length - 1)]);
      } else if (m.op === "ready") { stop(); box.hidden = true; ok(); } else if (m.op === "failed") {
        stop();
        booted = null;
        $("solo-loading-text").textContent = ctx.t("solo.loading.failed");
        fail(new Error(m.error));
      }
    });
  });
  engine().postMessage({ op: "boot" });
  return booted;
}

/** The service worker that keeps the app, the engine and Pyodide for offline play. */
export function installOffline() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(new URL("../../../sw.js", import.meta.url).href).catch((err) => console.warn("offline app not installed", err));
}

function levelSelect(ctx, opts, i, keep) {
  const characters = opts.characters || {};
  const id = `solo-bot-${i}`;
  const label = el("label", "solo-level");
  label.htmlFor = id;
  label.append(el("span", "", ctx.t("solo.bot_n", { number: i + 1 })));
  const pick = el("select");
  pick.id = id;
  pick.dataset.bot = String(i);
  const levels = el("optgroup");
  levels.label = ctx.t("solo.levels");
  for (const b of opts.bots.filter((name) => !(name in characters) && name !== "learned")) {
    levels.appendChild(new Option(ctx.i18n.has(`rating.level.${b}`) ? ctx.t(`rating.level.${b}`) : ctx.t(`bot.${b}`), b));
  }
  const chars = el("optgroup");
  chars.label = ctx.t("solo.characters");
  for (const name of Object.keys(characters)) chars.appendChild(new Option(ctx.t(`character.${name}`), name));
  pick.append(levels, chars);
  pick.value = keep && [...pick.options].some((o) => o.value === keep) ? keep : (opts.bots.includes("casual") ? "casual" : opts.bots[0]);
  label.append(pick);
  return label;
}

function renderLevels(ctx, opts) {
  const box = $("solo-levels");
  const keep = [...box.querySelectorAll("select")].map((s) => s.value);
  clear(box);
  const n = Number($("solo-bots").value);
  for (let i = 0; i < n; i++) box.appendChild(levelSelect(ctx, opts, i, keep[i] || keep[keep.length - 1]));
}

function option(value, text, selected = false) { const o = new Option(text, value); o.selected = selected; return o; }

function renderForm(ctx, opts) {
  const root = clear($("solo-root"));
  const form = el("form", "solo-form");
  form.id = "solo-form";
  form.autocomplete = "off";
  const note = el("p", "note", ctx.t("solo.lead"));
  const nick = el("input");
  nick.id = "solo-nick";
  nick.maxLength = 24;
  nick.value = ctx.storage.get("nickname") || "";
  const nickLabel = el("label", "", "");
  nickLabel.append(el("span", "", ctx.t("home.nickname")), " ", nick);
  const grid = el("div", "grid2");
  const bots = el("select");
  bots.id = "solo-bots";
  for (let n = 1; n <= MAX_BOTS; n++) bots.add(option(String(n), ctx.i18n.number(n), n === 3));
  const preset = el("select");
  preset.id = "solo-preset";
  const presets = Object.keys(opts.presets);
  const first = presets.includes("no_mercy") ? "no_mercy" : presets[0]; // the game's own rules first
  for (const name of presets) preset.add(option(name, ctx.t(`preset.${name}.name`), name === first));
  const mode = el("select");
  mode.id = "solo-mode";
  mode.add(option("round", ctx.t("home.mode.round")));
  mode.add(option("match", ctx.t("home.mode.match")));
  const field = (key, input) => { const l = el("label"); l.append(el("span", "", ctx.t(key)), " ", input); return l; };
  grid.append(field("home.bots", bots), field("home.rules", preset), field("home.mode", mode));
  const levels = el("div", "solo-levels grid2");
  levels.id = "solo-levels";
  const go = el("button", "primary big", ctx.t("solo.start"));
  go.type = "submit";
  go.id = "solo-start";
  const resume = button("big", ctx.t("solo.resume"), () => resumeGame(ctx));
  resume.id = "solo-resume";
  resume.hidden = true;
  const loading = el("div", "solo-loading");
  loading.id = "solo-loading";
  loading.hidden = true;
  loading.setAttribute("role", "status");
  const bar = el("progress");
  bar.id = "solo-progress";
  bar.max = 3;
  bar.value = 0;
  bar.setAttribute("aria-labelledby", "solo-loading-text");
  const text = el("span", "note");
  text.id = "solo-loading-text";
  loading.append(bar, " ", text);
  form.append(note, nickLabel, grid, levels, loading, el("div", "row solo-go"));
  form.lastChild.append(go, resume);
  bots.addEventListener("change", () => renderLevels(ctx, opts));
  form.addEventListener("submit", (e) => { e.preventDefault(); startGame(ctx); });
  root.appendChild(form);
  renderLevels(ctx, opts);
  const kept = el("section", "solo-kept");
  kept.setAttribute("aria-labelledby", "solo-kept-title");
  const h = el("h3", "small-head", ctx.t("solo.kept.title"));
  h.id = "solo-kept-title";
  const empty = el("p", "note", ctx.t("solo.kept.none"));
  empty.id = "solo-kept-empty";
  const list = el("ol", "games-list");
  list.id = "solo-kept-list";
  kept.append(h, empty, list);
  root.appendChild(kept);
}

async function startGame(ctx) {
  const name = $("solo-nick").value.trim() || ctx.t("solo.you");
  if ($("solo-nick").value.trim()) ctx.storage.set("nickname", name);
  const config = {
    name, lang: ctx.i18n.lang,
    bots: [...$("solo-levels").querySelectorAll("select")].map((s) => s.value),
    preset: $("solo-preset").value, rules: {}, mode: $("solo-mode").value,
    seed: crypto.getRandomValues(new Uint32Array(1))[0] & 0x7fffffff,
  };
  // The tests and benchmarks pace the bots and shorten a match (as the server's settings
  // do for them): {"delays": {...}, "rules": {...}} under this key.
  try {
    const extra = JSON.parse(ctx.storage.get("solo:overrides") || "{}");
    if (extra.delays) config.delays = extra.delays;
    if (extra.rules) config.rules = extra.rules;
  } catch { /* none */ }
  $("solo-start").disabled = true;
  try {
    await boot(ctx);
  } catch (err) { $("solo-start").disabled = false; ctx.toast(ctx.t("solo.loading.failed")); console.error(err); return; }
  $("solo-start").disabled = false;
  ctx.storage.set(LIVE, "1");
  installOffline(); // from now on, this page's solo game plays with the network off too
  engine().postMessage({ op: "new", config });
  ctx.enterRoom(SOLO);
}

async function resumeGame(ctx) {
  try { await boot(ctx); } catch { ctx.toast(ctx.t("solo.loading.failed")); return; }
  ctx.enterRoom(SOLO);
}

function download(text, name) {
  const a = el("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

let replays = 0;

/** A kept round in the table's replay view: its frames from the engine in the page. */
async function replayRound(ctx, round) {
  try { await boot(ctx); } catch { ctx.toast(ctx.t("solo.loading.failed")); return; }
  const id = ++replays;
  const game = await new Promise((ok) => {
    const stop = listen((m) => { if (m.op === "replayed" && m.id === id) { stop(); ok(m); } });
    engine().postMessage({ op: "replay", id, record: round.record });
  });
  if (game.error || game.game.detail) { ctx.toast(ctx.t("error.bad_record")); return; }
  await ctx.replay.openLocal(game.game, new Blob([round.record], { type: "application/json" }));
}

/** A record file replayed by the engine in the page, answered as the server's replay route
 *  answers (its refusal too: {detail: {code, step, ...}}). */
export async function replayFile(ctx, file) {
  await boot(ctx);
  const text = await file.text();
  const id = ++replays;
  const got = await new Promise((ok) => {
    const stop = listen((m) => { if (m.op === "replayed" && m.id === id) { stop(); ok(m); } });
    engine().postMessage({ op: "replay", id, record: text });
  });
  const detail = got.error ? { code: "bad_record", step: "load" } : got.game.detail;
  if (detail) throw Object.assign(new Error(detail.message || "refused"), { code: detail.code, status: 400, detail });
  return got.game;
}

/** The rounds kept on this device, newest first, each with its replay, its file, and (where
 *  a server is at hand) the server's replay and review. */
export async function renderKept(ctx, site) {
  const list = $("solo-kept-list");
  if (!list) return;
  let rounds = [];
  try { rounds = await listRounds(); } catch { rounds = []; }
  clear(list);
  $("solo-kept-empty").hidden = rounds.length > 0;
  const fmt = new Intl.DateTimeFormat(ctx.i18n.lang === "nb" ? "nb-NO" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
  for (const r of rounds.slice(0, 50)) {
    const li = el("li", "game-row solo-round");
    const won = r.winner === 0; // the person sits at seat 0 of a solo table
    const title = ctx.t("solo.kept.row", { count: Math.max(1, (r.players || 2) - 1) });
    li.append(el("span", "", title), el("span", `result${won ? " won" : ""}`, ctx.t(won ? "solo.kept.won" : "solo.kept.lost")), el("span", "when note", fmt.format(new Date(r.at))));
    const tools = el("span", "row solo-round-tools");
    tools.append(
      button("small", ctx.t("solo.kept.replay"), () => replayRound(ctx, r)),
      button("small", ctx.t("solo.kept.download"), () => download(r.record, `nomercy-solo-${r.id}.json`)),
    );
    // Online, this page's own server replays and reviews the file; a static site links to
    // the server it names (docs/offline.md), where the downloaded file can be opened.
    if (!site) tools.append(button("small", ctx.t("solo.kept.upload"), () => ctx.replay.openFile(new File([r.record], `nomercy-solo-${r.id}.json`, { type: "application/json" }))));
    li.append(tools);
    list.appendChild(li);
  }
  if (site && site.server && rounds.length) {
    const li = el("li", "note");
    const a = el("a", "", ctx.t("solo.kept.server"));
    a.href = site.server;
    li.appendChild(a);
    list.appendChild(li);
  }
}

async function showResume() {
  let saved = null;
  try { saved = await loadTable(); } catch { saved = null; }
  $("solo-resume").hidden = !saved;
}

/** The panel, drawn (again: a change of language draws it anew) from the server's options. */
export function renderSolo(ctx, opts, site) {
  renderForm(ctx, opts);
  showResume();
  renderKept(ctx, site);
}

/** The solo table ended on this device (the player left it): nothing to resume. */
export async function forget() {
  if (worker) engine().postMessage({ op: "forget" });
  else await dropTable();
}

/** Wired once: the kept list follows the worker's news. */
export function wireSolo(ctx, opts, site) {
  listen((m) => { if (m.op === "kept") renderKept(ctx, site); });
  const css = el("link");
  css.rel = "stylesheet";
  css.href = new URL("./solo.css", import.meta.url).href;
  document.head.appendChild(css);
  renderSolo(ctx, opts, site);
}
