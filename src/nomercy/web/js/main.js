// nomercy in the browser: the entry point. It holds the store, the language, the socket
// and the handlers of the server's messages (docs/protocol.md), and asks the view modules
// to draw. No build step, no framework, no assets from elsewhere.
import { $, el } from "./dom.js";
import { LANGUAGES, createI18n, loadMessages, pickLanguage } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { openSocket } from "./socket.js";
import { addChat, applyState, choiceOf, choices, createStore, initialState } from "./store.js";
import { renderTable, updateClock, renderScores } from "./table.js";
import { renderButtons, renderHand, nextSort } from "./hand.js";
import { createPrompts } from "./prompts.js";
import { renderEnd } from "./end.js";
import { createAnim } from "./anim.js";
import { play as playSound, soundFor } from "./sound.js";
import { wireKeyboard } from "./keyboard.js";
import { renderChat, renderReactions, bubble } from "./chat.js";
import { renderLog } from "./log.js";
import { collectRules, fillCharacters, fillPreset, kickButtonFactory, nicknameProblem, readmitButtonFactory, renderHome, renderLobby, updateBots, updateSeats } from "./lobby.js";
import { wireGuide } from "./guide.js";
import { createReplay } from "./replay.js";
import { pageFor } from "./pages.js";
import { renderAccountSlot } from "./account.js";
import { hideRatedNote, ratedRefusal, ratedRequest, renderRatedNote, setupRated } from "./rated.js";
import { keepToken, renderMyGames, renderRoomRounds } from "./games.js";
import { askCoach, hintRefused, renderCoach, showHint } from "./coach.js";

const stored = (k) => { try { return localStorage.getItem(`nomercy:${k}`); } catch { return null; } };
const remember = (k, v) => { try { if (v === null) localStorage.removeItem(`nomercy:${k}`); else localStorage.setItem(`nomercy:${k}`, v); } catch { /* private mode */ } };

const store = createStore(initialState({
  sort: stored("sort"), muted: stored("muted") === "1", lang: pickLanguage(stored("lang"), navigator.languages || [navigator.language]),
}));
let socket = null;
let options = null;
let readmitTried = false;

const ctx = {
  store, i18n: null, api, anim: null, prompts: null,
  t: (key, params, opts) => ctx.i18n.t(key, params, opts),
  render, send, act, actKind, catchNow, toast, toastError, nameOf, who, show, askCoach: () => askCoach(ctx),
};
ctx.kickButton = kickButtonFactory(ctx);
ctx.readmitButton = readmitButtonFactory(ctx);

// -- names and words -------------------------------------------------------------------

function nameOf(seat) {
  const room = store.get().room;
  const s = room && room.seats[seat];
  if (s && s.kind === "bot") {
    const character = room.character;  // "Stella 2": the character the host chose, by first name
    if (character && ctx.i18n.has(`character.${character}.first`)) {
      return ctx.t("seat.character_name", { name: ctx.t(`character.${character}.first`), number: seat });
    }
    return ctx.t("seat.bot_name", { number: seat }); // "Bot 2 (random)": strength apart
  }
  return (s && s.nickname) || ctx.t("seat.player", { number: seat + 1 });
}

function who(seat) { return seat === store.get().seat ? ctx.t("seat.you_label") : nameOf(seat); }

async function setLanguage(lang) {
  const messages = await loadMessages(lang);
  ctx.i18n = createI18n(lang, messages, {
    me: () => store.get().seat,
    name: nameOf,
    missing: (key) => console.error(`missing catalog key: ${key}`),
  });
  store.set({ lang });
  document.documentElement.lang = lang;
  applyStatic();
}

function applyStatic() {
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = ctx.t(node.dataset.i18n, {}, { capital: false });
  for (const node of document.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      node.setAttribute(attr, ctx.t(key, {}, { capital: false }));
    }
  }
  const select = $("lang-select");
  if (!select.options.length) for (const [code, name] of Object.entries(LANGUAGES)) select.add(new Option(name, code));
  select.value = ctx.i18n.lang;
  select.setAttribute("aria-label", ctx.t("language"));
  renderSoundButton();
  renderReactions(ctx);
  updateTitle();
}

function updateTitle() {
  const room = store.get().room;
  if (store.get().replaying) { document.title = ctx.t("page.title_replay"); return; }
  document.title = !room ? ctx.t("page.title") : room.status === "lobby" ? ctx.t("page.title_lobby", { code: room.code }) : ctx.t("page.title_table", { code: room.code });
}

// -- messages -----------------------------------------------------------------------------

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 4500);
}

function errorText(code) { return ctx.i18n.has(`error.${code}`) ? ctx.t(`error.${code}`) : ctx.t("error.other"); }
function toastError(err) { toast(err instanceof ApiError ? errorText(err.code) : ctx.t("error.other")); }

function send(obj) {
  if (socket && socket.send(obj)) return true;
  toast(ctx.t("conn.not_connected"));
  return false;
}

let msgId = 0;
let lastAct = null;
function act(choice) {
  lastAct = choice;
  send({ type: "action", action: choice.action, version: store.get().version, id: String(++msgId) });
}

function actKind(kind, color = null) {
  const c = choices(store.get().decisions).find((x) => x.kind === kind && (color === null || x.color === color));
  if (c) act(c);
}

function catchNow() {
  const c = choiceOf(store.get().decisions, "catch");
  if (c) act(c);
}

// -- screens ------------------------------------------------------------------------------

function show(name) {
  // A new screen opens at its top: joining from the foot of the home page on a phone, or
  // the lobby's start, must not leave the table scrolled past its seats.
  // The replay is the table's screen with its own bar in place of the hand and buttons.
  const replay = name === "replay";
  const screen = replay ? "table" : name;
  const changed = $(`screen-${screen}`).hidden || document.body.classList.contains("replaying") !== replay;
  for (const s of ["home", "page", "lobby", "table"]) $(`screen-${s}`).hidden = s !== screen;
  document.body.classList.toggle("replaying", replay);
  // The site's links are for between games: at a table they would only crowd the bar.
  document.querySelector(".site-nav").hidden = name === "lobby" || name === "table" || replay;
  $("replay-bar").hidden = !replay;
  if (replay || name === "home" || name === "page") hideRatedNote();
  if (!replay) $("review-panel").hidden = true;
  if (changed) window.scrollTo(0, 0);
  const social = $("social");
  social.hidden = name === "home" || name === "page" || replay;
  if (replay) { $("end").hidden = true; return; }
  const home = name === "lobby" ? $("lobby-social") : $("table-social");
  if (name === "page") { $("end").hidden = true; return; }
  if (name !== "home" && social.parentElement !== home) home.appendChild(social);
  if (name !== "table") $("end").hidden = true;
}

function render() {
  const s = store.get();
  updateTitle();
  if (s.replaying) { ctx.replay.refresh(); return; }
  if (!s.room) return;
  $("rated-mark").hidden = !s.room.rated;  // a rated table says so, in its lobby and at play
  renderRatedNote(ctx);  // waiting for people, aborted, or not rated for now
  if (s.room.status === "lobby") {
    show("lobby");
    renderLobby(ctx);
  } else if (s.view) {
    show("table");
    renderTable(ctx);
    renderHand(ctx);
    renderButtons(ctx);
    renderEnd(ctx);
    renderLog(ctx);
    ctx.prompts.closeStale(s.version);
    maybeAskColor();
  } else {
    show("table");
  }
  renderScores(ctx);
  renderChat(ctx);
  renderWatchers();
  renderCoach(ctx);
  renderRoomRounds(ctx);
}

function renderWatchers() {
  const s = store.get();
  const w = $("watchers");
  w.hidden = !s.room || !s.room.spectators;
  if (!s.room) return;
  const text = ctx.t(s.seat === null ? "watchers.you_too" : "watchers.count", { count: s.room.spectators });
  const eye = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  eye.setAttribute("viewBox", "0 0 24 24");
  eye.setAttribute("width", "18");
  eye.setAttribute("height", "18");
  eye.setAttribute("aria-hidden", "true");
  eye.innerHTML = '<path d="M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12z" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="3" fill="currentColor"/>';
  const label = ctx.t(s.seat === null ? "watchers.label_you" : "watchers.label", {}, { capital: false });
  w.replaceChildren(eye, el("strong", "", ctx.i18n.number(s.room.spectators)), el("span", "label", label));
  w.setAttribute("aria-label", text);
}

let colorAsked = null;
function maybeAskColor() {
  const s = store.get();
  const d = s.decisions;
  if (!d || !d.deciding || !choiceOf(d, "color") || colorAsked === s.version) return;
  colorAsked = s.version;
  const roulette = s.view.decision === "roulette";
  ctx.prompts.askColor(ctx.t(roulette ? "prompt.roulette_title" : "prompt.first_color_title"),
    roulette ? ctx.t("prompt.roulette_text") : "", s.version).then((c) => {
    if (c) actKind("color", c);
    else if (!$("color-pick").hidden) $("color-pick").querySelector("button").focus();
  });
}

function renderSoundButton() {
  const muted = store.get().muted;
  $("sound-btn").setAttribute("aria-pressed", muted ? "false" : "true");
  $("sound-waves").style.display = muted ? "none" : "";
  $("sound-off").style.display = muted ? "" : "none";
  $("sound-btn").title = ctx.t(muted ? "sound.off" : "sound.on");
}

// -- the connection -------------------------------------------------------------------------

function setOnline(online, textKey) {
  store.set({ online });
  if (textKey) $("offline-text").textContent = ctx.t(textKey);
  block();
}

function setPaused(paused) {
  const was = store.get().paused;
  store.set({ paused });
  if (was && !paused) toast(ctx.t("paused.resumed"));
  block();
}

function block() {
  const s = store.get();
  const offline = !s.online && !s.kicked && s.code !== null;
  const paused = s.paused && !offline;
  $("offline").hidden = !offline;
  $("paused").hidden = !paused;
  // A modal question sits above any overlay: close it, so nothing is answered into a dead
  // connection. The decision stays on the table for when the game is back.
  ctx.prompts.closeStale(s.version, offline || paused);
  for (const id of ["screen-table", "screen-lobby", "social", "end"]) {
    if (offline || paused) $(id).setAttribute("inert", "");
    else $(id).removeAttribute("inert");
  }
}

const seatKey = (code) => `seat:${code}`;
const loadJSON = (k) => { try { return JSON.parse(stored(k) || "null"); } catch { return null; } };

function connect() {
  const code = store.get().code;
  $("conn").textContent = ctx.t("conn.connecting");
  if (socket) socket.close();
  socket = openSocket(code, () => ({ type: "hello", room: code, token: store.get().token, protocol: 2 }), handlers, {
    close: () => {
      if (store.get().kicked) return;
      $("conn").textContent = ctx.t("conn.offline");
      setOnline(false, "offline.text");
    },
  });
}

function enterRoom(code, watch = false) {
  const saved = watch ? null : loadJSON(seatKey(code));
  if (saved) keepToken(code, saved.token); // its games stay reachable after the room is gone
  store.set({ code, token: saved ? saved.token : null });
  if (location.pathname !== `/join/${code}`) history.pushState(null, "", `/join/${code}`);
  $("room-badge").hidden = false;
  $("room-code").textContent = code;
  connect();
}

function rememberRemoved(code) {
  const saved = loadJSON(seatKey(code));
  if (saved) remember(`removed:${code}`, JSON.stringify(saved));
  remember(seatKey(code), null);
  return saved;
}

function showRemovedNote() {
  $("conn").textContent = ctx.t("conn.removed");
  toast(ctx.t("removed.note"));
}

const handlers = {
  welcome(msg) {
    store.set({ seat: msg.seat, kicked: false });
    if (msg.seat !== null) readmitTried = false;
    $("conn").textContent = msg.seat === null && store.get().removedSeat !== null ? ctx.t("conn.removed") : "";
    setOnline(true);
    handlers.room(msg);
  },
  room(msg) {
    const before = store.get().room;
    const room = msg.room;
    store.set({ room });
    if (Boolean(room.paused) !== store.get().paused) setPaused(Boolean(room.paused));
    const s = store.get();
    // A removed player who is let back in: sit down again with the old token.
    if (s.seat === null && s.removedSeat !== null) {
      const saved = loadJSON(`removed:${room.code}`);
      const seat = room.seats[s.removedSeat];
      const still = (room.removed || []).some((r) => r.seat === s.removedSeat);
      if (saved && !still && seat && seat.kind === "human") {
        remember(seatKey(room.code), JSON.stringify(saved));
        remember(`removed:${room.code}`, null);
        store.set({ token: saved.token, removedSeat: null });
        readmitTried = true;
        toast(ctx.t("removed.back"));
        connect();
        return;
      }
    }
    if (before && before.status === "finished" && room.status === "playing") store.set({ endHidden: false });
    render();
  },
  state(msg) {
    const before = store.get();
    const rects = ctx.anim.capture(msg.events);
    store.set((s) => applyState(s, msg));
    const s = store.get();
    const events = msg.events || [];
    if (events.some((e) => e.type === "started") && before.view && before.view.outcome) window.scrollTo(0, 0);
    if (!msg.snapshot) ctx.anim.expect(events); // first: the end screen waits for a moment
    render();
    if (!msg.snapshot) {
      ctx.anim.play(events, rects, before.view);
      const name = soundFor(events);
      if (name) playSound(name, s.muted);
      const myTurn = s.decisions && s.decisions.deciding;
      if (myTurn && !(before.decisions && before.decisions.deciding)) playSound("turn", s.muted);
      if (events.some((e) => e.type === "knocked_out" && e.seat === s.seat) && s.view && !s.view.outcome) toast(ctx.t("ko.toast"));
    }
  },
  chat(msg) {
    store.set((s) => ({ chat: addChat(s.chat, { seat: msg.seat, nickname: msg.nickname, text: msg.text }) }));
    renderChat(ctx);
    if (msg.seat !== store.get().seat) bubble(msg.seat, msg.text.length > 40 ? `${msg.text.slice(0, 38)}…` : msg.text);
  },
  chat_history(msg) {
    const lines = msg.messages.map((m) => (m.type === "reaction"
      ? { seat: m.seat, nickname: m.nickname, reaction: m.reaction } : { seat: m.seat, nickname: m.nickname, text: m.text }));
    store.set({ chat: lines.slice(-100) });
    renderChat(ctx);
  },
  reaction(msg) {
    store.set((s) => ({ chat: addChat(s.chat, { seat: msg.seat, nickname: msg.nickname, reaction: msg.reaction }) }));
    renderChat(ctx);
    bubble(msg.seat, ctx.t(`reaction.${msg.reaction}`));
  },
  error(msg) {
    if (msg.version !== null && msg.version !== undefined) store.set((s) => ({ version: Math.max(s.version, msg.version) }));
    if (msg.code === "stale") return; // the fresh state is on its way
    if (msg.code === "hint_not_allowed" || msg.code === "busy") hintRefused();
    if (msg.code === "room_moving") { setOnline(false, "offline.moving"); if (socket) socket.soon(); return; }
    const s = store.get();
    let text = errorText(msg.code);
    if ((msg.code === "illegal_action" || msg.code === "not_your_turn") && lastAct && lastAct.card) text = ctx.t("error.refused_card", { card: lastAct.card });
    store.set({ lastError: { text, version: s.version } });
    if (s.view) renderButtons(ctx);
    toast(text);
    if (msg.code === "unauthorized" && s.token) {
      // Our seat token stopped working: the host removed us while we were away. Watch,
      // and keep the token in case the host lets us back in.
      const saved = readmitTried ? null : rememberRemoved(s.code);
      if (!saved) remember(`removed:${s.code}`, null);
      remember(seatKey(s.code), null);
      store.set({ removedSeat: saved ? saved.seat : null, token: null });
      if (saved) showRemovedNote();
      connect();
    } else if ((msg.code === "not_found" || msg.code === "room_retired") && s.token) {
      store.set({ token: null });
      remember(seatKey(s.code), null);
    }
  },
  kicked() {
    const s = store.get();
    const saved = rememberRemoved(s.code);
    store.set({ kicked: true, removedSeat: saved ? saved.seat : s.seat, seat: null });
    $("offline").hidden = true;
    setTimeout(() => { store.set({ kicked: false, token: null }); connect(); }, 300);
    showRemovedNote();
  },
  hint(msg) { showHint(ctx, msg); },
  paused() { setPaused(true); },
  resumed() { setPaused(false); },
  pong() {},
};

// -- home -----------------------------------------------------------------------------------

async function createRoom() {
  const nickname = $("create-nick").value.trim();
  const problem = nicknameProblem(nickname);
  if (problem) { toast(ctx.t(problem)); $("create-nick").focus(); return; }
  remember("nickname", nickname);
  try {
    const { preset, rules: changed } = collectRules(options);
    const res = await api("/api/rooms", {
      nickname, preset, ...ratedRequest(changed), seats: Number($("seats").value), bots: Number($("bots").value),
      bot: $("bot").value, character: $("character").value || null, mode: $("mode").value,
      turn_seconds: Number($("turn").value) || null,
    });
    remember(seatKey(res.code), JSON.stringify({ seat: res.seat, token: res.token }));
    enterRoom(res.code);
  } catch (err) { ratedRefusal(ctx, err) || toastError(err); }
}

async function joinRoom(watch) {
  const code = $("join-code").value.trim().toUpperCase();
  const nickname = $("join-nick").value.trim();
  if (!/^[2-9A-HJ-NP-Z]{6}$/.test(code)) { toast(ctx.t("home.bad_code")); return; }
  if (watch) { enterRoom(code, true); return; }
  const problem = nicknameProblem(nickname);
  if (problem) { toast(ctx.t(problem)); $("join-nick").focus(); return; }
  remember("nickname", nickname);
  try {
    const res = await api(`/api/rooms/${code}/join`, { nickname });
    remember(seatKey(res.code), JSON.stringify({ seat: res.seat, token: res.token }));
    enterRoom(res.code);
  } catch (err) { ratedRefusal(ctx, err) || toastError(err); }
}

// -- wiring ---------------------------------------------------------------------------------

function wire() {
  ctx.prompts = createPrompts(ctx);
  ctx.anim = createAnim(ctx);
  const guide = wireGuide(ctx);
  $("lang-select").addEventListener("change", async (e) => {
    const lang = e.target.value;
    remember("lang", lang);
    await setLanguage(lang);
    if (options) renderHome(ctx, options);
    if (!$("screen-home").hidden) renderMyGames(ctx);
    renderAccountSlot(ctx, true);
    guide.refresh();
    render();
  });
  $("sound-btn").addEventListener("click", () => {
    store.set((s) => ({ muted: !s.muted }));
    remember("muted", store.get().muted ? "1" : "0");
    renderSoundButton();
    playSound("play", store.get().muted);
  });
  $("draw-btn").addEventListener("click", () => { const d = store.get().decisions; const c = choiceOf(d, "take") || choiceOf(d, "draw"); if (c) act(c); });
  $("take-btn").addEventListener("click", () => actKind("take"));
  $("challenge-btn").addEventListener("click", () => actKind("challenge"));
  $("pass-btn").addEventListener("click", () => actKind("pass"));
  $("uno-btn").addEventListener("click", () => {
    const d = store.get().decisions;
    if (choiceOf(d, "uno")) { actKind("uno"); return; }
    store.set((s) => ({ unoArmed: !s.unoArmed }));
    renderButtons(ctx);
    toast(ctx.t(store.get().unoArmed ? "uno.armed_toast" : "uno.cancelled"));
  });
  $("catch-btn").addEventListener("click", catchNow);
  $("hint-btn").addEventListener("click", () => askCoach(ctx));
  for (const b of $("color-pick").querySelectorAll("button")) b.addEventListener("click", () => actKind("color", b.dataset.color));
  $("sort-btn").addEventListener("click", () => {
    store.set((s) => ({ sort: nextSort(s.sort) }));
    remember("sort", store.get().sort);
    renderHand(ctx);
  });
  $("start-btn").addEventListener("click", async () => {
    const s = store.get();
    try { await api(`/api/rooms/${s.code}/start`, {}, s.token); } catch (err) { toastError(err); }
  });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("invite-link").value); toast(ctx.t("lobby.copied")); } catch { $("invite-link").select(); }
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text && send({ type: "chat", text })) $("chat-text").value = "";
  });
  $("rematch-btn").addEventListener("click", async () => {
    const s = store.get();
    const me = s.room && s.seat !== null ? s.room.seats[s.seat] : null;
    if (!me) return;
    if (me.host) {
      try { await api(`/api/rooms/${s.code}/rematch`, {}, s.token); } catch (err) { toastError(err); }
    } else send({ type: "rematch", ready: !(s.room.rematch || []).includes(s.seat) });
  });
  $("newroom-btn").addEventListener("click", () => { location.href = "/#create"; });
  $("home-btn").addEventListener("click", () => { location.href = "/"; });
  $("end-hide").addEventListener("click", () => { store.set({ endHidden: true }); render(); });
  wireKeyboard(ctx);
  ctx.replay = createReplay(ctx);
  ctx.replay.wire();
  setInterval(() => updateClock(ctx), 250);
  window.addEventListener("popstate", () => location.reload());
  let resize = null;
  window.addEventListener("resize", () => { clearTimeout(resize); resize = setTimeout(() => { if (store.get().view) renderHand(ctx); }, 150); });
}

function wireHome() {
  $("presets").addEventListener("change", () => fillPreset(options));
  $("seats").addEventListener("change", updateBots);
  $("bot").addEventListener("change", () => fillCharacters(ctx, options));
  $("character").addEventListener("change", () => fillCharacters(ctx, options));
  $("rules-box").addEventListener("change", (e) => { if (e.target.dataset.rule === "max_players") updateSeats(); });
  const nick = stored("nickname") || "";
  $("create-nick").value = nick;
  $("join-nick").value = nick;
  $("create-form").addEventListener("submit", (e) => { e.preventDefault(); createRoom(); });
  $("join-form").addEventListener("submit", (e) => { e.preventDefault(); joinRoom(false); });
  $("watch-btn").addEventListener("click", () => joinRoom(true));
}

async function main() {
  const m = location.pathname.match(/^\/join\/([2-9A-HJ-NP-Za-hj-np-z]{6})$/);
  const kept = location.pathname.match(/^\/g\/([A-Za-z0-9_-]{1,64})$/);
  if (m) $("join-code").value = m[1].toUpperCase();
  wire();
  const loading = api("/api/options");
  await setLanguage(store.get().lang);
  options = await loading;
  renderAccountSlot(ctx); // the top bar's "Sign in" or name (js/account.js)
  renderHome(ctx, options);
  fillPreset(options);
  wireHome();
  setupRated(() => fillPreset(options)); // the "Rated" box, for a signed-in player
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
    if (loadJSON(seatKey(code))) { enterRoom(code); return; }
    const removed = loadJSON(`removed:${code}`);
    if (removed) { store.set({ removedSeat: removed.seat }); enterRoom(code, true); showRemovedNote(); return; }
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
main().catch((err) => { console.error(err); toast(String(err)); });
