// The table view: the seats around the felt in play order (you at the bottom), the draw
// pile and the discard pile with the colour in play, the pending total, the direction of
// play and the status line. Everything it says comes from the view and the decisions.
import { $, el, button, clear } from "./dom.js";
import { cardNode, backNode, chipNode } from "./cards.js";
import { ringOptions, seatPositions } from "./layout.js";
import { accountMark } from "./marks.js";
import { choiceOf } from "./store.js";
import { heatOf } from "./anim.js";

export function seatOrder(players, seat) {
  const base = seat === null ? 0 : seat;
  return Array.from({ length: players }, (_, i) => (base + i) % players);
}

export function renderTable(ctx) {
  const s = ctx.store.get();
  const v = s.view;
  if (!v) return;
  renderStatus(ctx, s);
  renderSeats(ctx, s);
  renderPiles(ctx, s);
  renderScores(ctx);
}

function renderStatus(ctx, s) {
  const v = s.view;
  const status = clear($("status"));
  const line = el("span");
  if (v.outcome) {
    line.className = "banner";
    line.textContent = ctx.t("status.won", { seat: v.outcome.winner });
  } else if (s.decisions && s.decisions.deciding) {
    line.className = "you";
    line.textContent = ctx.t("status.your_turn");
  } else if (s.decisions) {
    line.className = s.seat !== null && !v.active[s.seat] ? "out" : "";
    line.textContent = ctx.i18n.line(s.decisions.prompt);
  }
  status.appendChild(line);
  if (v.outcome && s.endHidden && !s.replaying) {
    status.appendChild(button("small-btn", ctx.t("end.show"), () => { ctx.store.set({ endHidden: false }); ctx.render(); $("rematch-btn").focus(); }));
  }
}

function seatPlate(ctx, s, seat, k, pos) {
  const v = s.view;
  const room = s.room || { seats: [] };
  const info = room.seats[seat];
  const me = s.seat !== null ? room.seats[s.seat] : null;
  const div = el("div", "seat");
  div.dataset.seat = String(seat);
  div.style.left = `${pos.left}%`;
  div.style.top = `${pos.top}%`;
  if (seat === v.current_player && !v.outcome) div.classList.add("turn");
  if (seat === s.seat) div.classList.add("me");
  if (k === 0) div.classList.add("bottom");
  if (ctx.anim && ctx.anim.wasMoved && ctx.anim.wasMoved(seat)) div.classList.add("moved");
  if (!v.active[seat]) div.classList.add("out");
  // The seat that faces the pending total (it decides while one stands) glows with it.
  if (v.pending_total && seat === v.current_player && !v.outcome) div.classList.add("faces");
  const ring = el("div", "ring");
  ring.setAttribute("aria-hidden", "true");
  const name = ctx.nameOf(seat);
  const bot = info && info.kind === "bot";
  const initial = bot ? String(seat) : ((name.match(/\p{L}|\p{N}/u) || ["?"])[0]).toUpperCase();
  const avatar = el("span", `avatar hue-${seat % 6}${bot ? " bot" : ""}`, initial);
  ring.appendChild(avatar);
  // Nobody is removed from a rated round (the server refuses it): no button for it there.
  // The × stands inside the plate (a corner badge stuck out past it on a phone).
  if (me && me.host && info && info.kind === "human" && seat !== s.seat && !(s.room && s.room.rated)) {
    const head = el("div", "head");
    const kick = ctx.kickButton(info);
    kick.textContent = "×"; // the seat keeps its size; the label names the player
    kick.classList.add("seat-kick");
    head.append(kick, ring);
    div.appendChild(head);
  } else div.appendChild(ring);
  const plate = el("div", "plate");
  div.appendChild(plate);
  const line = el("div", "name-line");
  line.appendChild(el("div", "name", seat === s.seat ? ctx.t("seat.you_label") : name));
  if (info && info.account) line.appendChild(accountMark(ctx)); // set by the server alone
  plate.appendChild(line);
  const count = v.hand_sizes[seat];
  if (v.hands && v.active[seat]) {
    // A replay shows every hand face up (a kept game is a finished round).
    const shown = el("div", "shown");
    for (const c of v.hands[seat] || []) shown.appendChild(chipNode(c, ctx.i18n.cardTitle(c)));
    plate.appendChild(shown);
  } else if (seat !== s.seat) {
    const backs = el("div", "backs");
    backs.setAttribute("aria-hidden", "true");
    if (v.active[seat]) {
      const shown = Math.min(count, 9);
      for (let i = 0; i < shown; i++) {
        const b = backNode("mini");
        b.style.setProperty("--i", String(i - (shown - 1) / 2));
        backs.appendChild(b);
      }
    }
    plate.appendChild(backs);
  }
  plate.appendChild(el("div", "count", v.active[seat] ? ctx.t("seat.cards", { count }) : ctx.t("seat.out")));
  const flags = [];
  if (info && info.kind === "bot") flags.push(ctx.t("seat.bot"));
  if (info && info.standin) flags.push(ctx.t("seat.standin"));
  if (info && info.kind === "human" && !info.connected && !info.standin) flags.push(ctx.t("seat.away"));
  if (flags.length) plate.appendChild(el("div", "flags", flags.join(" · ")));
  const mercy = v.active[seat] && (room.rules || {}).mercy_limit;
  if (mercy && count >= mercy - 5) {
    const warn = el("div", count >= mercy - 2 ? "mercy hot" : "mercy", `⚠ ${count}/${mercy}`);
    warn.title = ctx.t("seat.mercy", { limit: mercy });
    plate.appendChild(warn);
  }
  if ((v.uno_open || []).includes(seat)) plate.appendChild(el("div", "uno-flag", ctx.t("seat.no_uno")));
  else if (v.active[seat] && count === 1) plate.appendChild(el("div", "uno-flag ok", ctx.t("seat.uno")));
  div.setAttribute("role", "group");
  const state = v.active[seat] ? ctx.t("seat.cards", { count }) : ctx.t("seat.knocked_out");
  const turn = seat === v.current_player && !v.outcome ? ctx.t("seat.deciding") : "";
  div.setAttribute("aria-label", `${seat === s.seat ? ctx.t("seat.you_label") : name}: ${state}${turn}`);
  return div;
}

function renderSeats(ctx, s) {
  const v = s.view;
  const box = clear($("seat-ring"));
  const order = seatOrder(v.players, s.seat);
  const ring = ringOptions(order.length);
  // A replay's bottom plate shows a hand face up and stands a little higher.
  const positions = seatPositions(order.length, s.replaying ? { ...ring, bottomY: 40 } : ring);
  // The style sheet sizes the plates by the seat count (compact when the ring is crowded).
  box.dataset.seats = String(order.length);
  order.forEach((seat, k) => box.appendChild(seatPlate(ctx, s, seat, k, positions[k])));
  // A spectator's bottom plate lies flat, as a player's own does: standing, it covered the
  // colour in play.
  const bottom = box.querySelector(".seat.bottom");
  if (bottom && s.seat === null && !s.replaying) bottom.classList.add("flat");
  const room = s.room;
  const me = room && s.seat !== null ? room.seats[s.seat] : null;
  if (me && me.host) {
    for (const r of room.removed || []) {
      const plate = box.querySelector(`.seat[data-seat="${r.seat}"]`);
      if (plate) plate.appendChild(ctx.readmitButton(r));
    }
  }
  updateClock(ctx);
}

/** The turn timer's ring and seconds (called every quarter second too). */
export function updateClock(ctx) {
  const s = ctx.store.get();
  const v = s.view;
  const total = s.room && s.room.turn_seconds;
  for (const plate of document.querySelectorAll("#seat-ring .seat")) {
    const ring = plate.querySelector(".ring");
    let p = 1;
    if (v && Number(plate.dataset.seat) === v.current_player && s.deadline && total) {
      const leftMs = s.deadline.at - Date.now();
      p = Math.max(0, Math.min(1, leftMs / (total * 1000)));
      const left = Math.max(0, Math.ceil(leftMs / 1000));
      let clock = plate.querySelector(".clock");
      if (!clock) { clock = el("span", "clock"); plate.appendChild(clock); }
      clock.textContent = ctx.t("seat.seconds", { count: left });
      plate.classList.toggle("hurry", left <= 5);
    }
    ring.style.setProperty("--p", String(p));
  }
}

function renderPiles(ctx, s) {
  const v = s.view;
  const dir = $("dir");
  dir.classList.toggle("ccw", v.direction !== 1);
  dir.setAttribute("aria-label", ctx.t(v.direction === 1 ? "table.clockwise" : "table.counter_clockwise"));
  const deck = clear($("deck-cards"));
  const layers = Math.max(1, Math.min(4, Math.ceil(v.draw_pile_size / 30)));
  for (let i = 0; i < layers; i++) {
    const b = backNode();
    b.style.setProperty("--d", String(i));
    deck.appendChild(b);
  }
  const dc = clear($("discard-cards"));
  const trail = s.trail.length && s.trail[s.trail.length - 1] === v.top ? s.trail.slice(-3) : [v.top];
  trail.forEach((code, i) => {
    const under = i < trail.length - 1;
    const c = cardNode(code, ctx.i18n.cardTitle(code), "div", "big");
    c.style.setProperty("--r", `${(i - trail.length + 1) * 9 + (i % 2 ? 3 : -2)}deg`);
    c.style.setProperty("--x", `${(i - trail.length + 1) * 10}px`);
    if (under) { c.classList.add("under"); c.removeAttribute("role"); c.removeAttribute("aria-label"); c.setAttribute("aria-hidden", "true"); }
    else c.id = "top-card";
    dc.appendChild(c);
  });
  const discard = $("discard");
  discard.className = `discard halo-${v.color || "none"}`;
  const colour = v.color ? ctx.i18n.colorName(v.color) : null;
  discard.setAttribute("aria-label", colour
    ? ctx.t("table.discard_color", { card: v.top, color: v.color })
    : ctx.t("table.discard", { card: v.top }));
  const chip = $("color-chip");
  chip.className = `color-chip c-${v.color || "none"}`;
  chip.textContent = v.color ? ctx.t("table.color_in_play", { color: v.color, letter: v.color }) : ctx.t("table.no_color");
  const pending = $("pending");
  const was = pending.hidden ? 0 : Number(pending.dataset.total || 0);
  pending.hidden = !v.pending_total;
  pending.dataset.total = String(v.pending_total || 0);
  // The counter: the total (rolled up by js/anim.js) and who faces it; the felt warms with it.
  const facing = v.pending_total && !v.outcome ? v.current_player : null;
  pending.replaceChildren(el("span", "pending-n", `+${v.pending_total}`),
    ...(facing !== null ? [el("span", "pending-who", ctx.t("table.pending_who", { seat: facing }))] : []));
  pending.classList.toggle("huge", v.pending_total >= 10);
  pending.setAttribute("aria-label", ctx.t("table.pending", { total: v.pending_total }));
  $("felt").dataset.heat = String(heatOf(v.pending_total));
  if (v.pending_total > was) (ctx.anim.stack || ctx.anim.grow)(pending, was, v.pending_total);
  const d = s.decisions;
  const take = choiceOf(d, "take");
  const draw = choiceOf(d, "draw");
  const btn = $("draw-btn");
  btn.disabled = !(take || draw);
  btn.classList.toggle("can", !btn.disabled);
  $("deck-label").textContent = take ? ctx.i18n.line(take.label) : ctx.t("table.draw");
  $("drawsize").textContent = ctx.t("table.left", { count: v.draw_pile_size });
  btn.setAttribute("aria-label", take ? `${ctx.i18n.line(take.label)}. ${ctx.i18n.line(take.cost)}`
    : ctx.t("table.draw_label", { count: v.draw_pile_size }));
}

export function renderScores(ctx) {
  const s = ctx.store.get();
  const room = s.room;
  if (!room) return;
  const table = clear($("scores"));
  const rounds = room.rounds || [];
  const head = table.createTHead().insertRow();
  const cols = [ctx.t("scores.player"), ...rounds.map((r) => ctx.t("scores.round_short", { number: r.number })), ctx.t("scores.total")];
  for (const t of cols) {
    const th = el("th", "", t);
    th.scope = "col";
    head.appendChild(th);
  }
  const body = table.createTBody();
  room.seats.forEach((seat, i) => {
    const row = body.insertRow();
    const th = el("th", "", seat.seat === s.seat ? ctx.t("seat.you_label") : ctx.nameOf(i));
    th.scope = "row";
    row.appendChild(th);
    for (const r of rounds) {
      const cell = row.insertCell();
      cell.className = `num${r.winner === i ? " won" : ""}`;
      cell.textContent = ctx.i18n.number(r.points[i] || 0);
    }
    const total = row.insertCell();
    total.className = "num total";
    total.textContent = ctx.i18n.number(room.scores[i] || 0);
  });
  table.createCaption().textContent = room.mode === "match"
    ? ctx.t("scores.match", { points: room.rules.target_score, number: room.round })
    : ctx.t("scores.single");
}
