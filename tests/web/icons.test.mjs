// Every icon button of a toolbar has its own drawing: Play and "one move forward" once
// shared one triangle in the replay's bar.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const html = readFileSync(new URL("../../src/nomercy/web/index.html", import.meta.url), "utf8");

test("the replay bar's buttons each draw a different icon", () => {
  const bar = html.slice(html.indexOf('id="rp-start"') - 20, html.indexOf('id="rp-slider"'));
  const buttons = [...bar.matchAll(/<button id="(rp-[a-z]+)"[^>]*>(.*?)<\/button>/gs)];
  assert.deepEqual(buttons.map((b) => b[1]), ["rp-start", "rp-back", "rp-play", "rp-fwd", "rp-end"]);
  const drawings = buttons.map((b) => [...b[2].matchAll(/ d="([^"]+)"/g)].map((m) => m[1]));
  for (let i = 0; i < drawings.length; i++) {
    for (let j = 0; j < drawings.length; j++) {
      if (i !== j) for (const d of drawings[i]) assert.ok(!drawings[j].includes(d), `${buttons[i][1]} and ${buttons[j][1]} share a drawing`);
    }
  }
});
