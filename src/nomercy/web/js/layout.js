// Layout maths for the table, pure (tested under Node): where the seats sit around the
// felt, and how a hand is laid out in rows so every card shows its corner.

/** Seat positions (percent of the felt) in play order from the bottom seat, clockwise. */
export function seatPositions(n, { bottomY = 47, ringX = 44, ringY = 42 } = {}) {
  const out = [];
  for (let k = 0; k < n; k++) {
    const angle = Math.PI / 2 + (2 * Math.PI * k) / n;
    out.push({ left: 50 + ringX * Math.cos(angle), top: 50 + (k === 0 ? bottomY : ringY) * Math.sin(angle) });
  }
  return out;
}

/** How to lay `count` cards of width `cardW` in `width` pixels: as few rows as keep at
 *  least `minStep` pixels of each card visible; the step between cards in each row, and
 *  a gentle fan (rotation, lift) when one row is enough. */
export function handLayout(count, width, cardW, minStep) {
  if (count <= 0) return { rows: [], fan: false };
  const perRow = Math.max(1, Math.floor((width - cardW) / minStep) + 1);
  const rowCount = Math.ceil(count / perRow);
  const each = Math.ceil(count / rowCount);
  const rows = [];
  for (let r = 0; r < rowCount; r++) {
    const size = Math.min(each, count - r * each);
    const step = size > 1 ? Math.min(cardW + 6, (width - cardW) / (size - 1)) : 0;
    rows.push({ start: r * each, size, step });
  }
  const fan = rowCount === 1 && count > 1;
  return { rows, fan };
}

/** The fan of card j of a row of `size`: rotation in degrees and lift in pixels. */
export function fanOf(j, size) {
  const mid = (size - 1) / 2;
  if (size < 2) return { rot: 0, lift: 0 };
  return {
    rot: ((j - mid) / Math.max(mid, 1)) * Math.min(10, size),
    lift: (Math.abs(j - mid) ** 2 / Math.max(mid * mid, 1)) * 10,
  };
}

/** How many card backs to fly for a draw of `count`, and the pause between them (ms):
 *  one by one, quicker when the penalty is big. */
export function drawFlights(count) {
  const shown = Math.min(count, 12);
  const gap = count <= 4 ? 110 : count <= 10 ? 70 : 45;
  return { shown, gap };
}
