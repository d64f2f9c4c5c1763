// The pure parts of the table's thrills (issue 41): how hot a stack runs, how a take is
// told by its size, the stack's sound, the themes' order, the music's tempo, the shared
// picture's words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { heatOf, takeScale } from "../../src/nomercy/web/js/anim.js";
import { soundFor } from "../../src/nomercy/web/js/sound.js";
import { THEMES, nextTheme } from "../../src/nomercy/web/js/theme.js";
import { CHORDS, tempoAt } from "../../src/nomercy/web/js/music.js";
import { momentWords } from "../../src/nomercy/web/js/share.js";

test("K1: a stack warms the felt from +4, +10 and +20", () => {
  assert.deepEqual([0, 2, 3, 4, 9, 10, 19, 20, 60].map(heatOf), [0, 0, 0, 1, 1, 2, 2, 3, 3]);
});

test("K2: a take is told at its size: flights alone, words on the felt, a moment that grows", () => {
  assert.equal(takeScale(4).kind, "");
  assert.equal(takeScale(5).kind, "announce");
  assert.equal(takeScale(9).kind, "announce");
  assert.ok(takeScale(9).scale > takeScale(5).scale);
  assert.deepEqual(takeScale(10), { kind: "moment", scale: 1 });
  assert.ok(takeScale(20).scale > takeScale(10).scale);
  assert.ok(takeScale(200).scale <= 1.6); // it still fits the felt
});

test("K1: a stack of +10 or more sounds bigger than a small one", () => {
  assert.equal(soundFor([{ type: "played", seat: 0 }, { type: "stack", seat: 1, total: 4 }]), "stack");
  assert.equal(soundFor([{ type: "played", seat: 0 }, { type: "stack", seat: 1, total: 12 }]), "stack_big");
});

test("the themes go round, and an unknown name starts from the first", () => {
  assert.equal(nextTheme(THEMES[0]), THEMES[1]);
  assert.equal(nextTheme(THEMES[THEMES.length - 1]), THEMES[0]);
  assert.equal(nextTheme("gone"), THEMES[0]);
});

test("the music plays faster as the stack grows, within bounds", () => {
  assert.ok(tempoAt(1) > tempoAt(0) && tempoAt(3) > tempoAt(2));
  assert.equal(tempoAt(9), tempoAt(3));
  assert.ok(CHORDS.every((c) => c.length === 3));
});

test("the shared picture says the take or the knock-out in the reader's words", () => {
  const said = [];
  const ctx = { t: (key, params) => { said.push([key, params]); return `${key}:${JSON.stringify(params || {})}`; } };
  assert.equal(momentWords(ctx, { kind: "take", seat: 1, count: 12 }).big, "+12");
  assert.deepEqual(said.at(-1), ["share.take", { seat: 1, count: 12 }]);
  const ko = momentWords(ctx, { kind: "ko", seat: 2, count: 25 });
  assert.equal(ko.big, "anim.out:{}");
  assert.deepEqual(said.at(-1), ["share.ko", { seat: 2, count: 25 }]);
});
