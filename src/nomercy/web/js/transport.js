// The seam between the client and what runs the game. A transport is one connection:
// connect({open, message, close}), send(obj) -> false while not open, close(). Here: a
// WebSocket to the server (docs/protocol.md) and a server in the page (memoryTransport);
// the solo table's engine in a Web Worker has its own (js/solo/transport.js, loaded with it).
// Above them, openSocket keeps a room's connection: hello, handlers, reconnection.

export function roomURL(loc, code) {
  // The code in the URL lets a proxy route a room's connections to the process running it.
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws?room=${encodeURIComponent(code)}`;
}

export function webSocketTransport(url) {
  let ws = null;
  return {
    connect(on) {
      ws = new WebSocket(url);
      ws.onopen = () => on.open();
      ws.onmessage = (e) => {
        let msg;
        try { msg = JSON.parse(e.data); } catch { return; }
        on.message(msg);
      };
      ws.onclose = () => on.close();
    },
    send(obj) {
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify(obj));
      return true;
    },
    close() { if (ws) ws.close(); },
  };
}

/** A server in this page: `serve(peer)` runs on open, with peer.send(obj) and peer.close(),
 * and returns {message(obj), close()} (close: the connection ended, by either side). Each
 * message crosses as a JSON copy a turn later, as over a network. */
export function memoryTransport(serve) {
  let conn = null;
  let state = "new";
  let on = null;
  function hangUp() {
    if (state === "closed") return;
    const c = state === "open" ? conn : null;
    state = "closed";
    queueMicrotask(() => { if (c) c.close(); on.close(); });
  }
  const post = (obj, to) => {
    if (state !== "open") return false;
    const msg = JSON.parse(JSON.stringify(obj));
    queueMicrotask(() => { if (state === "open") to(msg); });
    return true;
  };
  return {
    connect(handlers) {
      if (state !== "new") throw new Error("a transport connects once");
      on = handlers;
      state = "opening";
      queueMicrotask(() => {
        if (state !== "opening") return;
        state = "open";
        conn = serve({ send: (obj) => post(obj, (m) => on.message(m)), close: hangUp });
        on.open();
      });
    },
    send: (obj) => post(obj, (m) => conn.message(m)),
    close: hangUp,
  };
}

/** A message to the handler of its type, an unknown type to `unknown`. */
export function dispatch(handlers, msg) {
  const fn = handlers[msg && msg.type] || handlers.unknown;
  if (fn) fn(msg);
}

export function reconnectDelay(attempt) { return Math.min(10000, 500 * 2 ** attempt); }

/** An open connection asks (`ping`) every PING_MS; one that has heard nothing for SILENCE_MS
 *  (no answer to its hello, no pong) is dead: a frozen server still accepts connections and
 *  never answers, and a socket to it may never report its close. The proxy in front fails
 *  a frozen process over in 6 s (docs/deploy.md): a new connection finds the live one. */
export const PING_MS = 5000;
export const SILENCE_MS = 15000;

/** Keep a room connected: `open()` gives a fresh transport per attempt, `hello()` is sent
 * on each, `hooks.close` hears a drop. Returns {send, close, reconnect, soon}. */
export function openSocket(open, hello, handlers, hooks = {}) {
  let t = null;
  let attempt = 0;
  let stopped = false;
  function connect() {
    const me = t = open();
    let ended = false;
    let heard = Date.now();
    let watch = null;
    const end = () => {
      if (ended) return false;
      ended = true;
      if (watch !== null) clearInterval(watch);
      return true;
    };
    const dropped = () => {
      if (t !== me || stopped) return;
      if (hooks.close) hooks.close();
      setTimeout(connect, reconnectDelay(attempt++));
    };
    me.connect({
      open() {
        if (t !== me) return;
        heard = Date.now();
        me.send(hello());
        watch = setInterval(() => {
          if (Date.now() - heard < SILENCE_MS) { me.send({ type: "ping" }); return; }
          if (end()) { me.close(); dropped(); }  // silent: given up on, its close not awaited
        }, PING_MS);
        if (typeof watch === "object" && watch.unref) watch.unref(); // Node (the tests): never what keeps it running
      },
      message(msg) {
        heard = Date.now();
        if (t !== me) return;
        if (msg && msg.type === "welcome") attempt = 0;
        dispatch(handlers, msg);
      },
      close() { if (end()) dropped(); },
    });
  }
  connect();
  return {
    send: (obj) => Boolean(t && t.send(obj)),
    reconnect() { attempt = 0; const old = t; t = null; if (old) old.close(); connect(); },
    close() { stopped = true; if (t) t.close(); },
    soon() { attempt = 0; if (t) t.close(); },
  };
}
