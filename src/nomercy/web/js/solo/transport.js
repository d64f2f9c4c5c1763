// The third transport beside js/transport.js's two: the solo table's engine in a Web Worker
// (js/solo/worker.js). Here, not there, so that the online first screen does not carry it
// (its weight is counted: tests/browser/test_browser.py).

/** The solo table in a Web Worker (js/solo/worker.js): nomercy's own engine in the page
 * answers as the server would. `port` is {post(obj), listen(fn) -> stop}: the worker's
 * side of the page, which js/solo/solo.js makes. */
export function workerTransport(port) {
  let state = "new";
  let stop = null;
  let on = null;
  return {
    connect(handlers) {
      if (state !== "new") throw new Error("a transport connects once");
      on = handlers;
      state = "opening";
      stop = port.listen((msg) => { if (state === "open") on.message(msg); });
      queueMicrotask(() => { if (state !== "opening") return; state = "open"; on.open(); });
    },
    send(obj) {
      if (state !== "open") return false;
      port.post(obj);
      return true;
    },
    close() {
      if (state === "closed") return;
      const was = state;
      state = "closed";
      if (stop) stop();
      if (was === "open") queueMicrotask(() => on.close());
    },
  };
}
