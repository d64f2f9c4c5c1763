// The offline app's service worker (docs/offline.md): after one visit, the page, the
// client, the catalogs, Pyodide and the engine come from this cache, so solo play needs no
// network. It lives at the site's root (its scope is the whole app) and lists what it keeps
// in sw-files.json, written with the site ({"version", "files"}, paths from the root).
//
// Updates follow the well-known safe pattern: a new version (this file changes with
// VERSION, which the site build sets) installs into a cache of its own beside the old one
// and then waits; no skipWaiting, so a game in progress keeps the files it started with.
// It takes over when every page of the old version is closed: at the next visit, which
// resumes the saved table with the new engine.
const VERSION = "dev";
const CACHE = `nomercy-${VERSION}`;
const ROOT = new URL("./", self.location.href);
// The server's live routes (nomercy serve) never come from the cache.
const LIVE = ["api/", "ws"].map((p) => new URL(p, ROOT).pathname);
// Answers kept as they pass, for the next offline start: the options and the catalogs.
const KEEP = ["api/options", "i18n/"].map((p) => new URL(p, ROOT).pathname);

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const res = await fetch(new URL("sw-files.json", ROOT), { cache: "no-cache" });
    if (!res.ok) throw new Error(`sw-files.json: ${res.status}`);
    const { files } = await res.json();
    const cache = await caches.open(CACHE);
    await cache.addAll(["./", ...files].map((f) => new Request(new URL(f, ROOT), { cache: "no-cache" })));
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith("nomercy-") && key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

async function answer(request) {
  const cache = await caches.open(CACHE);
  const url = new URL(request.url);
  // Any page of the app is the one page (the client draws the screen the address names).
  const hit = await cache.match(request.mode === "navigate" ? new URL("./", ROOT).href : request, { ignoreSearch: true });
  if (hit) return hit;
  try {
    const res = await fetch(request);
    if (res.ok && KEEP.some((p) => url.pathname.startsWith(p))) await cache.put(request, res.clone());
    return res;
  } catch (err) {
    const kept = await cache.match(request, { ignoreSearch: true });
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== ROOT.origin || !url.pathname.startsWith(ROOT.pathname)) return;
  if (LIVE.some((p) => url.pathname.startsWith(p)) && !KEEP.some((p) => url.pathname.startsWith(p))) return;
  event.respondWith(answer(request));
});
