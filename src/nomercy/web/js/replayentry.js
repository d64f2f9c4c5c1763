// The ways into a replay that the landing page offers before the replay's code is loaded:
// the "open a record" file button and a record dropped anywhere on the page (or on a
// replay). js/replay.js and the review load when a replay is first opened (main.js's
// `ctx.replay`), not with the game's first screen.
import { $ } from "./dom.js";

export function wireReplayEntry(ctx) {
  const input = $("home-file");
  input.addEventListener("change", () => { const file = input.files[0]; input.value = ""; if (file) ctx.replay.openFile(file); });
  const zone = $("drop-zone");
  const droppable = () => !$("screen-home").hidden || Boolean(ctx.store.get().replaying);
  document.addEventListener("dragover", (e) => {
    if (!droppable() || !e.dataTransfer || ![...e.dataTransfer.types].includes("Files")) return;
    e.preventDefault();
    zone.hidden = false;
  });
  document.addEventListener("dragleave", (e) => { if (e.target === zone || !e.relatedTarget) zone.hidden = true; });
  document.addEventListener("drop", (e) => {
    zone.hidden = true;
    if (!droppable() || !e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    ctx.replay.openFile(e.dataTransfer.files[0]);
  });
}
