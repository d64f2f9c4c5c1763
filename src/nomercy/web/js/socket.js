// The connection: one WebSocket per room, a table of message handlers, and reconnection
// with a growing delay. `dispatch` is pure (tested): a message goes to the handler of its
// type, an unknown type to `unknown`.

export function dispatch(handlers, msg) {
  const fn = handlers[msg && msg.type] || handlers.unknown;
  if (fn) fn(msg);
}

export function reconnectDelay(attempt) { return Math.min(10000, 500 * 2 ** attempt); }

/** Open the room's socket; `handlers` maps message types to functions; `hooks` get
 *  open / close. Returns {send, close, reconnect}. */
export function openSocket(code, hello, handlers, hooks = {}) {
  let ws = null;
  let attempt = 0;
  let stopped = false;
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // The room code in the URL lets a proxy route every connection of a room to the process
    // that runs it; the hello message carries it again.
    const sock = ws = new WebSocket(`${proto}://${location.host}/ws?room=${encodeURIComponent(code)}`);
    sock.onopen = () => { sock.send(JSON.stringify(hello())); if (hooks.open) hooks.open(); };
    sock.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === "welcome") attempt = 0;
      dispatch(handlers, msg);
    };
    sock.onclose = () => {
      if (ws !== sock || stopped) return;
      if (hooks.close) hooks.close();
      setTimeout(connect, reconnectDelay(attempt++));
    };
  }
  connect();
  return {
    send(obj) {
      if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(obj)); return true; }
      return false;
    },
    reconnect() { attempt = 0; const old = ws; ws = null; if (old) old.close(); connect(); },
    close() { stopped = true; if (ws) ws.close(); },
    soon() { attempt = 0; if (ws) ws.close(); },
  };
}
