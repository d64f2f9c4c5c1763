// The pages that are not the game: each is a path and a function that renders it into the
// page screen (#page-root). main.js asks pageFor(location.pathname) before the home page.
// A page module exports { path: RegExp, open(ctx, match, root) } and is listed here.

import { accountPage } from "./account.js";
import daily from "./daily.js";
import leaders from "./leaders.js";
import profile from "./profile.js";

const PAGES = [accountPage, daily, leaders, profile];

export function pageFor(pathname) {
  for (const page of PAGES) {
    const match = pathname.match(page.path);
    if (match) return { open: page.open, match };
  }
  return null;
}
