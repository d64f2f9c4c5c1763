// Music made in the page with Web Audio (no files), loaded only when the player turns it
// on: a soft loop of bass, chords and a brushed beat that plays faster and brighter as a
// stack grows (heat 0-3). It never plays while the sound is muted.

/** The loop's notes: a bar of four chords (MIDI numbers), a bass note under each. */
export const CHORDS = [[57, 60, 64], [53, 57, 60], [48, 52, 55], [55, 59, 62]];
const BASS = [45, 41, 36, 43];

/** Beats a minute at a heat (0-3). */
export const tempoAt = (heat) => 92 + 14 * Math.max(0, Math.min(3, heat));

const hz = (midi) => 440 * 2 ** ((midi - 69) / 12);

export function createMusic() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return { set() {} };
  const ac = new Ctx();
  const out = ac.createGain();
  out.gain.value = 0;
  const tone = ac.createBiquadFilter();
  tone.type = "lowpass";
  tone.frequency.value = 1400;
  tone.connect(out).connect(ac.destination);
  let heat = 0;
  let playing = false;
  let beat = 0;
  let next = 0;
  let timer = null;

  function note(freq, at, dur, type, gain) {
    const o = ac.createOscillator();
    const g = ac.createGain();
    o.type = type;
    o.frequency.value = freq;
    g.gain.setValueAtTime(0.0001, at);
    g.gain.exponentialRampToValueAtTime(gain, at + 0.02);
    g.gain.exponentialRampToValueAtTime(0.0001, at + dur);
    o.connect(g).connect(tone);
    o.start(at);
    o.stop(at + dur + 0.05);
  }

  function brush(at, gain) {
    const n = Math.floor(ac.sampleRate * 0.05);
    const buf = ac.createBuffer(1, n, ac.sampleRate);
    const d = buf.getChannelData(0);
    for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n);
    const src = ac.createBufferSource();
    const g = ac.createGain();
    g.gain.value = gain;
    src.buffer = buf;
    src.connect(g).connect(tone);
    src.start(at);
  }

  // A look-ahead scheduler: every 100 ms, the beats of the next 300 ms are set.
  function schedule() {
    const spb = 60 / tempoAt(heat);
    while (next < ac.currentTime + 0.3) {
      const bar = Math.floor(beat / 4) % CHORDS.length;
      if (beat % 4 === 0) {
        note(hz(BASS[bar]), next, spb * 3.6, "triangle", 0.16);
        for (const m of CHORDS[bar]) note(hz(m), next, spb * 3.8, "sine", 0.035);
      }
      if (beat % 2 === 1) note(hz(BASS[bar] + 12), next, spb * 0.5, "triangle", 0.05);
      brush(next, beat % 2 ? 0.05 : 0.025 + 0.01 * heat);
      if (heat >= 2) brush(next + spb / 2, 0.02);
      next += spb;
      beat += 1;
    }
  }

  return {
    /** Play (or not) at a heat; a silent loop stops its scheduler. */
    set(on, level = 0) {
      heat = level;
      tone.frequency.setTargetAtTime(1400 + 900 * level, ac.currentTime, 0.3);
      if (on && !playing) {
        playing = true;
        if (ac.state === "suspended") ac.resume();
        next = ac.currentTime + 0.05;
        out.gain.setTargetAtTime(0.5, ac.currentTime, 0.2);
        timer = setInterval(schedule, 100);
        schedule();
      } else if (!on && playing) {
        playing = false;
        out.gain.setTargetAtTime(0, ac.currentTime, 0.08);
        clearInterval(timer);
      }
    },
    playing: () => playing,
  };
}
