// The play flow through the controller, in Node: a fake server that answers `hello` and
// `action` as the real one does (docs/protocol.md), an in-memory transport, the real hand
// view (js/hand.js) drawn into a tiny DOM. A click on a card, the question it leaves open,
// the action sent with its version, the state that comes back and the hand drawn from it.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

// -- a tiny DOM: what the hand and its buttons use, nothing more ----------------------------

class El {
  constructor(tag, doc) {
    this.tagName = tag.toUpperCase();
    this.ownerDocument = doc;
    this.childNodes = [];
    this.parentNode = null;
    this.attrs = {};
    this.dataset = {};
    this.style = { setProperty(k, v) { this[k] = v; } };
    this.listeners = {};
    this.classes = new Set();
    this.text = "";
    this.hidden = false;
    this.disabled = false;
    this.clientWidth = 0;
    const classes = this.classes;
    this.classList = {
      add: (...c) => c.forEach((x) => classes.add(x)),
      remove: (...c) => c.forEach((x) => classes.delete(x)),
      contains: (c) => classes.has(c),
      toggle: (c, on = !classes.has(c)) => { if (on) classes.add(c); else classes.delete(c); return on; },
    };
  }
  get className() { return [...this.classes].join(" "); }
  set className(v) { this.classes.clear(); for (const c of String(v).split(/\s+/)) if (c) this.classes.add(c); }
  get id() { return this.attrs.id || ""; }
  set id(v) { this.attrs.id = String(v); }
  get children() { return this.childNodes.filter((c) => c instanceof El); }
  get firstChild() { return this.childNodes[0] || null; }
  get textContent() { return this.text + this.childNodes.map((c) => (c instanceof El ? c.textContent : c.text)).join(""); }
  set textContent(v) { this.childNodes = []; this.text = String(v); }
  set innerHTML(_v) { this.childNodes = []; this.text = ""; }
  adopt(c) {
    const n = typeof c === "string" ? { text: c } : c;
    if (n.parentNode) n.parentNode.removeChild(n);
    n.parentNode = this;
    return n;
  }
  appendChild(c) { const n = this.adopt(c); this.childNodes.push(n); return n; }
  append(...cs) { for (const c of cs) this.appendChild(c); }
  prepend(c) { const n = this.adopt(c); this.childNodes.unshift(n); return n; }
  removeChild(c) { this.childNodes = this.childNodes.filter((x) => x !== c); c.parentNode = null; return c; }
  replaceChildren(...cs) { this.childNodes = []; this.text = ""; this.append(...cs); }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  removeAttribute(k) { delete this.attrs[k]; }
  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
  dispatch(type, init = {}) {
    const e = { type, target: this, detail: 1, clientX: 0, clientY: 0, preventDefault() {}, ...init };
    for (let n = this; n; n = n.parentNode || (n === this.ownerDocument.documentElement ? this.ownerDocument : null)) {
      for (const fn of n.listeners[type] || []) fn(e);
      if (n === this.ownerDocument) break;
    }
  }
  click(init) { this.dispatch("click", init); }
  focus() { this.ownerDocument.activeElement = this; }
  matches(sel) {
    const m = /^([a-z]*)((?:[#.][\w-]+)*)$/i.exec(sel.trim());
    if (!m) throw new Error(`the tiny DOM cannot match ${sel}`);
    if (m[1] && m[1].toUpperCase() !== this.tagName) return false;
    for (const part of m[2].match(/[#.][\w-]+/g) || []) {
      if (part[0] === "#" ? this.id !== part.slice(1) : !this.classes.has(part.slice(1))) return false;
    }
    return true;
  }
  *walk() { for (const c of this.children) { yield c; yield* c.walk(); } }
  querySelectorAll(sel) { return [...this.walk()].filter((n) => n.matches(sel)); }
  querySelector(sel) { return this.querySelectorAll(sel)[0] || null; }
  closest(sel) { for (let n = this; n instanceof El; n = n.parentNode) if (n.matches(sel)) return n; return null; }
}

class Doc {
  constructor() {
    this.listeners = {};
    this.documentElement = new El("html", this);
    this.body = this.documentElement.appendChild(new El("body", this));
    this.activeElement = this.body;
  }
  createElement(tag) { return new El(tag, this); }
  createElementNS(_ns, tag) { return new El(tag, this); }
  createTextNode(text) { return { text }; }
  getElementById(id) { return this.documentElement.querySelector(`#${id}`); }
  querySelector(sel) { return this.documentElement.querySelector(sel); }
  querySelectorAll(sel) { return this.documentElement.querySelectorAll(sel); }
  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
}

/** The page's parts the hand view draws into (the ids of index.html). */
function page() {
  const doc = new Doc();
  const add = (parent, tag, id, cls = "") => {
    const n = parent.appendChild(doc.createElement(tag));
    if (id) n.id = id;
    if (cls) n.className = cls;
    return n;
  };
  const mine = add(doc.body, "section", "", "mine");
  add(mine, "span", "hand-count");
  add(mine, "div", "hand");
  add(mine, "button", "sort-btn");
  const actions = add(mine, "div", "actions");
  for (const id of ["draw-btn", "take-btn", "challenge-btn", "pass-btn", "uno-btn", "catch-btn"]) add(actions, "button", id);
  const pick = add(actions, "div", "color-pick");
  add(pick, "span", "color-pick-title");
  for (const c of "RYGB") add(pick, "button").dataset.color = c;
  add(mine, "p", "why");
  globalThis.document = doc;
  globalThis.window = { innerWidth: 1280 };
  return doc;
}

page(); // the modules below find a document when they draw, not when they load
const { createStore, initialState } = await import("../../src/nomercy/web/js/store.js");
const { createCtrl, memoryStorage } = await import("../../src/nomercy/web/js/ctrl.js");
const { memoryTransport } = await import("../../src/nomercy/web/js/transport.js");
const { renderButtons, renderHand, wireHand } = await import("../../src/nomercy/web/js/hand.js");

const catalog = (lang) => ({
  ...JSON.parse(readFileSync(new URL(`../../src/nomercy/i18n/catalogs/${lang}/game.json`, import.meta.url))),
  ...JSON.parse(readFileSync(new URL(`../../src/nomercy/i18n/catalogs/${lang}/web.json`, import.meta.url))),
});

// -- a fake server: a two-seat table whose next states are written out ----------------------

const line = (key, params = {}) => ({ key, params });
const play = (card, color = null) => ({
  action: color ? `play ${card} ${color}` : `play ${card}`, kind: "play", card, color, target: null, uno: false,
  label: color ? line("choice.play_color", { card, color }) : line("choice.play", { card }),
  cost: card.startsWith("W+4") ? line("cost.wd4", { seat: 1, count: 4 }) : null,
});
const draw = { action: "draw", kind: "draw", card: null, color: null, target: null, uno: false, label: line("choice.draw"), cost: line("cost.draw_one") };

function table(hand, { deciding = true, plays = [], top = "R5" } = {}) {
  const blocked = hand.filter((c) => !plays.some((p) => p.card === c))
    .map((card) => ({ card, reason: { ...line("reason.no_match", { card, top }), rule: "T1" } }));
  return {
    view: { seat: 0, players: 2, hand, hand_sizes: [hand.length, 5], top, drawn: null, decision: "play", step: 1, active: [true, true], outcome: null },
    decisions: { seat: 0, deciding, prompt: line(deciding ? "prompt.play_or_draw" : "prompt.waiting.play", { seat: 1 }), choices: deciding ? [...plays, draw] : [], blocked: deciding ? blocked : [] },
  };
}

/** The server: `hello` gets welcome, the state (a snapshot) and the chat; an action is
 * checked against the version and the choices, then answered with the state it leads to. */
function fakeServer(first, next) {
  const heard = [];
  let version = 1;
  let current = first;
  const peers = [];
  const room = { code: "ABCDEF", status: "playing", seats: [{ seat: 0, kind: "human", nickname: "Ann" }, { seat: 1, kind: "bot" }], rated: false };
  function serve(peer) {
    peers.push(peer);
    return {
      message(msg) {
        heard.push(msg);
        if (msg.type === "hello") {
          peer.send({ type: "welcome", protocol: 2, seat: 0, room });
          peer.send({ type: "state", ...current, version, events: [], snapshot: true, deadline: null, reveal: null });
          peer.send({ type: "chat_history", messages: [] });
        } else if (msg.type === "action") {
          if (msg.version !== version) { peer.send({ type: "error", code: "stale", message: "stale", ref: msg.id, version }); return; }
          const after = current.decisions.choices.some((c) => c.action === msg.action) && next[msg.action];
          if (!after) { peer.send({ type: "error", code: "illegal_action", message: "no", ref: msg.id, version }); return; }
          version += 1;
          current = after;
          const card = msg.action.split(" ")[1];
          peer.send({ type: "state", ...current, version, snapshot: false, deadline: null, reveal: null,
            events: [{ type: "played", seat: 0, card, line: line("event.played", { seat: 0, card }) }] });
        }
      },
      close() {},
    };
  }
  return { serve, heard, peers, actions: () => heard.filter((m) => m.type === "action") };
}

/** Let every message in flight arrive (the in-memory transport delivers a turn later). */
const settle = () => new Promise((ok) => setTimeout(ok, 0));

async function sitDown(server, answers = []) {
  const doc = page();
  const toasts = [];
  const asked = [];
  const store = createStore(initialState({}));
  const ctx = createCtrl({ store, transport: () => memoryTransport(server.serve), storage: memoryStorage(), ui: { toast: (t) => toasts.push(t) } });
  ctx.useMessages("en", catalog("en"));
  ctx.prompts = {
    askColor(title) { asked.push(title); return Promise.resolve(answers.shift() || null); },
    askChoice(title) { asked.push(title); return Promise.resolve(answers.shift() || null); },
    closeStale() {}, syncCatch() {},
  };
  ctx.view(renderHand);
  ctx.view(renderButtons);
  wireHand(ctx);
  ctx.storage.set("seat:ABCDEF", JSON.stringify({ seat: 0, token: "tok" }));
  ctx.enterRoom("ABCDEF");
  await settle();
  const cards = () => doc.querySelectorAll(".card").map((b) => b.dataset.code);
  const card = (code) => doc.querySelectorAll(".card").find((b) => b.dataset.code === code);
  let x = 0;
  const click = async (node) => { x += 100; node.click({ clientX: x, clientY: 10 }); await settle(); };
  const clickAt = async (node, at) => { node.click({ clientX: at, clientY: 10 }); await settle(); };
  return { doc, store, ctx, toasts, asked, cards, card, click, clickAt };
}

const start = table(["R7", "W+4", "G3"], { plays: [play("R7"), ...["R", "Y", "G", "B"].map((c) => play("W+4", c))] });

test("sitting down: hello carries the room, the token and the protocol; the hand is drawn", async () => {
  const server = fakeServer(start, {});
  const { store, cards, card, doc } = await sitDown(server);
  assert.deepEqual(server.heard[0], { type: "hello", room: "ABCDEF", token: "tok", protocol: 2 });
  assert.equal(store.get().seat, 0);
  assert.equal(store.get().version, 1);
  assert.deepEqual(cards(), ["R7", "G3", "W+4"]); // sorted by colour, wilds last
  assert.ok(card("R7").classList.contains("playable") && card("W+4").classList.contains("playable"));
  assert.ok(card("G3").classList.contains("dim"));
  assert.ok(doc.getElementById("hand").classList.contains("my-turn"));
  assert.equal(doc.getElementById("why").textContent, "Play a card, or draw.");
});

test("a click on a card sends its play with the version; the state that comes back is drawn (T1)", async () => {
  const server = fakeServer(start, { "play R7": table(["W+4", "G3"], { deciding: false }) });
  const { store, cards, card, doc, click } = await sitDown(server);
  await click(card("R7"));
  assert.deepEqual(server.actions(), [{ type: "action", action: "play R7", version: 1, id: "1" }]);
  assert.equal(store.get().version, 2);
  assert.deepEqual(cards(), ["G3", "W+4"]);
  assert.ok(!doc.getElementById("hand").classList.contains("my-turn"));
  assert.ok(!card("W+4").classList.contains("playable"));
  assert.deepEqual(store.get().log.map((e) => e.type), ["played"]);
});

test("the second half of a double tap, landing on the card drawn in the first's place, plays nothing", async (t) => {
  let now = 1000;
  t.mock.method(performance, "now", () => now); // the page's clock, not the machine's
  const server = fakeServer(start, { "play R7": table(["W+4", "G3"], { plays: [play("W+4", "R")] }) });
  const { store, card, clickAt } = await sitDown(server, ["R"]);
  await clickAt(card("R7"), 500);
  assert.equal(store.get().version, 2);
  now += 100;
  await clickAt(card("W+4"), 500); // where R7 was, a moment later
  assert.deepEqual(server.actions().map((m) => m.action), ["play R7"]);
  now += 1000;
  await clickAt(card("W+4"), 500); // a click of its own
  assert.deepEqual(server.actions().map((m) => m.action), ["play R7", "play W+4 R"]);
});

test("a wild asks its colour and sends the play that names it (W1)", async () => {
  const server = fakeServer(start, { "play W+4 G": table(["R7", "G3"], { deciding: false, top: "W+4" }) });
  const { store, asked, cards, card, click } = await sitDown(server, ["G"]);
  await click(card("W+4"));
  assert.deepEqual(asked, ["Wild Draw 4: name the color"]);
  assert.deepEqual(server.actions().map((m) => m.action), ["play W+4 G"]);
  assert.equal(store.get().version, 2);
  assert.deepEqual(cards(), ["R7", "G3"]);
});

test("a question left unanswered sends nothing", async () => {
  const server = fakeServer(start, {});
  const { store, card, click } = await sitDown(server, [null]);
  await click(card("W+4"));
  assert.deepEqual(server.actions(), []);
  assert.equal(store.get().version, 1);
});

test("a card that cannot be played says why, with the server's reason, and sends nothing (T1)", async () => {
  const server = fakeServer(start, {});
  const { toasts, card, doc, click } = await sitDown(server);
  await click(card("G3"));
  assert.deepEqual(server.actions(), []);
  assert.equal(toasts.length, 1);
  assert.match(toasts[0], /neither the color nor the face/);
  assert.equal(doc.getElementById("why").textContent, toasts[0]);
});

test("a colour the table asks for (a wild turned up first, S3) is asked once and sent", async () => {
  const colour = (c) => ({ action: `color ${c}`, kind: "color", card: null, color: c, target: null, uno: false, label: line("choice.color", { color: c }), cost: null });
  const first = table(["R7", "G3"], { plays: [] });
  first.view.decision = "choose_color";
  first.decisions.choices = ["R", "Y", "G", "B"].map(colour);
  const server = fakeServer(first, { "color B": table(["R7", "G3"], { deciding: false }) });
  const { store, asked } = await sitDown(server, ["B"]);
  await settle();
  assert.deepEqual(asked, ["Name the color in play"]); // once, though the chat history drew again
  assert.deepEqual(server.actions().map((m) => [m.action, m.version]), [["color B", 1]]);
  assert.equal(store.get().version, 2);
});

test("the Draw button sends the server's draw choice", async () => {
  const server = fakeServer(start, { draw: table(["R7", "W+4", "G3", "B1"], { deciding: false }) });
  const { cards, doc, click } = await sitDown(server);
  await click(doc.getElementById("draw-btn"));
  assert.deepEqual(server.actions().map((m) => m.action), ["draw"]);
  assert.deepEqual(cards(), ["R7", "G3", "B1", "W+4"]);
});

test("a refused play is told with its card; a stale one only catches the version up", async () => {
  const server = fakeServer(start, {}); // the server knows no next state: it refuses the play
  const { store, toasts, card, click } = await sitDown(server);
  await click(card("R7"));
  assert.deepEqual(toasts, ["Red 7 could not be played: the table had moved on."]);
  assert.equal(store.get().lastError.text, toasts[0]);
  store.set({ version: 0 }); // as if this page had missed a state
  await click(card("R7"));
  assert.equal(server.actions()[1].version, 0);
  assert.equal(store.get().version, 1, "the refusal's version is taken");
  assert.equal(toasts.length, 1, "a stale action is not a mistake to tell");
});

test("a room being entered is connecting, not offline (no overlay before a first connection)", () => {
  const store = createStore(initialState({}));
  const ctx = createCtrl({ store, transport: () => memoryTransport(fakeServer(start, {}).serve) });
  ctx.useMessages("en", catalog("en"));
  ctx.enterRoom("ABCDEF", true);
  assert.equal(store.get().conn, "conn.connecting");
  assert.equal(store.get().online, null);
});

test("a dropped connection says so and comes back with hello again", async (t) => {
  const server = fakeServer(start, {});
  const { store, cards } = await sitDown(server);
  t.mock.timers.enable({ apis: ["setTimeout"] });
  server.peers[0].close();
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(store.get().online, false);
  assert.equal(store.get().conn, "conn.offline");
  t.mock.timers.tick(500); // the first retry's delay (reconnectDelay)
  t.mock.timers.reset();
  await settle();
  assert.equal(server.heard.filter((m) => m.type === "hello").length, 2);
  assert.equal(store.get().online, true);
  assert.equal(store.get().conn, null);
  assert.deepEqual(cards(), ["R7", "G3", "W+4"]);
});

test("views are drawn once for a message that changes several things", async () => {
  const server = fakeServer(start, {});
  const { store, ctx } = await sitDown(server);
  const drawn = mock.fn();
  ctx.view(drawn);
  ctx.handlers.welcome({ type: "welcome", seat: 0, room: store.get().room });
  assert.equal(drawn.mock.callCount(), 1);
});
