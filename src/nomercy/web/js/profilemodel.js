// The profile's pure part: the rating chart's geometry (runs in Node's test runner too).
// x is the rated game's number (a week away from the table takes no room), y the rating:
// the line is the conservative rating mu - 3 sigma (the leaderboards' number), the band
// runs from mu - 3 sigma to mu + 3 sigma, and a dashed line follows mu, the estimate.

/** Round numbers (1, 2 or 5 times a power of ten) from below lo to above hi, about `count` of them. */
export function niceTicks(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0];
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const raw = (hi - lo) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || 10 * power;
  const first = Math.floor(lo / step) * step;
  const ticks = [];
  for (let v = first; v <= hi + step * 0.5 && ticks.length < 20; v += step) ticks.push(Number(v.toFixed(10)));
  if (ticks[ticks.length - 1] < hi) ticks.push(Number((ticks[ticks.length - 1] + step).toFixed(10)));
  return ticks;
}

const f1 = (n) => n.toFixed(1);

/** The chart of `points` ([{at, mu, sigma, rating}], oldest first) in a width x height box. */
export function ratingChart(points, { width = 640, height = 260, left = 44, right = 16, top = 14, bottom = 40, xMarks = 4 } = {}) {
  const n = points.length;
  const lows = points.map((p) => p.mu - 3 * p.sigma);
  const highs = points.map((p) => p.mu + 3 * p.sigma);
  const ticks = niceTicks(Math.min(...lows, 0), Math.max(...highs, 0), 5);
  const yMin = ticks[0];
  const yMax = ticks[ticks.length - 1];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (i) => (n <= 1 ? left + plotW / 2 : left + (plotW * i) / (n - 1));
  const y = (v) => top + plotH - (plotH * (v - yMin)) / (yMax - yMin || 1);
  const at = points.map((p, i) => ({ x: x(i), y: y(p.mu - 3 * p.sigma), yMu: y(p.mu), yHigh: y(p.mu + 3 * p.sigma), point: p, index: i }));
  const path = (key) => at.map((q, i) => `${i ? "L" : "M"}${f1(q.x)} ${f1(q[key])}`).join(" ");
  // The band: along the top edge, then back along the bottom one (one point: a bar).
  let band = "";
  if (n === 1) {
    const q = at[0];
    band = `M${f1(q.x - 4)} ${f1(q.yHigh)} L${f1(q.x + 4)} ${f1(q.yHigh)} L${f1(q.x + 4)} ${f1(q.y)} L${f1(q.x - 4)} ${f1(q.y)} Z`;
  } else if (n > 1) {
    band = [...at.map((q, i) => `${i ? "L" : "M"}${f1(q.x)} ${f1(q.yHigh)}`), ...[...at].reverse().map((q) => `L${f1(q.x)} ${f1(q.y)}`)].join(" ") + " Z";
  }
  // The x axis names a few games (xMarks at most): the first, the last and some between.
  const k = Math.max(2, xMarks);
  const marks = n <= 1 ? [0] : [...new Set([...Array(k).keys()].map((j) => Math.round((j * (n - 1)) / (k - 1))))];
  return {
    width, height, left, right, top, bottom,
    points: at,
    line: path("y"),
    mu: path("yMu"),
    band,
    yTicks: ticks.map((v) => ({ value: v, y: y(v) })),
    xTicks: n ? marks.map((i) => ({ index: i, x: x(i), at: points[i].at })) : [],
    zero: yMin < 0 && yMax > 0 ? y(0) : null,
  };
}

/** The preset whose chart opens first: the one with the most rated games. */
export function firstPreset(history) {
  let best = null;
  for (const [preset, points] of Object.entries(history || {})) {
    if (points.length && (best === null || points.length > history[best].length)) best = preset;
  }
  return best;
}
