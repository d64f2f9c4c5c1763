// Questions: a modal dialog for a wild's colour, a Seven's target or a confirmation.
// A question asked for an earlier state closes when the table moves on; while a game
// question is open the dialog carries its own Catch button (C works there too), since a
// catch cannot wait for the answer.
import { $, el, clear } from "./dom.js";

export function createPrompts(ctx) {
  const dlg = $("prompt");
  let answer = null;
  let catchLabel = null;

  dlg.addEventListener("close", () => {
    // Closing queues the event: a question asked again at once must ignore the old one's.
    if (dlg.open) return;
    const done = answer;
    answer = null;
    if (done) done(dlg.returnValue && dlg.returnValue !== "cancel" ? dlg.returnValue : null);
  });
  dlg.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (k === "c" && !$("prompt-catch").hidden) { ctx.catchNow(); return; }
    const swatch = [...$("prompt-choices").querySelectorAll("button.swatch")].find((b) => b.value.toLowerCase() === k);
    if (swatch) { e.preventDefault(); swatch.click(); }
  });
  $("prompt-catch").addEventListener("click", () => ctx.catchNow());

  function syncCatch(label) {
    catchLabel = label;
    const btn = $("prompt-catch");
    btn.hidden = !label || !dlg.dataset.game;
    btn.textContent = label ? `${label} (C)` : "";
  }

  function askChoice(title, options, cls = "", text = "", game = true, version = null) {
    dlg.dataset.game = game ? "1" : "";
    dlg.dataset.version = version === null ? "" : String(version);
    if (dlg.open) dlg.close("cancel");
    $("prompt-title").textContent = title;
    $("prompt-text").textContent = text;
    $("prompt-text").hidden = !text;
    const box = clear($("prompt-choices"));
    for (const [value, label] of options) {
      const b = el("button", cls ? cls + value : "", label);
      b.value = value;
      box.appendChild(b);
    }
    syncCatch(catchLabel);
    if (answer) { answer(null); answer = null; }
    return new Promise((resolve) => {
      answer = resolve;
      dlg.returnValue = "";
      dlg.showModal();
      box.firstChild.focus();
    });
  }

  function askColor(title, text = "", version = null) {
    const options = ["R", "Y", "G", "B"].map((c) => [c, `${ctx.t(`color_button.${c}`)} (${c})`]);
    return askChoice(title, options, "swatch c-", text, true, version);
  }

  /** Close a game question that belongs to an older table (or when input is blocked). */
  function closeStale(version, blocked = false) {
    if (!dlg.open || !dlg.dataset.game) return;
    if (blocked || (dlg.dataset.version && dlg.dataset.version !== String(version))) dlg.close("cancel");
  }

  return { askChoice, askColor, closeStale, syncCatch, isOpen: () => dlg.open };
}
