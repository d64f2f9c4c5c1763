// The replay's pure part: the table, trail and log at each frame, the replay's keys, and
// the review's numbers (each seat's line of win chances, the costliest decisions).
import { test } from "node:test";
import assert from "node:assert/strict";
import { costliest, estimated, frameOf, replayKey, replayStates, winChart, points } from "../../src/nomercy/web/js/replaymodel.js";

const line = (key, params = {}) => ({ key, params });
const table = (top, sizes) => ({ top, hand_sizes: sizes, hands: sizes.map((n) => Array(n).fill("R1")), players: sizes.length, active: sizes.map(() => true) });
const frames = [
  { action: null, seat: null, events: [{ type: "started", turned_up: ["G5"], line: line("log.started") }], table: table("G5", [7, 7]) },
  { action: "x", seat: 0, events: [{ type: "played", card: "G7", line: line("log.played", { seat: 0, card: "G7" }) }], table: table("G7", [6, 7]) },
  { action: "x", seat: 1, hint: true, events: [{ type: "drew", cards: ["B2", "B3"], line: line("log.drew", { seat: 1, count: 2 }) }, { type: "knocked_out", seat: 1, cards: 9, line: null }], table: table("G7", [6, 9]) },
];

test("each frame has its table with every hand, the trail and the log so far", () => {
  const st = replayStates(frames);
  assert.equal(st.length, 3);
  assert.deepEqual(st[0].trail, ["G5"]);
  assert.deepEqual(st[1].trail, ["G5", "G7"]);
  assert.equal(st[0].log.length, 1);
  assert.equal(st[2].log.length, 3);
  assert.deepEqual(st[2].log[2].cards, ["B2", "B3"]);
  assert.equal(st[2].log[2].frame, 2);
  assert.deepEqual(st[2].view.hand, []);
  assert.equal(st[2].view.hands[1].length, 9);
  assert.deepEqual(st[1].koCards, {});
  assert.equal(st[2].koCards[1], 9);
  assert.equal(st[2].hint, true);
  assert.equal(st[1].hint, false);
  assert.equal(st[2].logNext, 3);
});

test("the replay's keys move within the round and toggle play", () => {
  assert.equal(replayKey("ArrowRight", 0, 3), 1);
  assert.equal(replayKey("ArrowRight", 2, 3), 2);
  assert.equal(replayKey("ArrowLeft", 0, 3), 0);
  assert.equal(replayKey("ArrowLeft", 2, 3), 1);
  assert.equal(replayKey("Home", 2, 3), 0);
  assert.equal(replayKey("End", 0, 3), 2);
  assert.equal(replayKey(" ", 0, 3), "toggle");
  assert.equal(replayKey("x", 0, 3), null);
});

const review = {
  actions: 10,
  decisions: [
    { index: 0, seat: 0, forced: false, win: 0.5, loss: 0.02 },
    { index: 1, seat: 1, forced: true, win: null, loss: 0 },
    { index: 2, seat: 1, forced: false, win: 0.4, loss: 0.3 },
    { index: 4, seat: 0, forced: false, win: 0.7, loss: 0 },
    { index: 6, seat: 1, forced: false, win: 0.2, loss: 0.3 },
  ],
};

test("the costliest decisions: largest loss first, forced and lossless ones left out", () => {
  const worst = costliest(review, 5);
  assert.deepEqual(worst.map((d) => d.index), [2, 6, 0]);
  assert.deepEqual(costliest(review, 1).map((d) => d.index), [2]);
  assert.equal(estimated(review).length, 4);
  assert.equal(frameOf(worst[0]), 3);  // the frame of move 3, as the replay labels it
  assert.deepEqual(costliest(null), []);
});

test("the win chart draws one line per seat through its estimated decisions", () => {
  const c = winChart(review, 3, { width: 120, height: 120, pad: 10 });
  assert.equal(c.lines.length, 3);
  assert.equal(c.lines[0].points.length, 2);
  assert.equal(c.lines[1].points.length, 2);
  assert.equal(c.lines[2].path, "");
  assert.equal(c.lines[0].path, "M20.0 60.0 L60.0 40.0");  // at frames 1 and 5: moves 1 and 5
  assert.equal(c.y(1), 10);
  assert.equal(c.y(0), 110);
  assert.equal(points(0.626), 63);
});
