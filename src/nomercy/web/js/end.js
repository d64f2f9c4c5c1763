// The end of a round and of a match: who won and how, every hand shown, the points of
// every round of the match and the totals, and the rematch.
import { $, el, clear } from "./dom.js";
import { chipNode, cardNode } from "./cards.js";
import { api } from "./api.js";

/** A rating and its change as the boards show them ("12.3 (+1.4)"), with "provisional:
 * N more games" while it is (`c`: after, delta, provisional, games_to_settle). */
export function ratingChange(ctx, c) {
  const n = (x, signDisplay) => new Intl.NumberFormat(ctx.i18n.lang, { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay }).format(x);
  const text = ctx.t("rating.change", { rating: n(c.after, "auto"), delta: n(c.delta, "exceptZero") });
  return c.provisional ? [text, " ", provisionalTag(ctx, c.games_to_settle)] : [text];
}

export const provisionalTag = (ctx, count) => el("span", "tag provisional", ctx.t("rating.provisional", { count }, { capital: false }));

// The round's rating changes (GET /api/rooms/CODE/ratings?seq=VERSION): asked for once per
// round, again while the server is still keeping it.
const rated = { key: null, data: null };

async function fetchRating(ctx, code, seq) {
  const key = `${code}:${seq}`;
  if (rated.key === key) return;
  Object.assign(rated, { key, data: null });
  for (let i = 0; i < 10 && rated.key === key; i++) {
    if (i) await new Promise((ok) => setTimeout(ok, 600));
    let got;
    try { got = await api(`/api/rooms/${code}/ratings?seq=${seq}`); } catch { return; }
    if (got.kept && rated.key === key) { rated.data = got; renderRating(ctx); return; }
  }
}

/** The reader's own change at a rated table: "Your rating: 12.3 (+1.4)", or that it did not change. */
function renderRating(ctx) {
  const s = ctx.store.get();
  const p = $("end-rating");
  const data = s.room && s.room.rated && s.seat !== null && rated.key === `${s.room.code}:${s.version}` ? rated.data : null;
  p.hidden = !data;
  if (!data) return;
  const mine = data.changes.find((c) => c.seat === s.seat);
  if (mine) p.replaceChildren(ctx.t("end.rating"), " ", ...ratingChange(ctx, mine));
  else p.textContent = ctx.t("end.not_rated");
}

export function renderEnd(ctx) {
  const s = ctx.store.get();
  const v = s.view;
  const end = $("end");
  const room = s.room;
  if (!v || !v.outcome || s.endHidden || !room || ctx.anim.busy()) { end.hidden = true; return; }
  const wasHidden = end.hidden;
  end.hidden = false;
  // The top bar stays above the end screen: the card begins below it.
  end.style.setProperty("--end-top", `${document.querySelector(".topbar").offsetHeight}px`);
  const o = v.outcome;
  const matchOver = room.status === "finished";
  const isMatch = room.mode === "match";
  const winner = isMatch && matchOver && room.match_winner !== null ? room.match_winner : o.winner;
  const matchWon = isMatch && matchOver && room.match_winner !== null;
  $("end-title").textContent = ctx.t(matchWon ? "end.match_won" : "end.round_won", { seat: winner });
  end.classList.toggle("mine", winner === s.seat);
  const art = clear($("end-art"));
  ["W+10", "WCR", "R7"].forEach((code, i) => {
    const c = cardNode(code, "", "span", "end-card-art");
    c.style.setProperty("--i", String(i - 1));
    c.removeAttribute("role");
    c.removeAttribute("aria-label");
    art.appendChild(c);
  });
  const kos = o.knocked_out.map((k) => (k.by !== null && k.by !== k.seat
    ? ctx.t("end.ko_by", { seat: k.seat, by: k.by }) : ctx.t("end.ko", { seat: k.seat })));
  $("end-how").textContent = [ctx.t(o.reason === "played_out" ? "end.how_out" : "end.how_last", { seat: o.winner }),
    kos.length ? ctx.t("end.knocked_out", { list: kos.join(", ") }) : ""].filter(Boolean).join(" ");
  renderEndTable(ctx, s, isMatch);
  if (room.rated && s.seat !== null) fetchRating(ctx, room.code, s.version);
  renderRating(ctx);
  const rounds = room.rounds || [];
  $("end-match").textContent = isMatch
    ? matchOver ? ctx.t("end.match_over", { count: rounds.length, points: room.rules.target_score })
      : ctx.t("end.next_round", { number: room.round, points: room.rules.target_score })
    : "";
  renderRematch(ctx, s, matchOver);
  renderShare(ctx, s);
  if (wasHidden) {
    // Keyboard users land on the end screen's first button (unless typing in the chat).
    const active = document.activeElement;
    if (!$("prompt").open && !(active && active.closest && active.closest("#social, #end"))) {
      const rb = $("rematch-btn");
      setTimeout(() => (rb.hidden ? $("home-btn") : rb).focus({ preventScroll: true }), 50);
    }
  }
}

/** The round's big moment (js/anim.js keeps it) as a picture to share: js/share.js draws
 *  it, and loads only when the button is pressed. */
function renderShare(ctx, s) {
  const moment = ctx.anim.highlight ? ctx.anim.highlight() : null;
  const btn = $("end-share");
  btn.hidden = !moment || Boolean(s.replaying);
  btn.onclick = async () => {
    try {
      const { shareMoment } = await import("./share.js");
      if ((await shareMoment(ctx, moment)) === "saved") ctx.toast(ctx.t("share.saved"));
    } catch (err) { ctx.toast(String(err)); }
  };
}

function renderEndTable(ctx, s, isMatch) {
  const v = s.view;
  const o = v.outcome;
  const room = s.room;
  const rounds = isMatch ? room.rounds || [] : [];
  const table = clear($("end-table"));
  const head = table.createTHead().insertRow();
  const cols = [ctx.t("end.player"), ctx.t("end.hand"), ...rounds.map((r) => ctx.t("scores.round_short", { number: r.number })),
    isMatch ? ctx.t("scores.total") : ctx.t("end.points")];
  for (const t of cols) {
    const th = el("th", "", t);
    th.scope = "col";
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (let seat = 0; seat < v.players; seat++) {
    const row = body.insertRow();
    if (seat === o.winner) row.className = "winner";
    const out = o.knocked_out.some((k) => k.seat === seat);
    const name = el("th", "", `${seat === o.winner ? "★\u00a0" : ""}${ctx.who(seat)}${out ? ` (${ctx.t("seat.knocked_out", {}, { capital: false })})` : ""}`);
    name.scope = "row";
    row.appendChild(name);
    const hc = row.insertCell();
    hc.className = "reveal";
    const hand = s.reveal ? s.reveal[seat] : seat === s.seat ? v.hand : null;
    if (!v.active[seat]) hc.textContent = s.koCards[seat] ? ctx.t("end.ko_cards", { count: s.koCards[seat] }, { capital: false })
      : ctx.t("seat.knocked_out", {}, { capital: false });
    else if (hand && hand.length) for (const c of hand) hc.appendChild(chipNode(c, ctx.i18n.cardTitle(c)));
    else hc.textContent = hand ? ctx.t("end.no_cards") : ctx.t("seat.cards", { count: v.hand_sizes[seat] });
    for (const r of rounds) {
      const cell = row.insertCell();
      cell.className = `num${r.winner === seat ? " won" : ""}`;
      cell.textContent = ctx.i18n.number(r.points[seat] || 0);
    }
    const pts = row.insertCell();
    pts.className = "num total";
    pts.textContent = ctx.i18n.number(isMatch ? room.scores[seat] || 0 : o.points[seat] || 0);
  }
}

function renderRematch(ctx, s, matchOver) {
  const room = s.room;
  const me = s.seat !== null ? room.seats[s.seat] : null;
  const rb = $("rematch-btn");
  rb.hidden = !matchOver || s.seat === null || Boolean(room.daily);
  $("end-daily").hidden = !room.daily;
  if (room.daily) {  // a guest's or a second attempt is practice: the board does not have it
    $("end-rematch").textContent = ctx.t(room.daily_board ? "daily.end_note" : "daily.end_note_practice");
    return;
  }
  const ready = new Set(room.rematch || []);
  const waiting = room.seats.filter((x) => x.kind === "human" && !x.host && x.connected && !ready.has(x.seat))
    .map((x) => (x.seat === s.seat ? ctx.t("seat.you") : x.nickname));
  const note = $("end-rematch");
  if (!matchOver) note.textContent = "";
  else if (me && me.host) {
    rb.textContent = ctx.t("end.rematch");
    rb.disabled = waiting.length > 0;
    rb.removeAttribute("aria-pressed");
    note.textContent = waiting.length ? ctx.t("end.rematch_waiting", { list: waiting.join(", ") })
      : ctx.t("end.rematch_ready", { count: room.seats.filter((x) => x.kind === "bot").length });
  } else if (me) {
    const mine = ready.has(s.seat);
    rb.textContent = ctx.t(mine ? "end.rematch_in" : "end.rematch_join");
    rb.disabled = false;
    rb.setAttribute("aria-pressed", mine ? "true" : "false");
    note.textContent = ctx.t(mine ? "end.rematch_host" : "end.rematch_ask");
  } else note.textContent = ctx.t("end.rematch_players");
}
