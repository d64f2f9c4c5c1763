// The "Rated" checkbox of the create form, shown to a signed-in player only. A rated room
// plays a preset as it is, with a turn timer and bots at a level (docs/ratings.md): checked,
// the box resets and locks the house rules, turns the timer on and keeps the bot choice to
// the levels. The server checks it all again and says why it refuses.
import { api } from "./api.js";
import { $ } from "./dom.js";

/** The rated policy (GET /api/rated): who may host, the levels, the level and timer a
 * rated room starts from (30 s, casual, until the server says). Pure (tested). */
export function ratedPolicy(answer) {
  const a = answer && typeof answer === "object" ? answer : {};
  const levels = Array.isArray(a.levels) && a.levels.length ? a.levels.map(String) : [];
  const level = typeof a.default_level === "string" && levels.includes(a.default_level) ? a.default_level
    : levels.includes("casual") ? "casual" : levels[0] || null;
  const turn = Number.isInteger(a.default_turn_seconds) && a.default_turn_seconds > 0 ? a.default_turn_seconds : 30;
  return { signedIn: a.signed_in === true && levels.length > 0, levels, level, turnSeconds: turn };
}

/** Lock or free the form's house rules, timer and bot choice; ``resetRules`` puts the preset back. */
export function applyRated(policy, resetRules) {
  const box = $("rated");
  const on = Boolean(box && box.checked && !$("rated-box").hidden);
  const rules = $("house-rules");
  if (on) {
    resetRules();
    rules.open = false;
  }
  rules.classList.toggle("locked", on);
  for (const input of $("rules-box").querySelectorAll("[data-rule]")) input.disabled = on;
  const turn = $("turn");
  const off = turn.querySelector('option[value="0"]');
  if (off) off.disabled = on;
  if (on && turn.value === "0") turn.value = String(policy.turnSeconds);
  const bot = $("bot");
  for (const option of bot.options) option.disabled = on && !policy.levels.includes(option.value);
  if (on && !policy.levels.includes(bot.value)) bot.value = policy.level;
  const character = $("character");  // a rated table plays the levels plainly
  if (character) {
    if (on) character.value = "";
    character.dispatchEvent(new Event("change"));
  }
  $("rated-help").hidden = !on;
}

/** The box, for a signed-in player only (signed out when the server cannot say). */
export async function setupRated(resetRules) {
  let policy;
  try { policy = ratedPolicy(await api("/api/rated")); } catch { policy = ratedPolicy(null); }
  const box = $("rated-box");
  box.hidden = !policy.signedIn;
  $("rated").addEventListener("change", () => applyRated(policy, resetRules));
  $("presets").addEventListener("change", () => applyRated(policy, resetRules));
  applyRated(policy, resetRules);
}

/** A rated room's refusal (``detail.rated``) said in the player's language; false for any other. */
export function ratedRefusal(ctx, err) {
  const reason = err && err.detail && err.detail.rated;
  if (!reason || !ctx.i18n.has(`rating.refused.${reason}`)) return false;
  ctx.toast(ctx.t(`rating.refused.${reason}`, err.detail));  // a bound ({min}, {max}) filled in
  return true;
}

/** The create request's ``rated`` and, when rated, no house-rule changes at all. */
export function ratedRequest(rules) {
  const on = Boolean($("rated") && $("rated").checked && !$("rated-box").hidden);
  return on ? { rated: true, rules: {} } : { rated: false, rules };
}

// What a rated table says of itself beyond its mark (RoomInfo): a round waiting for people
// to connect, with the time left; a round aborted unrated and who never connected; rounds
// not rated for now, and why. One line under the top bar, in the lobby and at the table.
const wait = { room: null, until: null, timer: null };

/** "m:ss" of the seconds left. */
function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The note's words for ``room``, or "" when it has nothing to say. */
function noteText(ctx, room) {
  if (!room || !room.rated) return "";
  if (room.aborted) {
    const absent = room.never_connected || [];
    return absent.length
      ? ctx.t("rating.aborted", { list: absent.join(",") })
      : ctx.t("rating.aborted_someone");
  }
  const waiting = room.status === "playing" ? room.waiting || [] : [];
  if (waiting.length) {
    const list = waiting.join(",");
    if (wait.until === null) return ctx.t("rating.waiting", { list });
    return ctx.t("rating.waiting_time", { list, time: clock((wait.until - performance.now()) / 1000) });
  }
  // Two of its accounts seen from one address (the only reason the server gives now).
  return room.unrated_reason === "address" ? ctx.t("rating.unrated.address") : "";
}

/** Show the note for the room of the store; a waiting round's time left counts down. */
export function renderRatedNote(ctx) {
  const room = ctx.store.get().room;
  if (room !== wait.room) {  // a new room message: the time left is counted from it
    wait.room = room;
    const left = room && room.waiting_seconds;
    wait.until = typeof left === "number" ? performance.now() + left * 1000 : null;
  }
  const p = $("rated-note");
  const text = noteText(ctx, room);
  p.hidden = !text;
  if (p.textContent !== text) p.textContent = text;
  p.classList.toggle("warn", Boolean(room && (room.aborted || room.unrated_reason)));
  const counting = Boolean(text) && wait.until !== null && Boolean(room.waiting && room.waiting.length);
  if (counting && wait.timer === null) wait.timer = setInterval(() => renderRatedNote(ctx), 1000);
  if (!counting && wait.timer !== null) { clearInterval(wait.timer); wait.timer = null; }
}

/** Off the lobby and the table (home, a page, a replay) the note says nothing. */
export function hideRatedNote() {
  $("rated-note").hidden = true;
  if (wait.timer !== null) { clearInterval(wait.timer); wait.timer = null; }
}
