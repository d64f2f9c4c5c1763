// The language layer's pure part: plural and "you" forms, placeholders, card names, and
// the language picked from a remembered choice or the browser's list.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, pickLanguage } from "../../src/nomercy/web/js/i18n.js";

const catalog = (lang) => ({
  ...JSON.parse(readFileSync(new URL(`../../src/nomercy/i18n/catalogs/${lang}/game.json`, import.meta.url))),
  ...JSON.parse(readFileSync(new URL(`../../src/nomercy/i18n/catalogs/${lang}/web.json`, import.meta.url))),
});
const names = ["Ann", "Bob", "Cy"];
const make = (lang, me = 0) => createI18n(lang, catalog(lang), { me: () => me, name: (s) => names[s] });

test("the language is the remembered one, else the browser's first we speak", () => {
  assert.equal(pickLanguage("nb", ["en-US"]), "nb");
  assert.equal(pickLanguage(null, ["de-DE", "nb-NO", "en"]), "nb");
  assert.equal(pickLanguage(null, ["no"]), "nb");
  assert.equal(pickLanguage(null, ["nn-NO"]), "nb");
  assert.equal(pickLanguage("xx", ["fr"]), "en");
});

test("plural forms follow Intl.PluralRules", () => {
  const en = make("en");
  assert.equal(en.t("seat.cards", { count: 1 }), "1 card");
  assert.equal(en.t("seat.cards", { count: 7 }), "7 cards");
  assert.equal(make("nb").t("seat.cards", { count: 1 }), "1 kort");
});

test("sentences say 'you' to the reader and name everyone else", () => {
  const en = make("en", 0);
  assert.equal(en.t("event.knocked_out", { seat: 0, count: 25 }), "You are knocked out with 25 cards.");
  assert.equal(en.t("event.knocked_out", { seat: 1, count: 25 }), "Bob is knocked out with 25 cards.");
  assert.equal(en.t("event.hands_swapped", { seat: 1, target: 0 }), "Bob and you swapped hands.");
  assert.equal(en.t("event.challenged_innocent", { seat: 1, by: 0 }), "Bob challenged your Wild Draw 4: it was allowed.");
  assert.equal(make("nb", 0).t("event.hands_swapped", { seat: 1, target: 0 }), "Bob og deg byttet hånd.");
});

test("cards, colours and numbers are put in words in each language", () => {
  assert.equal(make("en").t("reason.too_low", { card: "B+2", least: 4 }), "Blue Draw 2 cannot go on this stack: it needs a Draw card of +4 or more.");
  assert.equal(make("nb").cardName("R+2"), "rød Trekk 2");
  assert.equal(make("nb").cardName("W+10"), "Villkort Trekk 10");
  assert.equal(make("nb").t("rules.target", { points: 1000 }), "Et parti går til 1\u00a0000 poeng.");
  assert.equal(make("en").t("rules.target", { points: 1000 }), "A match goes to 1,000 points.");
});

test("a zero form is used for a count of 0 where the sentence differs", () => {
  assert.equal(make("en").t("cost.discard_all", { count: 0, color: "G" }), "No other green card goes with it.");
  assert.equal(make("en").t("cost.discard_all", { count: 2, color: "G" }), "2 more green cards go with it.");
});

test("parts keep cards as tokens for chips, and lists of seats read naturally", () => {
  const en = make("en", 2);
  assert.deepEqual(en.parts("event.played", { seat: 0, card: "R7" }), ["Ann played ", { card: "R7" }, "."]);
  assert.equal(en.t("event.skipped", { seats: "0,2", count: 2 }), "You and Ann lose a turn.");
  assert.equal(en.t("event.skipped", { seats: "1", count: 1, seat: 1 }), "Bob loses a turn.");
});

test("a missing key is reported, not hidden", () => {
  const missing = [];
  const t = createI18n("en", {}, { missing: (k) => missing.push(k) });
  assert.equal(t.t("nope.key"), "Nope.key");
  assert.deepEqual(missing, ["nope.key"]);
});

test("places are ordinals in each language's own form", () => {
  const en = make("en");
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23].map((place) => en.t("daily.place", { place })),
    ["1st place", "2nd place", "3rd place", "4th place", "11th place", "12th place", "13th place", "21st place", "22nd place", "23rd place"]);
  assert.equal(make("nb").t("daily.place", { place: 4 }), "4. plass");
  assert.equal(en.t("daily.result_place", { place: 2, turns: 30 }), "You came in 2nd place, in 30 moves");
  assert.equal(make("nb").t("daily.result_place", { place: 2, turns: 30 }), "Du kom på 2. plass, på 30 trekk");
});

test("a count of one is singular, and a rematch without bots says nothing of bots", () => {
  const en = make("en");
  assert.equal(en.t("prompt.seven_choice", { seat: 1, count: 1 }), "Bob (1 card)");
  assert.equal(en.t("prompt.seven_choice", { seat: 1, count: 9 }), "Bob (9 cards)");
  for (const lang of ["en", "nb"]) {
    const i18n = make(lang);
    assert.doesNotMatch(i18n.t("end.rematch_ready", { count: 0 }), /Bots|Robot/);
    assert.match(i18n.t("end.rematch_ready", { count: 1 }), /Bots stay|Robotene blir/);
    assert.match(i18n.t("end.rematch_ready", { count: 3 }), /Bots stay|Robotene blir/);
  }
});
