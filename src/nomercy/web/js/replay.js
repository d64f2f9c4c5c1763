// The replay page (/g/<id>, or a record file opened here): a kept round stepped through
// action by action with buttons, keys and a slider, drawn by the table's own modules with
// every hand face up, the log in words beside it, and the expert's review under it.
// Record files go to the server's replay route; a refusal names the step that failed.
import { $, el, clear } from "./dom.js";
import { api, postFile } from "./api.js";
import { renderTable } from "./table.js";
import { renderLog, renderParts } from "./log.js";
import { replayKey, replayStates } from "./replaymodel.js";
import { createReview } from "./review.js";
import { keptTokens, tokenFor } from "./games.js";

const STEP_MS = 900;
const MAX_FILE = 4 * 1024 * 1024; // larger is refused here, unsent; the server's own limit is lower
/** The steps of replaying a file (docs/protocol.md, "Replaying a file"), each in words. */
const STEPS = { read: "replay.step.read", parse: "replay.step.parse", load: "replay.step.load", replay: "replay.step.replay" };

/** The room-shaped object the table's modules read names, bots and scores from. */
function roomOf(g) {
  const points = (g.result && g.result.points) || [];
  return {
    code: g.room || null, status: "finished", mode: "round", rules: g.rules || {}, turn_seconds: null, spectators: 0,
    // A record file has no names: its seats are "Player 1", "Player 2"... in the reader's words.
    seats: g.players.map((p) => ({ seat: p.seat, nickname: g.room ? p.name : null, kind: p.bot ? "bot" : "human", connected: true })),
    rounds: g.result ? [{ number: g.round || 1, winner: g.result.winner, points }] : [], scores: points, round: g.round || 1,
  };
}

/** The day of a daily deal whose game the server keeps closed until that day is over, else
 *  null: `detail.daily` where the server names it, else the day its refusal's message names
 *  ("the daily deal of YYYY-MM-DD opens for replays when the day is over"). */
export function dailyDay(err) {
  const detail = (err && err.detail) || {};
  if (typeof detail.daily === "string" && /^\d{4}-\d{2}-\d{2}$/.test(detail.daily)) return detail.daily;
  const m = /\bdaily deal of (\d{4}-\d{2}-\d{2})\b/.exec(String(detail.message || (err && err.message) || ""));
  return m ? m[1] : null;
}

export function createReplay(ctx) {
  let game = null;
  let id = null;
  let token = null;
  let file = null;
  let states = [];
  let at = 0;
  let timer = null;
  // A jump from the review shows the table at that move: the felt comes into view (the bar
  // alone scrolled the table out of view on a phone and a short desktop window).
  const review = createReview(ctx, (frame) => { stop(); go(frame); $("felt").scrollIntoView({ block: "center" }); });

  function fail(titleKey, text = "", params = {}) {
    ctx.show("replay");
    $("replay-title").textContent = ctx.t(titleKey, params);
    $("replay-meta").textContent = text;
    $("replay-bar").classList.add("empty");
    $("felt").parentElement.hidden = true;
    review.reset(null, null, null);
  }

  /** The seat token this browser played `gameId` with, if any: the refusal names no room, so
   * the browser asks which of its kept tokens played it ("your games"), then uses that one. */
  async function seatTokenOf(gameId) {
    const tokens = keptTokens().map((t) => t.token).slice(0, 50);
    if (!tokens.length) return null;
    try {
      const found = ((await api("/api/games/mine", { tokens })).games || []).find((g) => g.id === gameId);
      return found ? tokenFor(found.room) : null;
    } catch { return null; }
  }

  async function open(gameId) {
    id = gameId;
    const path = `/api/games/${encodeURIComponent(gameId)}`;
    let seatToken = null;
    try {
      let g;
      try { g = await api(path); } catch (err) {
        // A daily deal's game is closed to everyone until its day is over: no token opens it.
        if (err.code !== "forbidden" || dailyDay(err) || !(seatToken = await seatTokenOf(gameId))) throw err;
        g = await api(path, undefined, seatToken);
      }
      show(g, gameId, seatToken, null);
      if (location.hash === "#review") $("review-panel").scrollIntoView(); // a profile's "review" link
    } catch (err) {
      const day = err.code === "forbidden" ? dailyDay(err) : null;
      if (day) fail("replay.daily_closed", "", { day });
      else if (err.code === "forbidden") fail("replay.forbidden");
      else if (err.code === "not_found") fail("replay.not_found");
      else fail("replay.cannot_open", ctx.t("error.other"));
    }
  }

  /** A record file (from the file input or a drop) replayed by the server. */
  async function openFile(chosen) {
    if (!chosen) return;
    try {
      if (chosen.size > MAX_FILE) throw Object.assign(new Error("too large"), { status: 413, detail: { code: "too_large", step: "read" } });
      // A static site has no server: the engine in the page replays the file (js/solo/).
      const g = ctx.replayHere ? await ctx.replayHere(chosen) : await postFile("/api/records/replay", chosen);
      if (!ctx.replayHere && location.pathname !== "/") history.replaceState(null, "", "/"); // a static site stays where it is served
      show(g, null, null, chosen);
    } catch (err) { fileError(chosen.name, err); }
  }

  /** The failed step in words; at step "replay" the refused move too, from the numbers the
   *  server sends beside its English (the record's players have no names: "Player 2"). */
  function stepText(step, detail) {
    if (step === "replay" && Number.isInteger(detail.index) && Number.isInteger(detail.seat)) {
      return ctx.t("replay.step.replay_at", { number: detail.index + 1, player: ctx.t("seat.player", { number: detail.seat + 1 }) });
    }
    return ctx.t(STEPS[step]);
  }

  function fileError(name, err) {
    const detail = (err && err.detail) || {};
    const step = STEPS[detail.step] ? detail.step : err && err.status === 413 ? "read" : null;
    $("file-error-title").textContent = ctx.t("replay.file_failed", { name }, { capital: false });
    $("file-error-text").textContent = step
      ? stepText(step, detail) + (detail.code === "too_large" || (err && err.status === 413) ? ` ${ctx.t("replay.too_large")}` : "")
      : ctx.t(err && err.code === "bad_record" ? "error.bad_record" : "error.other");
    $("file-error").hidden = false;
    $("file-error").dataset.step = step || "";
    $("file-error-close").focus();
  }

  function show(g, gameId, seatToken, fromFile) {
    stop();
    game = g;
    id = gameId;
    token = seatToken;
    file = fromFile;
    states = replayStates(g.frames || []);
    ctx.store.set({ room: roomOf(g), seat: null, token: null, decisions: null, reveal: null, deadline: null, endHidden: true, replaying: true });
    ctx.show("replay");
    $("felt").parentElement.hidden = false;
    $("replay-bar").classList.remove("empty");
    $("file-error").hidden = true;
    const slider = $("rp-slider");
    slider.max = String(Math.max(0, states.length - 1));
    $("rp-share").hidden = !id;
    titles();
    review.reset(g, id, seatToken);
    go(0);
  }

  function titles() {
    if (!game) return;
    $("replay-title").textContent = game.room
      ? ctx.t("replay.title", { code: game.room, round: game.round || 1 }) : ctx.t("replay.title_file");
    const hints = (game.hints || []).length;
    const meta = [ctx.t("replay.players", { count: game.players.length })];
    if (hints) meta.push(ctx.t("replay.hints_used", { count: hints }));
    $("replay-meta").textContent = meta.join(" · ");
    document.title = ctx.t("page.title_replay");
  }

  function go(i) {
    if (!states.length) return;
    at = Math.max(0, Math.min(states.length - 1, i));
    const st = states[at];
    ctx.store.set((s) => ({ view: st.view, trail: st.trail, log: st.log, logNext: st.logNext, logEpoch: s.logEpoch + 1, koCards: st.koCards }));
    renderTable(ctx);
    renderLog(ctx);
    const slider = $("rp-slider");
    slider.value = String(at);
    slider.setAttribute("aria-valuetext", ctx.t("replay.position", { number: at, count: states.length - 1 }));
    $("rp-pos").textContent = ctx.t("replay.position", { number: at, count: states.length - 1 });
    $("rp-start").disabled = $("rp-back").disabled = at === 0;
    $("rp-end").disabled = $("rp-fwd").disabled = at === states.length - 1;
    const now = clear($("rp-now"));
    for (const e of (game.frames[at].events || []).filter((x) => x.line)) {
      const li = el("li", `ev ev-${e.type}`);
      renderParts(ctx, li, ctx.i18n.parts(e.line.key, e.line.params || {}));
      if (e.type === "drew" && e.cards && e.cards.length) {
        li.appendChild(document.createTextNode(" "));
        renderParts(ctx, li, e.cards.map((c) => ({ card: c })));
      }
      now.appendChild(li);
    }
    const hint = $("rp-hint");
    hint.hidden = !st.hint;
    if (st.hint) hint.textContent = ctx.t("replay.hint_here", { seat: st.seat });
    review.mark(at);
  }

  function playing() { return timer !== null; }
  function stop() {
    clearInterval(timer);
    timer = null;
    const b = $("rp-play");
    b.setAttribute("aria-pressed", "false");
    b.title = ctx.t("replay.play");
    b.setAttribute("aria-label", ctx.t("replay.play"));
  }
  function play() {
    if (at >= states.length - 1) go(0);
    timer = setInterval(() => { if (at >= states.length - 1) stop(); else go(at + 1); }, STEP_MS);
    const b = $("rp-play");
    b.setAttribute("aria-pressed", "true");
    b.title = ctx.t("replay.pause");
    b.setAttribute("aria-label", ctx.t("replay.pause"));
  }
  const toggle = () => (playing() ? stop() : play());

  /** The record's bytes as the server keeps them (or as the file came): never parsed and
   *  written again here, since JSON numbers in JavaScript would round the deal's 64-bit seed. */
  async function download() {
    let blob = file;
    if (id) {
      const headers = token ? { Authorization: `Bearer ${token}` } : {};
      const res = await fetch(`/api/games/${encodeURIComponent(id)}/record`, { headers });
      if (!res.ok) { ctx.toast(ctx.t("error.other")); return; }
      blob = await res.blob();
    }
    if (!blob) return;
    const a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = `nomercy-${id || "game"}.json`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  function wire() {
    $("rp-start").addEventListener("click", () => { stop(); go(0); });
    $("rp-back").addEventListener("click", () => { stop(); go(at - 1); });
    $("rp-fwd").addEventListener("click", () => { stop(); go(at + 1); });
    $("rp-end").addEventListener("click", () => { stop(); go(states.length - 1); });
    $("rp-play").addEventListener("click", toggle);
    $("rp-slider").addEventListener("input", (e) => { stop(); go(Number(e.target.value)); });
    $("rp-review").addEventListener("click", () => review.ask());
    $("rp-download").addEventListener("click", download);
    $("rp-share").addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(location.href); ctx.toast(ctx.t("replay.copied")); } catch { ctx.toast(location.href); }
    });
    const input = $("rp-file"); // the landing page's own is js/replayentry.js's
    input.addEventListener("change", () => { openFile(input.files[0]); input.value = ""; });
    $("file-error-close").addEventListener("click", () => { $("file-error").hidden = true; });
    $("log").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-frame]");
      if (li && ctx.store.get().replaying) { stop(); go(Number(li.dataset.frame)); }
    });
    document.addEventListener("keydown", (e) => {
      if (!ctx.store.get().replaying || $("replay-bar").hidden || !states.length) return;
      if (e.target.closest("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === " " && e.target.closest("button, a, summary")) return; // the focused control's own click
      const to = replayKey(e.key, at, states.length);
      if (to === null) return;
      e.preventDefault();
      if (to === "toggle") toggle();
      else { stop(); go(to); }
    });
  }

  /** A round replayed in this page (the solo engine's frames, js/solo/solo.js), its file. */
  function openLocal(g, blob) { show(g, null, null, blob); }

  return { open, openFile, openLocal, wire, refresh: () => { if (game) { titles(); go(at); review.redraw(); } } };
}
