// The review's summary per seat, as a chess analysis gives one per side: how many decisions
// were estimated, how many lost a little, a lot or very much win chance, the average loss,
// and the seat's own costliest decisions. Pure: data in, data out (Node tests).

/** Lost win chance (a fraction) from which a decision counts as an inaccuracy, a mistake or
 *  a blunder: 5, 10 and 20 points, close to where a chess analysis draws its lines in
 *  winning chances. A loss below 5 points is within the estimate's usual noise. */
export const GRADES = Object.freeze({ inaccuracy: 0.05, mistake: 0.1, blunder: 0.2 });

/** A decision's grade by its loss: "blunder", "mistake", "inaccuracy" or null. */
export function grade(loss) {
  if (!(loss >= GRADES.inaccuracy)) return null;
  if (loss >= GRADES.blunder) return "blunder";
  return loss >= GRADES.mistake ? "mistake" : "inaccuracy";
}

const chosen = (d) => !d.forced && typeof d.loss === "number";

/** One summary per seat, in seat order: `estimated` (decisions with a choice), `inaccuracies`,
 *  `mistakes`, `blunders`, `average` (the mean loss over the estimated decisions, each counted
 *  from 0: a choice the playouts rate above the expert's own lost nothing) and `worst` (the
 *  seat's `n` costliest decisions, largest loss first, ties by move). */
export function seatSummaries(review, players, n = 5) {
  const out = [];
  for (let seat = 0; seat < players; seat++) {
    out.push({ seat, estimated: 0, inaccuracies: 0, mistakes: 0, blunders: 0, average: 0, worst: [] });
  }
  for (const d of (review && review.decisions) || []) {
    if (!chosen(d) || !out[d.seat]) continue;
    const s = out[d.seat];
    s.estimated += 1;
    s.average += Math.max(0, d.loss);
    const g = grade(d.loss);
    if (g === "inaccuracy") s.inaccuracies += 1;
    else if (g === "mistake") s.mistakes += 1;
    else if (g === "blunder") s.blunders += 1;
    if (d.loss > 0) s.worst.push(d);
  }
  for (const s of out) {
    s.average = s.estimated ? s.average / s.estimated : 0;
    s.worst = s.worst.sort((a, b) => b.loss - a.loss || a.index - b.index).slice(0, n);
  }
  return out;
}

/** The seat the review opens on: the viewer's own seat when it is known, else the first seat
 *  a person played (people look for themselves, not for the bots), else seat 0. */
export function openingSeat(players, viewer) {
  if (Number.isInteger(viewer) && viewer >= 0 && viewer < players.length) return viewer;
  const person = players.findIndex((p) => !p.bot);
  return person >= 0 ? person : 0;
}
