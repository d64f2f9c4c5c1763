// A player's profile (/u/<name>): the name and since when, rounds played and won per
// preset with the rating, the rating over time as an SVG chart of our own (with the same
// numbers as a table for screen readers), and the recent games with their replay and
// review links where this reader may open them (GET /api/players/{name}, docs/profiles.md).
import { el, clear, button } from "./dom.js";
import { api } from "./api.js";
import { firstPreset, ratingChart } from "./profilemodel.js";
import { provisionalTag, ratingChange } from "./end.js";

const SVG = "http://www.w3.org/2000/svg";
const PER_PAGE = 10;

function svg(tag, attrs = {}, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

/** The page's state: the profile as last fetched, the chart's preset, the games' page. */
const state = { ctx: null, root: null, name: null, data: null, preset: null, error: null, width: 0, watching: false };

function formats(ctx) {
  const lang = ctx.i18n.lang;
  return {
    day: new Intl.DateTimeFormat(lang, { year: "numeric", month: "long", day: "numeric" }),
    short: new Intl.DateTimeFormat(lang, { year: "2-digit", month: "short", day: "numeric" }),
    when: new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }),
    one: new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
    percent: new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }),
  };
}

const date = (seconds) => new Date(seconds * 1000);
const presetName = (ctx, preset) => (ctx.i18n.has(`preset.${preset}.name`) ? ctx.t(`preset.${preset}.name`) : preset);

/** The rating as the leaderboards show it, with the estimate and its uncertainty beside. */
function ratingCell(ctx, f, r) {
  const td = el("td", "num rating");
  td.append(el("span", "value", f.one.format(r.rating)), " ",
    el("span", "spread", ctx.t("profile.rating_spread", { mu: f.one.format(r.mu), spread: f.one.format(3 * r.sigma) })));
  if (r.provisional) td.append(" ", provisionalTag(ctx, r.games_to_settle));
  return td;
}

export async function openProfile(ctx, match, root) {
  state.ctx = ctx;
  state.root = root;
  let name = match[1];
  try { name = decodeURIComponent(name); } catch { /* shown as it came */ }
  state.name = name;
  state.data = null;
  state.error = null;
  state.preset = null;
  clear(root).append(el("p", "note profile-loading", ctx.t("profile.loading")));
  if (!state.watching) {
    // main.js changes the language without knowing this page: draw it again in the new words,
    // once its handler has run to the end (it sets the page's title to the home page's).
    const shown = () => state.root && !state.root.closest("[hidden]") && (state.data || state.error);
    new MutationObserver(() => { setTimeout(() => { if (shown()) draw(); }, 0); })
      .observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
    // The chart is drawn for its width (its labels at their size): again when that changes.
    let timer = null;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { if (shown() && chartWidth() !== state.width) draw(); }, 150);
    });
    state.watching = true;
  }
  await load(1);
}

/** Fetch page `page` of the games and draw; `focus`: the pager button to keep the focus on. */
async function load(page, focus = null) {
  try {
    state.data = await api(`/api/players/${encodeURIComponent(state.name)}?page=${page}&per_page=${PER_PAGE}`);
    state.error = null;
    if (!state.preset) state.preset = firstPreset(state.data.history);
  } catch (err) {
    state.error = err && err.code === "not_found" ? "not_found" : "failed";
  }
  draw();
  if (focus) {
    const pager = state.root.querySelector(".profile-pager");
    const target = pager && pager.querySelector(`[data-go="${focus}"]:not(:disabled)`);
    if (target) target.focus();
    else if (pager) state.root.querySelector("#profile-games-title").focus();
  }
}

function draw() {
  const { ctx, root, data } = state;
  const f = formats(ctx);
  clear(root);
  const page = el("article", "profile");
  root.appendChild(page);
  if (state.error) {
    document.title = ctx.t("page.title");
    const box = el("section", "panel profile-missing");
    box.append(el("h1", null, ctx.t(state.error === "not_found" ? "profile.not_found" : "profile.failed", { name: state.name })));
    const home = el("a", "button-link", ctx.t("profile.home"));
    home.href = "/";
    box.append(home);
    page.append(box);
    return;
  }
  document.title = ctx.t("profile.title_page", { name: data.name }, { capital: false });
  page.append(head(ctx, f, data));
  const grid = el("div", "profile-grid");
  page.append(grid);
  const chart = el("section", "panel profile-chart");
  // Nothing played: the games' panel says so once, without a table of nothing above it.
  if (data.presets.length) grid.append(presetsPanel(ctx, f, data));
  else grid.classList.add("bare");
  grid.append(chart, gamesPanel(ctx, f, data));
  chartPanel(ctx, f, data, chart); // in place, where its width is known
}

function head(ctx, f, data) {
  const box = el("header", "panel profile-head");
  const hue = [...data.name].reduce((h, c) => (h * 31 + c.codePointAt(0)) % 6, 0);
  const avatar = el("span", `profile-avatar avatar hue-${hue}`, [...data.name][0].toUpperCase());
  avatar.setAttribute("aria-hidden", "true");
  const text = el("div", "profile-who");
  const h1 = el("h1", null, data.name);
  if (data.me) h1.append(" ", el("span", "tag", ctx.t("profile.you")));
  const played = data.games.total;
  text.append(h1, el("p", "note", `${ctx.t("profile.since", { date: f.day.format(date(data.since)) })} · ${ctx.t("profile.played", { count: played }, { capital: false })}`));
  box.append(avatar, text);
  return box;
}

function presetsPanel(ctx, f, data) {
  const box = el("section", "panel profile-presets");
  box.setAttribute("aria-labelledby", "profile-presets-title");
  const title = el("h2", null, ctx.t("profile.presets"));
  title.id = "profile-presets-title";
  box.append(title);
  const wrap = el("div", "scores-wrap"); // scrolls sideways on the narrowest screens: reachable by keys
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-labelledby", "profile-presets-title");
  const table = el("table", "profile-table");
  const headRow = el("tr");
  for (const [key, num] of [["profile.col.preset", false], ["profile.col.games", true], ["profile.col.wins", true], ["profile.col.win_rate", true], ["profile.col.rating", true]]) {
    const th = el("th", num ? "num" : null, ctx.t(key));
    th.scope = "col";
    headRow.append(th);
  }
  table.append(el("thead"), el("tbody"));
  table.tHead.append(headRow);
  for (const p of data.presets) {
    const tr = el("tr");
    const th = el("th", null, presetName(ctx, p.preset));
    th.scope = "row";
    tr.append(
      th,
      el("td", "num", ctx.i18n.number(p.games)),
      el("td", "num", ctx.i18n.number(p.wins)),
      el("td", "num", p.win_rate === null ? "–" : f.percent.format(p.win_rate)),
      p.rating ? ratingCell(ctx, f, p.rating) : el("td", "num rating", ctx.t("profile.not_rated")),
    );
    table.tBodies[0].append(tr);
  }
  wrap.append(table);
  box.append(wrap, el("p", "note fine", ctx.t("profile.rating_note")));
  return box;
}

/** The drawing's own units: the chart panel's width in pixels, so that its labels read at their size. */
function chartWidth() {
  const box = state.root.querySelector(".profile-chart");
  if (!box) return 0;
  const style = getComputedStyle(box);
  const inner = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return Math.max(280, Math.min(720, Math.round(inner || 600)));
}

function chartPanel(ctx, f, data, box) {
  state.width = chartWidth();
  box.setAttribute("aria-labelledby", "profile-chart-title");
  const title = el("h2", null, ctx.t("profile.chart"));
  title.id = "profile-chart-title";
  box.append(title);
  const presets = Object.keys(data.history || {}).filter((p) => data.history[p].length);
  if (!presets.length || !state.preset) {
    box.append(el("p", "note empty", ctx.t(data.me ? "profile.no_ratings_you" : "profile.no_ratings", { name: data.name })));
    return box;
  }
  if (presets.length > 1) {
    const pick = el("div", "row profile-pick");
    pick.setAttribute("role", "group");
    pick.setAttribute("aria-label", ctx.t("profile.pick_preset"));
    for (const p of presets) {
      const b = button("small-btn", presetName(ctx, p), () => { state.preset = p; draw(); document.getElementById("profile-chart-title").scrollIntoView({ block: "nearest" }); });
      b.setAttribute("aria-pressed", String(p === state.preset));
      pick.append(b);
    }
    box.append(pick);
  }
  const points = data.history[state.preset];
  const width = state.width;
  const chart = ratingChart(points, { width, height: width < 480 ? 220 : 260, xMarks: width < 480 ? 2 : 4 });
  const last = points[points.length - 1];
  const root = svg("svg", { viewBox: `0 0 ${chart.width} ${chart.height}`, role: "img", "aria-labelledby": "rating-chart-title rating-chart-desc", class: "rating-chart" });
  root.append(
    svg("title", { id: "rating-chart-title" }, ctx.t("profile.chart_title", { name: data.name, preset: presetName(ctx, state.preset), count: points.length })),
    svg("desc", { id: "rating-chart-desc" }, ctx.t("profile.chart_desc", {
      first: f.day.format(date(points[0].at)), last: f.day.format(date(last.at)), rating: f.one.format(last.rating),
      mu: f.one.format(last.mu), spread: f.one.format(3 * last.sigma),
    })),
  );
  for (const t of chart.yTicks) {
    root.append(svg("line", { x1: chart.left, x2: chart.width - chart.right, y1: t.y, y2: t.y, class: "grid" }));
    root.append(svg("text", { x: chart.left - 6, y: t.y + 4, "text-anchor": "end", class: "axis" }, ctx.i18n.number(t.value)));
  }
  if (chart.zero !== null) root.append(svg("line", { x1: chart.left, x2: chart.width - chart.right, y1: chart.zero, y2: chart.zero, class: "zero" }));
  const base = chart.height - chart.bottom;
  for (const t of chart.xTicks) {
    const anchor = chart.xTicks.length > 1 && t === chart.xTicks[0] ? "start" : chart.xTicks.length > 1 && t === chart.xTicks[chart.xTicks.length - 1] ? "end" : "middle";
    root.append(svg("line", { x1: t.x, x2: t.x, y1: base, y2: base + 5, class: "tick" }));
    root.append(svg("text", { x: t.x, y: base + 18, "text-anchor": anchor, class: "axis" }, f.short.format(date(t.at))));
  }
  root.append(svg("text", { x: chart.left + (chart.width - chart.left - chart.right) / 2, y: chart.height - 4, "text-anchor": "middle", class: "axis axis-name" }, ctx.t("profile.axis_games", { count: points.length })));
  root.append(svg("path", { d: chart.band, class: "band" }));
  root.append(svg("path", { d: chart.mu, class: "mu-line" }));
  root.append(svg("path", { d: chart.line, class: "rating-line" }));
  if (chart.points.length <= 80) {
    for (const p of chart.points) root.append(svg("circle", { cx: p.x, cy: p.y, r: 3.5, class: "rating-point" }));
  }
  const figure = el("figure", "rating-figure");
  figure.append(root);
  const legend = el("ul", "chart-legend");
  for (const [cls, key] of [["rating", "profile.legend.rating"], ["mu", "profile.legend.mu"], ["band", "profile.legend.band"]]) {
    const li = el("li");
    const mark = el("span", `legend-mark ${cls}`);
    mark.setAttribute("aria-hidden", "true");
    li.append(mark, document.createTextNode(ctx.t(key)));
    legend.append(li);
  }
  figure.append(legend);
  box.append(figure, pointsTable(ctx, f, points));
  return box;
}

/** The chart's numbers, for screen readers (visually hidden). */
function pointsTable(ctx, f, points) {
  const box = el("div", "visually-hidden"); // a table is as wide as its cells: hide its box
  const table = el("table", "rating-points");
  box.append(table);
  table.append(el("caption", null, ctx.t("profile.chart_table")));
  const head = el("tr");
  for (const key of ["profile.col.number", "profile.col.date", "profile.col.rating", "profile.col.mu", "profile.col.spread"]) {
    const th = el("th", null, ctx.t(key));
    th.scope = "col";
    head.append(th);
  }
  table.append(el("thead"), el("tbody"));
  table.tHead.append(head);
  points.forEach((p, i) => {
    const tr = el("tr");
    tr.append(el("td", null, ctx.i18n.number(i + 1)), el("td", null, f.when.format(date(p.at))), el("td", null, f.one.format(p.rating)),
      el("td", null, f.one.format(p.mu)), el("td", null, f.one.format(3 * p.sigma)));
    table.tBodies[0].append(tr);
  });
  return box;
}

function result(ctx, g) {
  if (g.match_won === true) return ctx.t("profile.won_match");
  return ctx.t(g.won ? "profile.won" : "profile.lost");
}

function gamesPanel(ctx, f, data) {
  const box = el("section", "panel profile-games");
  box.setAttribute("aria-labelledby", "profile-games-title");
  const title = el("h2", null, ctx.t("profile.recent"));
  title.id = "profile-games-title";
  title.tabIndex = -1; // the focus lands here when the pager's button it was on goes away
  box.append(title);
  const games = data.games;
  if (!games.items.length) {
    box.append(el("p", "note empty", ctx.t(data.me ? "profile.no_games_you" : "profile.no_games", { name: data.name })));
    return box;
  }
  const list = el("ul", "games-list profile-list");
  for (const g of games.items) {
    const li = el("li", "profile-game");
    const when = el("time", "when", f.when.format(date(g.finished_at)));
    when.dateTime = date(g.finished_at).toISOString();
    const what = [presetName(ctx, g.preset)];
    if (g.daily) what.push(ctx.t("profile.daily", {}, { capital: false }));
    if (g.mode === "match") what.push(ctx.t("profile.match", {}, { capital: false }));
    if (g.players) what.push(ctx.t("profile.players", { count: g.players }));
    const line = el("div", "profile-game-line");
    line.append(el("span", `result${g.won ? " won" : ""}`, result(ctx, g)), el("span", "what", what.join(" · ")));
    if (g.rating) {  // a rated game: what it did to the rating
      const change = el("span", "rating-change", `${ctx.t("profile.rating")} `);
      change.append(...ratingChange(ctx, g.rating));
      line.append(change);
    }
    const links = el("div", "profile-game-links");
    if (g.replay) {
      const a = el("a", "game-link", ctx.t("profile.replay"));
      a.href = g.replay;
      links.append(a);
      if (g.review) {
        const r = el("a", "game-link", ctx.t("profile.review"));
        r.href = g.review;
        links.append(r);
      }
    } else {
      // A daily deal's game opens to all once its day is over; another is for its players.
      const tag = el("span", "tag", ctx.t(g.daily ? "profile.daily_closed" : "profile.players_only"));
      tag.title = ctx.t(g.daily ? "profile.daily_closed_help" : "profile.players_only_help");
      links.append(tag);
    }
    li.append(when, line, links);
    list.append(li);
  }
  box.append(list);
  if (games.pages > 1) {
    const nav = el("nav", "row profile-pager");
    nav.setAttribute("aria-label", ctx.t("profile.pages"));
    const newer = button("small-btn", ctx.t("profile.newer"), () => load(games.page - 1, "newer"));
    newer.dataset.go = "newer";
    newer.disabled = games.page <= 1;
    const older = button("small-btn", ctx.t("profile.older"), () => load(games.page + 1, "older"));
    older.dataset.go = "older";
    older.disabled = games.page >= games.pages;
    nav.append(newer, el("span", "note", ctx.t("profile.page", { page: games.page, pages: games.pages })), older);
    box.append(nav);
  }
  box.append(el("p", "note fine", ctx.t(data.me ? "profile.privacy_you" : "profile.privacy_other")));
  return box;
}

export default { path: /^\/u\/([^/]+)$/, open: openProfile };
