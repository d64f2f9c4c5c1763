// Norwegian speaks of its cards in Norwegian, and of ratings with one word family: every
// message of the nb catalogs (the browser's, the game's and the terminal's) is checked for
// the English card names and for "rating"/"ratet" beside "rangering"/"rangert".
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n } from "../../src/nomercy/web/js/i18n.js";

const PARTS = ["game", "web", "terminal"];
const load = (lang, part) =>
  JSON.parse(readFileSync(new URL(`../../src/nomercy/i18n/catalogs/${lang}/${part}.json`, import.meta.url)));

/** Every message of a catalog as [key, text] (plural forms as key.form). */
function messages(lang, part) {
  const out = [];
  for (const [key, value] of Object.entries(load(lang, part))) {
    if (typeof value === "string") out.push([key, value]);
    else for (const [form, text] of Object.entries(value)) out.push([`${key}.${form}`, text]);
  }
  return out;
}

/** The words of the English card names that Norwegian has its own word for, taken from
 *  the English catalog itself so that a card added later is checked too. */
function englishCardWords() {
  const en = load("en", "game");
  const nb = load("nb", "game");
  const words = new Set();
  for (const key of Object.keys(en).filter((k) => k.startsWith("face."))) {
    const ours = new Set(nb[key].split(/\s+/));
    for (const w of en[key].split(/\s+/)) if (!/^\d+$/.test(w) && !ours.has(w)) words.add(w);
  }
  words.add("Roulette"); // the card's short name, used alone in English sentences
  return [...words];
}

test("the English card words are found (the check below has something to look for)", () => {
  const words = englishCardWords();
  for (const w of ["Wild", "Draw", "Skip", "Reverse", "Discard", "Everyone", "Roulette"]) assert.ok(words.includes(w), w);
});

test("no Norwegian message names a card with an English word", () => {
  const words = englishCardWords();
  const pattern = new RegExp(`\\b(${words.join("|")})\\b`, "i");
  const found = [];
  for (const part of PARTS) {
    for (const [key, text] of messages("nb", part)) {
      const bare = text.replace(/\{[^}]*\}/g, ""); // placeholders name parameters, not cards
      if (pattern.test(bare)) found.push(`${part}:${key}: ${text}`);
    }
  }
  assert.deepEqual(found, []);
});

test("every card is named in Norwegian, and each name differs from the others", () => {
  const nb = createI18n("nb", { ...load("nb", "game"), ...load("nb", "web") }, { me: () => 0, name: (s) => `P${s}` });
  assert.equal(nb.cardName("W+6"), "Villkort Trekk 6");
  assert.equal(nb.cardName("Y+4"), "gul Trekk 4");
  assert.equal(nb.cardName("YDA"), "gul Kast alle");
  assert.equal(nb.cardName("GSE"), "grønn Hopp over alle");
  assert.equal(nb.cardName("WCR"), "Villkort Fargerulett");
  const faces = Object.entries(load("nb", "game")).filter(([k]) => k.startsWith("face."));
  assert.equal(new Set(faces.map(([, v]) => v)).size, faces.length);
});

test("ratings have one word family in Norwegian: rangering, rangert", () => {
  const found = [];
  for (const part of PARTS) {
    for (const [key, text] of messages("nb", part)) {
      const bare = text.replace(/\{[^}]*\}/g, "");
      if (/\b(rating\w*|ratet|ratede|rate)\b/i.test(bare)) found.push(`${part}:${key}: ${text}`);
    }
  }
  assert.deepEqual(found, []);
});
