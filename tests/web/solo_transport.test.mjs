// The solo table's transport (workerTransport, js/solo/transport.js): the controller's
// connection to the engine in a Web Worker behaves as the other transports do (opens a
// turn later, sends nothing before, hears nothing after its close, closes once), and the
// room connection above it (openSocket) says hello through it and hears the answers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openSocket } from "../../src/nomercy/web/js/transport.js";
import { workerTransport } from "../../src/nomercy/web/js/solo/transport.js";

const settle = () => new Promise((ok) => setTimeout(ok, 0));

/** The page's side of a worker: what was posted, and a way to answer as the worker. */
function fakePort() {
  const port = { posted: [], listeners: new Set() };
  port.post = (msg) => port.posted.push(msg);
  port.listen = (fn) => { port.listeners.add(fn); return () => port.listeners.delete(fn); };
  port.answer = (msg) => { for (const fn of [...port.listeners]) fn(msg); };
  return port;
}

function client(t) {
  const got = { open: 0, close: 0, messages: [] };
  t.connect({ open: () => { got.open += 1; }, message: (m) => got.messages.push(m), close: () => { got.close += 1; } });
  return got;
}

test("it opens a turn later, and sends nothing before", async () => {
  const port = fakePort();
  const t = workerTransport(port);
  const got = client(t);
  assert.equal(got.open, 0);
  assert.equal(t.send({ type: "ping" }), false);
  await settle();
  assert.equal(got.open, 1);
  assert.equal(t.send({ type: "ping" }), true);
  assert.deepEqual(port.posted, [{ type: "ping" }]);
  assert.throws(() => t.connect({}), /once/);
});

test("the worker's messages reach the client until it closes, and it closes once", async () => {
  const port = fakePort();
  const t = workerTransport(port);
  const got = client(t);
  await settle();
  port.answer({ type: "pong" });
  assert.deepEqual(got.messages, [{ type: "pong" }]);
  t.close();
  t.close();
  await settle();
  assert.equal(got.close, 1);
  assert.equal(port.listeners.size, 0);
  port.answer({ type: "pong" });
  assert.equal(got.messages.length, 1);
  assert.equal(t.send({ type: "ping" }), false);
});

test("closed before it opened: it never opens and never reports a close", async () => {
  const port = fakePort();
  const t = workerTransport(port);
  const got = client(t);
  t.close();
  await settle();
  assert.deepEqual([got.open, got.close], [0, 0]);
});

test("the room connection says hello through it and hears the welcome", async () => {
  const port = fakePort();
  const heard = [];
  const socket = openSocket(() => workerTransport(port), () => ({ type: "hello", room: "SOLO", token: null, protocol: 2 }),
    { welcome: (m) => heard.push(m) });
  await settle();
  assert.deepEqual(port.posted, [{ type: "hello", room: "SOLO", token: null, protocol: 2 }]);
  port.answer({ type: "welcome", seat: 0 });
  assert.deepEqual(heard, [{ type: "welcome", seat: 0 }]);
  socket.close();
});
