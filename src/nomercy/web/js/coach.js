// The coach: a hint button (and the A key) at the table where the server allows one (every
// other seat a bot, or the host allowed it for the room); the answer is the expert's
// choice, named as the choices are, with its estimated chance to win the round.
import { $, clear, el } from "./dom.js";
import { renderParts } from "./log.js";

/** Whether this seat may ask for a hint now (the server has the last word). */
export function coachOffered(room, seat) {
  // Rated and daily tables are played without help (the server refuses there too).
  if (!room || seat === null || room.status !== "playing" || room.rated || room.daily) return false;
  return Boolean(room.coach) || room.seats.every((s) => s.seat === seat || s.kind === "bot");
}

export function renderCoach(ctx) {
  const s = ctx.store.get();
  const offered = coachOffered(s.room, s.seat) && Boolean(s.view) && !s.view.outcome;
  const b = $("hint-btn");
  b.hidden = !offered;
  b.disabled = !(s.decisions && s.decisions.deciding);
  const said = $("coach");
  if (!offered || (said.dataset.version && Number(said.dataset.version) !== s.version)) {
    said.hidden = true;
    said.dataset.version = "";
  }
}

export function askCoach(ctx) {
  const b = $("hint-btn");
  if (b.hidden || b.disabled) return;
  b.disabled = true;
  const said = $("coach");
  said.hidden = false;
  said.dataset.version = String(ctx.store.get().version);
  said.textContent = ctx.t("coach.thinking");
  ctx.send({ type: "hint" });
}

/** The server's `hint` answer, shown under the action row. */
export function showHint(ctx, msg) {
  const s = ctx.store.get();
  const b = $("hint-btn");
  b.disabled = !(s.decisions && s.decisions.deciding);
  if (msg.version !== undefined && msg.version !== s.version) return; // the table moved on
  const said = clear($("coach"));
  said.hidden = false;
  said.dataset.version = String(s.version);
  said.appendChild(el("strong", "", ctx.t("coach.says")));
  said.appendChild(document.createTextNode(" "));
  const label = msg.decision && msg.decision.label;
  if (label) renderParts(ctx, said, ctx.i18n.parts(label.key, label.params || {}));
  said.appendChild(document.createTextNode(". "));
  said.appendChild(document.createTextNode(ctx.t("coach.chance", { win: Math.round(msg.win * 100), margin: Math.round(msg.margin * 100) })));
}

/** A refused hint: the button comes back and the text goes. */
export function hintRefused() {
  const said = $("coach");
  said.hidden = true;
  said.dataset.version = "";
}
