// The top bar's account slot: "Sign in", or the signed-in name linking to /account. The
// sign-in dialog and the account page (js/account.js) load when first opened: the game's
// first screen needs only who is signed in.
import { $, el, button, clear } from "./dom.js";
import { api } from "./api.js";

let current; // undefined: not asked yet; null: a guest; else { name, since, passkeys }
let asking = null; // the one request for it while the top bar and the page both wait

/** Who is signed in (asked once per page; js/account.js keeps it current). */
export async function whoAmI() {
  if (current === undefined) {
    asking = asking || api("/api/account").then((r) => r.account, () => null);
    const found = await asking;
    if (current === undefined) current = found;
  }
  return current;
}

/** Who is signed in now, after a sign-in, a sign-out or a deletion. */
export function setAccount(account) { current = account; }

const accountModule = () => import("./account.js");

/** The top bar's slot (and the account page drawn again when `redraw`: the language changed). */
export async function renderAccountSlot(ctx, redraw = false) {
  const account = await whoAmI();
  const slot = clear($("account-slot"));
  if (account) {
    const a = el("a", "account-link", account.name);
    a.href = "/account";
    a.id = "account-name";
    a.setAttribute("aria-label", ctx.t("account.yours", { name: account.name }));
    if (location.pathname === "/account") a.setAttribute("aria-current", "page");
    slot.appendChild(a);
    for (const id of ["create-nick", "join-nick"]) { const input = $(id); if (input && !input.value) input.value = account.name; }
  } else {
    const b = button("account-signin", ctx.t("account.sign_in"), async () => (await accountModule()).openDialog(ctx, "signin"));
    b.id = "account-signin";
    slot.appendChild(b);
  }
  if (redraw && location.pathname === "/account") (await accountModule()).openAccountPage(ctx, null, $("page-root"));
}
