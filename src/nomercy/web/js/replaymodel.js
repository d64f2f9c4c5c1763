// The replay's pure part (tested under Node): the table, trail and log at each frame of a
// kept game (docs/protocol.md, "Kept games"), the replay's keys, and what the review says
// in numbers: each seat's win chance over the round and the decisions that cost the most.
// Nothing here reads an action string: frames carry the table, events carry their lines.
import { nextTrail } from "./store.js";

/** Every frame's table, card trail, log (entries so far) and knocked-out hands, in order. */
export function replayStates(frames) {
  const out = [];
  let trail = [];
  let log = [];
  let n = 0;
  let koCards = {};
  frames.forEach((f, k) => {
    const entries = [];
    for (const e of f.events || []) {
      trail = nextTrail(trail, e);
      if (e.type === "knocked_out") koCards = { ...koCards, [e.seat]: e.cards };
      if (e.line) entries.push({ n: n++, type: e.type, line: e.line, cards: e.type === "drew" ? e.cards : null, frame: k });
    }
    log = [...log, ...entries];
    out.push({ view: { ...f.table, hand: [] }, trail, log, logNext: n, koCards, hint: Boolean(f.hint), seat: f.seat ?? null });
  });
  return out;
}

/** The frame a replay key moves to from `at` of `count` frames; "toggle" for play/pause; null: not ours. */
export function replayKey(key, at, count) {
  switch (key) {
    case "ArrowLeft": return Math.max(0, at - 1);
    case "ArrowRight": return Math.min(count - 1, at + 1);
    case "Home": return 0;
    case "End": return count - 1;
    case " ": case "Spacebar": return "toggle";
    default: return null;
  }
}

/** The decisions the review estimated (not forced), in the round's order. */
export const estimated = (review) => ((review && review.decisions) || []).filter((d) => !d.forced && d.win !== null && d.win !== undefined);

/** The `n` decisions that cost the most (largest loss first; a loss of 0 is no mistake). */
export function costliest(review, n = 5) {
  return estimated(review).filter((d) => d.loss > 0).sort((a, b) => b.loss - a.loss || a.index - b.index).slice(0, n);
}

/** The frame that shows the table as decision `d` was made: frame k is the table after the
 *  record's action k - 1, so before action k. */
/** The replay's frame of a decision: the one its move made, numbered "Move {index + 1}" as
 *  the review numbers it (its log says what was played; the review says what was best). */
export const frameOf = (d) => d.index + 1;

/** The win chart's geometry: one polyline per seat through its estimated decisions (x the
 *  frame of the decision's move, as the replay's slider counts it; y its win chance), in a
 *  `width` x `height` box with `pad`. */
export function winChart(review, players, { width = 600, height = 220, pad = 28 } = {}) {
  const actions = Math.max(1, (review && review.actions) || 1);
  const x = (index) => pad + ((width - 2 * pad) * index) / actions;
  const y = (win) => height - pad - (height - 2 * pad) * win;
  const lines = [];
  for (let seat = 0; seat < players; seat++) {
    const points = estimated(review).filter((d) => d.seat === seat).map((d) => ({ x: x(frameOf(d)), y: y(d.win), d }));
    const path = points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(" ");
    lines.push({ seat, points, path });
  }
  const grid = [0, 0.25, 0.5, 0.75, 1].map((w) => ({ win: w, y: y(w) }));
  return { width, height, pad, lines, grid, x, y };
}

/** A fraction as whole percentage points ("62"), for a sentence's {win} or {loss}. */
export const points = (f) => Math.round(Number(f) * 100);
