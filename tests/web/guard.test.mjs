// The hand's guard against a second card: a double click or tap plays one card.
import { test } from "node:test";
import assert from "node:assert/strict";
import { GUARD_MS, NEAR_PX, isEcho } from "../../src/nomercy/web/js/layout.js";

const click = (x, y, at, detail = 1) => ({ x, y, at, detail });

test("the second half of a double click or tap is an echo, at 100 to 300 ms", () => {
  const first = click(200, 600, 1000);
  for (const gap of [100, 150, 250, 300]) {
    assert.ok(isEcho(click(200, 600, 1000 + gap), first), `${gap} ms`);
    assert.ok(isEcho(click(200 + NEAR_PX / 2, 600 - 5, 1000 + gap), first), `a finger's jitter at ${gap} ms`);
  }
  assert.ok(isEcho(click(900, 100, 1000 + 5 * GUARD_MS, 2), first), "the browser's own click count");
});

test("a first click, a click elsewhere, a later click and the keyboard all count", () => {
  assert.ok(!isEcho(click(200, 600, 1000), null));
  const first = click(200, 600, 1000);
  assert.ok(!isEcho(click(200 + 17, 600, 1100), first), "the next card, half a phone step away");
  assert.ok(!isEcho(click(200, 600, 1000 + GUARD_MS), first), "after the guard's time");
  assert.ok(!isEcho(click(0, 0, 1050, 0), first), "Enter on a focused card");
});
