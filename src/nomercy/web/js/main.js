// nomercy in the browser, booted: the controller (js/ctrl.js) over a WebSocket, the
// page's views (js/screen.js), then the page the address asks for. No build, no framework.
import { $ } from "./dom.js";
import { pickLanguage } from "./i18n.js";
import { api } from "./api.js";
import { createStore, initialState } from "./store.js";
import { browserStorage, createCtrl } from "./ctrl.js";
import { roomURL, webSocketTransport } from "./transport.js";
import { pageUI, setLanguage, show, wireScreen } from "./screen.js";
import { createPrompts } from "./prompts.js";
import { createAnim } from "./anim.js";
import { fillPreset, kickButtonFactory, readmitButtonFactory, renderHome, wireHome } from "./lobby.js";
import { wireGuide } from "./guide.js";
import { wireReplayEntry } from "./replayentry.js";
import { pageFor } from "./pages.js";
import { renderAccountSlot, wireAccountSlot } from "./accountslot.js";
import { setupRated } from "./rated.js";
import { renderMyGames } from "./games.js";

const storage = browserStorage();
const store = createStore(initialState({
  sort: storage.get("sort"), muted: storage.get("muted") === "1",
  lang: pickLanguage(storage.get("lang"), navigator.languages || [navigator.language]),
}));
const holder = {};
// A static site (nomercy site build) names itself, and the server it links to, if any.
const siteMeta = document.querySelector('meta[name="nomercy-site"]');
const site = siteMeta ? { server: siteMeta.content || null } : null;
const SOLO = "SOLO"; // the solo table's room code (js/solo/solo.js)
let solo = null; // js/solo/solo.js, loaded when solo play is first chosen
const ui = pageUI(holder);
const enteredRoom = ui.entered;
ui.entered = (code, saved) => { if (code !== SOLO) enteredRoom(code, saved); };
const ctx = holder.ctx = createCtrl({
  store, storage, api, ui,
  transport: (code) => (code === SOLO ? solo.soloTransport() : webSocketTransport(roomURL(location, code))),
});
ctx.kickButton = kickButtonFactory(ctx);
ctx.readmitButton = readmitButtonFactory(ctx);

/** The replay and its review, loaded when a replay is first opened: the game's first
 *  screen does without them (its page weight is counted: tests/browser/test_browser.py). */
function lazyReplay(ctx) {
  let loaded = null;
  const load = async () => {
    if (!loaded) {
      const { createReplay } = await import("./replay.js");
      loaded = createReplay(ctx);
      loaded.wire();
    }
    return loaded;
  };
  return {
    open: async (id) => (await load()).open(id),
    openFile: async (file) => (await load()).openFile(file),
    openLocal: async (game, blob) => (await load()).openLocal(game, blob),
    refresh: () => { if (loaded) loaded.refresh(); },
  };
}

/** Solo play against the bots, its engine in the page: loaded when its panel is opened. */
async function loadSolo(options) {
  if (!solo) {
    solo = await import("./solo/solo.js");
    solo.wireSolo(ctx, options, site);
  }
  return solo;
}

async function main() {
  const m = location.pathname.match(/^\/join\/([2-9A-HJ-NP-Za-hj-np-z]{6})$/);
  const kept = location.pathname.match(/^\/g\/([A-Za-z0-9_-]{1,64})$/);
  if (m) $("join-code").value = m[1].toUpperCase();
  ctx.prompts = createPrompts(ctx);
  ctx.anim = createAnim(ctx);
  const guide = wireGuide(ctx);
  let options = null;
  wireScreen(ctx, async () => {
    if (options) renderHome(ctx, options);
    if (solo) solo.renderSolo(ctx, options, site);
    if (!$("screen-home").hidden) renderMyGames(ctx);
    if (!site) renderAccountSlot(ctx, true);
    guide.refresh();
  });
  ctx.replay = lazyReplay(ctx);
  wireReplayEntry(ctx);
  const loading = site ? fetch("options.json").then((r) => r.json()) : api("/api/options");
  await setLanguage(ctx, store.get().lang);
  options = await loading;
  if (!site) wireAccountSlot(ctx); // the top bar's "Sign in" or name, a view of store.account
  renderHome(ctx, options);
  fillPreset(options);
  wireHome(ctx, options);
  const panel = $("solo-panel");
  panel.addEventListener("toggle", () => { if (panel.open) loadSolo(options); });
  if (site) {
    document.documentElement.classList.add("site"); // solo only: style.css hides the rest
    panel.open = true;
    const s = await loadSolo(options);
    s.installOffline();
    ctx.replayHere = (file) => s.replayFile(ctx, file); // no server: record files replay in the page
  } else if (storage.get("solo:live")) await loadSolo(options);
  if (!site) setupRated(() => fillPreset(options)); // the "Rated" box, for a signed-in player
  const page = pageFor(location.pathname);
  if (page) {
    show("page");
    await page.open(ctx, page.match, $("page-root"));
    document.documentElement.dataset.ready = "1";
    return;
  }
  if (kept) {
    await ctx.replay.open(kept[1]);
    document.documentElement.dataset.ready = "1";
    return;
  }
  document.documentElement.dataset.ready = "1";
  if (m) {
    const code = m[1].toUpperCase();
    if (ctx.loadJSON(`seat:${code}`)) { ctx.enterRoom(code); return; }
    if (ctx.watchRemoved(code)) return;
    show("home");
    $("join-form").classList.add("invited");
    $("join-nick").focus();
    return;
  }
  show("home");
  renderMyGames(ctx);
  if (location.hash === "#create") $("create-nick").focus();
}

// The tests and the frame-time benchmark read the store (window.nomercy.store.get()).
window.nomercy = { store, ctx };
main().catch((err) => { console.error(err); ctx.toast(String(err)); });
