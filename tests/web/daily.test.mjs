// The daily page's address check: only a real calendar day asks the server for a board.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDay } from "../../src/nomercy/web/js/daily.js";

test("a day is a real calendar day written YYYY-MM-DD", () => {
  for (const day of ["2026-01-31", "2024-02-29", "1999-12-31"]) assert.equal(isDay(day), true, day);
  for (const day of ["2026-13-01", "2026-02-30", "2025-02-29", "2026-00-10", "2026-1-5", "", "today"]) {
    assert.equal(isDay(day), false, day);
  }
});
