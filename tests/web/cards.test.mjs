// Card codes, the sort orders and the card art (pure SVG markup).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cardSVG, cornerText, parseCard, sortHand, symbolId } from "../../src/nomercy/web/js/cards.js";

const ALL = [];
for (const c of "RYGB") for (const f of ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "+4", "DA", "SE"]) ALL.push(c + f);
ALL.push("W", "W+4", "WR+4", "W+6", "W+10", "WCR");

test("codes read as colour and face", () => {
  assert.deepEqual(parseCard("R+2"), { color: "R", face: "+2", wild: false });
  assert.deepEqual(parseCard("W+10"), { color: "W", face: "W+10", wild: true });
  assert.deepEqual(parseCard("GDA"), { color: "G", face: "DA", wild: false });
});

test("every face keeps its colour letter and symbol in the corner", () => {
  for (const code of ALL) {
    const corner = cornerText(code);
    assert.ok(corner.length > 0, code);
    if (!parseCard(code).wild) assert.equal(corner[0], code[0], code);
    assert.ok(cardSVG(code).includes(`>${corner}</text>`), code);
  }
  assert.equal(cornerText("B7"), "B7");
  assert.equal(cornerText("YS"), "Y⊘");
});

test("every face is drawn differently, and the back is our own", () => {
  const art = new Set(ALL.map(cardSVG));
  assert.equal(art.size, ALL.length);
  assert.ok(cardSVG("back").includes("nomercy"));
  for (const code of ALL) assert.ok(!/\sstyle=/.test(cardSVG(code)), `${code}: no inline style (the page's CSP forbids it)`);
  assert.equal(new Set(ALL.map(symbolId)).size, ALL.length);
});

test("a hand sorts by colour then face, by face then colour, or stays as dealt", () => {
  const hand = ["W+6", "B2", "R9", "R2", "GS", "B+2"];
  assert.deepEqual(sortHand(hand, "colour"), ["R2", "R9", "GS", "B2", "B+2", "W+6"]);
  assert.deepEqual(sortHand(hand, "face"), ["R2", "B2", "R9", "GS", "B+2", "W+6"]);
  assert.deepEqual(sortHand(hand, "none"), hand);
});
