// The daily deal (/daily, /daily/<YYYY-MM-DD>): today's deal per preset with its Play
// button or this player's result, the day's board, and a past day's board with the
// replays that open once the day is over (GET/POST /api/daily..., docs/daily.md).
import { el, clear, button } from "./dom.js";
import { api, ApiError } from "./api.js";

const state = { ctx: null, root: null, day: null, preset: null, today: null, page: 1, watching: false };

const store = (k, v) => { try { if (v === undefined) return localStorage.getItem(`nomercy:${k}`); localStorage.setItem(`nomercy:${k}`, v); } catch { /* private mode */ } return null; };
const presetName = (ctx, p) => (ctx.i18n.has(`preset.${p}.name`) ? ctx.t(`preset.${p}.name`) : p);

function dayBefore(day) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function longDay(ctx, day) {
  return new Intl.DateTimeFormat(ctx.i18n.lang, { dateStyle: "full", timeZone: "UTC" }).format(new Date(`${day}T12:00:00Z`));
}

function left(ctx, seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return ctx.t("daily.left", { hours: h, minutes: m });
}

function resultLine(ctx, mine) {
  if (!mine.finished) return ctx.t("daily.started");
  if (mine.won) return ctx.t("daily.result_won", { points: mine.points, turns: mine.turns });
  return ctx.t("daily.result_place", { place: mine.place, turns: mine.turns });
}

/** A real calendar day, written YYYY-MM-DD (the address may hold any digits). */
export function isDay(day) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const d = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === day;
}

/** What went wrong, in the reader's language (the server's own text is for the log). */
function trouble(ctx, err) {
  if (err instanceof ApiError && ctx.i18n.has(`error.${err.code}`)) return ctx.t(`error.${err.code}`);
  return ctx.t("error.other");
}

async function play(preset) {
  const ctx = state.ctx;
  const nick = state.root.querySelector("#daily-nick");
  const nickname = (nick && nick.value.trim()) || store("nickname") || "Guest";
  try {
    const res = await api(`/api/daily/${preset}`, { nickname });
    if (nick && nick.value.trim()) store("nickname", nick.value.trim());
    store(`seat:${res.code}`, JSON.stringify({ seat: res.seat, token: res.token }));
    location.href = `/join/${res.code}`;
  } catch (err) {
    state.root.querySelector("#daily-error").textContent = trouble(ctx, err);
  }
}

function todayPanel(ctx, info) {
  const box = el("section", "panel daily-today");
  box.setAttribute("aria-labelledby", "daily-today-title");
  box.append(el("h2", null, ctx.t("daily.today_title")));
  box.lastChild.id = "daily-today-title";
  const level = ctx.i18n.has(`rating.level.${info.bot}`) ? ctx.t(`rating.level.${info.bot}`) : info.bot;
  box.append(el("p", "note", ctx.t("daily.how", { bot: level })));
  box.append(el("p", "note daily-left", left(ctx, info.seconds_left)));
  if (!info.signed_in) {
    const label = el("label", "daily-guest");
    label.append(el("span", null, ctx.t("daily.guest")));
    const input = el("input");
    input.id = "daily-nick";
    input.maxLength = 24;
    input.autocomplete = "nickname";
    input.value = store("nickname") || "";
    label.append(input);
    box.append(label);
  }
  const list = el("ul", "daily-presets");
  for (const p of info.presets) {
    const li = el("li", "daily-preset");
    li.dataset.preset = p.preset;
    li.append(el("strong", null, presetName(ctx, p.preset)));
    const status = p.mine ? resultLine(ctx, p.mine) : info.signed_in ? ctx.t("daily.rated_try") : ctx.t("daily.off_board");
    const note = el("span", "note", status);
    if (p.mine && !p.mine.finished && p.mine.room) {  // the way back to a try left unfinished
      const back = el("a", null, ctx.t("daily.back_to_table"));
      back.href = `/join/${p.mine.room}`;
      note.append(" ", back);
    }
    li.append(note);
    li.append(button("primary daily-play", p.mine ? ctx.t("daily.practice") : ctx.t("daily.play"), () => play(p.preset)));
    list.append(li);
  }
  box.append(list, el("p", "daily-error"));
  box.lastChild.id = "daily-error";
  box.lastChild.setAttribute("role", "alert");
  return box;
}

function boardTable(ctx, board) {
  const wrap = el("div", "daily-board-wrap");
  if (!board.entries.length) {
    wrap.append(el("p", "note empty", ctx.t(board.over ? "daily.board_empty_past" : "daily.board_empty")));
    return wrap;
  }
  const table = el("table", "daily-board");
  const head = el("tr");
  const columns = [["rank", "daily.col_rank"], ["player", "daily.col_player"], ["result", "daily.col_result"],
    ["points", "daily.col_points"], ["moves", "daily.col_moves"]];
  for (const [k, key] of columns) head.append(el("th", `col-${k}`, ctx.t(key)));
  if (board.over) head.append(el("th", null, ctx.t("daily.col_replay")));
  table.append(el("thead"), el("tbody"));
  table.tHead.append(head);
  for (const e of board.entries) {
    const tr = el("tr");
    tr.append(el("td", "num", String(e.rank)));
    const who = el("td", "name");
    if (e.name) { const a = el("a", null, e.name); a.href = `/u/${encodeURIComponent(e.name)}`; who.append(a); }
    else who.append(ctx.t("daily.former"));
    tr.append(who, el("td", null, e.won ? ctx.t("daily.won") : ctx.t("daily.place", { place: e.place })),
      el("td", "num col-points", String(e.points ?? 0)), el("td", "num col-moves", String(e.turns ?? 0)));
    if (board.over) {
      const td = el("td");
      if (e.game) {
        const a = el("a", null, ctx.t("daily.replay"));
        a.href = `/g/${e.game}`;
        const r = el("a", null, ctx.t("daily.review"));
        r.href = `/g/${e.game}#review`;
        td.append(a, " · ", r);
      }
      tr.append(td);
    }
    table.tBodies[0].append(tr);
  }
  wrap.append(table);
  if (board.pages > 1) {
    const nav = el("div", "row daily-pages");
    const prev = button(null, ctx.t("daily.newer"), () => { state.page -= 1; draw(); });
    const next = button(null, ctx.t("daily.older"), () => { state.page += 1; draw(); });
    prev.disabled = board.page <= 1;
    next.disabled = board.page >= board.pages;
    nav.append(prev, el("span", "note", ctx.t("daily.page", { page: board.page, pages: board.pages })), next);
    wrap.append(nav);
  }
  return wrap;
}

function boardPanel(ctx, presets, board) {
  const box = el("section", "panel daily-boards");
  box.setAttribute("aria-labelledby", "daily-board-title");
  const title = el("h2", null, board.over ? ctx.t("daily.board_of", { day: longDay(ctx, board.day) }) : ctx.t("daily.board_today"));
  title.id = "daily-board-title";
  box.append(title);
  const tabs = el("div", "daily-tabs");
  tabs.setAttribute("role", "group");
  tabs.setAttribute("aria-label", ctx.t("daily.presets"));
  for (const p of presets) {
    const b = button(null, presetName(ctx, p), () => { state.preset = p; state.page = 1; draw(); });
    b.setAttribute("aria-pressed", String(p === state.preset));
    tabs.append(b);
  }
  box.append(tabs, boardTable(ctx, board));
  if (board.over) box.append(el("p", "note fine", ctx.t("daily.past_note")));
  return box;
}

async function draw() {
  const { ctx, root } = state;
  try {
    const info = await api("/api/daily");
    state.today = info.day;
    const presets = info.presets.map((p) => p.preset);
    if (!state.preset || !presets.includes(state.preset)) state.preset = presets[0];
    const day = state.day || info.day;
    if (!isDay(day) || day > info.day) {
      clear(root).append(el("p", "note", ctx.t(isDay(day) ? "daily.not_yet" : "daily.bad_day", { day })));
      return;
    }
    const board = await api(`/api/daily/${day}/${state.preset}?page=${state.page}`);
    const page = el("div", "daily");
    const h1 = el("h1", null, ctx.t("daily.title"));
    page.append(h1, el("p", "lead", longDay(ctx, day)));
    if (!state.day || state.day === info.day) page.append(todayPanel(ctx, info));
    page.append(boardPanel(ctx, presets, board));
    const links = el("p", "daily-days");
    const before = dayBefore(day);
    const a = el("a", null, ctx.t("daily.day_before"));
    a.href = `/daily/${before}`;
    links.append(a);
    if (state.day && state.day !== info.day) {
      const t = el("a", null, ctx.t("daily.back_today"));
      t.href = "/daily";
      links.append(" · ", t);
    }
    page.append(links);
    clear(root).append(page);
    document.title = ctx.t("daily.page_title", { day }, { capital: false });
  } catch (err) {
    clear(root).append(el("p", "note", trouble(ctx, err)));
  }
}

export async function openDaily(ctx, match, root) {
  state.ctx = ctx;
  state.root = root;
  state.day = match[1] || null;
  state.page = 1;
  const nav = document.getElementById("nav-daily");
  if (nav) nav.setAttribute("aria-current", "page");
  if (!state.watching) {
    state.watching = true;
    new MutationObserver(() => { setTimeout(() => { if (state.root && !state.root.closest("[hidden]")) draw(); }, 0); })
      .observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  }
  await draw();
}

export default { path: /^\/daily(?:\/(\d{4}-\d{2}-\d{2}))?\/?$/, open: openDaily };
