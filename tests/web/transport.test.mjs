// The transport seam (js/transport.js) and the room connection built on it (openSocket):
// the in-memory transport behaves as a socket does (opens later, copies what crosses,
// tells both sides of a close), the WebSocket one speaks JSON, and the room connection
// says hello on every open and comes back after a drop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { memoryTransport, roomURL, webSocketTransport } from "../../src/nomercy/web/js/transport.js";
import { PING_MS, SILENCE_MS, openSocket, reconnectDelay } from "../../src/nomercy/web/js/transport.js";

const settle = () => new Promise((ok) => setTimeout(ok, 0));

/** An echo server that notes what it hears and whether the client left. */
function echo() {
  const seen = { peers: [], heard: [], left: 0 };
  seen.serve = (peer) => {
    seen.peers.push(peer);
    return { message(msg) { seen.heard.push(msg); peer.send({ type: "echo", of: msg }); }, close() { seen.left += 1; } };
  };
  return seen;
}

function client(t) {
  const got = { open: 0, close: 0, messages: [] };
  t.connect({ open: () => { got.open += 1; }, message: (m) => got.messages.push(m), close: () => { got.close += 1; } });
  return got;
}

test("the in-memory transport opens a turn later and sends nothing before", async () => {
  const server = echo();
  const t = memoryTransport(server.serve);
  const got = client(t);
  assert.equal(got.open, 0);
  assert.equal(t.send({ type: "ping" }), false);
  await settle();
  assert.equal(got.open, 1);
  assert.equal(t.send({ type: "ping" }), true);
  await settle();
  assert.deepEqual(server.heard, [{ type: "ping" }]);
  assert.deepEqual(got.messages, [{ type: "echo", of: { type: "ping" } }]);
  assert.throws(() => t.connect({}), /once/);
});

test("what crosses is a copy: neither side keeps the other's objects", async () => {
  const server = echo();
  const t = memoryTransport(server.serve);
  const got = client(t);
  await settle();
  const msg = { type: "chat", text: "hi", extra: { n: 1 } };
  t.send(msg);
  msg.extra.n = 2;
  await settle();
  assert.equal(server.heard[0].extra.n, 1);
  assert.notEqual(server.heard[0], msg);
  got.messages[0].of.text = "changed";
  assert.equal(server.heard[0].text, "hi");
});

test("a close by the client reaches the server and the client's own close", async () => {
  const server = echo();
  const t = memoryTransport(server.serve);
  const got = client(t);
  await settle();
  t.close();
  assert.equal(t.send({ type: "ping" }), false);
  await settle();
  assert.deepEqual([got.close, server.left], [1, 1]);
  t.close();
  await settle();
  assert.equal(got.close, 1, "a close is told once");
});

test("a close by the server reaches the client, and nothing after it", async () => {
  const server = echo();
  const t = memoryTransport(server.serve);
  const got = client(t);
  await settle();
  server.peers[0].send({ type: "last" });
  server.peers[0].close();
  assert.equal(server.peers[0].send({ type: "after" }), false);
  await settle();
  assert.deepEqual(got.messages, []);
  assert.equal(got.close, 1);
});

test("a client that leaves before the open never reaches the server", async () => {
  const server = echo();
  const t = memoryTransport(server.serve);
  const got = client(t);
  t.close();
  await settle();
  assert.deepEqual([got.open, got.close, server.peers.length], [0, 1, 0]);
});

test("the WebSocket transport speaks JSON to the room's address and drops what is not JSON", () => {
  const made = [];
  class FakeSocket {
    static OPEN = 1;
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; made.push(this); }
    send(text) { this.sent.push(text); }
    close() { this.readyState = 3; this.onclose(); }
  }
  globalThis.WebSocket = FakeSocket;
  try {
    const url = roomURL({ protocol: "https:", host: "example.org" }, "ABCDEF");
    assert.equal(url, "wss://example.org/ws?room=ABCDEF");
    assert.equal(roomURL({ protocol: "http:", host: "localhost:8000" }, "AB CD"), "ws://localhost:8000/ws?room=AB%20CD");
    const t = webSocketTransport(url);
    const got = client(t);
    const ws = made[0];
    assert.equal(ws.url, url);
    assert.equal(t.send({ type: "ping" }), false, "not open yet");
    ws.readyState = 1;
    ws.onopen();
    assert.equal(t.send({ type: "ping" }), true);
    assert.deepEqual(ws.sent, ['{"type":"ping"}']);
    ws.onmessage({ data: "not json" });
    ws.onmessage({ data: '{"type":"pong"}' });
    assert.deepEqual(got.messages, [{ type: "pong" }]);
    t.close();
    assert.deepEqual([got.open, got.close], [1, 1]);
  } finally {
    delete globalThis.WebSocket;
  }
});

test("the room's connection says hello on each open and comes back after a drop", async (t) => {
  const server = echo();
  const heard = [];
  const closes = [];
  let hellos = 0;
  const sock = openSocket(() => memoryTransport(server.serve), () => ({ type: "hello", n: ++hellos }),
    { echo: (m) => heard.push(m.of) }, { close: () => closes.push(server.peers.length) });
  await settle();
  assert.deepEqual(heard, [{ type: "hello", n: 1 }]);
  assert.equal(sock.send({ type: "ping" }), true);
  await settle();
  assert.deepEqual(heard.at(-1), { type: "ping" });
  t.mock.timers.enable({ apis: ["setTimeout"] });
  server.peers[0].close();
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(closes, [1]);
  t.mock.timers.tick(reconnectDelay(0) - 1);
  assert.equal(server.peers.length, 1, "it waits its delay");
  t.mock.timers.tick(1);
  t.mock.timers.reset();
  await settle();
  assert.equal(server.peers.length, 2);
  assert.deepEqual(heard.at(-1), { type: "hello", n: 2 });
  sock.close();
  await settle();
  assert.deepEqual(closes, [1], "a close asked for is no drop");
  assert.equal(server.left, 2, "the server hears each connection end, whoever ended it");
});

test("a connection that hears nothing is given up and opened again: a frozen server answers no hello", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const peers = [];
  // A server that accepts and never answers (a frozen process), then a live one.
  const frozen = (peer) => { peers.push(peer); return { message() {}, close() {} }; };
  const live = (peer) => {
    peers.push(peer);
    return { message(msg) { peer.send(msg.type === "ping" ? { type: "pong" } : { type: "welcome" }); }, close() {} };
  };
  let opened = 0;
  const drops = [];
  const sock = openSocket(() => memoryTransport(opened++ === 0 ? frozen : live), () => ({ type: "hello" }),
    { welcome: () => {}, pong: () => {} }, { close: () => drops.push(opened) });
  t.mock.timers.tick(1);
  await Promise.resolve();
  await Promise.resolve();
  t.mock.timers.tick(1);
  await Promise.resolve();
  assert.equal(peers.length, 1);
  t.mock.timers.tick(SILENCE_MS - 1000);
  assert.deepEqual(drops, [], "pings while it waits");
  t.mock.timers.tick(PING_MS + 1000);
  assert.deepEqual(drops, [1], "silent too long: given up");
  t.mock.timers.tick(reconnectDelay(0));
  for (let i = 0; i < 4; i++) { t.mock.timers.tick(1); await Promise.resolve(); }
  assert.equal(peers.length, 2, "a new connection");
  for (let ms = 0; ms < SILENCE_MS * 3; ms += PING_MS) {  // ping, pong, ping...
    t.mock.timers.tick(PING_MS);
    for (let i = 0; i < 4; i++) await Promise.resolve();
  }
  assert.deepEqual(drops, [1], "a server that answers its pings is kept");
  sock.close();
});
