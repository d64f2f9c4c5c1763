// The keyboard: H to the hand, arrows move along it, Enter plays, D draws or takes, P
// keeps a drawn card, U for UNO, C catches, R Y G B name a colour, X challenges, T takes,
// A asks the coach (where it is offered).
import { $ } from "./dom.js";

/** The command of a key on the table (pure, tested): null when the key means nothing. */
export function keyCommand(key, { picking = false } = {}) {
  const k = key.toLowerCase();
  if (picking && k.length === 1 && "rygb".includes(k)) return { color: k.toUpperCase() };
  return { d: "draw", u: "uno", c: "catch", p: "pass", x: "challenge", t: "take", h: "hand", a: "hint" }[k] || null;
}

/** The next card to focus in the hand for an arrow, Home or End (pure). */
export function moveFocus(key, index, count) {
  if (key === "ArrowRight" || key === "ArrowDown") return Math.min(count - 1, index + 1);
  if (key === "ArrowLeft" || key === "ArrowUp") return Math.max(0, index - 1);
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return null;
}

export function wireKeyboard(ctx) {
  $("hand").addEventListener("keydown", (e) => {
    const cards = [...$("hand").querySelectorAll(".card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    const j = moveFocus(e.key, i, cards.length);
    if (j !== null) {
      e.preventDefault();
      cards[i].tabIndex = -1;
      cards[j].tabIndex = 0;
      cards[j].focus();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
    const s = ctx.store.get();
    if ($("screen-table").hidden || !s.online || s.paused) return;
    const cmd = keyCommand(e.key, { picking: !$("color-pick").hidden });
    if (!cmd) return;
    if (cmd.color) { ctx.actKind("color", cmd.color); return; }
    const click = (id, when) => { if (when(id)) $(id).click(); };
    const enabled = (id) => !$(id).disabled && !$(id).hidden;
    if (cmd === "draw") click("draw-btn", enabled);
    else if (cmd === "uno") click("uno-btn", enabled);
    else if (cmd === "catch") click("catch-btn", enabled);
    else if (cmd === "pass") click("pass-btn", enabled);
    else if (cmd === "challenge") click("challenge-btn", enabled);
    else if (cmd === "take") click("take-btn", enabled);
    else if (cmd === "hint") click("hint-btn", enabled);
    else if (cmd === "hand") {
      const first = $("hand").querySelector("[tabindex='0']") || $("hand").querySelector(".card");
      if (first) first.focus();
    }
  });
}
