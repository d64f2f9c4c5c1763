// The "Rated" checkbox of the create form, shown to a signed-in player only. A rated room
// plays a preset as it is, with a turn timer and bots at a level (docs/ratings.md): checked,
// the box resets and locks the house rules, turns the timer on and keeps the bot choice to
// the levels. The server checks it all again and says why it refuses.
import { api } from "./api.js";
import { $ } from "./dom.js";

let LEVELS = ["beginner", "casual", "strong", "expert"];

/** Whether someone is signed in, and the bot levels (GET /api/rated); signed out if unknown. */
async function signedIn() {
  try {
    const rated = await api("/api/rated");
    if (Array.isArray(rated.levels) && rated.levels.length) LEVELS = rated.levels;
    return rated.signed_in === true;
  } catch (err) {
    return false;
  }
}

/** Lock or free the form's house rules, timer and bot choice; ``resetRules`` puts the preset back. */
export function applyRated(resetRules) {
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
  if (on && turn.value === "0") turn.value = "30";
  const bot = $("bot");
  for (const option of bot.options) option.disabled = on && !LEVELS.includes(option.value);
  if (on && !LEVELS.includes(bot.value)) bot.value = "casual";
  const character = $("character");  // a rated table plays the levels plainly
  if (character) {
    if (on) character.value = "";
    character.dispatchEvent(new Event("change"));
  }
  $("rated-help").hidden = !on;
}

/** Show the checkbox to a signed-in player and wire it. */
export async function setupRated(resetRules) {
  const box = $("rated-box");
  box.hidden = !(await signedIn());
  $("rated").addEventListener("change", () => applyRated(resetRules));
  $("presets").addEventListener("change", () => applyRated(resetRules));
  applyRated(resetRules);
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
