// The ring of seats (issue 41): from five seats the side plates stood on top of each other
// and on the piles; the ring bends towards the felt's corners to part them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ringOptions, seatPositions } from "../../src/nomercy/web/js/layout.js";

const close = (a, b) => Math.abs(a - b) < 1e-6;

test("at two and four seats every seat sits on an axis, and the bend changes nothing", () => {
  for (const n of [2, 4]) {
    const bent = seatPositions(n, { ...ringOptions(n), bend: 0.5 });
    const round = seatPositions(n, { ...ringOptions(n), bend: 1 });
    bent.forEach((p, k) => assert.ok(close(p.left, round[k].left) && close(p.top, round[k].top)));
  }
});

test("from three seats the side seats stand further apart than on an ellipse", () => {
  for (const n of [3, 5, 6]) {
    const opts = ringOptions(n);
    assert.ok(opts.bend < 1, `${n} seats bend`);
    const bent = seatPositions(n, opts);
    const round = seatPositions(n, { ...opts, bend: 1 });
    // Every seat but the bottom and the top one moves outwards, towards a corner.
    for (let k = 1; k < n; k++) {
      if (close(round[k].left, 50)) continue;
      assert.ok(Math.abs(bent[k].left - 50) >= Math.abs(round[k].left - 50) - 1e-9, `${n} seats, seat ${k}: x`);
      assert.ok(Math.abs(bent[k].top - 50) >= Math.abs(round[k].top - 50) - 1e-9, `${n} seats, seat ${k}: y`);
    }
  }
  // Six seats: the two plates on each side are half the felt's height apart (a quarter on
  // the ellipse, less than a desktop plate is tall).
  const six = seatPositions(6, ringOptions(6));
  assert.ok(Math.abs(six[1].top - six[2].top) > 45);
  assert.ok(Math.abs(six[4].top - six[5].top) > 45);
});

test("every seat stays on the felt, you at the bottom in the middle", () => {
  for (let n = 2; n <= 10; n++) {
    const p = seatPositions(n, ringOptions(n));
    assert.equal(p.length, n);
    assert.ok(close(p[0].left, 50) && p[0].top > 90);
    for (const s of p) assert.ok(s.left >= 0 && s.left <= 100 && s.top >= 0 && s.top <= 100);
  }
});
