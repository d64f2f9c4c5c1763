// The create form's house-rule groups come from the server's options (each rule names its
// group), not from a list of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ruleGroups } from "../../src/nomercy/web/js/lobby.js";

const rule = (name, group) => ({ name, group, key: `rule.${name}`, type: "bool" });

test("rules are grouped in the server's order, a group where its first rule is", () => {
  const rules = [rule("a", "dealing"), rule("b", "dealing"), rule("c", "stacking"), rule("d", "uno"), rule("e", "stacking")];
  const groups = ruleGroups(rules);
  assert.deepEqual(groups.map(([g]) => g), ["dealing", "stacking", "uno"]);
  assert.deepEqual(groups.map(([, rs]) => rs.map((r) => r.name)), [["a", "b"], ["c", "e"], ["d"]]);
});

test("a rule the client has never heard of gets its place all the same", () => {
  const groups = ruleGroups([rule("a", "dealing"), rule("jump_in", "special")]);
  assert.deepEqual(groups.at(-1)[1].map((r) => r.name), ["jump_in"]);
  assert.deepEqual(ruleGroups([]), []);
});

test("the rated policy is the server's: its levels, the level it starts from, signed in or not", async () => {
  const { ratedPolicy } = await import("../../src/nomercy/web/js/rated.js");
  const policy = ratedPolicy({ signed_in: true, levels: ["strong", "expert"], min_games: 5 });
  assert.deepEqual(policy, { signedIn: true, levels: ["strong", "expert"], level: "strong", turnSeconds: 30 });
  assert.equal(ratedPolicy({ signed_in: true, levels: ["beginner", "casual"], default_level: "beginner" }).level, "beginner");
  assert.equal(ratedPolicy({ signed_in: true, levels: ["casual"], default_turn_seconds: 45 }).turnSeconds, 45);
  assert.equal(ratedPolicy({ signed_in: true, levels: [] }).signedIn, false, "no level to seat: no rated room");
  assert.equal(ratedPolicy(null).signedIn, false);
  assert.equal(ratedPolicy({ signed_in: "yes", levels: ["casual"] }).signedIn, false);
});
