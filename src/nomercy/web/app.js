// nomercy browser client. No build step, no framework, no external assets.
// Everything shown comes from the server's messages (docs/protocol.md); text from other
// players (nicknames, chat) is only ever set with textContent, never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const COLORS = { R: "Red", Y: "Yellow", G: "Green", B: "Blue" };
const FACES = {
  S: ["⊘", "Skip"], R: ["⇄", "Reverse"], "+2": ["+2", "Draw 2"], "+4": ["+4", "Draw 4"],
  DA: ["ALL", "Discard All"], SE: ["⊘⊘", "Skip Everyone"],
};
const WILDS = {
  "WR+4": ["⇄+4", "Wild Reverse Draw 4"], "W+6": ["+6", "Wild Draw 6"], "W+10": ["+10", "Wild Draw 10"],
  WCR: ["?", "Wild Color Roulette"], W: ["W", "Wild"], "W+4": ["+4", "Wild Draw 4"],
};
const REACTION_TEXT = { gg: "GG", wow: "Wow!", ouch: "Ouch", haha: "Haha", hurry: "Hurry up", oops: "Oops" };

const app = {
  options: null, code: null, seat: null, token: null, ws: null, room: null, state: null,
  version: 0, colorAsked: null, unoArmed: false, retry: 0, kicked: false, msgId: 0, deadlineAt: null,
};

// -- cards ------------------------------------------------------------------------------

function cardParts(code) {
  if (WILDS[code]) return { color: "W", symbol: WILDS[code][0], name: WILDS[code][1], letter: "W" };
  const color = code[0];
  const face = code.slice(1);
  const f = FACES[face];
  return {
    color, letter: color, symbol: f ? f[0] : face,
    name: `${COLORS[color] || color} ${f ? f[1] : face}`,
  };
}

function cardEl(code, tag = "div", extra = "") {
  const p = cardParts(code);
  const el = document.createElement(tag);
  el.className = `card c-${p.color} ${extra}`.trim();
  el.dataset.code = code;
  const face = document.createElement("span");
  face.className = p.symbol.length >= 3 ? "face long" : "face";
  face.textContent = p.symbol;
  for (const cls of ["corner", "corner br"]) {
    const c = document.createElement("span");
    c.className = cls;
    c.textContent = `${p.letter}${p.color === "W" ? "" : p.symbol.length <= 2 ? p.symbol : ""}`;
    c.setAttribute("aria-hidden", "true");
    el.appendChild(c);
  }
  el.appendChild(face);
  el.setAttribute("aria-label", p.name);
  if (tag !== "button") el.setAttribute("role", "img");
  return el;
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
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

function saveSeat(code, seat, token) {
  localStorage.setItem(`nomercy:seat:${code}`, JSON.stringify({ seat, token }));
}

function loadSeat(code) {
  try { return JSON.parse(localStorage.getItem(`nomercy:seat:${code}`) || "null"); } catch { return null; }
}

// -- screens ------------------------------------------------------------------------------

function show(name) {
  for (const s of ["home", "lobby", "table"]) $(`screen-${s}`).hidden = s !== name;
}

async function initHome() {
  const opts = app.options = await api("/api/options");
  const preset = $("preset");
  for (const name of Object.keys(opts.presets)) preset.add(new Option(name.replace("_", " "), name));
  for (const b of opts.bots) $("bot").add(new Option(b, b));
  $("bot").value = opts.bots.includes("heuristic") ? "heuristic" : opts.bots[0];
  const box = $("rules-box");
  for (const r of opts.rules) {
    const label = document.createElement("label");
    label.title = r.doc;
    let input;
    if (r.type === "bool") {
      label.className = "bool";
      input = document.createElement("input");
      input.type = "checkbox";
      label.append(input, document.createTextNode(r.name.replaceAll("_", " ")));
    } else {
      label.textContent = r.name.replaceAll("_", " ");
      if (r.type === "choice") {
        input = document.createElement("select");
        for (const c of r.choices) input.add(new Option(c, c));
      } else {
        input = document.createElement("input");
        input.type = "number";
        input.min = "0";
        if (r.nullable) input.placeholder = "off";
      }
      label.appendChild(input);
    }
    input.dataset.rule = r.name;
    input.dataset.kind = r.type;
    const doc = document.createElement("span");
    doc.className = "visually-hidden";
    doc.textContent = r.doc;
    label.appendChild(doc);
    box.appendChild(label);
  }
  const fillPreset = () => {
    const values = opts.presets[preset.value];
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
  preset.addEventListener("change", fillPreset);
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
  const values = app.options.presets[$("preset").value];
  const out = {};
  for (const input of $("rules-box").querySelectorAll("[data-rule]")) {
    const name = input.dataset.rule;
    let v;
    if (input.type === "checkbox") v = input.checked;
    else if (input.dataset.kind === "int") v = input.value === "" ? null : Number(input.value);
    else v = input.value;
    if (v !== values[name]) out[name] = v;
  }
  return out;
}

async function createRoom() {
  const nickname = $("create-nick").value.trim();
  localStorage.setItem("nomercy:nickname", nickname);
  try {
    const res = await api("/api/rooms", {
      nickname, preset: $("preset").value, rules: collectRules(), seats: Number($("seats").value),
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
    $("conn").textContent = app.kicked ? "removed from the table" : "offline: reconnecting…";
    if (app.kicked) return;
    const delay = Math.min(10000, 500 * 2 ** app.retry++);
    setTimeout(connect, delay);
  };
}

function send(msg) {
  if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify(msg));
}

function act(action) {
  send({ type: "action", action, version: app.version, id: `m${++app.msgId}` });
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      app.retry = 0;
      app.seat = msg.seat;
      document.body.classList.toggle("spectator", msg.seat === null);
      $("conn").textContent = msg.seat === null ? "watching" : "connected";
      onRoom(msg.room);
      break;
    case "room": onRoom(msg.room); break;
    case "state": onState(msg); break;
    case "chat": addChat(msg.nickname, msg.text); break;
    case "reaction": addChat(msg.nickname, REACTION_TEXT[msg.reaction] || msg.reaction, true); break;
    case "kicked": app.kicked = true; toast(msg.message); break;
    case "paused": $("conn").textContent = "paused: the server cannot save moves, retrying…"; toast(msg.message); break;
    case "resumed": $("conn").textContent = app.seat === null ? "watching" : "connected"; toast("the game goes on"); break;
    case "error": onError(msg); break;
    default: break;
  }
}

function onError(msg) {
  if (msg.code === "stale") return; // a newer state is on its way
  if (msg.code === "room_moving") { $("conn").textContent = "moving to another server: reconnecting…"; return; }
  if (msg.code === "unauthorized" || msg.code === "not_found") {
    localStorage.removeItem(`nomercy:seat:${app.code}`);
    app.ws.onclose = null;
    app.ws.close();
    show("home");
    $("join-code").value = app.code || "";
  }
  toast(msg.message.replace(/\bP(\d+)\b/g, (_, n) => nameOf(Number(n))));
}

function nameOf(seat) {
  const s = app.room && app.room.seats[seat];
  return (s && s.nickname) || `P${seat}`;
}

function onRoom(room) {
  app.room = room;
  if (room.status === "lobby") { renderLobby(room); show("lobby"); return; }
  show("table");
  renderScores(room);
  if (app.state) renderTable();
}

function renderLobby(room) {
  $("lobby-code").textContent = room.code;
  $("invite-link").value = `${location.origin}/join/${room.code}`;
  const list = $("lobby-seats");
  list.innerHTML = "";
  const me = app.seat !== null ? room.seats[app.seat] : null;
  for (const s of room.seats) {
    const li = document.createElement("li");
    const name = document.createElement("span");
    name.textContent = s.kind === "open" ? "open seat" : s.nickname;
    li.appendChild(name);
    const tags = [s.host ? "host" : null, s.kind === "bot" ? "bot" : null, s.seat === app.seat ? "you" : null,
      s.kind === "human" && !s.connected ? "away" : null].filter(Boolean);
    for (const t of tags) {
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = t;
      li.appendChild(tag);
    }
    if (me && me.host && s.kind === "human" && s.seat !== app.seat) li.appendChild(kickButton(s));
    list.appendChild(li);
  }
  const host = me && me.host;
  $("start-btn").hidden = !host;
  $("lobby-note").textContent = host ? "Open seats get bots when you start." : "The host starts the game.";
}

function kickButton(s) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link";
  b.textContent = "remove";
  b.setAttribute("aria-label", `Remove ${s.nickname}`);
  b.addEventListener("click", async () => {
    try { await api(`/api/rooms/${app.code}/kick`, { seat: s.seat }, app.token); } catch (err) { toast(err.message); }
  });
  return b;
}

// -- the table -------------------------------------------------------------------------------

function onState(msg) {
  app.version = msg.version;
  app.deadlineAt = msg.deadline === null || msg.deadline === undefined ? null : Date.now() + msg.deadline * 1000;
  if (msg.snapshot) $("log").innerHTML = "";
  for (const e of msg.events) addLog(e);
  if (!msg.view) return;
  const before = app.state;
  app.state = msg.view;
  if (before && before.step > msg.view.step) app.unoArmed = false; // a new round
  if (app.room && app.room.status !== "lobby") show("table");
  renderTable();
}

function addLog(e) {
  const li = document.createElement("li");
  li.textContent = e.text.replace(/P(\d+)/g, (_, n) => nameOf(Number(n)));
  const log = $("log");
  log.appendChild(li);
  while (log.children.length > 150) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;
}

function addChat(who, text, reaction = false) {
  const li = document.createElement("li");
  const w = document.createElement("span");
  w.className = "who";
  w.textContent = who;
  const t = document.createElement(reaction ? "em" : "span");
  t.textContent = text;
  li.append(w, t);
  const chat = $("chat");
  chat.appendChild(li);
  while (chat.children.length > 100) chat.removeChild(chat.firstChild);
  chat.scrollTop = chat.scrollHeight;
}

function legal() { return (app.state && app.state.legal_actions) || []; }

function renderTable() {
  const v = app.state;
  if (!v) return;
  const rules = (app.room && app.room.rules) || {};
  const mercy = rules.mercy_limit;
  // status line
  const status = $("status");
  status.innerHTML = "";
  const line = document.createElement("span");
  if (v.outcome) {
    $("scores").closest("details").open = true;
    const w = app.room && app.room.match_winner;
    line.className = "banner";
    line.textContent = `${nameOf(v.outcome.winner)} won the round (${v.outcome.reason.replace("_", " ")})` +
      (w !== null && w !== undefined && app.room.mode === "match" ? ` · ${nameOf(w)} wins the match!` : "");
  } else if (v.current_player === app.seat) {
    line.className = "you";
    line.textContent = `Your turn: ${decisionText(v)}`;
  } else {
    line.textContent = `${nameOf(v.current_player)} is ${v.decision === "stack" ? "facing the stack" : "playing"}…`;
  }
  status.appendChild(line);
  // players
  const opps = $("opponents");
  opps.innerHTML = "";
  for (let s = 0; s < v.players; s++) {
    const div = document.createElement("div");
    const info = app.room ? app.room.seats[s] : null;
    div.className = "opp" + (s === v.current_player ? " turn" : "") + (s === app.seat ? " me" : "") + (v.active[s] ? "" : " out");
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = (s === app.seat ? "You · " : "") + nameOf(s);
    const count = document.createElement("div");
    count.className = "count";
    const n = v.hand_sizes[s];
    count.textContent = v.active[s] ? `${n} card${n === 1 ? "" : "s"}` : "knocked out";
    const flags = document.createElement("div");
    flags.className = "flags";
    const f = [];
    if (info && info.kind === "bot") f.push("bot");
    if (info && info.standin) f.push("bot playing");
    if (info && info.kind === "human" && !info.connected) f.push("away");
    if ((v.uno_open || []).includes(s)) f.push("no UNO call!");
    flags.textContent = f.join(" · ");
    div.append(name, count);
    if (mercy && v.active[s] && n >= mercy - 5) {
      const warn = document.createElement("div");
      warn.className = "mercy";
      warn.textContent = `⚠ Mercy at ${mercy}`;
      div.appendChild(warn);
    }
    div.appendChild(flags);
    const me = app.room && app.seat !== null ? app.room.seats[app.seat] : null;
    if (me && me.host && info && info.kind === "human" && s !== app.seat) div.appendChild(kickButton(info));
    div.setAttribute("aria-label", `${name.textContent}: ${count.textContent}${s === v.current_player ? ", deciding now" : ""}`);
    opps.appendChild(div);
  }
  // piles
  const top = $("top-card");
  const fresh = cardEl(v.top, "div", "big");
  fresh.id = "top-card";
  fresh.setAttribute("aria-label", `Top card: ${cardParts(v.top).name}`);
  top.replaceWith(fresh);
  const chip = $("color-chip");
  chip.className = `chip color-${v.color || ""}`;
  chip.textContent = v.color ? `Color: ${COLORS[v.color]} (${v.color})` : "Color: —";
  $("direction").textContent = v.direction === 1 ? "↻ clockwise" : "↺ counter-clockwise";
  const pending = $("pending");
  pending.hidden = !v.pending_total;
  pending.textContent = `Stack: +${v.pending_total}`;
  $("drawsize").textContent = `Draw pile: ${v.draw_pile_size}`;
  renderHand(v);
  renderButtons(v);
  if (v.current_player === app.seat && (v.decision === "choose_color" || v.decision === "roulette")
      && app.colorAsked !== app.version) {
    app.colorAsked = app.version;
    const title = v.decision === "roulette" ? "Color Roulette: name the color to turn up" : "Name the color in play";
    askColor(title).then((c) => { if (c) act(`color ${c}`); });
  }
}

function decisionText(v) {
  switch (v.decision) {
    case "stack": return `stack a Draw card or take +${v.pending_total}`;
    case "play_drawn": return "play the card you drew";
    case "choose_color": return "name a color";
    case "roulette": return "name a color for the Roulette";
    default: return "play a card or draw";
  }
}

function renderHand(v) {
  const hand = $("hand");
  const focused = document.activeElement && document.activeElement.closest("#hand") ? document.activeElement.dataset.index : null;
  hand.innerHTML = "";
  const acts = legal();
  const playable = new Set(acts.filter((a) => a.startsWith("play ")).map((a) => a.split(" ")[1]));
  $("hand-count").textContent = `(${v.hand.length})`;
  v.hand.forEach((code, i) => {
    const ok = playable.has(code) && (v.decision !== "play_drawn" || code === v.drawn);
    const b = cardEl(code, "button", ok ? "playable" : "");
    if (v.drawn === code && v.decision === "play_drawn") b.classList.add("drawn");
    b.type = "button";
    b.dataset.index = String(i);
    b.tabIndex = i === Number(focused || 0) ? 0 : -1;
    b.setAttribute("aria-label", `${cardParts(code).name}${ok ? ", playable" : ""}`);
    b.setAttribute("aria-disabled", ok ? "false" : "true");
    if (ok) {
      const tick = document.createElement("span");
      tick.className = "tick";
      tick.textContent = "▲";
      tick.setAttribute("aria-hidden", "true");
      b.appendChild(tick);
    }
    b.addEventListener("click", () => playCard(code));
    hand.appendChild(b);
  });
  if (focused !== null) {
    const el = hand.children[Math.min(Number(focused), hand.children.length - 1)];
    if (el) el.focus();
  }
}

function renderButtons(v) {
  const acts = legal();
  const draw = $("draw-btn");
  if (acts.includes("take")) {
    draw.textContent = `Take +${v.pending_total}`;
    draw.disabled = false;
  } else {
    draw.textContent = "Draw";
    draw.disabled = !acts.includes("draw");
  }
  $("pass-btn").hidden = !acts.includes("pass");
  const uno = $("uno-btn");
  const canCall = acts.includes("uno");
  const canArm = v.current_player === app.seat && acts.some((a) => a.endsWith(" uno"));
  uno.disabled = !(canCall || canArm);
  if (!canArm) app.unoArmed = false;
  uno.setAttribute("aria-pressed", app.unoArmed ? "true" : "false");
  uno.textContent = canCall ? "UNO! (call now)" : "UNO!";
  const c = acts.find((a) => a.startsWith("catch "));
  const catchBtn = $("catch-btn");
  catchBtn.disabled = !c;
  catchBtn.dataset.action = c || "";
  catchBtn.textContent = c ? `Catch ${nameOf(Number(c.split(" ")[1]))}!` : "Catch";
}

async function playCard(code) {
  let options = legal().filter((a) => a.startsWith(`play ${code}`) && a.split(" ")[1] === code);
  if (!options.length) { toast(`${cardParts(code).name} cannot be played now.`); return; }
  const withUno = options.filter((a) => a.endsWith(" uno"));
  const without = options.filter((a) => !a.endsWith(" uno"));
  options = app.unoArmed && withUno.length ? withUno : without.length ? without : withUno;
  const colors = [...new Set(options.map((a) => a.split(" ")[2]).filter((w) => w && COLORS[w]))];
  let chosen = options;
  if (colors.length > 1) {
    const c = await askColor(`${cardParts(code).name}: name the color`);
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

function askColor(title) {
  return askChoice(title, Object.entries(COLORS).map(([k, name]) => [k, `${name} (${k})`]), "c-");
}

function askChoice(title, choices, cls = "") {
  const dlg = $("prompt");
  if (dlg.open) dlg.close("cancel");
  $("prompt-title").textContent = title;
  const box = $("prompt-choices");
  box.innerHTML = "";
  for (const [value, label] of choices) {
    const b = document.createElement("button");
    b.value = value;
    b.textContent = label;
    if (cls) b.className = cls + value;
    box.appendChild(b);
  }
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue && dlg.returnValue !== "cancel" ? dlg.returnValue : null), { once: true });
    dlg.returnValue = "";
    dlg.showModal();
    box.firstChild.focus();
  });
}

function renderScores(room) {
  const table = $("scores");
  table.innerHTML = "";
  const head = table.insertRow();
  for (const t of ["Player", "Points"]) {
    const th = document.createElement("th");
    th.textContent = t;
    head.appendChild(th);
  }
  room.seats.forEach((s, i) => {
    const row = table.insertRow();
    row.insertCell().textContent = s.nickname || `P${i}`;
    const cell = row.insertCell();
    cell.className = "num";
    cell.textContent = String(room.scores[i]);
  });
  const info = table.createCaption();
  info.textContent = room.mode === "match" ? `Match to ${room.rules.target_score} · round ${room.round}` : "Single round";
}

// -- wiring --------------------------------------------------------------------------------

function wire() {
  $("draw-btn").addEventListener("click", () => {
    const acts = legal();
    act(acts.includes("take") ? "take" : "draw");
  });
  $("pass-btn").addEventListener("click", () => act("pass"));
  $("uno-btn").addEventListener("click", () => {
    if (legal().includes("uno")) { act("uno"); return; }
    app.unoArmed = !app.unoArmed;
    $("uno-btn").setAttribute("aria-pressed", app.unoArmed ? "true" : "false");
    toast(app.unoArmed ? "UNO armed: your next play calls it." : "UNO disarmed.");
  });
  $("catch-btn").addEventListener("click", () => {
    const a = $("catch-btn").dataset.action;
    if (a) act(a);
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
    if (text) send({ type: "chat", text });
    $("chat-text").value = "";
  });
  for (const [key, label] of Object.entries(REACTION_TEXT)) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", () => send({ type: "react", reaction: key }));
    $("reactions").appendChild(b);
  }
  $("hand").addEventListener("keydown", (e) => {
    const cards = [...$("hand").children];
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
    if ($("screen-table").hidden) return;
    const k = e.key.toLowerCase();
    if (k === "d" && !$("draw-btn").disabled) $("draw-btn").click();
    else if (k === "u" && !$("uno-btn").disabled) $("uno-btn").click();
    else if (k === "c" && !$("catch-btn").disabled) $("catch-btn").click();
    else if (k === "p" && !$("pass-btn").hidden) $("pass-btn").click();
    else if (k === "h") { const first = $("hand").querySelector("[tabindex='0']") || $("hand").firstChild; if (first) first.focus(); }
  });
  setInterval(() => {
    const t = $("timer");
    if (app.deadlineAt === null || !app.state || app.state.outcome) { t.hidden = true; return; }
    const left = Math.max(0, Math.ceil((app.deadlineAt - Date.now()) / 1000));
    t.hidden = false;
    t.textContent = `Timer: ${left} s`;
  }, 250);
  window.addEventListener("popstate", () => location.reload());
}

async function main() {
  wire();
  await initHome();
  const m = location.pathname.match(/^\/join\/([2-9A-HJ-NP-Za-hj-np-z]{6})$/);
  if (m) {
    const code = m[1].toUpperCase();
    $("join-code").value = code;
    if (loadSeat(code)) { enterRoom(code); return; }
    show("home");
    $("join-nick").focus();
    return;
  }
  show("home");
}

main().catch((err) => toast(String(err)));
