// Layout maths, the store's reducers and the pickers over the server's decisions, the
// message handler table and the keyboard's commands.
import { test } from "node:test";
import assert from "node:assert/strict";
import { drawFlights, fanOf, handLayout, seatPositions } from "../../src/nomercy/web/js/layout.js";
import { applyState, initialState, narrowPlays, nextTrail, openQuestions, playableCards, blockedReason } from "../../src/nomercy/web/js/store.js";
import { dispatch, reconnectDelay } from "../../src/nomercy/web/js/transport.js";
import { keyCommand, moveFocus } from "../../src/nomercy/web/js/keyboard.js";
import { soundFor } from "../../src/nomercy/web/js/sound.js";

test("seats sit around the felt with you at the bottom", () => {
  const p = seatPositions(4);
  assert.equal(p.length, 4);
  assert.ok(p[0].top > 90 && Math.abs(p[0].left - 50) < 1e-9);
  assert.ok(p[2].top < 15);
});

test("a hand fits its width in rows that keep every corner visible", () => {
  const one = handLayout(7, 900, 72, 40);
  assert.equal(one.rows.length, 1);
  assert.ok(one.fan);
  const many = handLayout(30, 354, 56, 34);
  assert.ok(many.rows.length > 1 && !many.fan);
  for (const row of many.rows) assert.ok(row.size === 1 || row.step >= 34);
  assert.equal(many.rows.reduce((n, r) => n + r.size, 0), 30);
  assert.deepEqual(fanOf(0, 1), { rot: 0, lift: 0 });
  assert.ok(fanOf(0, 7).rot < 0 && fanOf(6, 7).rot > 0);
});

test("draws fly one by one, quicker when the penalty is big", () => {
  assert.deepEqual(drawFlights(2), { shown: 2, gap: 110 });
  assert.ok(drawFlights(20).gap < drawFlights(6).gap);
  assert.equal(drawFlights(30).shown, 12);
});

const decisions = {
  deciding: true,
  prompt: { key: "prompt.play", params: {} },
  choices: [
    { action: "play W+6 R", kind: "play", card: "W+6", color: "R", target: null, uno: false },
    { action: "play W+6 Y", kind: "play", card: "W+6", color: "Y", target: null, uno: false },
    { action: "play G7 @1", kind: "play", card: "G7", color: null, target: 1, uno: false },
    { action: "play G7 @2", kind: "play", card: "G7", color: null, target: 2, uno: false },
    { action: "play G7 @2 uno", kind: "play", card: "G7", color: null, target: 2, uno: true },
  ],
  blocked: [{ card: "B3", reason: { key: "reason.no_match", rule: "T1", params: {} } }],
};

test("the pickers choose among the server's choices only", () => {
  assert.deepEqual([...playableCards(decisions)].sort(), ["G7", "W+6"]);
  assert.equal(blockedReason(decisions, "B3").rule, "T1");
  assert.equal(blockedReason(decisions, "G7"), null);
  const sevens = decisions.choices.filter((c) => c.card === "G7");
  assert.deepEqual(openQuestions(narrowPlays(sevens)).targets, [1, 2]);
  assert.deepEqual(narrowPlays(sevens, { unoArmed: true }).map((c) => c.action), ["play G7 @2 uno"]);
  assert.deepEqual(narrowPlays(decisions.choices.slice(0, 2), { color: "Y" }).map((c) => c.action), ["play W+6 Y"]);
});

test("a state message updates the view, the log and the trail", () => {
  const s = initialState();
  const msg = {
    view: { step: 1, top: "R5" }, decisions, version: 3, snapshot: false, deadline: 10, reveal: null,
    events: [{ type: "started", turned_up: ["GS", "R5"], line: { key: "event.started", params: {} } },
      { type: "drew", seat: 0, count: 2, cards: ["R1", "B2"], line: { key: "event.drew", params: {} } },
      { type: "knocked_out", seat: 2, cards: 25, line: null }],
  };
  const next = { ...s, ...applyState(s, msg) };
  assert.equal(next.version, 3);
  assert.deepEqual(next.trail, ["GS", "R5"]);
  assert.equal(next.log.length, 2);
  assert.deepEqual(next.log[1].cards, ["R1", "B2"]);
  assert.equal(next.koCards[2], 25);
  assert.ok(next.deadline.at > Date.now());
  const again = { ...next, ...applyState(next, { ...msg, snapshot: true, events: [] }) };
  assert.equal(again.log.length, 0);
  assert.equal(again.logEpoch, next.logEpoch + 1);
  assert.deepEqual(nextTrail(["R1", "R2", "R3", "R4"], { type: "played", card: "R5" }), ["R2", "R3", "R4", "R5"]);
});

test("messages go to the handler of their type", () => {
  const seen = [];
  const handlers = { state: (m) => seen.push(["state", m.version]), unknown: (m) => seen.push(["unknown", m.type]) };
  dispatch(handlers, { type: "state", version: 4 });
  dispatch(handlers, { type: "novel" });
  assert.deepEqual(seen, [["state", 4], ["unknown", "novel"]]);
  assert.equal(reconnectDelay(0), 500);
  assert.equal(reconnectDelay(10), 10000);
});

test("keys map to commands; colour letters only while a colour is asked", () => {
  assert.equal(keyCommand("D"), "draw");
  assert.deepEqual(keyCommand("g", { picking: true }), { color: "G" });
  assert.equal(keyCommand("g"), null);
  assert.equal(keyCommand("A"), "hint");
  assert.equal(moveFocus("ArrowRight", 2, 5), 3);
  assert.equal(moveFocus("End", 0, 5), 4);
  assert.equal(moveFocus("a", 0, 5), null);
});

test("every kind of event has its sound", () => {
  assert.equal(soundFor([{ type: "drew", reason: "stack", count: 12 }]), "bigtake");
  assert.equal(soundFor([{ type: "hands_swapped" }]), "swap");
  assert.equal(soundFor([{ type: "played", uno: true }]), "uno");
  assert.equal(soundFor([{ type: "round_over" }, { type: "played" }]), "win");
  assert.equal(soundFor([{ type: "started" }]), "deal");
});
