// The account mark: a seat held by a signed-in account (the server's `account` in the
// seat info) shows it. It is drawn, not written: a badge with a key's outline and the
// catalog's word for screen readers, which no nickname (text only) can imitate.
import { el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

/** The mark for a seat held by an account: a small badge with its name for screen readers. */
export function accountMark(ctx) {
  const mark = el("span", "account-mark");
  mark.setAttribute("role", "img");
  mark.setAttribute("aria-label", ctx.t("seat.account"));
  mark.title = ctx.t("seat.account");
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  // A key: its ring and its blade with two teeth.
  path.setAttribute("d", "M 5.5 3a3.5 3.5 0 1 0 3.2 5H10v1.5h1.5V8H13V6.5H8.7A3.5 3.5 0 0 0 5.5 3zm0 2a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3z");
  svg.appendChild(path);
  mark.appendChild(svg);
  return mark;
}
