// Layout maths for the table, pure (tested under Node): where the seats sit around the
// felt, how a hand is laid out in rows so every card shows its corner, and which click on
// the hand is the echo of the one before.

/** Seat positions (percent of the felt) in play order from the bottom seat, clockwise.
 *  `bend` below 1 pulls the seats from an ellipse towards the corners of the felt (a
 *  superellipse): at five and six seats the side plates then stand apart from each other
 *  and from the piles in the middle, where on an ellipse they covered both. */
export function seatPositions(n, { bottomY = 47, ringX = 44, ringY = 42, bend = 1 } = {}) {
  const out = [];
  const pull = (v) => Math.sign(v) * Math.abs(v) ** bend;
  for (let k = 0; k < n; k++) {
    const angle = Math.PI / 2 + (2 * Math.PI * k) / n;
    const x = pull(Math.cos(angle));
    const y = pull(Math.sin(angle));
    out.push({ left: 50 + ringX * x, top: 50 + (k === 0 ? bottomY : ringY) * y });
  }
  return out;
}

/** The ring's shape for `n` seats, bent towards the corners (at two and four seats, where
 *  every seat sits on an axis, the bend changes nothing); at three, higher upper plates
 *  clear the stack counter. Plate sizes: the style sheet's `.seats[data-seats]`. */
export function ringOptions(n) {
  return { bottomY: 47, ringX: 45, ringY: n === 3 ? 46 : 42, bend: n === 2 || n === 4 ? 1 : 0.5 };
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

// The guard against a card nobody chose. A card that gives the turn back (a Skip or Reverse
// at two players, a Skip Everyone) is played by the first click of a double click or tap;
// the server answers within milliseconds, the hand is drawn again, and the second click
// lands on whatever card now lies under the pointer. So a click on the hand is ignored when
// it is the second of a double click (the browser counts it), or when it comes within
// GUARD_MS of the page's click before it and near the same spot: a player who means another
// card moves to it first. Clicks made by the keyboard (Enter on a focused card) aim by
// focus, not by place, and always count.

/** About a desktop's double-click time: the longest a second click of one gesture takes. */
export const GUARD_MS = 500;
/** How far apart two taps of one finger land: less than half the least step between two
 *  cards of a hand (34 px on a phone), so the next card aimed at on purpose is never near. */
export const NEAR_PX = 16;

/** Whether a click on the hand is the echo of the last one rather than a choice.
 *  `click`: {x, y, at (ms), detail (the browser's click count; 0 from the keyboard)};
 *  `last`: the page's click before it, anywhere, or null. */
export function isEcho(click, last) {
  if (click.detail === 0) return false;
  if (click.detail > 1) return true;
  if (!last) return false;
  const near = Math.hypot(click.x - last.x, click.y - last.y) <= NEAR_PX;
  return near && click.at - last.at < GUARD_MS;
}
