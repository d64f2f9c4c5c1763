// Small DOM helpers shared by the view modules. Text from players (nicknames, chat) is
// only ever set as textContent, never parsed as HTML.
export const $ = (id) => document.getElementById(id);

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

export function button(cls, text, onClick) {
  const b = el("button", cls, text);
  b.type = "button";
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
