// The expert's review on the replay page: asked for (POST), its progress followed (GET,
// once a second) and then drawn: each seat's win chance over the round as an SVG line
// chart of our own (with the same numbers as a table for screen readers), a summary per
// seat (its inaccuracies, mistakes, blunders and average loss), and one seat's decisions that
// cost the most, each a button that takes the replay there. It opens on the viewer's seat.
import { $, el, button, clear } from "./dom.js";
import { api } from "./api.js";
import { renderParts } from "./log.js";
import { estimated, frameOf, points, winChart } from "./replaymodel.js";
import { openingSeat, seatSummaries } from "./reviewsummary.js";
import { keptTokens } from "./games.js";

const SVG = "http://www.w3.org/2000/svg";
const INK = ["#ffd54f", "#4fc3ff", "#ff8a80", "#a5e5a8", "#e1a6f0", "#ffb86b", "#ffffff", "#9ad0c2", "#f48fb1", "#c5cae9"];

function svg(tag, attrs = {}) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  return n;
}

export function createReview(ctx, jump) {
  let id = null;
  let token = null;
  let game = null;
  let timer = null;
  let review = null;
  let viewer = null; // the seat this browser played, once known
  let shown = 0; // the seat whose costliest decisions are listed

  function status(text, progress = null) {
    $("review-status").textContent = text;
    const bar = $("review-progress");
    bar.hidden = progress === null;
    if (progress !== null) bar.value = progress;
  }

  function reset(g, gameId, seatToken) {
    clearTimeout(timer);
    game = g; id = gameId; token = seatToken; review = null; viewer = null;
    shown = g ? openingSeat(g.players, null) : 0;
    clear($("review-chart"));
    clear($("review-worst"));
    clear($("review-table"));
    for (const extra of ["review-seats", "review-pick"]) document.getElementById(extra)?.remove();
    $("review-worst-title").hidden = true;
    $("review-table-box").hidden = true;
    $("review-panel").hidden = !id;
    $("rp-review").hidden = true; // until the server says whether a review exists already
    $("rp-review").disabled = false;
    status(ctx.t("review.none"));
    if (id) { follow(false); findViewer(); }
  }

  /** The seat this browser's kept tokens played in this game (the server answers for the
   *  tokens, newest games first); the review then opens on it. */
  async function findViewer() {
    const mine = id;
    const tokens = keptTokens().map((t) => t.token).slice(0, 50);
    if (!tokens.length || !game || !game.room) return;
    try {
      const found = ((await api("/api/games/mine", { tokens })).games || []).find((x) => x.id === mine);
      if (mine !== id || !found || !Number.isInteger(found.seat)) return;
      viewer = found.seat;
      shown = openingSeat(game.players, viewer);
      if (review) draw();
    } catch { /* unknown: the review stays on the first person's seat */ }
  }

  const seatName = (seat) => (seat === viewer ? ctx.t("review.seat_you", { name: ctx.nameOf(seat) }) : ctx.nameOf(seat));

  function answer(r) {
    if (r.status === "done" && r.review) {
      review = r.review;
      status(ctx.t("review.done"));
      $("rp-review").hidden = true;
      draw();
      return;
    }
    if (r.status === "failed") { status(ctx.t("review.failed")); $("rp-review").disabled = false; return; }
    if (r.status === "queued" || r.status === "running") {
      $("rp-review").disabled = true;
      status(ctx.t(r.status === "queued" ? "review.queued" : "review.running", { percent: points(r.progress || 0) }), r.progress || 0);
      timer = setTimeout(() => follow(true), 1000);
      return;
    }
    status(ctx.t("review.none"));
  }

  /** The review's state now (asked: keep following it while it runs). */
  async function follow(asked) {
    const mine = id;
    try {
      const r = await api(`/api/games/${encodeURIComponent(id)}/review`, undefined, token);
      if (mine !== id) return;
      if (asked || r.status === "done" || r.status === "queued" || r.status === "running") answer(r);
      if (!asked && r.status !== "done") $("rp-review").hidden = false;
    } catch (err) {
      if (mine !== id) return;
      if (asked) failed(err);
      else $("rp-review").hidden = false;
    }
  }

  function failed(err) {
    $("rp-review").disabled = false;
    status(err && (err.code === "busy" || err.status === 429) ? ctx.t("error.busy") : ctx.t("review.failed"));
  }

  async function ask() {
    if (!id) return;
    $("rp-review").disabled = true;
    status(ctx.t("review.asking"), 0);
    try { answer(await api(`/api/games/${encodeURIComponent(id)}/review`, {}, token)); } catch (err) { failed(err); }
  }

  const chosenLine = (d) => {
    if (d.chosen_label) return d.chosen_label;
    const f = game.frames[d.index + 1];
    const e = f && (f.events || []).find((x) => x.line);
    return e ? e.line : { key: "review.unnamed", params: {} };
  };

  function draw() {
    if (!review || !game) return;
    const players = game.players.length;
    const chart = winChart(review, players, { width: 640, height: 240, pad: 44 });
    const box = clear($("review-chart"));
    const root = svg("svg", { viewBox: `0 0 ${chart.width} ${chart.height}`, role: "img", "aria-labelledby": "review-chart-title", class: "win-chart" });
    const title = svg("title", { id: "review-chart-title" });
    title.textContent = ctx.t("review.chart_label");
    root.appendChild(title);
    for (const g of chart.grid) {
      root.appendChild(svg("line", { x1: chart.pad, x2: chart.width - chart.pad, y1: g.y, y2: g.y, class: "grid" }));
      const label = svg("text", { x: chart.pad - 4, y: g.y + 4, "text-anchor": "end", class: "axis" });
      label.textContent = ctx.i18n.number(points(g.win));
      root.appendChild(label);
    }
    root.appendChild(svg("line", { x1: 0, x2: 0, y1: chart.pad, y2: chart.height - chart.pad, class: "now", id: "review-now" }));
    const summaries = seatSummaries(review, players);
    const worst = new Set(summaries[shown] ? summaries[shown].worst.map((d) => d.index) : []);
    for (const line of chart.lines) {
      if (!line.points.length) continue;
      root.appendChild(svg("path", { d: line.path, stroke: INK[line.seat % INK.length], class: "seat-line", "data-seat": line.seat }));
      for (const p of line.points) {
        if (!worst.has(p.d.index)) continue;
        root.appendChild(svg("circle", { cx: p.x, cy: p.y, r: 6, class: "mistake", stroke: INK[line.seat % INK.length] }));
      }
    }
    box.appendChild(root);
    const legend = el("ul", "chart-legend");
    for (let seat = 0; seat < players; seat++) {
      const li = el("li");
      const swatch = el("span", "swatch-line");
      swatch.style.background = INK[seat % INK.length];
      swatch.setAttribute("aria-hidden", "true");
      li.append(swatch, document.createTextNode(ctx.nameOf(seat)));
      legend.appendChild(li);
    }
    box.appendChild(legend);
    drawSeats(summaries);
    drawWorst(summaries);
    drawTable();
    mark(null);
  }

  /** The seats' summary table, and the buttons that pick whose decisions are listed. */
  function drawSeats(summaries) {
    let box = document.getElementById("review-seats");
    if (!box) {
      box = el("div", "review-seats");
      box.id = "review-seats";
      $("review-worst-title").before(box);
    }
    clear(box);
    const table = el("table", "scores review-seats-table");
    const caption = el("caption", "", ctx.t("review.seats_caption"));
    table.appendChild(caption);
    const head = table.createTHead().insertRow();
    for (const k of ["review.col_player", "review.col_estimated", "review.col_inaccuracies", "review.col_mistakes", "review.col_blunders", "review.col_average"]) {
      const th = el("th", "", ctx.t(k));
      th.scope = "col";
      head.appendChild(th);
    }
    const body = table.createTBody();
    for (const s of summaries) {
      const row = body.insertRow();
      row.dataset.seat = String(s.seat);
      const th = el("th", "", seatName(s.seat));
      th.scope = "row";
      row.appendChild(th);
      for (const v of [s.estimated, s.inaccuracies, s.mistakes, s.blunders]) row.insertCell().textContent = ctx.i18n.number(v);
      row.insertCell().textContent = ctx.i18n.number(Math.round(s.average * 1000) / 10);
    }
    const wrap = el("div", "scores-wrap");
    wrap.tabIndex = 0; // a narrow screen scrolls the table sideways: by keys too
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", ctx.t("review.seats_caption"));
    wrap.appendChild(table);
    box.append(wrap, el("p", "note", ctx.t("review.seats_note")));
  }

  function pickSeat(summaries) {
    const pick = el("div", "row review-pick");
    pick.id = "review-pick";
    pick.setAttribute("role", "group");
    pick.setAttribute("aria-label", ctx.t("review.pick_seat"));
    for (const s of summaries) {
      const b = button("", seatName(s.seat), () => {
        shown = s.seat;
        draw();
        const again = document.querySelector(`#review-pick button[data-seat="${s.seat}"]`);
        if (again) again.focus();
      });
      b.dataset.seat = String(s.seat);
      b.setAttribute("aria-pressed", String(s.seat === shown));
      pick.appendChild(b);
    }
    return pick;
  }

  function drawWorst(summaries) {
    const list = clear($("review-worst"));
    const old = document.getElementById("review-pick");
    if (old) old.remove();
    list.before(pickSeat(summaries));
    list.dataset.seat = String(shown);
    const worst = summaries[shown] ? summaries[shown].worst : [];
    $("review-worst-title").hidden = false;
    if (!worst.length) { list.appendChild(el("li", "note", ctx.t("review.no_mistakes"))); return; }
    for (const d of worst) {
      const li = el("li");
      const b = button("worst", "", () => jump(frameOf(d)));
      b.dataset.index = String(d.index);
      b.appendChild(el("strong", "", ctx.t("review.move", { number: d.index + 1, seat: d.seat })));
      const chose = el("span", "chose");
      if (d.chosen_label) {
        renderParts(ctx, chose, ctx.i18n.parts("review.chose", { seat: d.seat }));
        chose.appendChild(document.createTextNode(" "));
      }
      const c = chosenLine(d); // without the server's label: the event that told the move
      renderParts(ctx, chose, ctx.i18n.parts(c.key, c.params || {}));
      const best = el("span", "best");
      if (d.best_label) {
        renderParts(ctx, best, ctx.i18n.parts("review.expert", {}));
        best.appendChild(document.createTextNode(" "));
        renderParts(ctx, best, ctx.i18n.parts(d.best_label.key, d.best_label.params || {}));
      } else best.textContent = ctx.t("review.expert_other");
      const half = points(1.96 * (d.loss_stderr || 0));
      const cost = el("span", "cost", ctx.t("review.cost", { loss: points(d.loss), margin: half, win: points(d.win), best: points(d.best_win ?? d.win) }));
      b.append(chose, best, cost);
      li.appendChild(b);
      list.appendChild(li);
    }
  }

  function drawTable() {
    const table = clear($("review-table"));
    $("review-table-box").hidden = false;
    const head = table.createTHead().insertRow();
    for (const k of ["review.col_move", "review.col_player", "review.col_win", "review.col_best", "review.col_loss"]) {
      const th = el("th", "", ctx.t(k));
      th.scope = "col";
      head.appendChild(th);
    }
    const body = table.createTBody();
    for (const d of estimated(review)) {
      const row = body.insertRow();
      const th = el("th", "", ctx.i18n.number(d.index + 1));
      th.scope = "row";
      row.appendChild(th);
      row.insertCell().textContent = ctx.nameOf(d.seat);
      row.insertCell().textContent = ctx.i18n.number(points(d.win));
      row.insertCell().textContent = ctx.i18n.number(points(d.best_win ?? d.win));
      row.insertCell().textContent = ctx.t("review.loss_cell", { loss: points(d.loss), margin: points(1.96 * (d.loss_stderr || 0)) });
    }
  }

  /** The replay's place on the chart (frame `at`; null: leave it). */
  function mark(at) {
    const now = document.getElementById("review-now");
    if (!now || !review) return;
    const frame = at === null ? Number(now.dataset.at || 0) : at;
    const chart = winChart(review, game.players.length, { width: 640, height: 240, pad: 44 });
    now.dataset.at = String(frame);
    now.setAttribute("x1", String(chart.x(frame)));
    now.setAttribute("x2", String(chart.x(frame)));
  }

  return { reset, ask, mark, redraw: () => { if (review) draw(); } };
}
