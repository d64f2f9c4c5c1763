// The account page tells passkeys apart (issue 41, item 10): two added the same day used to
// read the same ("Passkey added 3 Dec 2026"); now each has a number in the order added, its
// kind from the transports its device reported, and a mark on the one that signed this
// browser in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { passkeyFacts } from "../../src/nomercy/web/js/account.js";

const day = 1_796_300_000;
const keys = [
  { id: "b", created_at: day + 600, last_used_at: null, transports: ["hybrid", "internal"] },
  { id: "a", created_at: day, last_used_at: day + 60, transports: ["internal"] },
  { id: "c", created_at: day + 900, last_used_at: null, transports: ["usb", "nfc"] },
  { id: "d", created_at: day + 900, last_used_at: null, transports: [] },
];

test("passkeys are numbered in the order they were added, whatever order they come in", () => {
  assert.deepEqual(passkeyFacts(keys).map((f) => [f.id, f.number]), [["b", 2], ["a", 1], ["c", 3], ["d", 4]]);
});

test("each passkey's kind comes from its transports; none reported, no kind", () => {
  assert.deepEqual(passkeyFacts(keys).map((f) => f.kind), ["internal", "internal", "key", null]);
  assert.equal(passkeyFacts([{ id: "x", created_at: 1, transports: ["hybrid"] }])[0].kind, "hybrid");
});

test("the passkey that signed this browser in is marked; a name of its own is kept", () => {
  const sessions = [{ id: "s1", current: false, passkey: "a" }, { id: "s2", current: true, passkey: "c" }];
  assert.deepEqual(passkeyFacts(keys, sessions).map((f) => f.here), [false, false, true, false]);
  assert.deepEqual(passkeyFacts(keys).map((f) => f.here), [false, false, false, false]);
  assert.equal(passkeyFacts([{ id: "x", created_at: 1, name: "Laptop" }])[0].name, "Laptop");
  assert.equal(passkeyFacts([{ id: "x", created_at: 1 }])[0].name, null);
});

test("no two passkeys share the words that name them", () => {
  const facts = passkeyFacts(keys);
  assert.equal(new Set(facts.map((f) => f.number)).size, keys.length);
});
