// The round's end as a moment (issue 41): the match's fanfare plays once the room has
// counted the round, in whichever order the room and the state come.
import { test } from "node:test";
import assert from "node:assert/strict";
import { roundCounted } from "../../src/nomercy/web/js/anim.js";

const playing = { mode: "match", round: 1, status: "playing", rounds: [], match_winner: null };
const counted = { ...playing, status: "finished", rounds: [{ number: 1, winner: 1 }], match_winner: 1 };

test("E4: a match's round counts once the room lists it, by its number", () => {
  assert.equal(roundCounted(playing, playing.round), false); // the room comes after the state
  assert.equal(roundCounted(counted, playing.round), true);
});

test("E4: a room update that comes before the round's state, already holding the round, counts", () => {
  // A coalesced room update that was due goes out just before the state; the page notes the
  // round it ends from that room. Counting rounds (1 then, still 1) never saw it counted,
  // and the fanfare gave way to the round's moment.
  assert.equal(roundCounted(counted, counted.round), true);
});

test("a single round needs no count; the round after is not counted by the one before", () => {
  assert.equal(roundCounted({ mode: "round", round: 1, rounds: [] }, 1), true);
  assert.equal(roundCounted({ ...counted, round: 2 }, 2), false);
  assert.equal(roundCounted(null, 1), false);
});
