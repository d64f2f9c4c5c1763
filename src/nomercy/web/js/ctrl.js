// The controller (as lichess's ui/round): the store, the room's connection over a
// transport, the server's messages (docs/protocol.md), the player's decisions, who is
// signed in. It draws nothing: views registered with `view(fn, select)` are drawn when the
// store changes, and the page comes in through the `ui` port (tests/web/ctrl.test.mjs).
import { ApiError } from "./api.js";
import { createI18n } from "./i18n.js";
import { openSocket } from "./transport.js";
import { addChat, applyState, choiceOf, choices } from "./store.js";

/** Settings and seat tokens, in localStorage (`nomercy:` keys) or in memory. */
export function browserStorage() {
  return {
    get(k) { try { return localStorage.getItem(`nomercy:${k}`); } catch { return null; } },
    set(k, v) {
      try { if (v === null) localStorage.removeItem(`nomercy:${k}`); else localStorage.setItem(`nomercy:${k}`, v); } catch { /* private mode */ }
    },
  };
}

export function memoryStorage() {
  const m = new Map();
  return { get: (k) => (m.has(k) ? m.get(k) : null), set(k, v) { if (v === null) m.delete(k); else m.set(k, v); } };
}

const NO_ANIM = { capture: () => null, expect() {}, play() {}, grow() {}, busy: () => false };

/** The page's hooks; each may be left out. */
const UI = {
  toast() {}, show() {}, scrollTop() {}, sound() {}, bubble() {}, hint() {}, hintRefused() {},
  askCoach() {}, entered() {}, colorUnanswered() {}, error: (key) => console.error(`missing catalog key: ${key}`),
};

export const seatKey = (code) => `seat:${code}`;

/** `transport(code)` opens a connection to a room; returns the `ctx` every view takes. */
export function createCtrl({ store, transport, storage = memoryStorage(), ui = {}, api = null }) {
  const page = { ...UI, ...ui };
  const views = [];
  let socket = null;
  let msgId = 0;
  let lastAct = null;
  let readmitTried = false;
  let colorAsked = null;
  let drawing = false;
  let askingAccount = null;

  const loadJSON = (k) => { try { return JSON.parse(storage.get(k) || "null"); } catch { return null; } };

  const ctx = {
    store, storage, api, i18n: null, anim: NO_ANIM, prompts: null, handlers: null,
    t: (key, params, opts) => ctx.i18n.t(key, params, opts),
    render, view, send, act, actKind, catchNow, toast, toastError, nameOf, who,
    show: (name) => page.show(name), askCoach: () => page.askCoach(),
    useMessages, connect, enterRoom, watchRemoved, loadJSON, whoAmI, setAccount,
  };

  /** A view; with `select(state)` (the values it shows) drawn only when one of them or the
   *  language changed: a chat line does not draw the top bar again. */
  function view(fn, select = null) { views.push({ fn, select, shown: null }); }

  const same = (a, b) => a !== null && a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

  // A change of the store while drawing does not draw again: the views read it fresh.
  function render() {
    if (drawing) return;
    drawing = true;
    try {
      for (const v of views) {
        if (v.select) {
          const now = [ctx.i18n, ...v.select(store.get())];
          if (same(v.shown, now)) continue;
          v.shown = now;
        }
        v.fn(ctx);
      }
      askColorIfDue();
    } finally { drawing = false; }
  }

  /** Who is signed in (store.account: null for a guest), asked once however many wait. */
  async function whoAmI() {
    if (store.get().account === undefined) {
      askingAccount = askingAccount || (api ? api("/api/account").then((r) => r.account, () => null) : Promise.resolve(null));
      const found = await askingAccount;
      if (store.get().account === undefined) store.set({ account: found });
    }
    return store.get().account;
  }

  function setAccount(account) { store.set({ account }); }
  store.subscribe((s) => { if (!s.replaying) render(); });

  function askColorIfDue() {
    const s = store.get();
    const d = s.decisions;
    if (!ctx.prompts || !s.view || !d || !d.deciding || !choiceOf(d, "color") || colorAsked === s.version) return;
    colorAsked = s.version;
    const roulette = s.view.decision === "roulette";
    ctx.prompts.askColor(ctx.t(roulette ? "prompt.roulette_title" : "prompt.first_color_title"),
      roulette ? ctx.t("prompt.roulette_text") : "", s.version).then((c) => {
      if (c) actKind("color", c);
      else page.colorUnanswered(); // the buttons under the hand still offer the colours
    });
  }

  function useMessages(lang, messages) {
    ctx.i18n = createI18n(lang, messages, { me: () => store.get().seat, name: nameOf, missing: page.error });
    store.set({ lang });
  }

  function nameOf(seat) {
    const room = store.get().room;
    const s = room && room.seats[seat];
    if (s && s.kind === "bot") {
      const character = room.character; // "Stella 2"
      if (character && ctx.i18n.has(`character.${character}.first`)) {
        return ctx.t("seat.character_name", { name: ctx.t(`character.${character}.first`), number: seat });
      }
      return ctx.t("seat.bot_name", { number: seat });
    }
    return (s && s.nickname) || ctx.t("seat.player", { number: seat + 1 });
  }

  function who(seat) { return seat === store.get().seat ? ctx.t("seat.you_label") : nameOf(seat); }

  function toast(text) { page.toast(text); }
  const errorText = (code) => (ctx.i18n.has(`error.${code}`) ? ctx.t(`error.${code}`) : ctx.t("error.other"));
  function toastError(err) { toast(err instanceof ApiError ? errorText(err.code) : ctx.t("error.other")); }

  function send(obj) {
    if (socket && socket.send(obj)) return true;
    toast(ctx.t("conn.not_connected"));
    return false;
  }

  /** One of the server's choices, with the version it was chosen in. */
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

  function setPaused(paused) {
    const was = store.get().paused;
    store.set({ paused });
    if (was && !paused) toast(ctx.t("paused.resumed"));
  }

  function connect() {
    const code = store.get().code;
    store.set({ conn: "conn.connecting" });
    if (socket) socket.close();
    socket = openSocket(() => transport(code), () => ({ type: "hello", room: code, token: store.get().token, protocol: 2 }), handlers, {
      close: () => {
        if (store.get().kicked) return;
        store.set({ conn: "conn.offline", online: false, offlineText: "offline.text" });
      },
    });
  }

  function enterRoom(code, watch = false) {
    const saved = watch ? null : loadJSON(seatKey(code));
    store.set({ code, token: saved ? saved.token : null });
    page.entered(code, saved);
    connect();
  }

  /** Watch as the player the host removed, to sit again if let back in. */
  function watchRemoved(code) {
    const removed = loadJSON(`removed:${code}`);
    if (!removed) return false;
    store.set({ removedSeat: removed.seat });
    enterRoom(code, true);
    showRemovedNote();
    return true;
  }

  function rememberRemoved(code) {
    const saved = loadJSON(seatKey(code));
    if (saved) storage.set(`removed:${code}`, JSON.stringify(saved));
    storage.set(seatKey(code), null);
    return saved;
  }

  function showRemovedNote() {
    store.set({ conn: "conn.removed" });
    toast(ctx.t("removed.note"));
  }

  const handlers = {
    welcome(msg) {
      store.batch(() => {
        store.set({ seat: msg.seat, kicked: false, online: true });
        if (msg.seat !== null) readmitTried = false;
        store.set({ conn: msg.seat === null && store.get().removedSeat !== null ? "conn.removed" : null });
        handlers.room(msg);
      });
    },
    room(msg) {
      store.batch(() => {
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
            storage.set(seatKey(room.code), JSON.stringify(saved));
            storage.set(`removed:${room.code}`, null);
            store.set({ token: saved.token, removedSeat: null });
            readmitTried = true;
            toast(ctx.t("removed.back"));
            connect();
            return;
          }
        }
        if (before && before.status === "finished" && room.status === "playing") store.set({ endHidden: false });
      });
    },
    state(msg) {
      const before = store.get();
      const rects = ctx.anim.capture(msg.events);
      const events = msg.events || [];
      // Before the drawing: the end screen waits for the moments.
      if (!msg.snapshot) ctx.anim.expect(events);
      store.set((s) => applyState(s, msg));
      const s = store.get();
      if (events.some((e) => e.type === "started") && before.view && before.view.outcome) page.scrollTop();
      if (msg.snapshot) return;
      ctx.anim.play(events, rects, before.view);
      page.sound(events, s, before);
      if (events.some((e) => e.type === "knocked_out" && e.seat === s.seat) && s.view && !s.view.outcome) toast(ctx.t("ko.toast"));
    },
    chat(msg) {
      store.set((s) => ({ chat: addChat(s.chat, { seat: msg.seat, nickname: msg.nickname, text: msg.text }) }));
      if (msg.seat !== store.get().seat) page.bubble(msg.seat, msg.text.length > 40 ? `${msg.text.slice(0, 38)}…` : msg.text);
    },
    chat_history(msg) {
      const lines = msg.messages.map((m) => (m.type === "reaction"
        ? { seat: m.seat, nickname: m.nickname, reaction: m.reaction } : { seat: m.seat, nickname: m.nickname, text: m.text }));
      store.set({ chat: lines.slice(-100) });
    },
    reaction(msg) {
      store.set((s) => ({ chat: addChat(s.chat, { seat: msg.seat, nickname: msg.nickname, reaction: msg.reaction }) }));
      page.bubble(msg.seat, ctx.t(`reaction.${msg.reaction}`));
    },
    error(msg) {
      store.batch(() => refused(msg));
    },
    kicked() {
      const s = store.get();
      const saved = rememberRemoved(s.code);
      store.set({ kicked: true, removedSeat: saved ? saved.seat : s.seat, seat: null });
      setTimeout(() => { store.set({ kicked: false, token: null }); connect(); }, 300);
      showRemovedNote();
    },
    hint(msg) { page.hint(msg); },
    paused() { setPaused(true); },
    resumed() { setPaused(false); },
    pong() {},
  };
  ctx.handlers = handlers;

  function refused(msg) {
    if (msg.version !== null && msg.version !== undefined) store.set((s) => ({ version: Math.max(s.version, msg.version) }));
    if (msg.code === "stale") return; // the fresh state is on its way
    if (msg.code === "hint_not_allowed" || msg.code === "busy") page.hintRefused();
    if (msg.code === "room_moving") {
      store.set({ online: false, offlineText: "offline.moving" });
      if (socket) socket.soon();
      return;
    }
    const s = store.get();
    let text = errorText(msg.code);
    if ((msg.code === "illegal_action" || msg.code === "not_your_turn") && lastAct && lastAct.card) text = ctx.t("error.refused_card", { card: lastAct.card });
    store.set({ lastError: { text, version: s.version } });
    toast(text);
    if (msg.code === "unauthorized" && s.token) {
      // The host removed us while we were away: watch, keeping the token for a readmit.
      const saved = readmitTried ? null : rememberRemoved(s.code);
      if (!saved) storage.set(`removed:${s.code}`, null);
      storage.set(seatKey(s.code), null);
      store.set({ removedSeat: saved ? saved.seat : null, token: null });
      if (saved) showRemovedNote();
      connect();
    } else if ((msg.code === "not_found" || msg.code === "room_retired") && s.token) {
      store.set({ token: null });
      storage.set(seatKey(s.code), null);
    }
  }

  return ctx;
}
