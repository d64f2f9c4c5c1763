// A shareable picture of a round's big moment (a big take or a knock-out), drawn in the page
// on a canvas (no other host, no image files), then shared through the Web Share API where
// the browser offers it with files, else saved as a PNG. Loaded only when asked for.

export const WIDTH = 1200;
export const HEIGHT = 630;

/** The picture's words for a moment `m` ({kind: "take"|"ko", seat, count}). */
export function momentWords(ctx, m) {
  return m.kind === "take"
    ? { big: `+${m.count}`, line: ctx.t("share.take", { seat: m.seat, count: m.count }) }
    : { big: ctx.t("anim.out"), line: ctx.t("share.ko", { seat: m.seat, count: m.count }) };
}

function roundRect(g, x, y, w, h, r) {
  g.beginPath();
  g.moveTo(x + r, y);
  g.arcTo(x + w, y, x + w, y + h, r);
  g.arcTo(x + w, y + h, x, y + h, r);
  g.arcTo(x, y + h, x, y, r);
  g.arcTo(x, y, x + w, y, r);
  g.closePath();
}

/** Draw the moment on `canvas` (sized WIDTH x HEIGHT) and return it. */
export function drawMoment(ctx, m, canvas) {
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  const g = canvas.getContext("2d");
  const night = document.documentElement.dataset.theme === "night";
  const felt = g.createRadialGradient(WIDTH / 2, HEIGHT * 0.45, 40, WIDTH / 2, HEIGHT / 2, WIDTH * 0.65);
  felt.addColorStop(0, night ? "#24406e" : "#17614a");
  felt.addColorStop(1, night ? "#0b1430" : "#0c3326");
  g.fillStyle = felt;
  g.fillRect(0, 0, WIDTH, HEIGHT);
  // The felt's weave: fine dots, the same every time.
  let seed = 7;
  g.fillStyle = "rgba(255,255,255,0.05)";
  for (let i = 0; i < 2600; i++) {
    seed = (seed * 16807) % 2147483647;
    const x = seed % WIDTH;
    seed = (seed * 16807) % 2147483647;
    g.fillRect(x, seed % HEIGHT, 2, 2);
  }
  // A fan of card backs: as many as were taken (a knock-out: a full hand), at most 14.
  const n = Math.max(3, Math.min(14, m.count));
  for (let i = 0; i < n; i++) {
    const a = ((i - (n - 1) / 2) * 7 * Math.PI) / 180;
    g.save();
    g.translate(WIDTH / 2, HEIGHT + 40);
    g.rotate(a);
    roundRect(g, -55, -330, 110, 165, 12);
    g.fillStyle = "#1b1b1d";
    g.fill();
    g.lineWidth = 6;
    g.strokeStyle = "#fbfbf7";
    g.stroke();
    g.beginPath();
    g.ellipse(0, -247, 34, 62, 0.5, 0, Math.PI * 2);
    g.fillStyle = "#d72600";
    g.fill();
    g.restore();
  }
  const words = momentWords(ctx, m);
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.font = "italic 900 200px system-ui, sans-serif";
  g.lineWidth = 14;
  g.strokeStyle = "#000";
  g.strokeText(words.big, WIDTH / 2, 190);
  g.fillStyle = m.kind === "take" ? "#ff1744" : "#ff8a80";
  g.fillText(words.big, WIDTH / 2, 190);
  g.font = "800 54px system-ui, sans-serif";
  g.lineWidth = 8;
  g.strokeText(words.line, WIDTH / 2, 345, WIDTH - 80);
  g.fillStyle = "#ffd54f";
  g.fillText(words.line, WIDTH / 2, 345, WIDTH - 80);
  g.textAlign = "left";
  g.font = "900 40px system-ui, sans-serif";
  g.fillStyle = "#f3f6f4";
  g.fillText("nomercy", 36, 48);
  g.font = "600 26px system-ui, sans-serif";
  g.fillStyle = "#b7cdc3";
  g.fillText(ctx.t("share.footer"), 36, 88);
  return canvas;
}

/** Share the picture where the browser can share files, else save it: "shared" or "saved". */
export async function shareMoment(ctx, m) {
  const canvas = drawMoment(ctx, m, document.createElement("canvas"));
  const blob = await new Promise((done) => canvas.toBlob(done, "image/png"));
  const name = `nomercy-${m.kind}-${m.count}.png`;
  const file = new File([blob], name, { type: "image/png" });
  if (navigator.canShare && navigator.share && navigator.canShare({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title: "nomercy", text: momentWords(ctx, m).line });
      return "shared";
    } catch (err) {
      if (err && err.name === "AbortError") return "cancelled";
    }
  }
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return "saved";
}
