// The game log ("What happened"): each event's sentence from the server, in the reader's
// words, with cards as chips.
import { $, el, clear } from "./dom.js";
import { chipNode } from "./cards.js";

export function renderParts(ctx, node, parts) {
  for (const p of parts) {
    if (typeof p === "string") node.appendChild(document.createTextNode(p));
    else if (p && p.card) node.appendChild(chipNode(p.card, ctx.i18n.cardTitle(p.card)));
  }
  return node;
}

function entryNode(ctx, entry) {
  const li = el("li", `ev ev-${entry.type}`);
  if (entry.frame !== undefined) li.dataset.frame = String(entry.frame); // a replay's entry: a click goes there
  renderParts(ctx, li, ctx.i18n.parts(entry.line.key, entry.line.params || {}));
  if (entry.cards && entry.cards.length) {
    li.appendChild(document.createTextNode(" "));
    for (const c of entry.cards) li.appendChild(chipNode(c, ctx.i18n.cardTitle(c)));
  }
  return li;
}

/** Append the entries that are new since the last render (all of them after a snapshot
 *  or a change of language). */
export function renderLog(ctx) {
  const log = $("log");
  const s = ctx.store.get();
  const key = `${s.logEpoch}:${ctx.i18n.lang}`;
  if (log.dataset.key !== key) {
    clear(log);
    log.dataset.key = key;
    log.dataset.next = "0";
  }
  const next = Number(log.dataset.next);
  for (const entry of s.log) if (entry.n >= next) log.appendChild(entryNode(ctx, entry));
  while (log.children.length > 150) log.removeChild(log.firstChild);
  log.dataset.next = String(s.logNext);
  log.scrollTop = log.scrollHeight;
}
