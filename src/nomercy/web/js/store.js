// The client's state: one store, changed only by the reducers below (pure functions of
// the old state and a server message), read by the views. The decisions of the seat come
// from the server as data (docs/protocol.md, "decisions"): the helpers here only pick
// among them; no rule is restated and no action string is read.

/** `set` merges a patch and tells subscribers (state, before); in `batch(fn)`, once. */
export function createStore(initial) {
  let state = initial;
  let depth = 0;
  let before = null; // the state when a batch began, while one has changed something
  const listeners = new Set();
  const tell = (was) => { for (const fn of [...listeners]) fn(state, was); };
  return {
    get: () => state,
    set(patch) {
      const was = state;
      state = { ...state, ...(typeof patch === "function" ? patch(state) : patch) };
      if (depth) before = before || was;
      else tell(was);
      return state;
    },
    batch(fn) {
      depth++;
      try { return fn(); } finally {
        if (--depth === 0 && before) { const was = before; before = null; tell(was); }
      }
    },
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  };
}

export function initialState(saved = {}) {
  return {
    code: null, seat: null, token: null, room: null, view: null, decisions: null, version: 0,
    reveal: null, deadline: null, log: [], logNext: 0, logEpoch: 0, trail: [], koCards: {}, chat: [], online: null, paused: false,
    kicked: false, removedSeat: null, unoArmed: false, endHidden: false, lastError: null,
    conn: null, offlineText: "offline.text", // catalog keys; online: null until a first welcome
    account: undefined, // until asked (ctrl.whoAmI)
    sort: saved.sort || "colour", muted: Boolean(saved.muted), lang: saved.lang || "en",
  };
}

const LOG_LIMIT = 150;

/** The played-card trail under the top card (the last few cards seen face up). */
export function nextTrail(trail, event) {
  let t = trail;
  if (event.type === "started") t = [...(event.turned_up || [])].slice(-3);
  else if (event.type === "played") t = [...t, event.card];
  else if (event.type === "reshuffled") t = t.slice(-1);
  return t.slice(-4);
}

/** A `state` message applied: the new view and decisions, the log, trail and knock-outs. */
export function applyState(s, msg) {
  const events = msg.events || [];
  let log = msg.snapshot ? [] : s.log;
  let trail = msg.snapshot ? [] : s.trail;
  const koCards = { ...s.koCards };
  const entries = [];
  let n = s.logNext;
  for (const e of events) {
    trail = nextTrail(trail, e);
    if (e.type === "started") for (const k of Object.keys(koCards)) delete koCards[k];
    if (e.type === "knocked_out") koCards[e.seat] = e.cards;
    if (e.line) entries.push({ n: n++, type: e.type, line: e.line, cards: e.type === "drew" ? e.cards : null });
  }
  log = [...log, ...entries].slice(-LOG_LIMIT);
  const newRound = events.some((e) => e.type === "started") || (s.view && msg.view && msg.view.step < s.view.step);
  return {
    version: msg.version,
    view: msg.view ?? s.view,
    decisions: msg.decisions ?? null,
    reveal: msg.reveal || null,
    deadline: msg.deadline === null || msg.deadline === undefined ? null : { at: Date.now() + msg.deadline * 1000 },
    log, trail, koCards, logNext: n, logEpoch: s.logEpoch + (msg.snapshot ? 1 : 0),
    lastError: null,
    ...(newRound ? { unoArmed: false, endHidden: false } : {}),
  };
}

/** Chat lines and reactions, oldest first (at most 100). */
export function addChat(chat, line) { return [...chat, line].slice(-100); }

// -- picking among the decisions --------------------------------------------------------

export const choices = (d) => (d && d.choices) || [];
export const choiceOf = (d, kind) => choices(d).find((c) => c.kind === kind) || null;
export const playsOf = (d, code) => choices(d).filter((c) => c.kind === "play" && c.card === code);
export const playableCards = (d) => new Set(choices(d).filter((c) => c.kind === "play").map((c) => c.card));
export const blockedReason = (d, code) => {
  const b = ((d && d.blocked) || []).find((x) => x.card === code);
  return b ? b.reason : null;
};
/** Whether some play now must call UNO to be safe (the UNO button is lit). */
export const unoPlays = (d) => choices(d).some((c) => c.kind === "play" && c.uno);

/** Narrow a card's plays by the person's answers: the armed UNO call, a colour, a target. */
export function narrowPlays(plays, { unoArmed = false, color = null, target = null } = {}) {
  let options = plays;
  const withUno = options.filter((c) => c.uno);
  const without = options.filter((c) => !c.uno);
  options = unoArmed && withUno.length ? withUno : without.length ? without : withUno;
  if (color !== null) options = options.filter((c) => c.color === color);
  if (target !== null) options = options.filter((c) => c.target === target);
  return options;
}

/** What is still to ask about a card's plays: the colours and the targets to choose from. */
export function openQuestions(plays) {
  const colors = [...new Set(plays.map((c) => c.color).filter(Boolean))];
  const targets = [...new Set(plays.map((c) => c.target).filter((t) => t !== null && t !== undefined))];
  return { colors: colors.length > 1 ? colors : [], targets: targets.length > 1 ? targets : [] };
}
