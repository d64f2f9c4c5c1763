// Where the Hint button is offered: the same tables where the server answers a hint.
import { test } from "node:test";
import assert from "node:assert/strict";
import { coachOffered } from "../../src/nomercy/web/js/coach.js";

const room = (extra = {}) => ({
  status: "playing",
  seats: [{ seat: 0, kind: "human" }, { seat: 1, kind: "bot" }, { seat: 2, kind: "bot" }],
  ...extra,
});

test("a table of bots offers the coach; a table with another person only where the host allowed it", () => {
  assert.equal(coachOffered(room(), 0), true);
  const people = room({ seats: [{ seat: 0, kind: "human" }, { seat: 1, kind: "human" }] });
  assert.equal(coachOffered(people, 0), false);
  assert.equal(coachOffered({ ...people, coach: true }, 0), true);
  assert.equal(coachOffered(room(), null), false);  // spectators
  assert.equal(coachOffered(room({ status: "lobby" }), 0), false);
});

test("rated and daily tables never offer the coach, even against bots alone", () => {
  assert.equal(coachOffered(room({ rated: true }), 0), false);
  assert.equal(coachOffered(room({ daily: { day: "2026-01-01" } }), 0), false);
  assert.equal(coachOffered(room({ daily: { day: "2026-01-01" }, coach: true }), 0), false);
});
