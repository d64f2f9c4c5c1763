// The leaderboards (/leaders, /leaders/<preset>): one board per preset, ranked by the low end
// of each player's skill range (mu - 3 sigma), with the range itself shown so that a new
// player's uncertainty is plain to see. Pages are links (?page=N): the back button works.
import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { provisionalTag } from "./end.js";

const PER_PAGE = 25;

function fmt(ctx, n, digits = 1) {
  return new Intl.NumberFormat(ctx.i18n.lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
}

function percent(ctx, x) {
  return new Intl.NumberFormat(ctx.i18n.lang, { style: "percent", maximumFractionDigits: 0 }).format(x);
}

function link(href, text, cls = "") {
  const a = el("a", cls, text);
  a.href = href;
  return a;
}

/** A player's name: an account links to its profile; a bot level is named as a bot. */
function nameCell(ctx, e) {
  const td = el("td", "leader-name");
  if (e.kind === "bot") {
    const level = ctx.i18n.has(`rating.level.${e.level}`) ? ctx.t(`rating.level.${e.level}`) : e.level;
    td.append(el("span", "leader-bot", ctx.t("leaders.bot", { level })));
  } else {
    td.append(link(`/u/${encodeURIComponent(e.name)}`, e.name));
  }
  return td;
}

/** The skill range mu ± 3 sigma as text and as a bar on a 0-50 scale; its low end is the rating. */
function rangeCell(ctx, e) {
  const td = el("td", "leader-range");
  const text = el("span", "range-text", ctx.t("leaders.range", { mu: fmt(ctx, e.mu), spread: fmt(ctx, 3 * e.sigma) }));
  const bar = el("span", "range-bar");
  bar.setAttribute("aria-hidden", "true");
  const low = Math.max(0, Math.min(50, e.mu - 3 * e.sigma));
  const high = Math.max(0, Math.min(50, e.mu + 3 * e.sigma));
  const fill = el("span", "range-fill");
  fill.style.left = `${(low / 50) * 100}%`;
  fill.style.width = `${Math.max(1, ((high - low) / 50) * 100)}%`;
  const mark = el("span", "range-mu");
  mark.style.left = `${(Math.max(0, Math.min(50, e.mu)) / 50) * 100}%`;
  bar.append(fill, mark);
  td.append(text, bar);
  return td;
}

/** The rating; on a phone the range column gives way and its text shows here, under it. */
function ratingCell(ctx, e) {
  const td = el("td", "num leader-rating", fmt(ctx, e.rating));
  td.append(el("span", "range-small", ctx.t("leaders.range", { mu: fmt(ctx, e.mu), spread: fmt(ctx, 3 * e.sigma) })));
  return td;
}

/** A signed-in reader's place: their rank (and a link to their page when it is another), or
 * why they are not listed: provisional (and how many games it still needs), away, unrated. */
function meLine(ctx, preset, board, me) {
  const p = el("p", "leader-me");
  if (!me || !me.signed_in) return null;
  if (!me.rated) p.textContent = ctx.t("leaders.me_none");
  else if (me.rank) {
    p.textContent = ctx.t("leaders.me_rank", { rank: ctx.i18n.number(me.rank), rating: fmt(ctx, me.rating) });
    if (me.page !== board.page) p.append(" ", link(`/leaders/${preset}${me.page > 1 ? `?page=${me.page}` : ""}`, ctx.t("leaders.me_go")));
  } else if (me.provisional) p.append(ctx.t("leaders.me_off", { rating: fmt(ctx, me.rating) }), " ", provisionalTag(ctx, me.games_to_settle));
  else p.textContent = ctx.t("leaders.me_inactive");
  return p;
}

function table(ctx, entries, me) {
  const t = el("table", "leader-table");
  const cap = el("caption", "visually-hidden", ctx.t("leaders.caption"));
  const head = el("tr");
  for (const [key, cls] of [["rank", "num"], ["player", ""], ["rating", "num"], ["range", "wide"], ["games", "num"], ["win_rate", "num"]]) {
    const th = el("th", cls, ctx.t(`leaders.col.${key}`));
    th.scope = "col";
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const e of entries) {
    const tr = el("tr", e.kind === "bot" ? "is-bot" : "");
    const name = nameCell(ctx, e);
    if (me && me.player === e.player) {  // the reader's own row
      tr.classList.add("is-me");
      tr.setAttribute("aria-current", "true");
      name.append(" ", el("span", "tag", ctx.t("profile.you")));
    }
    tr.append(
      el("td", "num leader-rank", ctx.i18n.number(e.rank)),
      name,
      ratingCell(ctx, e),
      rangeCell(ctx, e),
      el("td", "num", ctx.i18n.number(e.games)),
      el("td", "num", percent(ctx, e.win_rate)),
    );
    body.append(tr);
  }
  t.append(cap, thead, body);
  return t;
}

function pager(ctx, preset, board) {
  const nav = el("nav", "leader-pages");
  nav.setAttribute("aria-label", ctx.t("leaders.pages_label"));
  const at = (p) => `/leaders/${preset}${p > 1 ? `?page=${p}` : ""}`;
  if (board.page > 1) nav.append(link(at(board.page - 1), ctx.t("leaders.prev"), "small-btn"));
  nav.append(el("span", "leader-page", ctx.t("leaders.page", { page: board.page, pages: board.pages })));
  if (board.page < board.pages) nav.append(link(at(board.page + 1), ctx.t("leaders.next"), "small-btn"));
  return nav;
}

export async function openLeaders(ctx, match, root) {
  clear(root);
  const box = el("section", "panel leaders");
  box.id = "leaders";
  root.append(box);
  box.append(el("h1", "", ctx.t("leaders.title")));
  let listed;
  try {
    listed = await api("/api/leaderboards");
  } catch (err) {
    box.append(el("p", "leader-empty", ctx.t("leaders.unavailable")));
    return;
  }
  const presets = listed.boards.map((b) => b.preset);
  const asked = match[1];
  const preset = asked && presets.includes(asked) ? asked : (listed.boards.find((b) => b.players > 0) || listed.boards[0]).preset;
  box.append(el("p", "leader-about", ctx.t("leaders.about", { count: listed.min_games })));

  const tabs = el("nav", "leader-tabs");
  tabs.setAttribute("aria-label", ctx.t("leaders.presets_label"));
  for (const b of listed.boards) {
    const a = link(`/leaders/${b.preset}`, ctx.t(`preset.${b.preset}.name`), "leader-tab");
    if (b.preset === preset) a.setAttribute("aria-current", "page");
    tabs.append(a);
  }
  box.append(tabs);

  const page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);
  let board;
  let me = null;
  try {
    [board, me] = await Promise.all([api(`/api/leaderboards/${preset}?page=${page}&per_page=${PER_PAGE}`),
      api(`/api/leaderboards/${preset}/me`).catch(() => null)]);
  } catch (err) {
    box.append(el("p", "leader-empty", ctx.t("leaders.unavailable")));
    return;
  }
  document.title = ctx.t("leaders.page_title", { preset: ctx.t(`preset.${preset}.name`) });
  const mine = meLine(ctx, preset, board, me);
  if (mine) box.append(mine);
  if (!board.total) {
    box.append(el("p", "leader-empty", ctx.t("leaders.empty", { count: board.min_games })));
    return;
  }
  if (!board.entries.length) {
    box.append(el("p", "leader-empty", ctx.t("leaders.past_end")), pager(ctx, preset, board));
    return;
  }
  const scroll = el("div", "leader-scroll");
  scroll.append(table(ctx, board.entries, me));
  box.append(scroll);
  if (board.pages > 1) box.append(pager(ctx, preset, board));
}

export default { path: /^\/leaders(?:\/([a-z_]{1,32}))?\/?$/, open: openLeaders };
