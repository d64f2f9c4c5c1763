// How to play: a short illustrated guide for newcomers, in the reader's language, drawn
// with the same card art as the table. Reachable from the landing page and the table.
import { $, el, clear } from "./dom.js";
import { backNode, cardNode } from "./cards.js";

// Each section: its catalog keys (guide.NAME.title, guide.NAME.text) and its picture:
// cards, each with an optional mark ("yes", "no", "top") and a caption between them.
const SECTIONS = [
  ["goal", [["R3"], ["G7"], ["W+6"]], null],
  ["match", [["R7", "top"], ["R2", "yes"], ["G7", "yes"], ["WCR", "yes"], ["B4", "no"]], null],
  ["draw", [["back"], ["back"], ["Y5", "yes"]], null],
  ["stack", [["R+2"], ["B+4"], ["W+6"]], "+12"],
  ["mercy", [["back"], ["back"], ["back"], ["back"]], "25"],
  ["seven", [["G7"], ["Y0"]], null],
  ["actions", [["BS"], ["BR"], ["GSE"], ["YDA"], ["WR+4"], ["W+10"]], null],
  ["uno", [["B9"]], "anim.uno"],
  ["win", [["W+10"], ["R8"]], null],
];

export function renderGuide(ctx) {
  const body = clear($("guide-body"));
  for (const [name, cards, badge] of SECTIONS) {
    const section = el("section", "guide-section");
    section.appendChild(el("h3", "", ctx.t(`guide.${name}.title`)));
    const pic = el("div", `guide-pic pic-${name}`);
    pic.setAttribute("role", "img");
    pic.setAttribute("aria-label", ctx.t(`guide.${name}.picture`));
    cards.forEach(([code, mark], i) => {
      const wrap = el("span", `guide-card${mark ? ` mark-${mark}` : ""}`);
      const c = code === "back" ? backNode() : cardNode(code, "", "span");
      c.removeAttribute("role");
      c.removeAttribute("aria-label");
      c.setAttribute("aria-hidden", "true");
      c.style.setProperty("--i", String(i));
      wrap.appendChild(c);
      if (mark === "yes" || mark === "no") wrap.appendChild(el("span", "mark", mark === "yes" ? "✓" : "✗"));
      pic.appendChild(wrap);
    });
    if (badge) pic.appendChild(el("span", "guide-badge", ctx.i18n.has(badge) ? ctx.t(badge) : badge));
    section.appendChild(pic);
    section.appendChild(el("p", "", ctx.t(`guide.${name}.text`)));
    body.appendChild(section);
  }
  body.appendChild(el("p", "note guide-keys", ctx.t("table.keys")));
}

export function wireGuide(ctx) {
  const dlg = $("guide");
  const open = () => { renderGuide(ctx); dlg.showModal(); $("guide-close").focus(); };
  $("guide-btn").addEventListener("click", open);
  $("guide-home").addEventListener("click", open);
  $("guide-close").addEventListener("click", () => dlg.close());
  return { open, refresh: () => { if (dlg.open) renderGuide(ctx); } };
}
