// The page around the controller (js/ctrl.js): its views, the screens, the overlays of
// a lost connection or a paused game, and the controller's `ui` port.
import { $, el } from "./dom.js";
import { LANGUAGES, loadMessages } from "./i18n.js";
import { renderTable, updateClock, renderScores } from "./table.js";
import { renderButtons, renderHand, wireHand } from "./hand.js";
import { renderEnd } from "./end.js";
import { play as playSound, soundFor } from "./sound.js";
import { wireKeyboard } from "./keyboard.js";
import { renderChat, renderReactions, bubble } from "./chat.js";
import { renderLog } from "./log.js";
import { renderLobby } from "./lobby.js";
import { hideRatedNote, renderRatedNote } from "./rated.js";
import { keepToken, renderRoomRounds } from "./games.js";
import { askCoach, hintRefused, renderCoach, showHint } from "./coach.js";

export function pageUI(holder) {
  let timer = null;
  return {
    toast(text) {
      const box = $("toast");
      box.textContent = text;
      box.hidden = false;
      clearTimeout(timer);
      timer = setTimeout(() => { box.hidden = true; }, 4500);
    },
    show,
    scrollTop: () => window.scrollTo(0, 0),
    sound(events, s, before) {
      const name = soundFor(events);
      if (name) playSound(name, s.muted);
      const myTurn = s.decisions && s.decisions.deciding;
      if (myTurn && !(before.decisions && before.decisions.deciding)) playSound("turn", s.muted);
    },
    bubble,
    hint: (msg) => showHint(holder.ctx, msg),
    hintRefused,
    askCoach: () => askCoach(holder.ctx),
    entered(code, saved) {
      if (saved) keepToken(code, saved.token); // its games stay reachable
      if (location.pathname !== `/join/${code}`) history.pushState(null, "", `/join/${code}`);
      $("room-badge").hidden = false;
      $("room-code").textContent = code;
    },
    colorUnanswered() { if (!$("color-pick").hidden) $("color-pick").querySelector("button").focus(); },
  };
}

export async function setLanguage(ctx, lang) {
  ctx.useMessages(lang, await loadMessages(lang));
  document.documentElement.lang = lang;
  applyStatic(ctx);
}

function applyStatic(ctx) {
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
  renderSoundButton(ctx);
  renderReactions(ctx);
  updateTitle(ctx);
}

function updateTitle(ctx) {
  const s = ctx.store.get();
  const room = s.room;
  if (s.replaying) { document.title = ctx.t("page.title_replay"); return; }
  document.title = !room ? ctx.t("page.title") : room.status === "lobby" ? ctx.t("page.title_lobby", { code: room.code }) : ctx.t("page.title_table", { code: room.code });
}

export function show(name) {
  // A new screen opens at its top. The replay is the table's, with its bar for the hand.
  const replay = name === "replay";
  const screen = replay ? "table" : name;
  const changed = $(`screen-${screen}`).hidden || document.body.classList.contains("replaying") !== replay;
  for (const s of ["home", "page", "lobby", "table"]) $(`screen-${s}`).hidden = s !== screen;
  document.body.classList.toggle("replaying", replay);
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

function renderRoom(ctx) {
  const s = ctx.store.get();
  updateTitle(ctx);
  if (s.replaying) { ctx.replay.refresh(); return; }
  if (!s.room) return;
  $("rated-mark").hidden = !s.room.rated;
  renderRatedNote(ctx);
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
  } else {
    show("table");
  }
  renderScores(ctx);
  renderChat(ctx);
  renderWatchers(ctx);
  renderCoach(ctx);
  renderRoomRounds(ctx);
}

function renderWatchers(ctx) {
  const s = ctx.store.get();
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

function renderSoundButton(ctx) {
  const muted = ctx.store.get().muted;
  $("sound-btn").setAttribute("aria-pressed", muted ? "false" : "true");
  $("sound-waves").style.display = muted ? "none" : "";
  $("sound-off").style.display = muted ? "" : "none";
  $("sound-btn").title = ctx.t(muted ? "sound.off" : "sound.on");
}

function renderConnection(ctx) {
  const s = ctx.store.get();
  const conn = s.conn ? ctx.t(s.conn) : "";
  if ($("conn").textContent !== conn) $("conn").textContent = conn;
  const offline = s.online === false && !s.kicked && s.code !== null; // null: not yet connected
  const paused = s.paused && !offline;
  if (offline) $("offline-text").textContent = ctx.t(s.offlineText);
  $("offline").hidden = !offline;
  $("paused").hidden = !paused;
  // A question above the overlay would be answered into a dead connection: close it.
  ctx.prompts.closeStale(s.version, offline || paused);
  for (const id of ["screen-table", "screen-lobby", "social", "end"]) {
    if (offline || paused) $(id).setAttribute("inert", "");
    else $(id).removeAttribute("inert");
  }
}

export function wireScreen(ctx, onLanguage) {
  // The top bar's views draw only when what they show changed (ctx.view's select).
  ctx.view(renderConnection, (s) => [s.conn, s.online, s.kicked, s.code, s.offlineText, s.paused, s.version]);
  ctx.view(renderSoundButton, (s) => [s.muted]);
  ctx.view(renderRoom);
  wireHand(ctx);
  $("lang-select").addEventListener("change", async (e) => {
    const lang = e.target.value;
    ctx.storage.set("lang", lang);
    await setLanguage(ctx, lang);
    await onLanguage();
    ctx.render();
  });
  $("sound-btn").addEventListener("click", () => {
    ctx.store.set((s) => ({ muted: !s.muted }));
    ctx.storage.set("muted", ctx.store.get().muted ? "1" : "0");
    playSound("play", ctx.store.get().muted);
  });
  $("hint-btn").addEventListener("click", () => ctx.askCoach());
  $("start-btn").addEventListener("click", async () => {
    const s = ctx.store.get();
    try { await ctx.api(`/api/rooms/${s.code}/start`, {}, s.token); } catch (err) { ctx.toastError(err); }
  });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("invite-link").value); ctx.toast(ctx.t("lobby.copied")); } catch { $("invite-link").select(); }
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text && ctx.send({ type: "chat", text })) $("chat-text").value = "";
  });
  $("rematch-btn").addEventListener("click", async () => {
    const s = ctx.store.get();
    const me = s.room && s.seat !== null ? s.room.seats[s.seat] : null;
    if (!me) return;
    if (me.host) {
      try { await ctx.api(`/api/rooms/${s.code}/rematch`, {}, s.token); } catch (err) { ctx.toastError(err); }
    } else ctx.send({ type: "rematch", ready: !(s.room.rematch || []).includes(s.seat) });
  });
  $("newroom-btn").addEventListener("click", () => { location.href = "/#create"; });
  $("home-btn").addEventListener("click", () => { location.href = $("home-link").getAttribute("href"); });
  $("end-hide").addEventListener("click", () => { ctx.store.set({ endHidden: true }); });
  wireKeyboard(ctx);
  setInterval(() => updateClock(ctx), 250);
  window.addEventListener("popstate", () => location.reload());
  let resize = null;
  window.addEventListener("resize", () => { clearTimeout(resize); resize = setTimeout(() => { if (ctx.store.get().view) renderHand(ctx); }, 150); });
}
