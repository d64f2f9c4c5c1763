// The top bar's account slot: "Sign in", or the signed-in name linking to /account. Who is
// signed in is the controller's (`store.account`, `ctx.whoAmI`); the slot is a view drawn
// when that (or the language) changes. The sign-in dialog and the account page
// (js/account.js) load when first opened: the game's first screen needs only the slot.
import { $, el, button, clear } from "./dom.js";

const accountModule = () => import("./account.js");

/** The slot drawn from the store; nothing until the server has said who is signed in. */
export function drawAccountSlot(ctx) {
  const account = ctx.store.get().account;
  if (account === undefined) return;
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
}

/** The slot as a view of who is signed in, and the question to the server (once). */
export function wireAccountSlot(ctx) {
  ctx.view(drawAccountSlot, (s) => [s.account]);
  ctx.whoAmI();
}

/** The slot now (it waits for who is signed in), and the account page drawn again when
 *  `redraw` (the language changed). */
export async function renderAccountSlot(ctx, redraw = false) {
  await ctx.whoAmI();
  drawAccountSlot(ctx);
  if (redraw && location.pathname === "/account") (await accountModule()).openAccountPage(ctx, null, $("page-root"));
}
