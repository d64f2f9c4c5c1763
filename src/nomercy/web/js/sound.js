// Sound effects, made in the page with Web Audio (no files): one short figure per event.
// Mute is remembered by the caller. Audio is a nicety: it never breaks the table.
let ctx = null;

function tone(freq, start, dur, type = "sine", gain = 0.12, to = null) {
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  const t = ctx.currentTime + start;
  o.frequency.setValueAtTime(freq, t);
  if (to) o.frequency.exponentialRampToValueAtTime(to, t + dur);
  g.gain.setValueAtTime(gain, t);
  g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  o.connect(g).connect(ctx.destination);
  o.start(t);
  o.stop(t + dur + 0.02);
}

function noise(start, dur, gain = 0.05) {
  const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * dur), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
  const src = ctx.createBufferSource();
  const g = ctx.createGain();
  g.gain.value = gain;
  src.buffer = buffer;
  src.connect(g).connect(ctx.destination);
  src.start(ctx.currentTime + start);
}

const FIGURES = {
  play: () => { noise(0, 0.06, 0.06); tone(520, 0, 0.07, "triangle", 0.08, 300); },
  draw: () => { noise(0, 0.05, 0.04); tone(260, 0, 0.08, "sine", 0.06, 200); },
  deal: () => { for (let i = 0; i < 5; i++) noise(i * 0.06, 0.04, 0.035); },
  stack: () => { tone(330, 0, 0.1, "square", 0.05); tone(495, 0.09, 0.14, "square", 0.05); },
  bigtake: () => { tone(160, 0, 0.5, "sawtooth", 0.08, 60); noise(0, 0.3, 0.08); },
  uno: () => { tone(660, 0, 0.12, "triangle", 0.14); tone(880, 0.12, 0.2, "triangle", 0.14); },
  catch: () => { tone(180, 0, 0.25, "sawtooth", 0.07, 120); tone(900, 0, 0.08, "square", 0.04); },
  ko: () => { tone(440, 0, 0.18, "sawtooth", 0.06, 220); tone(220, 0.18, 0.35, "sawtooth", 0.06, 90); },
  swap: () => { tone(400, 0, 0.12, "sine", 0.07, 700); tone(700, 0.12, 0.12, "sine", 0.07, 400); },
  reverse: () => tone(600, 0, 0.2, "triangle", 0.06, 300),
  skip: () => tone(300, 0, 0.1, "square", 0.05, 150),
  shuffle: () => { for (let i = 0; i < 8; i++) noise(i * 0.035, 0.03, 0.03); },
  roulette: () => { for (let i = 0; i < 6; i++) tone(500 + i * 60, i * 0.05, 0.04, "square", 0.03); },
  challenge: () => { tone(300, 0, 0.15, "triangle", 0.07); tone(250, 0.15, 0.2, "triangle", 0.07); },
  turn: () => tone(740, 0, 0.08, "sine", 0.06),
  win: () => [523, 659, 784, 1046].forEach((f, i) => tone(f, i * 0.11, 0.18, "triangle", 0.1)),
  match: () => [523, 659, 784, 1046, 784, 1046].forEach((f, i) => tone(f, i * 0.12, 0.22, "triangle", 0.11)),
  // A stack that has grown big: the same figure, higher and with a rumble under it.
  stack_big: () => { tone(440, 0, 0.1, "square", 0.06); tone(660, 0.09, 0.16, "square", 0.06); tone(110, 0, 0.3, "sawtooth", 0.05, 70); },
  // The match won: a fanfare of brass-like chords over a drum roll.
  fanfare: () => {
    for (let i = 0; i < 10; i++) noise(i * 0.04, 0.05, 0.03 + i * 0.004);
    [[392, 494, 587], [392, 494, 587], [523, 659, 784], [523, 659, 784, 1046]].forEach((chord, i) => {
      const at = 0.4 + [0, 0.18, 0.36, 0.72][i];
      for (const f of chord) tone(f, at, i === 3 ? 0.9 : 0.16, "sawtooth", 0.035);
    });
    tone(131, 1.12, 0.9, "triangle", 0.12);
  },
};

export function play(name, muted) {
  if (muted || !FIGURES[name]) return;
  try {
    if (!ctx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return;
      ctx = new Ctx();
    }
    if (ctx.state === "suspended") ctx.resume();
    FIGURES[name]();
  } catch { /* never let sound break the table */ }
}

/** The sound an action's events make, most telling first; null for none. */
export function soundFor(events, mySeat) {
  const types = new Set(events.map((e) => e.type));
  const big = events.find((e) => e.type === "drew" && e.reason === "stack" && e.count >= 10);
  if (types.has("round_over")) return "win";
  if (types.has("knocked_out")) return "ko";
  if (big) return "bigtake";
  if (types.has("caught")) return "catch";
  if (types.has("uno") || events.some((e) => e.type === "played" && e.uno)) return "uno";
  if (types.has("challenged")) return "challenge";
  if (types.has("hands_swapped") || types.has("hands_passed")) return "swap";
  if (types.has("started")) return "deal";
  if (types.has("reshuffled")) return "shuffle";
  if (types.has("color_named") && events.some((e) => e.type === "drew" && e.reason === "roulette")) return "roulette";
  if (types.has("stack")) return events.some((e) => e.type === "stack" && e.total >= 10) ? "stack_big" : "stack";
  if (types.has("reversed")) return "reverse";
  if (types.has("skipped")) return "skip";
  if (types.has("played")) return "play";
  if (types.has("drew")) return "draw";
  return mySeat === undefined ? null : null;
}
