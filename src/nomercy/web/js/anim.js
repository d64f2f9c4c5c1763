// Motion that tells the story: the deal, played cards flying to the pile, draws flying one
// by one (quicker when the penalty is big), a swap and a pass of hands you can follow, the
// stack as a show (its counter rolls up to each total and names who faces it, the felt warms
// as it grows, a take is a moment scaled to its size), a Colour Roulette's cards turned face
// up one by one, UNO and catches announced, and the moments: a big take, a knock-out that
// every seat sees, a round won and the match's fanfare. Only transform and opacity move (the
// compositor's work); every movement is off under prefers-reduced-motion, never the news:
// the words, the counter's total and who faces it, the Roulette's cards, the marks stay.
// The music (js/music.js) and the shareable picture (js/share.js) load when first asked for.
import { $, el, reducedMotion } from "./dom.js";
import { cardNode, backNode } from "./cards.js";
import { drawFlights } from "./layout.js";
import { bubble } from "./chat.js";
import { play as playSound } from "./sound.js";

const rectOf = (node) => (node ? node.getBoundingClientRect() : null);

/** How hot a pending total runs (0-3): the felt and the counter warm with it. */
export const heatOf = (total) => (total >= 20 ? 3 : total >= 10 ? 2 : total >= 4 ? 1 : 0);

/** How a take of `count` cards is told: "moment" fills the table, "announce" says it on the
 *  felt, "" leaves it to the flying cards; `scale` sizes its words. */
export function takeScale(count) {
  if (count >= 10) return { kind: "moment", scale: Math.min(1.6, 1 + (count - 10) / 25) };
  if (count >= 5) return { kind: "announce", scale: 1 + (count - 5) / 10 };
  return { kind: "", scale: 1 };
}

/** Whether the room has counted round `number`: by number, since a room update that was
 *  due comes just before the state, already holding the round. */
export function roundCounted(room, number) {
  return Boolean(room) && (room.mode !== "match" || (room.rounds || []).some((r) => r.number === number));
}

export function createAnim(ctx) {
  const off = () => reducedMotion() || document.hidden;
  const storage = ctx.storage || { get: () => null, set: () => {} };
  wireExtras(ctx, storage);

  function seatRect(seat) {
    if (seat === ctx.store.get().seat) return rectOf($("hand"));
    return rectOf(document.querySelector(`#seat-ring .seat[data-seat="${seat}"] .ring`));
  }

  function fly(node, from, to, delay = 0, duration = 380, spin = -8) {
    if (!from || !to) return;
    node.classList.add("ghost");
    node.setAttribute("aria-hidden", "true");
    node.style.left = `${from.left + from.width / 2}px`;
    node.style.top = `${from.top + from.height / 2}px`;
    document.body.appendChild(node);
    const dx = to.left + to.width / 2 - (from.left + from.width / 2);
    const dy = to.top + to.height / 2 - (from.top + from.height / 2);
    const a = node.animate(
      [{ transform: `translate(-50%, -50%) scale(0.9) rotate(${spin}deg)`, opacity: 0.95 },
        { transform: `translate(calc(${dx}px - 50%), calc(${dy}px - 50%)) scale(1) rotate(0deg)`, opacity: 1 }],
      { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "both" });
    a.onfinish = () => node.remove();
    a.oncancel = () => node.remove();
  }

  /** Where my played cards were in the hand, before the new state redraws it. */
  function capture(events) {
    const out = {};
    const me = ctx.store.get().seat;
    for (const e of events || []) {
      if (e.type === "played" && e.seat === me) {
        const c = document.querySelector(`#hand .card[data-code="${CSS.escape(e.card)}"]`);
        if (c) out.played = c.getBoundingClientRect();
      }
    }
    return out;
  }

  function grow(node) {
    if (off()) return;
    node.animate([{ transform: "scale(1.9) rotate(-6deg)" }, { transform: "scale(0.92)" }, { transform: "scale(1)" }],
      { duration: 420, easing: "cubic-bezier(.3,1.6,.5,1)" });
  }

  function shake(node, strong = false) {
    if (!node || off()) return;
    const d = strong ? 9 : 5;
    node.animate([{ transform: "translate(0,0)" }, { transform: `translate(${-d}px, 2px)` }, { transform: `translate(${d}px,-2px)` },
      { transform: `translate(${-d / 2}px, 1px)` }, { transform: "translate(0,0)" }], { duration: 420 });
  }

  // Moments that fill the table: a big number or word, one after another.
  const queue = [];
  let showing = false;
  let pending = 0;
  let stash = [];

  function moment(kind, title, sub = "", scale = 1) {
    queue.push(kind === "round" ? [kind, title, sub] : [kind, title, sub, scale]); // a round's [3] is its start
    if (!showing) nextMoment();
  }

  /** A round's end as a moment: the match won, or the round won. The room that says which
   *  comes just after the round's state; until it has counted this round, wait for it (at
   *  most ROOM_WAIT_MS, then the round's moment). */
  const ROOM_WAIT_MS = 1500;
  function roundMoment(winner, number, since) {
    const room = ctx.store.get().room;
    const counted = roundCounted(room, number);
    if (!counted && performance.now() - since < ROOM_WAIT_MS) return null;
    const matchWon = Boolean(counted && room.mode === "match" && room.status === "finished" && room.match_winner !== null);
    if (!matchWon) return ["win", ctx.t("anim.round_won", { seat: winner }), ""];
    const sub = ctx.t("anim.match_sub", { points: ctx.i18n.number(room.scores[room.match_winner] || 0), count: (room.rounds || []).length });
    return ["match", ctx.t("anim.match_won", { seat: room.match_winner }), sub];
  }

  function nextMoment() {
    const box = $("moment");
    let item = queue[0];
    if (item && item[0] === "round") {
      item[3] = item[3] ?? performance.now();
      item = roundMoment(item[1], item[2], item[3]);
      showing = true;
      if (!item) { setTimeout(nextMoment, 50); return; }
    }
    queue.shift();
    if (!item) {
      showing = false;
      box.hidden = true;
      ctx.render(); // the end screen waited for the moments
      return;
    }
    showing = true;
    const [kind, title, sub, scale = 1] = item;
    const duration = kind === "match" ? 4200 : kind === "win" ? 2600 : 1900;
    box.className = `moment ${kind}`;
    box.style.setProperty("--scale", String(scale));
    const words = el("div", "moment-words");
    words.append(el("div", "moment-title", title), ...(sub ? [el("div", "moment-sub", sub)] : []));
    box.replaceChildren(...(kind === "match" ? [el("div", "rays")] : []), words);
    box.hidden = false;
    if (kind === "match") playSound("fanfare", ctx.store.get().muted);
    setTimeout(nextMoment, duration);
    if (off()) return;
    if (kind === "bigtake" || kind === "ko" || kind === "match") bars(duration);
    // In with a slam, then it stays until it is hidden (its timer, not the animation, ends it).
    box.animate([{ opacity: 0, transform: "scale(1.6)" }, { opacity: 1, transform: "scale(1)" }],
      { duration: 420, easing: "cubic-bezier(.2,1.4,.4,1)", fill: "both" });
    if (kind === "bigtake" || kind === "ko") shake($("felt"), true);
    if (kind === "win") confetti(28);
    if (kind === "match") [0, 700, 1500].forEach((at) => setTimeout(() => confetti(40), at));
  }

  /** Letterbox bars above and below the table while a big moment lasts. */
  function bars(duration) {
    const wrap = $("felt").parentElement;
    for (const side of ["top", "bottom"]) {
      const bar = el("div", `letterbox ${side}`);
      bar.setAttribute("aria-hidden", "true");
      wrap.appendChild(bar);
      const a = bar.animate([{ transform: "scaleY(0)" }, { transform: "scaleY(1)", offset: 0.12 }, { transform: "scaleY(1)", offset: 0.88 }, { transform: "scaleY(0)" }],
        { duration, easing: "ease-in-out", fill: "both" });
      a.onfinish = () => bar.remove();
      a.oncancel = () => bar.remove();
    }
  }

  // The stack's counter rolls from the total it showed to the new one (text, one step a
  // frame); a new total or a redraw never leaves it short of the view's figure.
  let roll = 0;
  function stack(node, from, to) {
    const number = node.querySelector(".pending-n");
    if (!number || to <= from) return;
    grow(node);
    if (off()) return;
    const mine = ++roll;
    const start = performance.now();
    const span = Math.min(700, 120 + (to - from) * 45);
    const step = (now) => {
      if (mine !== roll || !number.isConnected) return;
      const p = Math.min(1, (now - start) / span);
      number.textContent = `+${Math.round(from + (to - from) * p)}`;
      if (p < 1) requestAnimationFrame(step);
    };
    number.textContent = `+${from}`;
    requestAnimationFrame(step);
  }

  /** A Colour Roulette (W4): the cards it turned up stand in a row on the felt and turn face
   *  up one by one, the last (the named colour's, when one came) marked; then they go to the
   *  victim. Under reduced motion the row stands still, every card face up. Returns the time
   *  its cards leave the row (ms from now). */
  const ROW_MAX = 10;
  function roulette(e, delay) {
    const cards = e.cards || [];
    const row = el("div", "roulette-row");
    row.setAttribute("role", "status");
    row.append(el("div", "roulette-title", ctx.t("anim.roulette")));
    const line = el("div", "roulette-cards");
    const shown = cards.slice(-ROW_MAX);
    const gap = Math.max(110, Math.min(260, 1800 / Math.max(1, shown.length)));
    const still = off();
    const slots = shown.map((code, i) => {
      const slot = el("span", `roulette-slot${i === shown.length - 1 ? " hit" : ""}`);
      slot.style.setProperty("--i", String(i));
      const face = cardNode(code, ctx.i18n.cardTitle(code), "span");
      face.classList.add("face");
      slot.appendChild(face);
      if (!still) {
        const back = backNode();
        back.classList.add("back");
        slot.appendChild(back);
        const at = delay + i * gap;
        back.animate([{ transform: "scaleX(1)" }, { transform: "scaleX(0)" }], { duration: 110, delay: at, fill: "both", easing: "ease-in" });
        face.animate([{ transform: "scaleX(0)" }, { transform: "scaleX(1)" }], { duration: 110, delay: at + 110, fill: "both", easing: "ease-out" });
      }
      line.appendChild(slot);
      return slot;
    });
    row.append(line, el("div", "roulette-line", ctx.t("anim.roulette_turns", { seat: e.seat, count: e.count })));
    $("felt").appendChild(row);
    const reveal = still ? 0 : delay + shown.length * gap + 450;
    const stay = still ? 2600 : reveal + 500;
    setTimeout(() => {
      if (!still) {
        const to = seatRect(e.seat);
        slots.forEach((slot, i) => fly(backNode(), rectOf(slot), to, i * 40, 320, 0));
      }
      row.remove();
    }, stay);
    return reveal;
  }

  function confetti(count) {
    const felt = rectOf($("felt"));
    if (!felt) return;
    const colors = ["R", "Y", "G", "B"];
    for (let i = 0; i < count; i++) {
      const bit = el("span", `confetti c-${colors[i % 4]}`);
      bit.style.left = `${felt.left + felt.width / 2}px`;
      bit.style.top = `${felt.top + felt.height / 2}px`;
      document.body.appendChild(bit);
      const angle = (Math.PI * 2 * i) / count + Math.random() * 0.4;
      const r = 120 + Math.random() * Math.max(120, felt.width / 3);
      const a = bit.animate([{ transform: "translate(-50%,-50%) scale(1) rotate(0deg)", opacity: 1 },
        { transform: `translate(calc(${Math.cos(angle) * r}px - 50%), calc(${Math.sin(angle) * r + 80}px - 50%)) rotate(${360 + i * 40}deg) scale(0.6)`, opacity: 0 }],
      { duration: 1400 + Math.random() * 500, easing: "cubic-bezier(.1,.8,.3,1)", fill: "both" });
      a.onfinish = () => bit.remove();
    }
  }

  function stamp(seat) {
    const plate = document.querySelector(`#seat-ring .seat[data-seat="${seat}"]`);
    if (!plate) return;
    const s = el("span", "stamp", ctx.t("anim.out"));
    plate.appendChild(s);
    setTimeout(() => s.remove(), 2500);
    if (!off()) plate.animate([{ transform: "translate(-50%,-50%) rotate(0)" }, { transform: "translate(-50%,-50%) rotate(-6deg) scale(1.1)" },
      { transform: "translate(-50%,-50%) rotate(5deg)" }, { transform: "translate(-50%,-50%) rotate(0)" }], { duration: 600 });
  }

  // Seats whose hands just moved (a swap, a pass), until when (ms): the table marks them,
  // drawn again or not, with a still ring that needs no motion to be seen.
  const MOVED_MS = 2400;
  const moved = new Map();
  function markMoved(seats) {
    const until = performance.now() + MOVED_MS;
    for (const seat of seats) {
      moved.set(seat, until);
      const plate = document.querySelector(`#seat-ring .seat[data-seat="${seat}"]`);
      if (plate) plate.classList.add("moved");
    }
    setTimeout(() => {
      for (const [seat, at] of moved) {
        if (at > performance.now()) continue;
        moved.delete(seat);
        const plate = document.querySelector(`#seat-ring .seat[data-seat="${seat}"]`);
        if (plate) plate.classList.remove("moved");
      }
    }, MOVED_MS + 20);
  }
  /** Whether a seat's hand moved a moment ago (the table marks its plate). */
  const wasMoved = (seat) => (moved.get(seat) || 0) > performance.now();

  function announce(text, kind, scale = 1) {
    const box = el("div", `announce ${kind}`, text);
    box.style.setProperty("--scale", String(scale));
    $("felt").appendChild(box);
    setTimeout(() => box.remove(), 1600);
    if (!off()) box.animate([{ opacity: 0, transform: "translate(-50%,-50%) scale(0.5)" }, { opacity: 1, transform: "translate(-50%,-50%) scale(1.08)", offset: 0.2 },
      { opacity: 1, transform: "translate(-50%,-50%) scale(1)", offset: 0.8 }, { opacity: 0, transform: "translate(-50%,-50%) scale(1)" }], { duration: 1600, fill: "both" });
  }

  function deal(view, delay) {
    const deck = rectOf($("draw-btn"));
    const order = [];
    for (let s = 0; s < view.players; s++) if (view.active[s]) order.push(s);
    const rounds = Math.min(7, Math.max(...order.map((s) => view.hand_sizes[s])));
    let k = 0;
    for (let r = 0; r < rounds; r++) for (const s of order) fly(backNode(), deck, seatRect(s), delay + 60 * k++, 420, 0);
    return delay + 60 * k;
  }

  /** Before the table is drawn: note the moments these events bring (a big take, your
   *  knock-out, a win), so the end screen waits for them. */
  function expect(events) {
    const s = ctx.store.get();
    const me = s.seat;
    const moments = [];
    for (const e of events) {
      const take = e.type === "drew" && (e.reason === "stack" || e.reason === "penalty") ? takeScale(e.count) : null;
      if (take && take.kind === "moment") {
        const sub = e.seat === me ? ctx.t("anim.big_take", { count: e.count }) : ctx.t("anim.takes", { seat: e.seat, count: e.count });
        moments.push(["bigtake", `+${e.count}`, sub, take.scale]);
        keep({ kind: "take", seat: e.seat, count: e.count });
      }
      // A knock-out is the whole table's news: every seat sees it fill the felt.
      if (e.type === "knocked_out") {
        moments.push(["ko", ctx.t("anim.out"), e.seat === me ? ctx.t("anim.ko_you", { count: e.cards }) : ctx.t("anim.ko_other", { seat: e.seat, count: e.cards })]);
        keep({ kind: "ko", seat: e.seat, count: e.cards });
      }
      // Whether the round also ends the match is the room's news, and the server sends the
      // room after this state: the moment is named when it is shown (roundMoment).
      if (e.type === "round_over") moments.push(["round", e.winner, s.room ? s.room.round : null]);
    }
    stash = moments;
    if (moments.length) pending += 1;
  }

  // The round's most telling moment (the biggest take, else a knock-out), for the end
  // screen's shareable picture; a new deal forgets it.
  let best = null;
  function keep(m) {
    if (!best || (m.kind === "take" && (best.kind !== "take" || m.count > best.count))) best = { ...m };
  }
  const highlight = () => best;

  /** Play the motion of one action's events; `rects` from capture(), `before` the old view. */
  function play(events, rects, before) {
    const s = ctx.store.get();
    const me = s.seat;
    for (const e of events) {
      if (e.type === "uno") bubble(e.seat, ctx.t("anim.uno"));
      else if (e.type === "played" && e.uno) bubble(e.seat, ctx.t("anim.uno"));
    }
    for (const e of events) {
      if (e.type === "caught") announce(ctx.t("anim.caught", { seat: e.seat }), "caught");
      if (e.type === "uno" || (e.type === "played" && e.uno)) announce(ctx.t("anim.uno_by", { seat: e.seat }), "uno");
    }
    // A swap or a pass is news as well as motion: it is said in words and the seats whose
    // hands moved are marked, under reduced motion too (that removes the flight, never the
    // news).
    for (const e of events) {
      if (e.type === "hands_swapped") {
        announce(ctx.t("anim.swap", { seats: `${e.seat},${e.target}` }), "swap"); // who with whom
        markMoved([e.seat, e.target]);
      } else if (e.type === "hands_passed") {
        const v = before || s.view;
        announce(ctx.t("anim.pass"), "swap");
        if (v) markMoved(v.active.map((on, seat) => (on ? seat : -1)).filter((seat) => seat >= 0));
      }
    }
    if (events.some((e) => e.type === "started")) best = null;
    for (const e of events) {
      const take = e.type === "drew" && (e.reason === "stack" || e.reason === "penalty") ? takeScale(e.count) : null;
      if (take && take.kind === "announce") announce(ctx.t("anim.takes", { seat: e.seat, count: e.count }), "take", take.scale);
    }
    const moments = stash;
    stash = [];
    if (off()) {
      if (moments.length) pending -= 1;
      for (const e of events) if (e.type === "drew" && e.reason === "roulette") roulette(e, 0);
      for (const [kind, title, sub, scale] of moments) moment(kind, title, sub, scale);
      return;
    }
    const pile = rectOf($("discard"));
    const deck = rectOf($("draw-btn"));
    let delay = 0;
    for (const e of events) {
      if (e.type === "started" && s.view) delay = deal(s.view, delay);
      else if (e.type === "played") {
        const from = e.seat === me ? rects.played || seatRect(e.seat) : seatRect(e.seat);
        fly(cardNode(e.card, ""), from, pile, delay, 360);
        delay += 140;
      } else if (e.type === "drew" && e.reason === "roulette") {
        delay = roulette(e, delay);
      } else if (e.type === "stack") {
        // The stack passes on: its total goes from the pile to the seat that now faces it.
        const badge = el("span", `stack-badge heat-${heatOf(e.total)}`, `+${e.total}`);
        fly(badge, pile, seatRect(e.seat), delay + 200, 520, 0);
      } else if (e.type === "drew") {
        const to = seatRect(e.seat);
        const { shown, gap } = drawFlights(e.count);
        for (let i = 0; i < shown; i++) fly(backNode(), deck, to, delay + i * gap, 300, 0);
        delay += gap * shown;
      } else if (e.type === "knocked_out") stamp(e.seat);
      else if (e.type === "hands_swapped") {
        const a = seatRect(e.seat);
        const b = seatRect(e.target);
        for (let i = 0; i < 4; i++) {
          fly(backNode(), a, b, delay + i * 70, 560, 12);
          fly(backNode(), b, a, delay + i * 70, 560, -12);
        }
        delay += 420;
      } else if (e.type === "hands_passed" && before) {
        for (let seat = 0; seat < before.players; seat++) {
          if (!before.active[seat]) continue;
          let t = (seat + e.direction + before.players) % before.players;
          while (!before.active[t] && t !== seat) t = (t + e.direction + before.players) % before.players;
          for (let i = 0; i < 3; i++) fly(backNode(), seatRect(seat), seatRect(t), delay + i * 60, 600, 0);
        }
        delay += 400;
      } else if (e.type === "reversed") {
        $("dir").animate([{ opacity: 0.2, transform: "translate(-50%, -50%) scale(1.25)" }, { opacity: 1, transform: "translate(-50%, -50%) scale(1)" }],
          { duration: 600, easing: "ease-out" });
      } else if (e.type === "skipped") {
        for (const seat of e.seats) {
          const plate = document.querySelector(`#seat-ring .seat[data-seat="${seat}"] .ring`);
          if (plate) plate.animate([{ opacity: 1 }, { opacity: 0.3 }, { opacity: 1 }], { duration: 500, delay });
        }
      }
    }
    if (moments.length) {
      setTimeout(() => { pending -= 1; for (const [kind, title, sub, scale] of moments) moment(kind, title, sub, scale); }, Math.min(delay, 900));
    }
  }

  /** True while moments are queued or shown (the end screen waits for them). */
  const busy = () => showing || pending > 0;
  return { capture, expect, play, grow, stack, moment, shake, busy, wasMoved, highlight };
}

/** The table's extras: its theme (remembered, applied at once) and the music (off until
 *  its button is pressed; js/music.js loads then, and stops with the sound's mute). */
function wireExtras(ctx, storage) {
  // The first theme is the style sheet's own: js/theme.js loads only for a player who
  // picked another one (the first screen stays light).
  const html = document.documentElement;
  html.dataset.theme = "felt";
  const themes = () => import("./theme.js");
  const picked = storage.get("theme");
  if (picked && picked !== "felt") themes().then((m) => m.applyTheme(picked)).catch(() => {});
  const themeBtn = document.getElementById("theme-btn");
  if (themeBtn) {
    const words = { felt: "theme.felt", night: "theme.night" };
    const label = () => { themeBtn.title = ctx.t(words[html.dataset.theme] || "theme.label"); };
    themeBtn.addEventListener("click", async () => {
      const { applyTheme, nextTheme } = await themes();
      storage.set("theme", applyTheme(nextTheme(html.dataset.theme)));
      label();
    });
    themeBtn.addEventListener("pointerenter", label);
    themeBtn.addEventListener("focus", label);
  }
  const musicBtn = document.getElementById("music-btn");
  if (!musicBtn) return;
  let music = null;
  // Remembered; a page may not start sound by itself: music left on starts at a gesture.
  let on = storage.get("music") === "1";
  const label = () => {
    musicBtn.setAttribute("aria-pressed", on ? "true" : "false");
    musicBtn.dataset.i18nAttr = `aria-label:music.label;title:${on ? "music.on" : "music.off"}`;
  };
  const sync = () => {
    const muted = ctx.store.get().muted;
    label();
    musicBtn.title = ctx.t(on ? "music.on" : "music.off");
    if (music) music.set(on && !muted, heatOf((ctx.store.get().view || {}).pending_total || 0));
  };
  const start = async () => {
    if (on && !music) {
      try { music = (await import("./music.js")).createMusic(); } catch { on = false; }
    }
    sync();
  };
  musicBtn.addEventListener("click", async () => {
    on = !on;
    storage.set("music", on ? "1" : "0");
    await start();
  });
  if (on) {
    const first = (e) => {
      if (e.target === musicBtn || musicBtn.contains(e.target)) return; // the button decides
      for (const type of ["pointerdown", "keydown"]) document.removeEventListener(type, first, true);
      start();
    };
    for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, first, true);
    label();
  }
  if (ctx.store.subscribe) ctx.store.subscribe(() => { if (music) sync(); });
}
