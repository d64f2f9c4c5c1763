// nomercy browser client. No build step, no framework, no external assets.
// Everything shown comes from the server's messages (docs/protocol.md); text from other
// players (nicknames, chat) is only ever set with textContent, never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const COLORS = { R: "Red", Y: "Yellow", G: "Green", B: "Blue" };
const COLOR_ORDER = "RYGBW";
const FACES = {
  S: ["⊘", "Skip"], R: ["⇄", "Reverse"], "+2": ["+2", "Draw 2"], "+4": ["+4", "Draw 4"],
  DA: ["≡", "Discard All"], SE: ["⊘⊘", "Skip Everyone"],
};
const FACE_ORDER = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "DA", "SE", "+2", "+4"];
const WILDS = {
  W: ["★", "Wild"], "W+4": ["+4", "Wild Draw 4"], "WR+4": ["⇄+4", "Wild Reverse Draw 4"],
  "W+6": ["+6", "Wild Draw 6"], "W+10": ["+10", "Wild Draw 10"], WCR: ["◎", "Wild Color Roulette"],
};
const WILD_ORDER = ["W", "WCR", "W+4", "WR+4", "W+6", "W+10"];
const REACTION_TEXT = { gg: "GG", wow: "Wow!", ouch: "Ouch", haha: "Haha", hurry: "Hurry up", oops: "Oops" };
const PRESET_TEXT = {
  no_mercy: "The full no-mercy deck: Draw cards stack up to +10, Sevens swap and Zeros pass hands, 25 cards knock you out.",
  classic: "The classic 108-card game: no stacking, no hand swaps, no knock-outs.",
  rlcard: "Classic rules exactly as the RLCard research toolkit plays them: for comparing bots.",
};
// Room settings, grouped, with a label and a one-line explanation each (the server's doc
// string is the fallback; its rule references like "T2:" are kept out of the way).
const RULE_GROUPS = [
  ["Dealing", { max_players: "Most players", hand_size: "Cards dealt to each", first_card: "First card turned up" }],
  ["Drawing", {
    draw_rule: "When you draw", must_play_drawn: "Must play a playable drawn card",
    draw_when_playable: "May draw while holding a playable card", play_drawn_at_once: "Play a forced drawn card at once",
  }],
  ["Stacking", { stacking: "Stack Draw cards", draw10_stackable: "Stack on a Wild Draw 10", stack_color: "Stacked colours" }],
  ["Special cards", {
    two_player_reverse: "Reverse with two players", two_player_reverse_draw: "Wild Reverse Draw 4 with two players",
    roulette_color: "Colour after a Roulette", wild_draw4_restricted: "Wild Draw 4 only when nothing else fits",
    wild_draw4_challenge: "A Wild Draw 4 may be challenged",
  }],
  ["Sevens and Zeros", { seven_zero: "Sevens swap, Zeros pass hands" }],
  ["Mercy", { mercy_limit: "Knocked out at (cards)", knockout_hand: "A knocked-out hand goes", knocked_out_return: "Knocked-out players return next round" }],
  ["Uno", { uno_calls: "Call UNO and catch", uno_timing: "When UNO must be called", uno_penalty: "Penalty when caught (cards)" }],
  ["Scoring", { last_card_draw: "A Draw card played last", knockout_bonus_to: "250 per knock-out goes to", target_score: "Match target (points)" }],
];
const RULE_HELP = {
  max_players: "How many seats a table may have.",
  hand_size: "How many cards each player gets at the start.",
  first_card: "'number': cards are turned until a number starts the pile; 'apply': the first card acts as if the dealer played it; 'official': as the classic game treats a first action card.",
  draw_rule: "'until playable': keep drawing until a card fits; 'one': draw a single card.",
  must_play_drawn: "A drawn card that fits must be played (off: you may keep it).",
  draw_when_playable: "Off: if a card in your hand fits, you must play instead of drawing.",
  play_drawn_at_once: "A forced drawn card with nothing to choose is played for you.",
  stacking: "Answer a Draw card with a Draw card of equal or higher value; the next player takes the total.",
  draw10_stackable: "Off: a Wild Draw 10 ends the stack.",
  stack_color: "'any': colored Draw cards stack whatever their colour; 'match': they must match.",
  two_player_reverse: "'self': with two players a Reverse lets you play again; 'opponent': it only turns the direction.",
  two_player_reverse_draw: "With two players, who draws from a Wild Reverse Draw 4.",
  roulette_color: "'named': the named colour stays in play; 'revealed': the last card turned up decides.",
  wild_draw4_restricted: "Classic rule: Wild Draw 4 only when no other card fits.",
  wild_draw4_challenge: "A Wild Draw 4 may be played anyway; its victim may challenge it instead of drawing (needs stacking off).",
  seven_zero: "A Seven swaps your hand with a player you pick; a Zero passes every hand along.",
  mercy_limit: "A player holding this many cards is knocked out of the round (empty: never).",
  knockout_hand: "'aside': shuffled back in later; 'discard bottom': face down under the discard pile.",
  knocked_out_return: "In a match, knocked-out players are dealt in again next round.",
  uno_calls: "Call UNO when you are down to one card, or be caught and draw.",
  uno_timing: "'holding one': whenever you come to hold one card, also through a Seven or a Zero; 'own play': only after your own play.",
  uno_penalty: "Cards a caught player draws.",
  last_card_draw: "'ignore': a Draw card played as the last card is not drawn; 'apply': the victim draws.",
  knockout_bonus_to: "Who scores the 250 points for each knocked-out player.",
  target_score: "In a match, the first to this many points wins.",
};

const app = {
  options: null, code: null, seat: null, token: null, ws: null, room: null, state: null,
  version: 0, colorAsked: null, unoArmed: false, retry: 0, kicked: false, msgId: 0, deadlineAt: null,
  turnTotal: null, sort: localStorage.getItem("nomercy:sort") || "colour", trail: [], endHidden: false,
  muted: localStorage.getItem("nomercy:muted") === "1", lastError: "", removedSeat: null,
  online: false, koCards: {}, paused: false,
};
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// -- cards ------------------------------------------------------------------------------

function cardParts(code) {
  if (WILDS[code]) return { color: "W", symbol: WILDS[code][0], name: WILDS[code][1], letter: "W", face: code };
  const color = code[0];
  const face = code.slice(1);
  const f = FACES[face];
  return { color, letter: color, symbol: f ? f[0] : face, name: `${COLORS[color] || color} ${f ? f[1] : face}`, face };
}

function cardEl(code, tag = "div", extra = "") {
  const p = cardParts(code);
  const c = el(tag, `card c-${p.color} ${extra}`.trim());
  c.dataset.code = code;
  const corner = `${p.letter}${p.symbol}`;
  for (const cls of ["corner tl", "corner br"]) {
    const k = el("span", cls, corner.length > 4 ? p.symbol : corner);
    k.setAttribute("aria-hidden", "true");
    c.appendChild(k);
  }
  const oval = el("span", "oval");
  oval.setAttribute("aria-hidden", "true");
  oval.appendChild(el("span", p.symbol.length >= 3 ? "face long" : "face", p.symbol));
  c.appendChild(oval);
  c.setAttribute("aria-label", p.name);
  if (tag !== "button") c.setAttribute("role", "img");
  return c;
}

function backEl(extra = "") {
  const b = el("span", `card back ${extra}`.trim());
  b.setAttribute("aria-hidden", "true");
  return b;
}

function chip(code) {
  const p = cardParts(code);
  const c = el("span", `chip-card c-${p.color}`, `${p.letter}${p.symbol}`);
  c.title = p.name;
  c.setAttribute("aria-label", p.name);
  c.setAttribute("role", "img");
  return c;
}

function sortKey(code) {
  const p = cardParts(code);
  const face = p.color === "W" ? WILD_ORDER.indexOf(code) : FACE_ORDER.indexOf(p.face);
  if (app.sort === "face") return (p.color === "W" ? 100 : face) * 10 + COLOR_ORDER.indexOf(p.color);
  return COLOR_ORDER.indexOf(p.color) * 100 + face;
}

// -- sound (Web Audio, made here) --------------------------------------------------------------

const sound = {
  ctx: null,
  tone(freq, start, dur, type = "sine", gain = 0.12, to = null) {
    const ctx = this.ctx;
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
  },
  play(name) {
    if (app.muted) return;
    try {
      if (!this.ctx) {
        const Ctx = window.AudioContext || window.webkitAudioContext;
        if (!Ctx) return;
        this.ctx = new Ctx();
      }
      if (this.ctx.state === "suspended") this.ctx.resume();
      const s = {
        play: () => this.tone(520, 0, 0.07, "triangle", 0.1, 300),
        draw: () => this.tone(260, 0, 0.09, "sine", 0.08, 200),
        stack: () => { this.tone(330, 0, 0.1, "square", 0.05); this.tone(495, 0.09, 0.14, "square", 0.05); },
        uno: () => { this.tone(660, 0, 0.12, "triangle", 0.14); this.tone(880, 0.12, 0.2, "triangle", 0.14); },
        catch: () => this.tone(180, 0, 0.25, "sawtooth", 0.07, 120),
        ko: () => { this.tone(440, 0, 0.18, "sawtooth", 0.06, 220); this.tone(220, 0.18, 0.35, "sawtooth", 0.06, 90); },
        turn: () => this.tone(740, 0, 0.08, "sine", 0.06),
        win: () => [523, 659, 784, 1046].forEach((f, i) => this.tone(f, i * 0.11, 0.18, "triangle", 0.1)),
      }[name];
      if (s) s();
    } catch { /* audio is a nicety: never let it break the table */ }
  },
};

function renderSoundButton() {
  $("sound-btn").setAttribute("aria-pressed", app.muted ? "false" : "true");
  $("sound-waves").style.display = app.muted ? "none" : "";
  $("sound-off").style.display = app.muted ? "" : "none";
  $("sound-btn").title = app.muted ? "Sound is off" : "Sound is on";
}

// -- HTTP ---------------------------------------------------------------------------------

async function api(path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  // 503 room_moving: another server process is taking the room over; it takes a moment.
  for (let attempt = 0; ; attempt++) {
    res = await fetch(path, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status !== 503 || attempt >= 8) break;
    await new Promise((ok) => setTimeout(ok, 500 * Math.min(4, attempt + 1)));
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((data.detail && data.detail.message) || `request failed (${res.status})`);
  return data;
}

function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4500);
}

function saveSeat(code, seat, token) {
  localStorage.setItem(`nomercy:seat:${code}`, JSON.stringify({ seat, token }));
}

function loadSeat(code) {
  try { return JSON.parse(localStorage.getItem(`nomercy:seat:${code}`) || "null"); } catch { return null; }
}

// -- screens ------------------------------------------------------------------------------

function show(name) {
  // A new screen opens at its top: joining from the foot of the home page on a phone, or
  // the lobby's start, must not leave the table scrolled past its seats.
  const changed = $(`screen-${name}`).hidden;
  for (const s of ["home", "lobby", "table"]) $(`screen-${s}`).hidden = s !== name;
  if (changed) window.scrollTo(0, 0);
  const social = $("social");
  social.hidden = name === "home";
  const home = name === "lobby" ? $("lobby-social") : $("table-social");
  if (name !== "home" && social.parentElement !== home) home.appendChild(social);
  $("chat-form").hidden = app.seat === null;
  $("reactions").hidden = app.seat === null;
  if (name !== "table") $("end").hidden = true;
}

function ruleLabel(name) {
  for (const [, rules] of RULE_GROUPS) if (rules[name]) return rules[name];
  return name.replaceAll("_", " ");
}

function ruleHelp(r) {
  return RULE_HELP[r.name] || String(r.doc || "").replace(/^[A-Z0-9/-]+: /, "");
}

function ruleValue(v) {
  if (v === true) return "yes";
  if (v === false) return "no";
  if (v === null || v === undefined) return "off";
  return String(v).replaceAll("_", " ");
}

async function initHome() {
  const opts = app.options = await api("/api/options");
  const presets = $("presets");
  let first = true;
  for (const name of Object.keys(opts.presets)) {
    const label = el("label", "preset");
    const input = el("input");
    input.type = "radio";
    input.name = "preset";
    input.value = name;
    input.checked = first;
    first = false;
    const text = el("span", "preset-text");
    text.append(el("strong", "", name === "no_mercy" ? "No Mercy" : name === "rlcard" ? "RLCard" : name[0].toUpperCase() + name.slice(1)),
      el("span", "preset-desc", PRESET_TEXT[name] || ""));
    label.append(input, text);
    presets.appendChild(label);
  }
  for (const b of opts.bots) $("bot").add(new Option(b, b));
  $("bot").value = opts.bots.includes("heuristic") ? "heuristic" : opts.bots[0];
  const byName = Object.fromEntries(opts.rules.map((r) => [r.name, r]));
  const box = $("rules-box");
  const placed = new Set();
  const groups = RULE_GROUPS.map(([title, rules]) => [title, Object.keys(rules)]);
  groups.push(["Other", opts.rules.map((r) => r.name).filter((n) => !RULE_GROUPS.some(([, g]) => g[n]))]);
  for (const [title, names] of groups) {
    const rules = names.map((n) => byName[n]).filter(Boolean);
    if (!rules.length) continue;
    const fs = el("fieldset", "rule-group");
    fs.appendChild(el("legend", "", title));
    for (const r of rules) {
      placed.add(r.name);
      const id = `rule-${r.name}`;
      const row = el("div", `rule ${r.type}`);
      let input;
      if (r.type === "bool") {
        input = el("input");
        input.type = "checkbox";
      } else if (r.type === "choice") {
        input = el("select");
        for (const c of r.choices) input.add(new Option(c.replaceAll("_", " "), c));
      } else {
        input = el("input");
        input.type = "number";
        input.min = "0";
        if (r.nullable) input.placeholder = "off";
      }
      input.id = id;
      input.dataset.rule = r.name;
      input.dataset.kind = r.type;
      const label = el("label", "", ruleLabel(r.name));
      label.htmlFor = id;
      const help = el("span", "help", ruleHelp(r));
      help.id = `${id}-help`;
      input.setAttribute("aria-describedby", help.id);
      if (r.type === "bool") row.append(input, label, help);
      else row.append(label, input, help);
      fs.appendChild(row);
    }
    box.appendChild(fs);
  }
  const presetValue = () => presets.querySelector("input:checked").value;
  const fillPreset = () => {
    const values = opts.presets[presetValue()];
    for (const input of box.querySelectorAll("[data-rule]")) {
      const v = values[input.dataset.rule];
      if (input.type === "checkbox") input.checked = !!v;
      else input.value = v === null || v === undefined ? "" : String(v);
    }
    updateSeats();
  };
  const updateSeats = () => {
    const max = Number(box.querySelector('[data-rule="max_players"]').value) || 6;
    const seats = $("seats");
    const keep = Number(seats.value) || 4;
    seats.innerHTML = "";
    for (let n = 2; n <= Math.min(max, 10); n++) seats.add(new Option(`${n}`, `${n}`));
    seats.value = `${Math.min(keep, max)}`;
    updateBots();
  };
  const updateBots = () => {
    const n = Number($("seats").value);
    const bots = $("bots");
    const keep = bots.value === "" ? n - 1 : Number(bots.value);
    bots.innerHTML = "";
    for (let b = 0; b < n; b++) bots.add(new Option(`${b}`, `${b}`));
    bots.value = `${Math.min(keep, n - 1)}`;
  };
  presets.addEventListener("change", fillPreset);
  $("seats").addEventListener("change", updateBots);
  box.querySelector('[data-rule="max_players"]').addEventListener("change", updateSeats);
  fillPreset();
  const nick = localStorage.getItem("nomercy:nickname") || "";
  $("create-nick").value = nick;
  $("join-nick").value = nick;
  $("create-form").addEventListener("submit", (e) => { e.preventDefault(); createRoom(); });
  $("join-form").addEventListener("submit", (e) => { e.preventDefault(); joinRoom(false); });
  $("watch-btn").addEventListener("click", () => joinRoom(true));
}

function collectRules() {
  const preset = $("presets").querySelector("input:checked").value;
  const values = app.options.presets[preset];
  const out = {};
  for (const input of $("rules-box").querySelectorAll("[data-rule]")) {
    const name = input.dataset.rule;
    let v;
    if (input.type === "checkbox") v = input.checked;
    else if (input.dataset.kind === "int") v = input.value === "" ? null : Number(input.value);
    else v = input.value;
    if (v !== values[name]) out[name] = v;
  }
  return { preset, rules: out };
}

// The server's nickname rules (nomercy.server.names), checked here first so a person
// gets the reason at once; the server checks again and is the one that counts.
function nicknameProblem(raw) {
  const v = raw.normalize("NFKC").trim();
  if (!v) return "Choose a nickname.";
  if ([...v].length > 24) return "A nickname has 24 characters at most.";
  if (/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u.test(v)) return "A nickname cannot contain text-direction controls.";
  if (!/[^\p{Z}\p{Cf}\p{Cc}\p{Mn}\p{Me}\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5]/u.test(v)) return "A nickname needs visible characters.";
  if (/^bot(?![a-z])/i.test(v)) return "That nickname looks like a bot's name (bots are 'Bot N'): choose another.";
  return null;
}

async function createRoom() {
  const nickname = $("create-nick").value.trim();
  const problem = nicknameProblem(nickname);
  if (problem) { toast(problem); $("create-nick").focus(); return; }
  localStorage.setItem("nomercy:nickname", nickname);
  try {
    const { preset, rules } = collectRules();
    const res = await api("/api/rooms", {
      nickname, preset, rules, seats: Number($("seats").value),
      bots: Number($("bots").value), bot: $("bot").value, mode: $("mode").value,
      turn_seconds: Number($("turn").value) || null,
    });
    saveSeat(res.code, res.seat, res.token);
    enterRoom(res.code);
  } catch (err) { toast(err.message); }
}

async function joinRoom(watch) {
  const code = $("join-code").value.trim().toUpperCase();
  const nickname = $("join-nick").value.trim();
  if (!/^[2-9A-HJ-NP-Z]{6}$/.test(code)) { toast("A join code has 6 letters and digits."); return; }
  if (watch) { enterRoom(code, true); return; }
  const problem = nicknameProblem(nickname);
  if (problem) { toast(problem); $("join-nick").focus(); return; }
  localStorage.setItem("nomercy:nickname", nickname);
  try {
    const res = await api(`/api/rooms/${code}/join`, { nickname });
    saveSeat(res.code, res.seat, res.token);
    enterRoom(res.code);
  } catch (err) { toast(err.message); }
}

function enterRoom(code, watch = false) {
  app.code = code;
  const saved = watch ? null : loadSeat(code);
  app.token = saved ? saved.token : null;
  if (location.pathname !== `/join/${code}`) history.pushState(null, "", `/join/${code}`);
  $("room-badge").hidden = false;
  $("room-code").textContent = code;
  connect();
}

// -- the connection -------------------------------------------------------------------------

function setOnline(online, text) {
  app.online = online;
  if (text) $("offline-text").textContent = text;
  block();
}

function setPaused(paused, message) {
  // The server could not save a move: nothing is lost, the game waits until it can.
  app.paused = paused;
  if (message) $("paused-text").textContent = sentence(message);
  if (!paused && $("paused").dataset.shown) toast("The server can save moves again: the game goes on.");
  $("paused").dataset.shown = paused ? "1" : "";
  block();
}

function block() {
  // Input waits while the connection is down or the server cannot save moves.
  const offline = !app.online && !app.kicked;
  const paused = app.paused && !offline;
  $("offline").hidden = !offline;
  $("paused").hidden = !paused;
  // A modal question sits in the browser's top layer, above any overlay: close it, so the
  // overlay is seen and nothing is answered into a dead connection. The decision stays on
  // the table (the inline colour picker, or the card to click again) for when it is back.
  const dlg = $("prompt");
  if ((offline || paused) && dlg.open && dlg.dataset.game) dlg.close("cancel");
  for (const id of ["screen-table", "screen-lobby", "social", "end"]) {
    if (offline || paused) $(id).setAttribute("inert", "");
    else $(id).removeAttribute("inert");
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The room code in the URL lets a proxy send every connection of a room to the process
  // that runs it (several server processes); the hello message carries it again.
  const ws = app.ws = new WebSocket(`${proto}://${location.host}/ws?room=${encodeURIComponent(app.code)}`);
  $("conn").textContent = "connecting…";
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: "hello", room: app.code, token: app.token }));
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    if (app.ws !== ws) return;
    if (app.kicked) return;
    $("conn").textContent = "offline";
    setOnline(false, "Reconnecting… your seat is kept for you.");
    const delay = Math.min(10000, 500 * 2 ** app.retry++);
    setTimeout(connect, delay);
  };
}

function send(obj) {
  if (app.ws && app.ws.readyState === WebSocket.OPEN) { app.ws.send(JSON.stringify(obj)); return true; }
  toast("Not connected: reconnecting…");
  return false;
}

function act(action) {
  app.lastAction = action;
  send({ type: "action", action, version: app.version, id: String(++app.msgId) });
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      app.retry = 0;
      app.seat = msg.seat;
      app.kicked = false;
      if (msg.seat !== null) app.readmitTried = false;
      $("conn").textContent = msg.seat === null ? (app.removedSeat !== null ? "removed" : "") : "";
      setOnline(true);
      onRoom(msg.room);
      break;
    case "room": onRoom(msg.room); break;
    case "state": onState(msg); break;
    case "chat": addChat(msg.seat, msg.nickname, msg.text); break;
    case "chat_history":
      $("chat").innerHTML = "";
      for (const m of msg.messages) addChat(m.seat, m.nickname, m.text, true);
      break;
    case "reaction":
      addChat(msg.seat, msg.nickname, REACTION_TEXT[msg.reaction] || msg.reaction, true, true);
      bubble(msg.seat, REACTION_TEXT[msg.reaction] || msg.reaction);
      break;
    case "error":
      if (msg.version !== null && msg.version !== undefined) app.version = Math.max(app.version, msg.version);
      if (msg.code === "stale") break; // the fresh state is on its way
      if (msg.code === "room_moving") {
        // Another server process takes the room over: connect again, the proxy finds it.
        setOnline(false, "The table is moving to another server: reconnecting…");
        app.retry = 0;
        if (app.ws) app.ws.close();
        break;
      }
      app.lastError = sentence(msg.message);
      $("why").textContent = `Refused: ${app.lastError}`;
      toast(app.lastError);
      if (msg.code === "unauthorized" && app.token) {
        // Our seat token stopped working: the host removed us while we were away. Watch,
        // and keep the token in case the host lets us back in.
        const saved = app.readmitTried ? null : rememberRemoved(app.code);
        if (!saved) localStorage.removeItem(`nomercy:removed:${app.code}`);
        localStorage.removeItem(`nomercy:seat:${app.code}`);
        app.removedSeat = saved ? saved.seat : null;
        app.token = null;
        if (saved) showRemovedNote();
        const old = app.ws;
        app.ws = null;
        if (old) old.close();
        connect();
      } else if (msg.code === "not_found" && app.token) {
        app.token = null;
        localStorage.removeItem(`nomercy:seat:${app.code}`);
      }
      break;
    case "kicked": onKicked(msg.message); break;
    case "paused": setPaused(true, msg.message); break;
    case "resumed": setPaused(false); break;
    default: break;
  }
}

function sentence(text) {
  // The server's refusals name seats P<n> and cards by code: say them in words.
  const t = String(text).replace(/\bP(\d+)\b/g, (_, n) => nameOf(Number(n)))
    .replace(/(?<![\w+])(WR\+4|WCR|W\+(?:4|6|10)|W|[RYGB](?:[0-9]|SE|DA|S|R|\+2|\+4))(?![\w+])/g, (c) => cardParts(c).name);
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");
}

function rememberRemoved(code) {
  const saved = loadSeat(code);
  if (saved) localStorage.setItem(`nomercy:removed:${code}`, JSON.stringify(saved));
  localStorage.removeItem(`nomercy:seat:${code}`);
  return saved;
}

function loadRemoved(code) {
  try { return JSON.parse(localStorage.getItem(`nomercy:removed:${code}`) || "null"); } catch { return null; }
}

function onKicked(message) {
  app.kicked = true;
  const saved = rememberRemoved(app.code);
  app.removedSeat = saved ? saved.seat : app.seat;
  app.seat = null;
  toast(sentence(message.replace("the host removed", "the host removed")));
  $("offline").hidden = true;
  // Watch instead; if the host lets us back in, our token works again (see onRoom).
  setTimeout(() => { app.kicked = false; app.token = null; connect(); }, 300);
  showRemovedNote();
}

function showRemovedNote() {
  $("conn").textContent = "removed";
  toast("The host removed you from the table. You are watching; if the host lets you back in, you return to your seat.");
}

function nameOf(seat) {
  if (seat === null || seat === undefined) return "?";
  const s = app.room && app.room.seats[seat];
  if (s && s.kind === "bot" && s.nickname) return s.nickname.replace(/ \([^)]*\)$/, ""); // "Bot 2 (random)": strength shown apart
  return (s && s.nickname) || `Player ${seat + 1}`;
}

function who(seat) { return seat === app.seat ? "You" : nameOf(seat); }

function onRoom(room) {
  const before = app.room;
  app.room = room;
  if (Boolean(room.paused) !== app.paused) setPaused(Boolean(room.paused), room.paused ? "The server cannot save moves right now: the game is paused." : null);
  document.title = room.status === "lobby" ? `nomercy: room ${room.code}` : `nomercy: playing in ${room.code}`;
  const w = $("watchers");
  w.hidden = !room.spectators;
  w.textContent = `${room.spectators} watching${app.seat === null ? " (you too)" : ""}`;
  w.setAttribute("aria-label", `${room.spectators} watching`);
  // A removed player who is let back in: sit down again with the old token.
  if (app.seat === null && app.removedSeat !== null) {
    const saved = loadRemoved(room.code);
    const seat = room.seats[app.removedSeat];
    const still = room.removed.some((r) => r.seat === app.removedSeat);
    if (saved && !still && seat && seat.kind === "human") {
      saveSeat(room.code, saved.seat, saved.token);
      localStorage.removeItem(`nomercy:removed:${room.code}`);
      app.token = saved.token;
      app.removedSeat = null;
      app.readmitTried = true;
      toast("The host let you back in.");
      const old = app.ws;
      app.ws = null;
      if (old) old.close();
      connect();
      return;
    }
  }
  if (room.status === "lobby") {
    show("lobby");
    renderLobby(room);
  } else {
    show("table");
    if (app.state) renderTable();
  }
  renderScores(room);
  if (before && before.status !== "lobby" && room.status === "playing" && before.status === "finished") {
    app.endHidden = false;
  }
}

function renderRulesSummary(room) {
  $("rules-preset").textContent = `${PRESET_TEXT[room.preset] || room.preset} ${room.mode === "match" ? `A match to ${room.rules.target_score} points.` : "A single round."}` +
    (room.turn_seconds ? ` Turn timer: ${room.turn_seconds} s.` : " No turn timer.");
  const list = $("rules-list");
  list.innerHTML = "";
  const byName = app.options ? Object.fromEntries(app.options.rules.map((r) => [r.name, r])) : {};
  for (const [title, rules] of RULE_GROUPS) {
    const names = Object.keys(rules).filter((n) => n in room.rules);
    if (!names.length) continue;
    const d = el("details", "rule-sum");
    if (["Stacking", "Mercy", "Sevens and Zeros"].includes(title)) d.open = true;
    d.appendChild(el("summary", "", title));
    const dl = el("dl");
    for (const n of names) {
      dl.appendChild(el("dt", "", `${rules[n]}: ${ruleValue(room.rules[n])}`));
      dl.appendChild(el("dd", "", byName[n] ? ruleHelp(byName[n]) : RULE_HELP[n] || ""));
    }
    d.appendChild(dl);
    list.appendChild(d);
  }
}

function renderLobby(room) {
  $("lobby-code").textContent = room.code;
  $("invite-link").value = `${location.origin}/join/${room.code}`;
  const list = $("lobby-seats");
  list.innerHTML = "";
  const me = app.seat !== null ? room.seats[app.seat] : null;
  for (const s of room.seats) {
    const li = el("li", s.kind === "open" ? "open" : "");
    li.appendChild(el("span", "name", s.kind === "open" ? "open seat" : s.nickname));
    const tags = [s.host ? "host" : null, s.kind === "bot" ? "bot" : null, s.seat === app.seat ? "you" : null,
      s.kind === "human" && !s.connected ? "away" : null].filter(Boolean);
    for (const t of tags) li.appendChild(el("span", "tag", t));
    if (me && me.host && s.kind === "human" && s.seat !== app.seat) li.appendChild(kickButton(s));
    list.appendChild(li);
  }
  for (const r of room.removed) {
    const li = el("li", "removed");
    li.appendChild(el("span", "name", r.nickname));
    li.appendChild(el("span", "tag", "removed"));
    if (me && me.host) li.appendChild(readmitButton(r));
    list.appendChild(li);
  }
  const host = me && me.host;
  $("start-btn").hidden = !host;
  $("lobby-note").textContent = app.seat === null
    ? "You are watching. Seats: " + room.seats.filter((s) => s.kind !== "open").length + " of " + room.seats.length + " taken."
    : host ? "Open seats get bots when you start." : "The host starts the game when everyone is here.";
  renderRulesSummary(room);
}

function kickButton(s) {
  const b = el("button", "link danger", "remove");
  b.type = "button";
  b.setAttribute("aria-label", `Remove ${s.nickname}`);
  b.addEventListener("click", async () => {
    const ok = await askChoice(`Remove ${s.nickname}?`, [["yes", `Remove ${s.nickname}`]],
      "", app.room.status === "lobby" ? "Their seat opens again. You can let them back in afterwards." : "A bot plays their cards. You can let them back in afterwards.", false);
    if (ok !== "yes") return;
    try { await api(`/api/rooms/${app.code}/kick`, { seat: s.seat }, app.token); toast(`${s.nickname} was removed.`); } catch (err) { toast(err.message); }
  });
  return b;
}

function readmitButton(r) {
  const b = el("button", "link", "let back in");
  b.type = "button";
  b.setAttribute("aria-label", `Let ${r.nickname} back in`);
  b.addEventListener("click", async () => {
    try { await api(`/api/rooms/${app.code}/readmit`, { seat: r.seat }, app.token); } catch (err) { toast(err.message); }
  });
  return b;
}

// -- the game log in words --------------------------------------------------------------------

function describe(e, earlier) {
  // earlier: the events before this one in the same message (each fact is told once).
  // Returns an array of strings and card codes ({card}) to render, or null to skip.
  const n = (s) => who(s);
  const o = (s) => (s === app.seat ? "you" : nameOf(s)); // as an object: "caught you"
  const cards = (list) => (list || []).map((c) => ({ card: c }));
  const cnt = (k) => `${k} card${k === 1 ? "" : "s"}`;
  switch (e.type) {
    case "started": {
      const out = [`New round: ${n(e.dealer)} dealt and turned up `, ...cards(e.turned_up), `. ${n(e.first_player)} ${e.first_player === app.seat ? "start" : "starts"}.`];
      return out;
    }
    case "played": {
      const out = [`${n(e.seat)} played `, { card: e.card }];
      if (e.color) out.push(` and named ${COLORS[e.color].toLowerCase()}`);
      if (e.uno) out.push(", calling UNO");
      out.push(".");
      return out;
    }
    case "discarded_all": {
      const rest = e.cards || []; // the other cards of its colour, not the Discard All itself
      if (!rest.length) return null;
      return [`${n(e.seat)} also discarded `, ...cards(rest), "."];
    }
    case "drew": {
      const shown = e.cards && e.cards.length ? [": ", ...cards(e.cards)] : [];
      if (e.reason === "stack") return [`${n(e.seat)} took the stack: ${cnt(e.count)}`, ...shown, "."];
      if (e.reason === "roulette") return [`The Roulette turned up ${cnt(e.count)} for ${o(e.seat)}`, ...shown, "."];
      if (e.reason === "uno_penalty") {
        if (earlier.some((p) => p.type === "caught" && p.seat === e.seat)) return null; // told with the catch
        return [`${n(e.seat)} drew ${cnt(e.count)} for not calling UNO`, ...shown, "."];
      }
      if (e.reason === "challenge") {
        if (earlier.some((p) => p.type === "challenged")) return [`${n(e.seat)} ${e.seat === app.seat ? "draw" : "draws"} ${cnt(e.count)}`, ...shown, "."];
        return [`${n(e.seat)} drew ${cnt(e.count)} after a challenge`, ...shown, "."];
      }
      if (e.reason === "penalty") return [`${n(e.seat)} drew ${cnt(e.count)} as a penalty`, ...shown, "."];
      return [`${n(e.seat)} drew ${cnt(e.count)}`, ...shown, "."];
    }
    case "passed": return [`${n(e.seat)} kept the card and passed.`];
    case "reshuffled": return [`The discard pile was shuffled into a new deck (${cnt(e.size)}).`];
    case "color_named": return [`${n(e.seat)} named ${COLORS[e.color].toLowerCase()} for the Roulette.`];
    case "skipped": {
      const names = [...e.seats].sort((a, b) => (b === app.seat) - (a === app.seat)).map(n);
      const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
      return [`${list} ${e.seats.length === 1 && e.seats[0] !== app.seat ? "loses" : "lose"} a turn.`];
    }
    case "reversed": return [`Play now goes ${e.direction === 1 ? "clockwise ↻" : "counter-clockwise ↺"}.`];
    case "stack": return [`${n(e.seat)} ${e.seat === app.seat ? "face" : "faces"} a stack of +${e.total}.`];
    case "hands_swapped": return [`${n(e.seat)} and ${o(e.target)} swapped hands.`];
    case "hands_passed": return [`Every hand moved one seat ${e.direction === 1 ? "clockwise" : "counter-clockwise"}.`];
    case "knocked_out":
      return [`${n(e.seat)} ${e.seat === app.seat ? "are" : "is"} knocked out with ${e.cards} cards${e.by !== null && e.by !== e.seat ? `, by ${o(e.by)}` : ""}.`];
    case "uno":
      if (earlier.some((p) => p.type === "played" && p.seat === e.seat && p.uno)) return null; // told with the play
      return [`${n(e.seat)} called UNO!`];
    case "challenged":
      return [`${n(e.seat)} challenged ${e.by === app.seat ? "your" : `${nameOf(e.by)}'s`} Wild Draw 4: ${e.guilty ? `${e.by === app.seat ? "you" : nameOf(e.by)} held a matching colour, so it was not allowed` : "it was allowed"}.`];
    case "caught": return [`${n(e.by)} caught ${o(e.seat)} without UNO: ${e.seat === app.seat ? "you draw" : "they draw"} ${app.room ? app.room.rules.uno_penalty : 2}.`];
    case "round_over": {
      const how = e.reason === "played_out" ? "by playing the last card" : "as the last one standing";
      const pts = e.points[e.winner] ?? e.points[String(e.winner)] ?? 0;
      return [`${n(e.winner)} ${e.winner === app.seat ? "win" : "wins"} the round ${how}, scoring ${pts} points.`];
    }
    default: return [String(e.text || e.type)];
  }
}

function addLog(e, earlier) {
  const parts = describe(e, earlier);
  if (!parts) return;
  const li = el("li", `ev ev-${e.type}`);
  for (const p of parts) li.appendChild(typeof p === "string" ? document.createTextNode(p) : chip(p.card));
  const log = $("log");
  log.appendChild(li);
  while (log.children.length > 150) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;
}

function addChat(seat, nickname, text, quiet = false, reaction = false) {
  const li = el("li", reaction ? "reaction" : "");
  li.appendChild(el("span", "who", seat === app.seat ? "You" : nickname));
  li.appendChild(el(reaction ? "em" : "span", "text", text));
  const chat = $("chat");
  chat.appendChild(li);
  while (chat.children.length > 100) chat.removeChild(chat.firstChild);
  chat.scrollTop = chat.scrollHeight;
  if (!quiet && !reaction && seat !== app.seat) bubble(seat, text.length > 40 ? text.slice(0, 38) + "…" : text);
}

function bubble(seat, text) {
  const s = document.querySelector(`#seat-ring .seat[data-seat="${seat}"]`);
  if (!s) return;
  const b = el("span", "bubble", text);
  b.setAttribute("aria-hidden", "true");
  s.appendChild(b);
  setTimeout(() => b.remove(), 3200);
}

// -- the table -------------------------------------------------------------------------------

function legal() { return (app.state && app.state.legal_actions) || []; }

function onState(msg) {
  const before = app.state;
  const fromRects = captureRects(msg.events);
  app.version = msg.version;
  app.deadlineAt = msg.deadline === null || msg.deadline === undefined ? null : Date.now() + msg.deadline * 1000;
  app.turnTotal = app.room && app.room.turn_seconds ? app.room.turn_seconds : null;
  app.reveal = msg.reveal || null;
  if (msg.snapshot) { $("log").innerHTML = ""; app.trail = []; }
  msg.events.forEach((e, i) => {
    addLog(e, msg.events.slice(Math.max(0, i - 4), i));
    trackTrail(e);
  });
  if (!msg.view) return;
  app.state = msg.view;
  if (before && (before.step > msg.view.step || msg.events.some((e) => e.type === "started"))) {
    app.unoArmed = false;
    app.endHidden = false;
    app.colorAsked = null;
  }
  if (app.room && app.room.status !== "lobby") show("table");
  renderTable();
  if (!msg.snapshot) {
    animate(msg.events, fromRects, before);
    sounds(msg.events, before);
    if (msg.events.some((e) => e.type === "knocked_out" && e.seat === app.seat) && !msg.view.outcome) {
      toast("You are knocked out of this round. Stay and watch how it ends: chat and reactions still work.");
    }
  }
}

function trackTrail(e) {
  if (e.type === "knocked_out") app.koCards[e.seat] = e.cards;
  if (e.type === "started") { app.trail = [...(e.turned_up || [])].slice(-3); app.koCards = {}; }
  else if (e.type === "played") app.trail.push(e.card);
  else if (e.type === "reshuffled") app.trail = app.trail.slice(-1);
  app.trail = app.trail.slice(-4);
}

function sounds(events, before) {
  const types = new Set(events.map((e) => e.type));
  if (types.has("round_over")) sound.play("win");
  else if (types.has("knocked_out")) sound.play("ko");
  else if (types.has("caught")) sound.play("catch");
  else if (types.has("uno") || events.some((e) => e.type === "played" && e.uno)) sound.play("uno");
  else if (types.has("stack")) sound.play("stack");
  else if (types.has("played")) sound.play("play");
  else if (types.has("drew")) sound.play("draw");
  const v = app.state;
  if (v && v.current_player === app.seat && (!before || before.current_player !== app.seat) && !v.outcome) sound.play("turn");
}

function seatOrder(v) {
  // Seats in play order starting from yours (spectators: from seat 0).
  const base = app.seat === null ? 0 : app.seat;
  const out = [];
  for (let i = 0; i < v.players; i++) out.push((base + i) % v.players);
  return out;
}

function renderTable() {
  const v = app.state;
  if (!v) return;
  const room = app.room || { seats: [], rules: {} };
  const rules = room.rules || {};
  const mercy = rules.mercy_limit;
  // status line
  const status = $("status");
  status.innerHTML = "";
  const line = el("span");
  if (v.outcome) {
    line.className = "banner";
    line.textContent = `${who(v.outcome.winner)} ${v.outcome.winner === app.seat ? "win" : "wins"} the round.`;
  } else if (app.seat !== null && !v.active[app.seat]) {
    line.className = "out";
    line.textContent = "You are knocked out of this round. Watch how it ends.";
  } else if (v.current_player === app.seat) {
    line.className = "you";
    line.textContent = `Your turn: ${decisionText(v)}`;
  } else {
    line.textContent = `${nameOf(v.current_player)} ${v.decision === "stack" ? `faces a stack of +${v.pending_total}` : v.decision === "challenge" ? "decides whether to challenge the Wild Draw 4" : v.decision === "choose_color" || v.decision === "roulette" ? "is naming a colour" : "is playing"}…`;
  }
  status.appendChild(line);
  if (v.outcome && app.endHidden) {
    const b = el("button", "link", "Show the results");
    b.type = "button";
    b.addEventListener("click", () => { app.endHidden = false; renderTable(); $("rematch-btn").focus(); });
    status.appendChild(b);
  }
  renderSeats(v, room, mercy);
  // direction
  const dir = $("dir");
  dir.classList.toggle("ccw", v.direction !== 1);
  dir.setAttribute("aria-label", `Play goes ${v.direction === 1 ? "clockwise" : "counter-clockwise"}`);
  // piles
  const dc = $("discard-cards");
  dc.innerHTML = "";
  const trail = app.trail.length && app.trail[app.trail.length - 1] === v.top ? app.trail.slice(-3) : [v.top];
  trail.forEach((code, i) => {
    const c = cardEl(code, "div", "big");
    c.style.setProperty("--r", `${(i - trail.length + 1) * 9 + (i % 2 ? 3 : -2)}deg`);
    c.style.setProperty("--x", `${(i - trail.length + 1) * 10}px`);
    if (i < trail.length - 1) { c.classList.add("under"); c.removeAttribute("role"); c.removeAttribute("aria-label"); c.setAttribute("aria-hidden", "true"); }
    else c.id = "top-card";
    dc.appendChild(c);
  });
  const colorName = v.color ? COLORS[v.color] : null;
  $("discard").className = `discard halo-${v.color || "none"}`;
  $("discard").setAttribute("aria-label", `Discard pile: ${cardParts(v.top).name}${colorName ? `, colour in play ${colorName}` : ""}`);
  const chipEl = $("color-chip");
  chipEl.className = `color-chip c-${v.color || "none"}`;
  chipEl.textContent = colorName ? `${colorName} (${v.color}) in play` : "No colour yet";
  const pending = $("pending");
  const wasPending = pending.hidden ? 0 : Number(pending.dataset.total || 0);
  pending.hidden = !v.pending_total;
  pending.dataset.total = String(v.pending_total || 0);
  pending.textContent = `+${v.pending_total}`;
  if (v.pending_total > wasPending && !reducedMotion()) pending.animate([{ transform: "scale(1.8)" }, { transform: "scale(1)" }], { duration: 350, easing: "ease-out" });
  $("drawsize").textContent = `${v.draw_pile_size} left`;
  renderHand(v);
  renderButtons(v);
  renderEnd(v, room);
  // A game question asked for an earlier state (the turn timer played, or the table moved
  // on) no longer applies: close it rather than send a stale answer.
  const dlg = $("prompt");
  if (dlg.open && dlg.dataset.game && dlg.dataset.version !== String(app.version)) dlg.close("cancel");
  maybeAskColor(v);
}

function renderSeats(v, room, mercy) {
  const box = $("seat-ring");
  box.innerHTML = "";
  const order = seatOrder(v);
  const n = order.length;
  const me = app.seat !== null ? room.seats[app.seat] : null;
  order.forEach((s, k) => {
    const info = room.seats[s];
    const angle = Math.PI / 2 + (2 * Math.PI * k) / n; // you at the bottom, then clockwise
    const div = el("div", "seat");
    div.dataset.seat = String(s);
    div.style.left = `${50 + 44 * Math.cos(angle)}%`;
    div.style.top = `${50 + (k === 0 ? 47 : 40) * Math.sin(angle)}%`;
    if (s === v.current_player && !v.outcome) div.classList.add("turn");
    if (s === app.seat) div.classList.add("me");
    if (k === 0) div.classList.add("bottom"); // a spectator's bottom seat: kept short on phones
    if (!v.active[s]) div.classList.add("out");
    const ring = el("div", "ring");
    const initials = (nameOf(s).match(/\p{L}|\p{N}/u) || ["?"])[0].toUpperCase();
    ring.appendChild(el("span", "avatar", initials));
    ring.setAttribute("aria-hidden", "true");
    div.appendChild(ring);
    const text = el("div", "plate");
    div.appendChild(text);
    text.appendChild(el("div", "name", s === app.seat ? `You` : nameOf(s)));
    const count = v.hand_sizes[s];
    const backs = el("div", "backs");
    backs.setAttribute("aria-hidden", "true");
    if (v.active[s] && s !== app.seat) {
      const shown = Math.min(count, 9);
      for (let i = 0; i < shown; i++) {
        const b = backEl("mini");
        b.style.setProperty("--i", String(i - (shown - 1) / 2));
        backs.appendChild(b);
      }
    }
    if (s !== app.seat) text.appendChild(backs);
    text.appendChild(el("div", "count", v.active[s] ? `${count} card${count === 1 ? "" : "s"}` : "out"));
    const flags = [];
    if (info && info.standin) flags.push("a bot plays for them");
    if (info && info.kind === "human" && !info.connected && !info.standin) flags.push("away");
    const isBot = info && info.kind === "bot";
    if (isBot || flags.length) {
      const line = el("div", "flags");
      // The bot's strength is a detail a phone's small seat leaves out (style.css).
      if (isBot) line.append("bot", el("span", "strength", ` · ${room.bot}`));
      if (flags.length) line.append(`${isBot ? " · " : ""}${flags.join(" · ")}`);
      text.appendChild(line);
    }
    if (mercy && v.active[s] && count >= mercy - 5) {
      const warn = el("div", count >= mercy - 2 ? "mercy hot" : "mercy", `⚠ ${count}/${mercy}`);
      warn.title = `Knocked out at ${mercy} cards`;
      text.appendChild(warn);
    }
    if ((v.uno_open || []).includes(s)) text.appendChild(el("div", "uno-flag", "one card, no UNO!"));
    else if (v.active[s] && count === 1) text.appendChild(el("div", "uno-flag ok", "UNO"));
    if (me && me.host && info && info.kind === "human" && s !== app.seat) div.appendChild(kickButton(info));
    const turnText = s === v.current_player && !v.outcome ? ", deciding now" : "";
    div.setAttribute("role", "group");
    div.setAttribute("aria-label", `${s === app.seat ? "You" : nameOf(s)}: ${v.active[s] ? `${count} cards` : "knocked out"}${turnText}`);
    box.appendChild(div);
  });
  if (me && me.host) {
    for (const r of room.removed) {
      const s = box.querySelector(`.seat[data-seat="${r.seat}"]`);
      if (s) s.appendChild(readmitButton(r));
    }
  }
  updateRing();
}

function updateRing() {
  const v = app.state;
  for (const s of document.querySelectorAll("#seat-ring .seat")) {
    const ring = s.querySelector(".ring");
    let p = 1;
    if (v && Number(s.dataset.seat) === v.current_player && app.deadlineAt !== null && app.turnTotal) {
      p = Math.max(0, Math.min(1, (app.deadlineAt - Date.now()) / (app.turnTotal * 1000)));
      const left = Math.max(0, Math.ceil((app.deadlineAt - Date.now()) / 1000));
      let t = s.querySelector(".clock");
      if (!t) { t = el("span", "clock"); s.appendChild(t); }
      t.textContent = `${left}s`;
      s.classList.toggle("hurry", left <= 5);
    }
    ring.style.setProperty("--p", String(p));
  }
}

function decisionText(v) {
  switch (v.decision) {
    case "stack": return `stack a Draw card or take ${v.pending_total}`;
    case "challenge": return `challenge the Wild Draw 4 or take ${v.pending_total}`;
    case "play_drawn": return "play the card you drew";
    case "choose_color": return "name a colour";
    case "roulette": return "name a colour for the Roulette";
    default: return "play a card or draw";
  }
}

function playableSet(v) {
  return new Set(legal().filter((a) => a.startsWith("play ")).map((a) => a.split(" ")[1]));
}

function renderHand(v) {
  const hand = $("hand");
  const focusedCode = document.activeElement && document.activeElement.closest && document.activeElement.closest("#hand") ? document.activeElement.dataset.code : null;
  hand.innerHTML = "";
  const playable = playableSet(v);
  $("hand-count").textContent = app.seat === null ? "" : `(${v.hand.length})`;
  $("sort-btn").textContent = app.sort === "colour" ? "Sort: by colour" : app.sort === "face" ? "Sort: by face" : "Sort: as dealt";
  const myTurn = v.current_player === app.seat;
  const cards = v.hand.map((code, i) => ({ code, i }));
  if (app.sort !== "none") cards.sort((a, b) => sortKey(a.code) - sortKey(b.code) || a.i - b.i);
  // Rows: as many as needed so that every card shows its corner (letter and symbol).
  const width = Math.max(220, (hand.clientWidth || document.documentElement.clientWidth) - 36);
  const cardW = window.innerWidth < 600 ? 56 : 72;
  const minStep = window.innerWidth < 600 ? 34 : 40;
  const perRow = Math.max(1, Math.floor((width - cardW) / minStep) + 1);
  const rows = Math.max(1, Math.ceil(cards.length / perRow));
  const each = Math.ceil(cards.length / rows);
  hand.classList.toggle("my-turn", myTurn);
  hand.classList.toggle("rows", rows > 1);
  let first = null;
  for (let r = 0; r < rows; r++) {
    const row = el("div", "hand-row");
    row.setAttribute("role", "none");
    const slice = cards.slice(r * each, (r + 1) * each);
    const step = slice.length > 1 ? Math.min(cardW + 6, (width - cardW) / (slice.length - 1)) : 0;
    slice.forEach(({ code }, j) => {
      const ok = playable.has(code) && (v.decision !== "play_drawn" || code === v.drawn);
      const b = cardEl(code, "button", ok ? "playable" : myTurn ? "dim" : "");
      if (v.drawn === code && v.decision === "play_drawn") b.classList.add("drawn");
      b.type = "button";
      b.style.marginLeft = j === 0 ? "0" : `${step - cardW}px`;
      // One row is fanned on an arc; several rows lie flat so each corner stays readable.
      const mid = (slice.length - 1) / 2;
      const fan = rows === 1 && slice.length > 1;
      b.style.setProperty("--rot", `${fan ? ((j - mid) / Math.max(mid, 1)) * Math.min(10, slice.length) : 0}deg`);
      b.style.setProperty("--lift", `${fan ? (Math.abs(j - mid) ** 2 / Math.max(mid * mid, 1)) * 10 : 0}px`);
      b.tabIndex = -1;
      b.setAttribute("aria-label", `${cardParts(code).name}${ok ? ", playable" : ""}`);
      b.setAttribute("aria-disabled", ok ? "false" : "true");
      b.addEventListener("click", () => playCard(code));
      row.appendChild(b);
      if (!first) first = b;
    });
    hand.appendChild(row);
  }
  const all = [...hand.querySelectorAll(".card")];
  const focus = (focusedCode && all.find((b) => b.dataset.code === focusedCode)) || all.find((b) => b.classList.contains("playable")) || first;
  if (focus) focus.tabIndex = 0;
  if (focusedCode && focus) focus.focus();
}

function whyText(v, acts) {
  if (app.seat === null) return app.removedSeat !== null ? "You were removed: you are watching. The host can let you back in." : "You are watching this table.";
  if (v.outcome) return "The round is over.";
  if (!v.active[app.seat]) return "You are knocked out of this round: you can still chat and react.";
  if (v.current_player !== app.seat) {
    if (acts.includes("uno")) return "Quick: call UNO before someone catches you!";
    const catchable = acts.filter((a) => a.startsWith("catch ")).map((a) => nameOf(Number(a.split(" ")[1])));
    if (catchable.length) return `${catchable.join(" and ")} ${catchable.length > 1 ? "have" : "has"} one card and did not call UNO: catch them!`;
    return `Waiting for ${nameOf(v.current_player)}.`;
  }
  const plays = acts.filter((a) => a.startsWith("play "));
  switch (v.decision) {
    case "choose_color": return "Name the colour in play: pick one below (or press R, Y, G or B).";
    case "roulette": return "Color Roulette: name a colour. Cards are turned up until that colour shows, and you take them all.";
    case "challenge": {
      const by = nameOf(v.last_draw_by);
      const under = v.challenge && COLORS[v.challenge.color] ? COLORS[v.challenge.color].toLowerCase() : "the colour in play";
      return `${by} played a Wild Draw 4. Challenge it if you think they held a ${under} card: if they did, they draw 4; if not, you draw 6. Or accept and take ${v.pending_total}.`;
    }
    case "stack":
      return plays.length ? `Play a Draw card worth at least the last one to pass the stack on, or take the ${v.pending_total} cards.`
        : `You have no Draw card that can go on this stack: take the ${v.pending_total} cards.`;
    case "play_drawn":
      return acts.includes("pass") ? "You drew a playable card: play it or keep it." : "You drew a playable card and must play it.";
    default:
      if (!plays.length) return "Nothing in your hand fits: draw from the deck.";
      if (!acts.includes("draw")) return "You hold a playable card, so you cannot draw: play one of the lifted cards.";
      return "Play a lifted card, or draw from the deck.";
  }
}

function renderButtons(v) {
  const acts = legal();
  const draw = $("draw-btn");
  const canTake = acts.includes("take");
  const canDraw = acts.includes("draw");
  draw.disabled = !(canTake || canDraw);
  $("deck-label").textContent = canTake ? `Take ${v.pending_total}` : "Draw";
  draw.setAttribute("aria-label", canTake ? `Take the ${v.pending_total} cards of the stack` : `Draw a card (${v.draw_pile_size} left)`);
  draw.classList.toggle("can", !draw.disabled);
  const take = $("take-btn");
  const facing = v.decision === "challenge" && v.current_player === app.seat;
  take.hidden = !canTake;
  take.textContent = facing ? `Accept: take ${v.pending_total}` : `Take ${v.pending_total} cards`;
  $("challenge-btn").hidden = !acts.includes("challenge");
  $("pass-btn").hidden = !acts.includes("pass");
  const uno = $("uno-btn");
  const canCall = acts.includes("uno");
  const canArm = v.current_player === app.seat && acts.some((a) => a.endsWith(" uno"));
  uno.disabled = !(canCall || canArm);
  if (!canArm) app.unoArmed = false;
  uno.classList.toggle("hot", canCall || (canArm && !app.unoArmed));
  uno.classList.toggle("armed", app.unoArmed);
  uno.setAttribute("aria-pressed", app.unoArmed ? "true" : "false");
  uno.textContent = canCall ? "Call UNO!" : app.unoArmed ? "UNO! ✓" : "UNO!";
  uno.title = canCall ? "You have one card: call it now" : canArm ? "Your play leaves one card: press before playing to call UNO with it" : "For when you are down to one card";
  const c = acts.find((a) => a.startsWith("catch "));
  const catchBtn = $("catch-btn");
  catchBtn.disabled = !c;
  catchBtn.classList.toggle("hot", !!c);
  catchBtn.dataset.action = c || "";
  catchBtn.textContent = c ? `Catch ${nameOf(Number(c.split(" ")[1]))}!` : "Catch";
  catchBtn.title = c ? "They have one card and did not call UNO" : "Lights up when someone forgets to call UNO";
  syncPromptCatch();
  const picking = v.current_player === app.seat && (v.decision === "choose_color" || v.decision === "roulette");
  $("color-pick").hidden = !picking;
  $("color-pick-title").textContent = v.decision === "roulette" ? "Roulette, name a colour:" : "Name a colour:";
  $("actions").hidden = app.seat === null;
  $("sort-btn").hidden = app.seat === null;
  $("hand-title").hidden = app.seat === null;
  document.querySelector(".mine").hidden = app.seat === null;
  if (!app.lastError || app.lastErrorVersion !== app.version) {
    app.lastError = "";
    let why = whyText(v, acts);
    if (canArm && !app.unoArmed) why = `One card left after this play: press UNO! (U) first, or anyone can catch you. ${why}`;
    else if (canArm) why = `UNO! is ready: your next play calls it. ${why}`;
    $("why").textContent = why;
  }
  app.lastErrorVersion = app.version;
}

function maybeAskColor(v) {
  if (v.current_player === app.seat && (v.decision === "choose_color" || v.decision === "roulette") && app.colorAsked !== app.version) {
    app.colorAsked = app.version;
    const title = v.decision === "roulette" ? "Color Roulette: name a colour" : "Name the colour in play";
    askColor(title, v.decision === "roulette" ? "Cards are turned up until your colour shows; you take them all." : "").then((c) => {
      if (c) act(`color ${c}`);
      else if (!$("color-pick").hidden) $("color-pick").querySelector("button").focus();
    });
  }
}

async function playCard(code) {
  let options = legal().filter((a) => a.startsWith(`play ${code}`) && a.split(" ")[1] === code);
  if (!options.length) {
    const v = app.state;
    let why = `${cardParts(code).name} cannot be played now`;
    if (v.current_player !== app.seat) why += `: it is ${nameOf(v.current_player)}'s turn`;
    else if (v.decision === "stack") why += `: only a Draw card worth at least the last one goes on the stack`;
    else if (v.decision === "play_drawn") why += ": only the card you drew can be played";
    else why += `: it matches neither the colour (${COLORS[v.color] || "none"}) nor the face of the top card`;
    $("why").textContent = why + ".";
    app.lastError = why;
    app.lastErrorVersion = app.version;
    toast(why + ".");
    return;
  }
  const withUno = options.filter((a) => a.endsWith(" uno"));
  const without = options.filter((a) => !a.endsWith(" uno"));
  options = app.unoArmed && withUno.length ? withUno : without.length ? without : withUno;
  const colors = [...new Set(options.map((a) => a.split(" ")[2]).filter((w) => w && COLORS[w]))];
  let chosen = options;
  if (colors.length > 1) {
    const c = await askColor(`${cardParts(code).name}: name the colour`);
    if (!c) return;
    chosen = options.filter((a) => a.split(" ")[2] === c);
  }
  const targets = [...new Set(chosen.map((a) => (a.match(/@(\d+)/) || [])[1]).filter(Boolean))];
  if (targets.length > 1) {
    const t = await askChoice("Seven: swap hands with…", targets.map((s) => [s, `${nameOf(Number(s))} (${app.state.hand_sizes[Number(s)]} cards)`]));
    if (!t) return;
    chosen = chosen.filter((a) => a.includes(`@${t}`));
  }
  app.unoArmed = false;
  act(chosen[0]);
}

// A catch cannot wait for a question to be answered: while a game question is open (the
// table behind it is inert), the dialog carries its own Catch button, and C works there too.
function syncPromptCatch() {
  const btn = $("prompt-catch");
  const action = $("catch-btn").dataset.action;
  btn.hidden = !action || !$("prompt").dataset.game;
  btn.textContent = $("catch-btn").textContent + " (C)";
}

function askColor(title, text = "") {
  return askChoice(title, Object.entries(COLORS).map(([k, name]) => [k, `${name} (${k})`]), "swatch c-", text);
}

let promptAnswer = null; // resolves the question the dialog asks now

function askChoice(title, choices, cls = "", text = "", game = true) {
  const dlg = $("prompt");
  dlg.dataset.game = game ? "1" : "";
  dlg.dataset.version = String(app.version);
  syncPromptCatch();
  if (dlg.open) dlg.close("cancel");
  $("prompt-title").textContent = title;
  $("prompt-text").textContent = text;
  $("prompt-text").hidden = !text;
  const box = $("prompt-choices");
  box.innerHTML = "";
  for (const [value, label] of choices) {
    const b = el("button", cls ? cls + value : "", label);
    b.value = value;
    box.appendChild(b);
  }
  if (!dlg.dataset.wired) {
    dlg.dataset.wired = "1";
    // One listener for every question. Closing a dialog queues its "close" event, so a
    // question asked again at once (the table moved on) would see the old one's event:
    // that event finds the dialog open again and is ignored.
    dlg.addEventListener("close", () => {
      if (dlg.open) return;
      const answer = promptAnswer;
      promptAnswer = null;
      if (answer) answer(dlg.returnValue && dlg.returnValue !== "cancel" ? dlg.returnValue : null);
    });
  }
  if (promptAnswer) { promptAnswer(null); promptAnswer = null; } // the earlier question is void
  return new Promise((resolve) => {
    promptAnswer = resolve;
    dlg.returnValue = "";
    dlg.showModal();
    box.firstChild.focus();
  });
}

// -- the end of a round ---------------------------------------------------------------------

function renderEnd(v, room) {
  const end = $("end");
  if (!v.outcome || app.endHidden) { end.hidden = true; return; }
  end.hidden = false;
  const o = v.outcome;
  const matchOver = room.status === "finished";
  const isMatch = room.mode === "match";
  const winnerMatch = room.match_winner;
  $("end-title").textContent = isMatch && matchOver && winnerMatch !== null
    ? `${who(winnerMatch)} ${winnerMatch === app.seat ? "win" : "wins"} the match!`
    : `${who(o.winner)} ${o.winner === app.seat ? "win" : "wins"} the round!`;
  const kos = o.knocked_out.map((k) => `${who(k.seat)}${k.by !== null && k.by !== k.seat ? ` (by ${who(k.by)})` : ""}`);
  $("end-how").textContent = (o.reason === "played_out" ? `${who(o.winner)} played the last card.` : `${who(o.winner)} ${o.winner === app.seat ? "are" : "is"} the last one standing.`) +
    (kos.length ? ` Knocked out: ${kos.join(", ")}.` : "");
  const table = $("end-table");
  table.innerHTML = "";
  const head = table.createTHead().insertRow();
  for (const t of ["Player", "Hand", "Round", isMatch ? "Total" : null].filter(Boolean)) {
    const th = el("th", "", t);
    th.scope = "col";
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (let s = 0; s < v.players; s++) {
    const row = body.insertRow();
    if (s === o.winner) row.className = "winner";
    const name = el("th", "", `${s === o.winner ? "★ " : ""}${who(s)}${o.knocked_out.some((k) => k.seat === s) ? " (knocked out)" : ""}`);
    name.scope = "row";
    row.appendChild(name);
    const hc = row.insertCell();
    hc.className = "reveal";
    const hand = app.reveal ? app.reveal[s] : s === app.seat ? v.hand : null;
    if (!v.active[s]) hc.textContent = app.koCards[s] ? `knocked out with ${app.koCards[s]} cards` : "knocked out";
    else if (hand && hand.length) for (const c of hand) hc.appendChild(chip(c));
    else hc.textContent = hand ? "no cards left" : `${v.hand_sizes[s]} cards`;
    const pts = row.insertCell();
    pts.className = "num";
    pts.textContent = String(o.points[s] || 0);
    if (isMatch) {
      const tot = row.insertCell();
      tot.className = "num";
      tot.textContent = String(room.scores[s] || 0);
    }
  }
  $("end-match").textContent = isMatch
    ? matchOver ? `Match over after ${room.rounds.length} ${room.rounds.length === 1 ? "round" : "rounds"} (target ${room.rules.target_score}).` : `Round ${room.round} of a match to ${room.rules.target_score} points: the next round is dealt in a moment.`
    : "";
  const me = app.seat !== null ? room.seats[app.seat] : null;
  const rb = $("rematch-btn");
  rb.hidden = !matchOver || app.seat === null;
  const ready = new Set(room.rematch || []);
  const waiting = room.seats.filter((s) => s.kind === "human" && !s.host && s.connected && !ready.has(s.seat)).map((s) => s.seat === app.seat ? "you" : s.nickname);
  if (!matchOver) {
    $("end-rematch").textContent = "";
  } else if (me && me.host) {
    rb.textContent = "Rematch";
    rb.disabled = waiting.length > 0;
    $("end-rematch").textContent = waiting.length ? `Rematch: waiting for ${waiting.join(", ")} to confirm.` : "Rematch: same table, same rules, a new deal. Bots stay.";
  } else if (me) {
    const mine = ready.has(app.seat);
    rb.textContent = mine ? "I'm in ✓ (waiting for the host)" : "Rematch: I'm in";
    rb.disabled = false;
    rb.setAttribute("aria-pressed", mine ? "true" : "false");
    $("end-rematch").textContent = mine ? "The host starts the rematch." : "Want another game at this table? Say you're in; the host starts it.";
  } else {
    $("end-rematch").textContent = matchOver ? "The players can start a rematch." : "";
  }
  if (renderEnd.shownFor !== v.step + ":" + app.version) {
    // Keyboard users land on the end screen's first button (unless typing in the chat).
    renderEnd.shownFor = v.step + ":" + app.version;
    const active = document.activeElement;
    if (!$("prompt").open && !(active && active.closest && active.closest("#social, #end"))) {
      setTimeout(() => (rb.hidden ? $("home-btn") : rb).focus({ preventScroll: true }), 50);
    }
  }
}

function renderScores(room) {
  const table = $("scores");
  table.innerHTML = "";
  const head = table.createTHead().insertRow();
  for (const t of ["Player", "Points"]) {
    const th = el("th", "", t);
    th.scope = "col";
    head.appendChild(th);
  }
  const body = table.createTBody();
  room.seats.forEach((s, i) => {
    const row = body.insertRow();
    row.insertCell().textContent = s.nickname || `Player ${i + 1}`;
    const cell = row.insertCell();
    cell.className = "num";
    cell.textContent = String(room.scores[i]);
  });
  table.createCaption().textContent = room.mode === "match" ? `Match to ${room.rules.target_score} · round ${room.round}` : "Single round";
}

// -- motion -------------------------------------------------------------------------------------

function rectOf(node) { return node ? node.getBoundingClientRect() : null; }

function seatRect(seat) {
  if (seat === app.seat) return rectOf($("hand"));
  return rectOf(document.querySelector(`#seat-ring .seat[data-seat="${seat}"] .ring`));
}

function captureRects(events) {
  // Before the new state replaces the hand: where each of my played cards was.
  const out = {};
  for (const e of events || []) {
    if (e.type === "played" && e.seat === app.seat) {
      const c = document.querySelector(`#hand .card[data-code="${CSS.escape(e.card)}"]`);
      if (c) out.played = c.getBoundingClientRect();
    }
  }
  return out;
}

function fly(node, from, to, delay = 0, duration = 380) {
  if (!from || !to) return;
  node.classList.add("ghost");
  node.style.left = `${from.left + from.width / 2}px`;
  node.style.top = `${from.top + from.height / 2}px`;
  document.body.appendChild(node);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const anim = node.animate(
    [{ transform: "translate(-50%, -50%) scale(0.9) rotate(-8deg)", opacity: 0.95 },
      { transform: `translate(calc(${dx}px - 50%), calc(${dy}px - 50%)) scale(1) rotate(0deg)`, opacity: 1 }],
    { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "both" });
  anim.onfinish = () => node.remove();
  anim.oncancel = () => node.remove();
}

function animate(events, rects, before) {
  if (reducedMotion() || document.hidden) return;
  const pile = rectOf($("discard"));
  const deck = rectOf($("draw-btn"));
  let delay = 0;
  for (const e of events) {
    if (e.type === "played") {
      const from = e.seat === app.seat ? rects.played || seatRect(e.seat) : seatRect(e.seat);
      fly(cardEl(e.card), from, pile, delay);
      delay += 120;
    } else if (e.type === "drew") {
      const to = seatRect(e.seat);
      const k = Math.min(e.count, 6);
      for (let i = 0; i < k; i++) fly(backEl(), deck, to, delay + i * 70, 320);
      delay += 80 * k;
    } else if (e.type === "knocked_out") {
      const s = document.querySelector(`#seat-ring .seat[data-seat="${e.seat}"]`);
      if (s) s.animate([{ transform: "translate(-50%,-50%) rotate(0)" }, { transform: "translate(-50%,-50%) rotate(-6deg) scale(1.1)" }, { transform: "translate(-50%,-50%) rotate(5deg)" }, { transform: "translate(-50%,-50%) rotate(0)" }], { duration: 600, delay });
      const stamp = el("span", "stamp", "OUT");
      if (s) { s.appendChild(stamp); setTimeout(() => stamp.remove(), 2500); }
    } else if (e.type === "hands_swapped") {
      const a = seatRect(e.seat);
      const b = seatRect(e.target);
      for (let i = 0; i < 3; i++) { fly(backEl(), a, b, delay + i * 60, 500); fly(backEl(), b, a, delay + i * 60, 500); }
      delay += 300;
    } else if (e.type === "hands_passed" && before) {
      for (let s = 0; s < before.players; s++) {
        if (!before.active[s]) continue;
        let t = (s + e.direction + before.players) % before.players;
        while (!before.active[t] && t !== s) t = (t + e.direction + before.players) % before.players;
        fly(backEl(), seatRect(s), seatRect(t), delay, 520);
      }
      delay += 300;
    } else if (e.type === "reversed") {
      $("dir").querySelector("svg").animate([{ opacity: 0.2, scale: "1.35" }, { opacity: 1, scale: "1" }], { duration: 600, easing: "ease-out" });
    } else if (e.type === "uno") {
      bubble(e.seat, "UNO!");
    } else if (e.type === "caught") {
      bubble(e.seat, "Caught!");
      bubble(e.by, "Gotcha!");
    }
  }
  for (const e of events) if (e.type === "played" && e.uno && !events.some((u) => u.type === "uno")) bubble(e.seat, "UNO!");
}

// -- wiring --------------------------------------------------------------------------------

function leaveToHome() {
  location.href = "/";
}

function wire() {
  renderSoundButton();
  $("sound-btn").addEventListener("click", () => {
    app.muted = !app.muted;
    localStorage.setItem("nomercy:muted", app.muted ? "1" : "0");
    renderSoundButton();
    sound.play("play");
  });
  $("draw-btn").addEventListener("click", () => {
    const acts = legal();
    if (acts.includes("take")) act("take");
    else if (acts.includes("draw")) act("draw");
  });
  $("take-btn").addEventListener("click", () => { if (legal().includes("take")) act("take"); });
  $("challenge-btn").addEventListener("click", () => { if (legal().includes("challenge")) act("challenge"); });
  $("pass-btn").addEventListener("click", () => act("pass"));
  $("uno-btn").addEventListener("click", () => {
    if (legal().includes("uno")) { act("uno"); return; }
    app.unoArmed = !app.unoArmed;
    renderButtons(app.state);
    toast(app.unoArmed ? "UNO is ready: your next play calls it." : "UNO call cancelled.");
  });
  const catchNow = () => {
    const a = $("catch-btn").dataset.action;
    if (a) act(a);
  };
  $("catch-btn").addEventListener("click", catchNow);
  $("prompt-catch").addEventListener("click", catchNow);
  $("prompt").addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (k === "c" && !$("prompt-catch").hidden) { catchNow(); return; }
    // A colour question answers to the letters its buttons show, R Y G B, as the table does.
    const swatch = [...$("prompt-choices").querySelectorAll("button.swatch")].find((b) => b.value.toLowerCase() === k);
    if (swatch) { e.preventDefault(); swatch.click(); }
  });
  for (const b of $("color-pick").querySelectorAll("button")) b.addEventListener("click", () => act(`color ${b.dataset.color}`));
  $("sort-btn").addEventListener("click", () => {
    app.sort = app.sort === "colour" ? "face" : app.sort === "face" ? "none" : "colour";
    localStorage.setItem("nomercy:sort", app.sort);
    if (app.state) renderHand(app.state);
  });
  $("start-btn").addEventListener("click", async () => {
    try { await api(`/api/rooms/${app.code}/start`, {}, app.token); } catch (err) { toast(err.message); }
  });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("invite-link").value); toast("Invite link copied."); } catch {
      $("invite-link").select();
    }
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text && send({ type: "chat", text })) $("chat-text").value = "";
  });
  for (const [key, label] of Object.entries(REACTION_TEXT)) {
    const b = el("button", "", label);
    b.type = "button";
    b.addEventListener("click", () => send({ type: "react", reaction: key }));
    $("reactions").appendChild(b);
  }
  $("rematch-btn").addEventListener("click", async () => {
    const me = app.room && app.seat !== null ? app.room.seats[app.seat] : null;
    if (!me) return;
    if (me.host) {
      try { await api(`/api/rooms/${app.code}/rematch`, {}, app.token); } catch (err) { toast(err.message); }
    } else {
      send({ type: "rematch", ready: !(app.room.rematch || []).includes(app.seat) });
    }
  });
  $("newroom-btn").addEventListener("click", () => { location.href = "/#create"; });
  $("home-btn").addEventListener("click", leaveToHome);
  $("end-hide").addEventListener("click", () => {
    app.endHidden = true;
    renderTable();
  });
  $("hand").addEventListener("keydown", (e) => {
    const cards = [...$("hand").querySelectorAll(".card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    let j = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = Math.min(cards.length - 1, i + 1);
    if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = Math.max(0, i - 1);
    if (e.key === "Home") j = 0;
    if (e.key === "End") j = cards.length - 1;
    if (j !== null) {
      e.preventDefault();
      cards[i].tabIndex = -1;
      cards[j].tabIndex = 0;
      cards[j].focus();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
    if ($("screen-table").hidden || !app.online || app.paused) return;
    const k = e.key.toLowerCase();
    const picking = !$("color-pick").hidden;
    if (picking && "rygb".includes(k) && k.length === 1) { act(`color ${k.toUpperCase()}`); return; }
    if (k === "d" && !$("draw-btn").disabled) $("draw-btn").click();
    else if (k === "u" && !$("uno-btn").disabled) $("uno-btn").click();
    else if (k === "c" && !$("catch-btn").disabled) $("catch-btn").click();
    else if (k === "p" && !$("pass-btn").hidden) $("pass-btn").click();
    else if (k === "x" && !$("challenge-btn").hidden) $("challenge-btn").click();
    else if (k === "t" && !$("take-btn").hidden) $("take-btn").click();
    else if (k === "h") { const first = $("hand").querySelector("[tabindex='0']") || $("hand").querySelector(".card"); if (first) first.focus(); }
  });
  setInterval(updateRing, 250);
  window.addEventListener("popstate", () => location.reload());
  let resize = null;
  window.addEventListener("resize", () => { clearTimeout(resize); resize = setTimeout(() => { if (app.state) renderHand(app.state); }, 150); });
}

async function main() {
  wire();
  await initHome();
  const m = location.pathname.match(/^\/join\/([2-9A-HJ-NP-Za-hj-np-z]{6})$/);
  if (m) {
    const code = m[1].toUpperCase();
    $("join-code").value = code;
    if (loadSeat(code)) { enterRoom(code); return; }
    const removed = loadRemoved(code);
    if (removed) { app.removedSeat = removed.seat; enterRoom(code, true); showRemovedNote(); return; }
    show("home");
    $("join-form").classList.add("invited");
    $("join-nick").focus();
    return;
  }
  show("home");
  if (location.hash === "#create") $("create-nick").focus();
}

main().catch((err) => toast(String(err)));
