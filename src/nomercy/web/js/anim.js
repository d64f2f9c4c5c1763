// Motion that tells the story: the deal, played cards flying to the pile, draws flying one
// by one (quicker when the penalty is big), a swap and a pass of hands you can follow, the
// stack counter growing, UNO and catches announced, and the moments: a big take, your own
// knock-out, a round and a match won. Only transform and opacity move (the compositor's
// work); every movement is off under prefers-reduced-motion, never the news: the words of a
// swap or a pass and the marks on the seats whose hands moved stay.
import { $, el, reducedMotion } from "./dom.js";
import { cardNode, backNode } from "./cards.js";
import { drawFlights } from "./layout.js";
import { bubble } from "./chat.js";

const rectOf = (node) => (node ? node.getBoundingClientRect() : null);

export function createAnim(ctx) {
  const off = () => reducedMotion() || document.hidden;

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

  function moment(kind, title, sub = "") {
    queue.push([kind, title, sub]);
    if (!showing) nextMoment();
  }

  /** A round's end as a moment: the match won, or the round won. The room that says which
   *  comes just after the round's state; until it has counted this round, wait for it (at
   *  most ROOM_WAIT_MS, then the round's moment). */
  const ROOM_WAIT_MS = 1500;
  function roundMoment(winner, roundsBefore, since) {
    const room = ctx.store.get().room;
    const counted = room && (room.mode !== "match" || (room.rounds || []).length > roundsBefore);
    if (!counted && performance.now() - since < ROOM_WAIT_MS) return null;
    const matchWon = Boolean(counted && room.mode === "match" && room.status === "finished" && room.match_winner !== null);
    return matchWon ? ["match", ctx.t("anim.match_won", { seat: room.match_winner }), ""]
      : ["win", ctx.t("anim.round_won", { seat: winner }), ""];
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
    const [kind, title, sub] = item;
    const duration = kind === "win" || kind === "match" ? 2600 : 1900;
    box.className = `moment ${kind}`;
    box.replaceChildren(el("div", "moment-title", title), ...(sub ? [el("div", "moment-sub", sub)] : []));
    box.hidden = false;
    setTimeout(nextMoment, duration);
    if (off()) return;
    // In with a slam, then it stays until it is hidden (its timer, not the animation, ends it).
    box.animate([{ opacity: 0, transform: "scale(1.6)" }, { opacity: 1, transform: "scale(1)" }],
      { duration: 420, easing: "cubic-bezier(.2,1.4,.4,1)", fill: "both" });
    if (kind === "bigtake" || kind === "ko") shake($("felt"), true);
    if (kind === "win" || kind === "match") confetti(kind === "match" ? 46 : 28);
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

  function announce(text, kind) {
    const box = el("div", `announce ${kind}`, text);
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
      if (e.type === "drew" && e.seat === me && (e.reason === "stack" || e.reason === "penalty") && e.count >= 10) {
        moments.push(["bigtake", `+${e.count}`, ctx.t("anim.big_take", { count: e.count })]);
      }
      if (e.type === "knocked_out" && e.seat === me) moments.push(["ko", ctx.t("anim.out"), ctx.t("anim.ko_you", { count: e.cards })]);
      // Whether the round also ends the match is the room's news, and the server sends the
      // room after this state: the moment is named when it is shown (roundMoment).
      if (e.type === "round_over") moments.push(["round", e.winner, (s.room && s.room.rounds || []).length]);
    }
    stash = moments;
    if (moments.length) pending += 1;
  }

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
        announce(ctx.t("anim.swap"), "swap");
        markMoved([e.seat, e.target]);
      } else if (e.type === "hands_passed") {
        const v = before || s.view;
        announce(ctx.t("anim.pass"), "swap");
        if (v) markMoved(v.active.map((on, seat) => (on ? seat : -1)).filter((seat) => seat >= 0));
      }
    }
    const moments = stash;
    stash = [];
    if (off()) {
      if (moments.length) pending -= 1;
      for (const [kind, title, sub] of moments) moment(kind, title, sub);
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
      setTimeout(() => { pending -= 1; for (const [kind, title, sub] of moments) moment(kind, title, sub); }, Math.min(delay, 900));
    }
  }

  /** True while moments are queued or shown (the end screen waits for them). */
  const busy = () => showing || pending > 0;
  return { capture, expect, play, grow, moment, shake, busy, wasMoved };
}
