// The kept games a browser can reach: the seat tokens it keeps (every seat it took, kept
// apart from the room's current seat so a finished room's games stay reachable), "your
// games" on the landing page, a room's list of rounds, and the end screen's replay link.
import { $, el, clear } from "./dom.js";
import { api } from "./api.js";

const KEY = "nomercy:tokens";
const LIMIT = 50;

/** Every seat token this browser holds: the kept list, then the rooms' current seats. */
export function keptTokens() {
  const out = [];
  try {
    out.push(...JSON.parse(localStorage.getItem(KEY) || "[]").filter((t) => t && t.code && t.token));
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      const m = k && k.match(/^nomercy:(?:seat|removed):(\w+)$/);
      const saved = m ? JSON.parse(localStorage.getItem(k) || "null") : null;
      if (saved && saved.token && !out.some((t) => t.token === saved.token)) out.push({ code: m[1], token: saved.token });
    }
  } catch { /* private mode, or a value that is not ours */ }
  return out;
}

/** Remember a seat's token (newest first, at most 50: the server's limit per request). */
export function keepToken(code, token) {
  let rest = [];
  try { rest = JSON.parse(localStorage.getItem(KEY) || "[]").filter((t) => t && t.token !== token); } catch { /* not ours */ }
  try { localStorage.setItem(KEY, JSON.stringify([{ code, token }, ...rest].slice(0, LIMIT))); } catch { /* private mode */ }
}

/** A token of room `code` this browser holds (to open a game kept for its players). */
export function tokenFor(code) {
  const t = keptTokens().find((x) => x.code === code);
  return t ? t.token : null;
}

function when(ctx, seconds) {
  const f = new Intl.DateTimeFormat(ctx.i18n.lang, { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false });
  return f.format(new Date(seconds * 1000));
}

function gameLink(id, text) {
  const a = el("a", "game-link", text);
  a.href = `/g/${encodeURIComponent(id)}`;
  return a;
}

/** "Your games": the rounds this browser's seats played, newest first, each with its result. */
export async function renderMyGames(ctx) {
  const list = clear($("my-games-list"));
  const tokens = keptTokens().map((t) => t.token).slice(0, LIMIT);
  $("my-games-empty").hidden = false;
  if (!tokens.length) return;
  let games = [];
  try { games = (await api("/api/games/mine", { tokens })).games || []; } catch { return; }
  $("my-games-empty").hidden = games.length > 0;
  for (const g of games) {
    const li = el("li", "game-row");
    const r = g.result || {};
    const won = r.winner === g.seat;
    li.append(
      gameLink(g.id, ctx.t("games.row", { code: g.room, round: g.round })),
      el("span", `result${won ? " won" : ""}`, ctx.t(won ? "games.you_won" : "games.you_lost", { count: (r.points || [])[g.seat] || 0 })),
      el("span", "when note", when(ctx, g.finished_at)),
    );
    list.appendChild(li);
  }
}

let roundsFor = null;

/** A room's kept rounds, each with its replay link (fetched again when a round ends). */
export async function renderRoomRounds(ctx) {
  const room = ctx.store.get().room;
  const panel = $("rounds-panel");
  const done = room ? (room.rounds || []).length : 0;
  // The solo table's rounds are kept on the device, listed on the first screen (js/solo/).
  if (!room || !done || room.code === "SOLO") { panel.hidden = true; roundsFor = null; return; }
  const key = `${room.code}:${done}:${ctx.i18n.lang}`;
  if (roundsFor === key) return;
  roundsFor = key;
  let games = [];
  for (let attempt = 0; attempt < 5 && !games.length; attempt++) {
    if (attempt) await new Promise((ok) => setTimeout(ok, 800));
    // Only the room's players may list its games: this seat's token (a spectator gets none).
    try { games = (await api(`/api/rooms/${room.code}/games`, undefined, tokenFor(room.code))).games || []; } catch { games = []; }
  }
  const list = clear($("rounds-list"));
  panel.hidden = !games.length;
  for (const g of games) {
    const li = el("li", "game-row");
    const winner = g.result ? g.result.winner : null;
    li.append(gameLink(g.id, ctx.t("games.round", { number: g.round })));
    if (winner !== null && winner !== undefined) li.append(el("span", "result", ctx.t("games.winner", { seat: winner })));
    list.appendChild(li);
  }
  const last = games.find((g) => g.round === room.round) || games[games.length - 1];
  const link = $("end-replay");
  link.hidden = !last || Boolean(room.daily);  // the daily deal's replays open when its day is over
  if (last) link.href = `/g/${encodeURIComponent(last.id)}`;
}
