// The pages that are not the game: each is a path and a function that renders it into the
// page screen (#page-root). main.js asks pageFor(location.pathname) before the home page.
// A page module exports { path: RegExp, open(ctx, match, root) }; it is listed here with
// its path and loaded only when that page opens (the home page and the table never pay
// for the profile's chart or the boards).

const PAGES = [
  { path: /^\/account$/, load: async () => (await import("./account.js")).accountPage },
  { path: /^\/daily(?:\/(\d{4}-\d{2}-\d{2}))?\/?$/, load: async () => (await import("./daily.js")).default },
  { path: /^\/leaders(?:\/([a-z_]{1,32}))?\/?$/, load: async () => (await import("./leaders.js")).default },
  { path: /^\/u\/([^/]+)$/, load: async () => (await import("./profile.js")).default },
];

export function pageFor(pathname) {
  for (const page of PAGES) {
    const match = pathname.match(page.path);
    if (match) return { match, open: async (ctx, m, root) => (await page.load()).open(ctx, m, root) };
  }
  return null;
}
