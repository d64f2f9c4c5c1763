// The profile's pure part: the rating chart's axis ticks, its line, band and points.
import { test } from "node:test";
import assert from "node:assert/strict";
import { firstPreset, niceTicks, ratingChart } from "../../src/nomercy/web/js/profilemodel.js";

test("ticks are round numbers that cover the range", () => {
  assert.deepEqual(niceTicks(0, 50, 5), [0, 20, 40, 60]);
  assert.deepEqual(niceTicks(-3.2, 41.7, 5), [-20, 0, 20, 40, 60]);
  const flat = niceTicks(10, 10, 5);
  assert.ok(flat[0] <= 9 && flat[flat.length - 1] >= 11);
});

const points = [
  { at: 100, mu: 25, sigma: 8 },
  { at: 200, mu: 27, sigma: 6 },
  { at: 300, mu: 30, sigma: 4 },
];

test("the line follows mu - 3 sigma, the band spans mu +- 3 sigma, oldest on the left", () => {
  const c = ratingChart(points, { width: 600, height: 200, left: 40, right: 10, top: 10, bottom: 30 });
  assert.equal(c.points.length, 3);
  assert.equal(c.points[0].x, 40);
  assert.equal(c.points[2].x, 590);
  assert.ok(c.points[0].x < c.points[1].x);
  // Higher ratings are higher on the page (smaller y); the band's top is above the line.
  assert.ok(c.points[2].y < c.points[0].y);
  for (const p of c.points) assert.ok(p.yHigh < p.yMu && p.yMu < p.y);
  assert.equal(c.line.split("L").length, 3);
  assert.ok(c.line.startsWith("M40.0 "));
  assert.ok(c.band.endsWith("Z") && c.band.split("L").length === 6);
  // The y axis covers every band, and 0 (where every newcomer's rating starts).
  const values = c.yTicks.map((t) => t.value);
  assert.ok(values[0] <= 1 && values[values.length - 1] >= 42);
  assert.deepEqual(c.xTicks.map((t) => t.index), [0, 1, 2]);
  assert.equal(c.xTicks[2].at, 300);
});

test("one rated game is a point in the middle with a bar for its band", () => {
  const c = ratingChart([points[0]], { width: 600, left: 40, right: 10 });
  assert.equal(c.points[0].x, 40 + 550 / 2);
  assert.equal(c.line.split("L").length, 1);
  assert.ok(c.band.endsWith("Z"));
});

test("the chart opens on the preset with the most rated games", () => {
  assert.equal(firstPreset({ classic: points.slice(0, 1), no_mercy: points }), "no_mercy");
  assert.equal(firstPreset({}), null);
});

test("a narrow chart names only the first and the last game", () => {
  const many = Array.from({ length: 9 }, (_, i) => ({ at: i, mu: 25 + i, sigma: 8 - i / 2 }));
  assert.deepEqual(ratingChart(many, { xMarks: 2 }).xTicks.map((t) => t.index), [0, 8]);
  assert.deepEqual(ratingChart(many).xTicks.map((t) => t.index), [0, 3, 5, 8]);
});
