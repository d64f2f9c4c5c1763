// Cards: what a card code means, the order a hand is sorted in, and the card art, our
// own, drawn here as SVG. Every face carries its colour letter and symbol in the corners
// (so cards read without colour), the Draw cards and wilds their own picture. Each face is
// drawn once into a sprite of <symbol>s and shown with <use>, so a 30-card hand costs
// 30 small nodes. cardSVG() and the sort order are pure (tested under Node).

export const COLOR_FILL = { R: "#d72600", Y: "#f2b705", G: "#23964a", B: "#0a62c9" };
const INK = "#161616";
const PAPER = "#fbfbf7";
const WILDS = ["W", "WCR", "W+4", "WR+4", "W+6", "W+10", "WSH"];
const FACES = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "DA", "SE", "+2", "+4"];
const CORNER = { S: "⊘", R: "⇄", DA: "≡", SE: "⊘⊘", W: "W", WCR: "◎", "WR+4": "⇄+4", WSH: "⤨" };

/** {color: "R"|"Y"|"G"|"B"|"W", face, wild} of a card code ("R+2", "W+10"). */
export function parseCard(code) {
  if (WILDS.includes(code)) return { color: "W", face: code, wild: true };
  return { color: code[0], face: code.slice(1), wild: false };
}

/** The short corner index: colour letter and symbol ("R7", "G⊘", "+10"). */
export function cornerText(code) {
  const { color, face, wild } = parseCard(code);
  if (wild) return CORNER[face] || face.replace(/^W/, "");
  return color + (CORNER[face] || face);
}

/** Sort keys: by colour then face (wilds last), or by face then colour; "none" keeps the deal. */
export function sortKey(code, order = "colour") {
  const { color, face, wild } = parseCard(code);
  const c = "RYGBW".indexOf(color);
  const f = wild ? 100 + WILDS.indexOf(face) : FACES.indexOf(face);
  return order === "face" ? f * 10 + c : c * 1000 + f;
}

export function sortHand(codes, order = "colour") {
  const cards = codes.map((code, i) => ({ code, i }));
  if (order !== "none") cards.sort((a, b) => sortKey(a.code, order) - sortKey(b.code, order) || a.i - b.i);
  return cards.map((c) => c.code);
}

export const symbolId = (code) => `card-${code.replace(/\+/g, "p")}`;

// -- the art (viewBox 0 0 60 90) --------------------------------------------------------

function bigText(text, fill, size = 30, y = 45) {
  return `<text x="30" y="${y}" font-size="${size}" font-weight="900" font-style="italic" text-anchor="middle"` +
    ` dominant-baseline="central" font-family="system-ui, sans-serif" fill="${fill}" stroke="${INK}"` +
    ` stroke-width="1.8" paint-order="stroke">${text}</text>`;
}

function miniCards(fills, spread) {
  // Small cards fanned in the oval: the picture of a Draw card.
  const n = fills.length;
  return fills.map((fill, i) => {
    const dx = (i - (n - 1) / 2) * spread;
    const rot = (i - (n - 1) / 2) * 9;
    return `<rect x="${23 + dx}" y="${33 - Math.abs(dx) * 0.15}" width="14" height="21" rx="2.5" fill="${fill}"` +
      ` stroke="${PAPER}" stroke-width="1.4" transform="rotate(${rot} ${30 + dx} 44)"/>` +
      `<rect x="${23 + dx}" y="${33 - Math.abs(dx) * 0.15}" width="14" height="21" rx="2.5" fill="none"` +
      ` stroke="${INK}" stroke-width="0.6" transform="rotate(${rot} ${30 + dx} 44)"/>`;
  }).join("");
}

function skipSymbol(fill, r = 11) {
  return `<circle cx="30" cy="45" r="${r}" fill="none" stroke="${INK}" stroke-width="7.4"/>` +
    `<line x1="${30 - r * 0.7}" y1="${45 + r * 0.7}" x2="${30 + r * 0.7}" y2="${45 - r * 0.7}" stroke="${INK}" stroke-width="7.4"/>` +
    `<circle cx="30" cy="45" r="${r}" fill="none" stroke="${fill}" stroke-width="4.6"/>` +
    `<line x1="${30 - r * 0.7}" y1="${45 + r * 0.7}" x2="${30 + r * 0.7}" y2="${45 - r * 0.7}" stroke="${fill}" stroke-width="4.6"/>`;
}

function reverseSymbol(fill, place = "") {
  const arrow = "M17 41 L33 41 L33 35 L43 44 L33 53 L33 47 L17 47 Z";
  return `<g transform="${place} rotate(-40 30 45)">` +
    `<path d="${arrow}" transform="translate(0 -6)" fill="${fill}" stroke="${INK}" stroke-width="1.6" stroke-linejoin="round"/>` +
    `<path d="${arrow}" transform="rotate(180 30 45) translate(0 -6)" fill="${fill}" stroke="${INK}" stroke-width="1.6" stroke-linejoin="round"/></g>`;
}

function discardAll(fill) {
  return `<g>${[0, 1, 2].map((i) => `<rect x="${19 + i * 4}" y="${27 + i * 5}" width="15" height="21" rx="2.5" fill="${fill}" stroke="${PAPER}" stroke-width="1.4"/>` +
      `<rect x="${19 + i * 4}" y="${27 + i * 5}" width="15" height="21" rx="2.5" fill="none" stroke="${INK}" stroke-width="0.6"/>`).join("")}</g>` +
    `<path d="M38 56 L46 56 L42 63 Z" fill="${INK}"/>`;
}

function wildOval() {
  const q = [
    ["M30 45 L30 14 A19 31 0 0 1 49 45 Z", COLOR_FILL.R],
    ["M30 45 L49 45 A19 31 0 0 1 30 76 Z", COLOR_FILL.B],
    ["M30 45 L30 76 A19 31 0 0 1 11 45 Z", COLOR_FILL.Y],
    ["M30 45 L11 45 A19 31 0 0 1 30 14 Z", COLOR_FILL.G],
  ];
  return `<g transform="rotate(28 30 45)">${q.map(([d, f]) => `<path d="${d}" fill="${f}"/>`).join("")}` +
    `<ellipse cx="30" cy="45" rx="19" ry="31" fill="none" stroke="${PAPER}" stroke-width="1.6"/></g>`;
}

function roulette() {
  const colors = ["R", "Y", "G", "B", "R", "Y", "G", "B"].map((c) => COLOR_FILL[c]);
  const segs = colors.map((f, i) => {
    const a0 = (i / 8) * 2 * Math.PI;
    const a1 = ((i + 1) / 8) * 2 * Math.PI;
    const p = (a) => `${(30 + 15 * Math.sin(a)).toFixed(2)} ${(45 - 15 * Math.cos(a)).toFixed(2)}`;
    return `<path d="M30 45 L${p(a0)} A15 15 0 0 1 ${p(a1)} Z" fill="${f}" stroke="${INK}" stroke-width="0.8"/>`;
  }).join("");
  return `<circle cx="30" cy="45" r="17.5" fill="${INK}"/>${segs}<circle cx="30" cy="45" r="4" fill="${PAPER}" stroke="${INK}"/>` +
    `<path d="M30 25 L26 18 L34 18 Z" fill="${PAPER}" stroke="${INK}" stroke-width="1"/>`;
}

function center(code) {
  const { color, face, wild } = parseCard(code);
  if (wild) {
    switch (face) {
      case "W": return wildOval();
      case "WCR": return roulette();
      case "W+4": return wildOval() + miniCards(["R", "Y", "G", "B"].map((c) => COLOR_FILL[c]), 5);
      case "WR+4": return wildOval() + reverseSymbol(PAPER, "translate(9 2.5) scale(0.7)") + bigText("+4", PAPER, 20, 58);
      case "W+6": return wildOval() + bigText("+6", PAPER, 30);
      // W7: four hands fanned round the oval, for every hand shuffled and dealt again.
      case "WSH": return wildOval() + miniCards(["R", "Y", "G", "B"].map((c) => COLOR_FILL[c]), 5) + bigText("⤨", PAPER, 18, 62);
      default: return wildOval() + bigText("+10", COLOR_FILL.Y, 24);
    }
  }
  const fill = COLOR_FILL[color];
  if (/^\d$/.test(face)) {
    const under = face === "6" || face === "9" ? `<rect x="22" y="63" width="16" height="3" rx="1.5" fill="${INK}"/>` : "";
    return bigText(face, fill, 38) + under;
  }
  switch (face) {
    case "S": return skipSymbol(fill);
    case "R": return reverseSymbol(fill);
    case "+2": return miniCards([fill, fill], 6) + bigText("+2", fill, 15, 64);
    case "+4": return miniCards([fill, fill, fill, fill], 4.5) + bigText("+4", fill, 15, 64);
    case "DA": return discardAll(fill);
    case "SE": return skipSymbol(fill, 9) +
      `<circle cx="30" cy="45" r="17" fill="none" stroke="${INK}" stroke-width="2" stroke-dasharray="4 3"/>`;
    default: return bigText(face, fill, 26);
  }
}

function corners(code) {
  const text = cornerText(code);
  const size = text.length > 3 ? 8 : 10.5;
  const t = (x, y, rot) => `<text x="${x}" y="${y}" font-size="${size}" font-weight="900" font-family="system-ui, sans-serif"` +
    ` fill="${PAPER}" stroke="${INK}" stroke-width="1.6" paint-order="stroke"${rot}>${text}</text>`;
  return t(6, 15, "") + t(6, 15, ` transform="rotate(180 30 45)"`);
}

/** The inner SVG markup of a face (or "back"), in a 60x90 box. */
export function cardSVG(code) {
  if (code === "back") {
    return `<rect width="60" height="90" rx="7" fill="${PAPER}"/><rect x="3" y="3" width="54" height="84" rx="5" fill="#1d1d1f"/>` +
      `<rect x="6" y="6" width="48" height="78" rx="4" fill="none" stroke="#3a3a3e" stroke-width="1.2" stroke-dasharray="2 2"/>` +
      `<ellipse cx="30" cy="45" rx="18" ry="31" transform="rotate(28 30 45)" fill="${COLOR_FILL.R}"/>` +
      `<text x="30" y="45" font-size="11.5" font-weight="900" font-style="italic" text-anchor="middle" dominant-baseline="central"` +
      ` font-family="system-ui, sans-serif" fill="${COLOR_FILL.Y}" stroke="${INK}" stroke-width="1.4" paint-order="stroke"` +
      ` transform="rotate(-62 30 45)">nomercy</text>`;
  }
  const { color, wild } = parseCard(code);
  const inner = wild ? (code === "W+10" ? "#2a0606" : "#1b1b1d") : COLOR_FILL[color];
  const ring = code === "W+10" ? `<rect x="5" y="5" width="50" height="80" rx="4" fill="none" stroke="${COLOR_FILL.R}" stroke-width="1.6"/>` : "";
  const oval = wild ? "" : `<ellipse cx="30" cy="45" rx="19" ry="31" transform="rotate(28 30 45)" fill="${PAPER}"/>`;
  return `<rect width="60" height="90" rx="7" fill="${PAPER}"/><rect x="3" y="3" width="54" height="84" rx="5" fill="${inner}"/>` +
    ring + oval + center(code) + corners(code);
}

// -- in the page ---------------------------------------------------------------------------

const SVG = "http://www.w3.org/2000/svg";
const drawn = new Set();

function sprite() {
  let s = document.getElementById("card-sprite");
  if (!s) {
    s = document.createElementNS(SVG, "svg");
    s.id = "card-sprite";
    s.setAttribute("aria-hidden", "true");
    s.setAttribute("width", "0");
    s.setAttribute("height", "0");
    s.classList.add("sprite");
    document.body.prepend(s);
  }
  return s;
}

/** Make sure the sprite holds the face; returns its id. */
export function ensureSymbol(code) {
  const id = symbolId(code);
  if (!drawn.has(id)) {
    const symbol = document.createElementNS(SVG, "symbol");
    symbol.id = id;
    symbol.setAttribute("viewBox", "0 0 60 90");
    // Our own markup, built above from card codes only (never from text a player sent).
    symbol.innerHTML = cardSVG(code);
    sprite().appendChild(symbol);
    drawn.add(id);
  }
  return id;
}

/** The <svg> showing a face or the back, to put inside a card element. */
export function artNode(code) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 60 90");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("art");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#${ensureSymbol(code)}`);
  svg.appendChild(use);
  return svg;
}

/** A card element: `tag` "button" for the hand, else an image with its name. */
export function cardNode(code, name, tag = "div", cls = "") {
  const c = document.createElement(tag);
  const { color } = parseCard(code);
  c.className = `card c-${color} ${cls}`.trim();
  c.dataset.code = code;
  c.appendChild(artNode(code));
  if (name) {
    c.setAttribute("aria-label", name);
    if (tag !== "button") c.setAttribute("role", "img");
  } else {
    // No name: a picture that repeats what the page says in words (a flying card, the art of
    // the end screen and the guide), hidden from assistive technology rather than unnamed.
    c.setAttribute("aria-hidden", "true");
  }
  return c;
}

export function backNode(cls = "") {
  const b = document.createElement("span");
  b.className = `card back ${cls}`.trim();
  b.setAttribute("aria-hidden", "true");
  b.appendChild(artNode("back"));
  return b;
}

/** A small inline card for sentences and the end screen. */
export function chipNode(code, name) {
  const c = document.createElement("span");
  c.className = `chip-card c-${parseCard(code).color}`;
  c.textContent = cornerText(code);
  c.title = name;
  c.setAttribute("role", "img");
  c.setAttribute("aria-label", name);
  return c;
}
