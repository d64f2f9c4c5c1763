// The review's summary per seat (issue 41, item 9): each seat's own costliest decisions and
// counts, and the seat the review opens on (the viewer's, else the first person's).
import { test } from "node:test";
import assert from "node:assert/strict";
import { GRADES, grade, openingSeat, seatSummaries } from "../../src/nomercy/web/js/reviewsummary.js";

const d = (index, seat, loss, forced = false) => ({ index, seat, loss: forced ? 0 : loss, forced, win: 0.3, best_win: 0.3 + loss });

// Seat 1 (a bot) made the largest mistakes; seat 0 only small ones: the overall top five
// would be mostly seat 1's, which is what a player did not want to read first.
const review = {
  actions: 20,
  decisions: [
    d(0, 0, 0.02), d(1, 1, 0.3), d(2, 2, 0.12), d(3, 0, 0.07), d(4, 1, 0.25),
    d(5, 2, 0), d(6, 0, 0.11), d(7, 1, 0.22), d(8, 0, 0, true), d(9, 1, 0.21),
    d(10, 0, -0.03), d(11, 1, 0.2), d(12, 0, 0.07), d(13, 0, 0.01), d(14, 0, 0.04),
  ],
};

test("grades: inaccuracy from 5 points, mistake from 10, blunder from 20", () => {
  assert.equal(grade(GRADES.inaccuracy - 0.0001), null);
  assert.equal(grade(0.05), "inaccuracy");
  assert.equal(grade(0.0999), "inaccuracy");
  assert.equal(grade(0.1), "mistake");
  assert.equal(grade(0.2), "blunder");
  assert.equal(grade(-0.3), null);
  assert.equal(grade(null), null);
});

test("each seat counts its own estimated decisions, forced ones left out", () => {
  const [a, b, c] = seatSummaries(review, 3);
  assert.deepEqual([a.estimated, b.estimated, c.estimated], [7, 5, 2]);
  assert.deepEqual([a.inaccuracies, a.mistakes, a.blunders], [2, 1, 0]);
  assert.deepEqual([b.inaccuracies, b.mistakes, b.blunders], [0, 0, 5]);
  assert.deepEqual([c.inaccuracies, c.mistakes, c.blunders], [0, 1, 0]);
});

test("the average loss counts a choice better than the expert's as no loss", () => {
  const [a, b] = seatSummaries(review, 3);
  const sum = 0.02 + 0.07 + 0.11 + 0 + 0.07 + 0.01 + 0.04;
  assert.ok(Math.abs(a.average - sum / 7) < 1e-12, a.average);
  assert.ok(Math.abs(b.average - (0.3 + 0.25 + 0.22 + 0.21 + 0.2) / 5) < 1e-12, b.average);
});

test("each seat's costliest decisions are its own, largest first, ties by move", () => {
  const [a, b] = seatSummaries(review, 3, 3);
  assert.deepEqual(a.worst.map((x) => x.index), [6, 3, 12]);
  assert.ok(a.worst.every((x) => x.seat === 0));
  assert.deepEqual(b.worst.map((x) => x.index), [1, 4, 7]);
  assert.deepEqual(seatSummaries(review, 3)[0].worst.map((x) => x.index), [6, 3, 12, 14, 0]);
});

test("a seat without a decision has an empty summary; no review gives empty ones", () => {
  const s = seatSummaries(review, 4)[3];
  assert.deepEqual(s, { seat: 3, estimated: 0, inaccuracies: 0, mistakes: 0, blunders: 0, average: 0, worst: [] });
  assert.deepEqual(seatSummaries(null, 2).map((x) => x.estimated), [0, 0]);
});

test("the review opens on the viewer's seat, else on the first person's", () => {
  const players = [{ seat: 0, bot: "heuristic" }, { seat: 1, bot: null }, { seat: 2, bot: null }];
  assert.equal(openingSeat(players, 2), 2);
  assert.equal(openingSeat(players, null), 1);
  assert.equal(openingSeat(players, 7), 1);
  assert.equal(openingSeat([{ seat: 0, bot: "x" }, { seat: 1, bot: "y" }], null), 0);
});
