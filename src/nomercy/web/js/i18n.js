// The language layer: message catalogs (JSON, the same keys in every language, shared
// with the terminal game: src/nomercy/i18n/), Intl.PluralRules and Intl.NumberFormat.
// A message is a string with {name} or {name:kind} placeholders, or an object choosing
// one: by plural category of params.count ("zero" first for a count of 0), or "you" /
// "other" by whether params.seat is the reader's seat. Kinds: card, cards, color, seat,
// object, owner ("your", "Ann's"), seats, ordinal (a place: "4th", "4."; the catalog's
// "ordinal" message by the language's ordinal category). The pure part (format, pick) runs in Node's test runner too.

export const LANGUAGES = { en: "English", nb: "Norsk" }; // Norwegian is written in Bokmål
const ALIASES = { en: "en", nb: "nb", no: "nb", nn: "nb" };
const PLACEHOLDER = /\{(\w+)(?::(\w+))?\}/g;

/** The language to speak: a remembered choice, else the browser's first we speak, else English. */
export function pickLanguage(stored, preferred = []) {
  if (stored && LANGUAGES[stored]) return stored;
  for (const tag of preferred) {
    const base = String(tag).toLowerCase().split(/[-_]/)[0];
    if (ALIASES[base]) return ALIASES[base];
  }
  return "en";
}

/** A translator over `messages` (key -> message) for `lang`.
 *  `ctx.me()` is the reader's seat, `ctx.name(seat)` a seat's name. */
export function createI18n(lang, messages, ctx = {}) {
  const plural = new Intl.PluralRules(lang);
  const ordinal = new Intl.PluralRules(lang, { type: "ordinal" });
  const numbers = new Intl.NumberFormat(lang);
  const me = () => (ctx.me ? ctx.me() : null);
  const name = (seat) => (ctx.name ? ctx.name(seat) : `P${seat}`);

  function has(key) { return Object.prototype.hasOwnProperty.call(messages, key); }

  function raw(key) {
    if (!has(key)) {
      if (ctx.missing) ctx.missing(key);
      return key;
    }
    return messages[key];
  }

  function pick(message, params) {
    let m = message;
    while (m && typeof m === "object") {
      if ("you" in m) {
        const seat = params.seat;
        m = seat !== undefined && seat !== null && seat === me() ? m.you : m.other;
        continue;
      }
      const count = Number(params.count || 0);
      if (count === 0 && "zero" in m) m = m.zero;
      else m = m[plural.select(Math.abs(count))] ?? m.other;
    }
    return String(m);
  }

  function seatWord(seat, object) {
    if (seat === me()) return String(raw(object ? "seat.you_object" : "seat.you"));
    return name(seat);
  }

  function seatList(value) {
    const seats = String(value).split(",").map(Number);
    const ordered = [...seats].sort((a, b) => (b === me()) - (a === me()));
    const words = ordered.map((s) => seatWord(s));
    if (words.length === 1) return words[0];
    let tail = fill(raw("list.two"), { first: words[words.length - 2], second: words[words.length - 1] });
    for (let i = words.length - 3; i >= 0; i--) tail = fill(raw("list.many"), { first: words[i], rest: tail });
    return tail;
  }

  function fill(text, values) { return String(text).replace(PLACEHOLDER, (_, k) => values[k] ?? ""); }

  function cardName(code) {
    if (has(`face.${code}`)) return String(raw(`face.${code}`));
    const face = code.slice(1);
    const faceName = /^\d$/.test(face) ? face : String(raw(`face.${face}`));
    return fill(raw("card.colored"), { color: String(raw(`color.${code[0]}`)), face: faceName });
  }

  function value(nameKey, kind, params, asParts) {
    const v = params[nameKey];
    if (v === undefined || v === null) return "";
    switch (kind) {
      case "card": return asParts ? { card: String(v) } : cardName(String(v));
      case "cards": {
        const codes = String(v).split(/\s+/).filter(Boolean);
        return asParts ? codes.map((c) => ({ card: c })) : codes.map(cardName).join(" ");
      }
      case "color": return String(raw(`color.${v}`));
      case "seat": return seatWord(Number(v), false);
      case "object": return seatWord(Number(v), true);
      case "owner": return Number(v) === me() ? String(raw("seat.your")) : fill(raw("seat.owner"), { name: name(Number(v)) });
      case "seats": return seatList(v);
      case "ordinal": {
        const forms = raw("ordinal");
        const form = typeof forms === "object" ? forms[ordinal.select(Number(v))] ?? forms.other : forms;
        return fill(form, { n: numbers.format(Number(v)) });
      }
      default: return typeof v === "number" ? numbers.format(v) : String(v);
    }
  }

  /** The message as a list of strings and {card} tokens (cards become chips). */
  function parts(key, params = {}, { capital = true } = {}) {
    const text = pick(raw(key), params);
    const out = [];
    let last = 0;
    for (const m of text.matchAll(PLACEHOLDER)) {
      if (m.index > last) out.push(text.slice(last, m.index));
      const v = value(m[1], m[2], params, true);
      if (Array.isArray(v)) v.forEach((c, i) => { if (i) out.push(" "); out.push(c); });
      else out.push(v);
      last = m.index + m[0].length;
    }
    if (last < text.length) out.push(text.slice(last));
    const merged = [];
    for (const p of out) {
      if (p === "") continue;
      if (typeof p === "string" && typeof merged[merged.length - 1] === "string") merged[merged.length - 1] += p;
      else merged.push(p);
    }
    if (capital && typeof merged[0] === "string") merged[0] = merged[0][0].toUpperCase() + merged[0].slice(1);
    return merged;
  }

  /** The message as one string (cards by name), its first letter a capital. */
  function t(key, params = {}, { capital = true } = {}) {
    const text = pick(raw(key), params).replace(PLACEHOLDER, (_, k, kind) => value(k, kind, params, false));
    return capital && text ? text[0].toUpperCase() + text.slice(1) : text;
  }

  /** A sentence from the server ({key, params}) in words. */
  function line(l, opts) { return l ? t(l.key, l.params || {}, opts) : ""; }

  const cardTitle = (code) => { const n = cardName(code); return n[0].toUpperCase() + n.slice(1); };
  return { lang, t, line, parts, has, cardName, cardTitle, number: (n) => numbers.format(n), colorName: (c) => String(raw(`color.${c}`)) };
}

/** The catalogs of a language: the shared game words and the page's own (beside static/: any path). */
export async function loadMessages(lang) {
  const [game, web] = await Promise.all(["game", "web"].map((part) =>
    fetch(new URL(`../../i18n/${lang}/${part}.json`, import.meta.url)).then((r) => { if (!r.ok) throw new Error(`catalog ${lang}/${part}: ${r.status}`); return r.json(); })));
  return { ...game, ...web };
}
