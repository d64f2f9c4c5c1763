// Accounts in the browser (docs/accounts.md): the sign-in / sign-up dialog with passkeys
// (WebAuthn) and the /account page (passkeys, sessions, sign out, delete, keep this browser's games). The server hands
// the ceremony's options as WebAuthn's JSON; binary fields travel as base64url both ways.
// A sensitive change (a passkey added or removed, sessions ended, the account deleted)
// that the server answers `confirm_first` is confirmed with a passkey once, then sent again.
// Who is signed in is the controller's (ctx.whoAmI, ctx.setAccount): the top bar's slot
// redraws itself when it changes; this module keeps no state of its own.
import { $, el, button, clear } from "./dom.js";
import { api, ApiError } from "./api.js";
import { keptTokens } from "./games.js";
import { nicknameProblem } from "./lobby.js";

// -- base64url and WebAuthn's JSON -------------------------------------------------------

export function fromB64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

export function toB64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const withIds = (list) => (list || []).map((c) => ({ ...c, id: fromB64url(c.id) }));

function creationOptions(json) {
  const o = JSON.parse(json);
  return { ...o, challenge: fromB64url(o.challenge), user: { ...o.user, id: fromB64url(o.user.id) }, excludeCredentials: withIds(o.excludeCredentials) };
}

function requestOptions(json) {
  const o = JSON.parse(json);
  return { ...o, challenge: fromB64url(o.challenge), allowCredentials: withIds(o.allowCredentials) };
}

function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return {
    id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response,
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
  };
}

const supported = () => Boolean(window.PublicKeyCredential && navigator.credentials && window.isSecureContext);

/** A problem with a passkey ceremony in the reader's words. */
function problem(ctx, err, step) {
  if (err instanceof ApiError) {
    if (err.code === "name_taken") return ctx.t("account.error.name_taken");
    if (err.code === "rate_limited") return ctx.t("account.error.rate_limited");
    if (err.code === "confirm_first") return ctx.t("error.confirm_first");
    if (err.code === "bad_request" && err.status === 409) return ctx.t("account.error.passkey_taken");
    if (err.code === "unauthorized" && step === "confirm") return ctx.t("account.error.not_yours");
    if (err.code === "unauthorized" && step === "signin") return ctx.t("account.error.unknown_passkey");
    if (err.code === "bad_request" && step === "name") return ctx.t("account.error.bad_name");
    if (err.code === "bad_request" && step === "remove") return ctx.t("account.error.last_passkey");
    if (err.code === "bad_request" && step === "delete") return ctx.t("account.error.delete_name");
    if (err.code === "bad_request") return ctx.t("account.error.expired");
    return ctx.t("account.error.other");
  }
  if (err && err.name === "NotAllowedError") return ctx.t("account.error.cancelled");
  if (err && err.name === "InvalidStateError") return ctx.t("account.error.already_here");
  if (err && err.name === "SecurityError") return ctx.t("account.error.insecure");
  return ctx.t("account.error.other");
}

// -- ceremonies ----------------------------------------------------------------------

async function signIn() {
  const start = await api("/api/account/signin/options", {});
  const cred = await navigator.credentials.get({ publicKey: requestOptions(start.options) });
  return (await api("/api/account/signin/verify", { ceremony: start.ceremony, credential: credentialJSON(cred) })).account;
}

/** This session's owner answers one of the account's passkeys: sensitive changes follow. */
async function confirmPasskey() {
  const start = await api("/api/account/confirm/options", {});
  const cred = await navigator.credentials.get({ publicKey: requestOptions(start.options) });
  return (await api("/api/account/confirm/verify", { ceremony: start.ceremony, credential: credentialJSON(cred) })).account;
}

/** A sensitive change: sent as is, and if the server asks for a fresh passkey, confirmed
 * once and sent again (the authenticator is asked once, then the change is made). */
async function sensitive(change) {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "confirm_first") throw err;
    try { await confirmPasskey(); } catch (failed) { failed.step = "confirm"; throw failed; }
    return await change();
  }
}

/** A new passkey, named `name` by its owner (empty: none; the page then numbers it). */
async function addPasskey(name) {
  const start = await sensitive(() => api("/api/account/passkeys/options", {}));
  const cred = await navigator.credentials.create({ publicKey: creationOptions(start.options) });
  const answer = { ceremony: start.ceremony, credential: credentialJSON(cred), ...(name ? { name } : {}) };
  return (await api("/api/account/passkeys/verify", answer)).account;
}

function changed(ctx, account) {
  ctx.setAccount(account);
  if (location.pathname === "/account") openAccountPage(ctx, null, $("page-root"));
}

// -- the dialog ------------------------------------------------------------------------

export function openDialog(ctx, mode) {
  const open = $("account-dialog");
  if (open) open.remove();
  const dialog = el("dialog", "account-dialog");
  dialog.id = "account-dialog";
  dialog.setAttribute("aria-labelledby", "account-dialog-title");
  const title = el("h2", null, ctx.t(mode === "signin" ? "account.signin_title" : "account.signup_title"));
  title.id = "account-dialog-title";
  const message = el("p", "account-message");
  message.id = "account-message";
  message.setAttribute("role", "alert");
  const body = el("div", "account-dialog-body");
  const close = button("account-close", ctx.t("account.close"), () => dialog.close());
  close.id = "account-close";
  dialog.append(title, body, message, close);
  document.body.appendChild(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  const say = (text) => { message.textContent = text; };

  if (!supported()) {
    body.appendChild(el("p", "note", ctx.t("account.no_support")));
    dialog.showModal();
    return;
  }
  if (mode === "signin") {
    body.appendChild(el("p", "note", ctx.t("account.signin_lead")));
    const go = button("primary big", ctx.t("account.signin_button"), async () => {
      go.disabled = true;
      say("");
      try { const account = await signIn(); dialog.close(); changed(ctx, account); ctx.toast(ctx.t("account.welcome", { name: account.name })); } catch (err) { say(problem(ctx, err, "signin")); }
      go.disabled = false;
    });
    go.id = "account-signin-go";
    const other = button("link-btn", ctx.t("account.to_signup"), () => openDialog(ctx, "signup"));
    other.id = "account-to-signup";
    body.append(go, other);
  } else {
    const form = el("form", "account-form");
    form.id = "account-signup-form";
    form.autocomplete = "off";
    form.appendChild(el("p", "note", ctx.t("account.signup_lead")));
    const label = el("label");
    const input = el("input");
    input.id = "account-name-input";
    input.maxLength = 24;
    input.required = true;
    input.autocomplete = "username";
    input.value = (() => { try { return localStorage.getItem("nomercy:nickname") || ""; } catch { return ""; } })();
    label.append(el("span", null, ctx.t("account.name")), input);
    form.append(label, el("p", "note small", ctx.t("account.name_public")));
    const tokens = keptTokens();
    const claim = el("input");
    claim.type = "checkbox";
    claim.id = "account-claim";
    claim.checked = tokens.length > 0;
    if (tokens.length) {
      const keep = el("label", "check");
      keep.append(claim, el("span", null, ctx.t("account.claim_offer")));
      form.appendChild(keep);
    }
    const go = el("button", "primary big", ctx.t("account.signup_button"));
    go.type = "submit";
    go.id = "account-signup-go";
    const other = button("link-btn", ctx.t("account.to_signin"), () => openDialog(ctx, "signin"));
    other.id = "account-to-signin";
    form.append(go, other);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      go.disabled = true;
      say("");
      let step = "name";
      try {
        const start = await api("/api/account/signup/options", { name: input.value });
        step = "create";
        const cred = await navigator.credentials.create({ publicKey: creationOptions(start.options) });
        const claimed = claim.checked ? tokens.map((t) => t.token).slice(0, 200) : [];
        const account = (await api("/api/account/signup/verify", { ceremony: start.ceremony, credential: credentialJSON(cred), tokens: claimed })).account;
        dialog.close();
        changed(ctx, account);
        ctx.toast(ctx.t("account.welcome_new", { name: account.name }));
      } catch (err) { say(problem(ctx, err, step)); }
      go.disabled = false;
    });
    body.appendChild(form);
  }
  dialog.showModal();
}

// -- the /account page -----------------------------------------------------------------

function day(ctx, seconds) {
  return new Intl.DateTimeFormat(ctx.i18n.lang, { year: "numeric", month: "short", day: "numeric" }).format(new Date(seconds * 1000));
}

function moment(ctx, seconds) {
  return new Intl.DateTimeFormat(ctx.i18n.lang, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" }).format(new Date(seconds * 1000));
}

/** The name a passkey goes by on this page: its own, else "Passkey N". */
function keyName(ctx, key, passkeys) {
  const f = passkeyFacts(passkeys).find((x) => x.id === key.id);
  return f.name || ctx.t("account.passkey_title", { number: f.number });
}

/** A signed-in browser of the account: when it signed in, was last seen, with which
 * passkey ("this device" for this one), and a button that ends it. */
function sessionRow(ctx, s, passkeys) {
  const li = el("li", "session-row");
  li.dataset.id = s.id;
  if (s.current) li.classList.add("current");
  const what = el("div", "session-what");
  const head = el("strong", null, ctx.t("account.session_started", { date: moment(ctx, s.created_at) }));
  what.appendChild(head);
  if (s.current) what.appendChild(el("span", "session-this", ctx.t("account.session_this")));
  const key = passkeys.find((p) => p.id === s.passkey);
  what.append(
    el("span", "note", ctx.t("account.session_seen", { date: moment(ctx, s.last_seen_at || s.created_at) })),
    el("span", "note", key ? ctx.t("account.session_passkey", { name: keyName(ctx, key, passkeys) }) : ctx.t("account.session_passkey_unknown")),
  );
  const end = button("small-btn danger session-end", ctx.t("account.session_end"), async () => {
    try {
      const r = await sensitive(() => api("/api/account/sessions/end", { id: s.id }));
      if (r.account) changed(ctx, r.account); else { ctx.setAccount(null); location.href = "/"; }
    } catch (err) { $("account-page-message").textContent = problem(ctx, err, err.step || "session"); }
  });
  end.setAttribute("aria-label", ctx.t("account.session_end_label", { date: moment(ctx, s.created_at) }));
  li.append(what, end);
  return li;
}

/** What tells an account's passkeys apart, each: its `number` in the order they were added
 *  (the name it goes by here, unless it has a `name` of its own), its `kind` from the
 *  transports the device reported ("internal": the device's own lock, "hybrid": a phone
 *  nearby, "usb"/"nfc"/"ble": a security key; null when it reported none), and `here`
 *  when it signed this browser in. Two passkeys added the same day no longer look alike. */
export function passkeyFacts(passkeys, sessions = []) {
  const here = (sessions.find((s) => s.current) || {}).passkey;
  const order = [...passkeys].sort((a, b) => a.created_at - b.created_at || String(a.id).localeCompare(String(b.id)));
  return passkeys.map((p) => {
    const transports = p.transports || [];
    const kind = transports.includes("internal") ? "internal"
      : transports.includes("hybrid") ? "hybrid"
        : transports.some((x) => ["usb", "nfc", "ble"].includes(x)) ? "key" : null;
    return { id: p.id, number: order.indexOf(p) + 1, name: typeof p.name === "string" && p.name ? p.name : null, kind, here: here === p.id };
  });
}

const KIND_WORDS = {
  internal: "account.passkey_kind.internal",
  hybrid: "account.passkey_kind.hybrid",
  key: "account.passkey_kind.key",
};

function passkeyRow(ctx, p, facts, only) {
  const li = el("li", "passkey-row");
  li.dataset.id = p.id;
  const what = el("div", "passkey-what");
  const title = facts.name || ctx.t("account.passkey_title", { number: facts.number });
  what.appendChild(el("strong", null, title));
  if (facts.here) what.appendChild(el("span", "session-this", ctx.t("account.passkey_here")));
  if (facts.kind) what.appendChild(el("span", "note", ctx.t(KIND_WORDS[facts.kind])));
  what.append(
    el("span", "note", ctx.t("account.passkey_added", { date: moment(ctx, p.created_at) })),
    el("span", "note", p.last_used_at ? ctx.t("account.passkey_used", { date: moment(ctx, p.last_used_at) }) : ctx.t("account.passkey_unused")),
  );
  const remove = button("small-btn danger passkey-remove", ctx.t("account.passkey_remove"), async () => {
    if (!window.confirm(ctx.t("account.passkey_remove_confirm"))) return;
    try { changed(ctx, (await sensitive(() => api("/api/account/passkeys/remove", { id: p.id }))).account); } catch (err) { $("account-page-message").textContent = problem(ctx, err, err.step || "remove"); }
  });
  remove.setAttribute("aria-label", ctx.t("account.passkey_remove_label", { name: title }));
  remove.disabled = only;
  if (only) remove.title = ctx.t("account.passkey_only");
  // Its owner's name for it, so that two passkeys never look the same (a name opens
  // nothing: no passkey check). Empty takes the name away.
  const rename = button("small-btn passkey-rename", ctx.t("account.passkey_rename"), async () => {
    const typed = window.prompt(ctx.t("account.passkey_rename_prompt"), facts.name || "");
    if (typed === null) return;
    const name = typed.trim();
    if (name && nicknameProblem(name)) { $("account-page-message").textContent = ctx.t("account.error.bad_name"); return; }
    try { changed(ctx, (await api("/api/account/passkeys/rename", { id: p.id, name })).account); } catch (err) { $("account-page-message").textContent = problem(ctx, err, "name"); }
  });
  rename.setAttribute("aria-label", ctx.t("account.passkey_rename_label", { name: title }));
  const buttons = el("div", "passkey-buttons");
  buttons.append(rename, remove);
  li.append(what, buttons);
  return li;
}

/** The /account page: a guest is offered sign-in and sign-up; an account sees its passkeys. */
export async function openAccountPage(ctx, _match, root) {
  const account = await ctx.whoAmI();
  document.title = ctx.t("account.page_title");
  clear(root);
  const page = el("section", "panel account-page");
  page.setAttribute("aria-labelledby", "account-title");
  root.appendChild(page);
  const message = el("p", "account-message");
  message.id = "account-page-message";
  message.setAttribute("role", "status");
  if (!account) {
    const h = el("h1", null, ctx.t("account.guest_title"));
    h.id = "account-title";
    page.append(h, el("p", null, ctx.t("account.guest_lead")));
    const row = el("div", "row");
    const signin = button("primary", ctx.t("account.sign_in"), () => openDialog(ctx, "signin"));
    signin.id = "account-page-signin";
    const signup = button("", ctx.t("account.sign_up"), () => openDialog(ctx, "signup"));
    signup.id = "account-page-signup";
    row.append(signin, signup);
    page.append(row, message);
    return;
  }
  const h = el("h1", null, account.name);
  h.id = "account-title";
  const profile = el("a", "account-profile", ctx.t("account.profile_link"));
  profile.href = `/u/${encodeURIComponent(account.name)}`;
  page.append(h, el("p", "note", ctx.t("account.since", { date: day(ctx, account.since) })), profile);

  const keys = el("section", "account-passkeys");
  const kh = el("h2", null, ctx.t("account.passkeys"));
  const list = el("ul", "passkey-list");
  list.id = "passkey-list";
  const facts = passkeyFacts(account.passkeys, account.sessions || []);
  account.passkeys.forEach((p, i) => list.appendChild(passkeyRow(ctx, p, facts[i], account.passkeys.length < 2)));
  const newName = el("input");
  newName.id = "passkey-new-name";
  newName.maxLength = 24;
  newName.autocomplete = "off";
  const nameLabel = el("label", "passkey-new-name");
  nameLabel.append(el("span", null, ctx.t("account.passkey_new_name")), newName);
  const add = button("", ctx.t("account.passkey_add"), async () => {
    message.textContent = "";
    if (!supported()) { message.textContent = ctx.t("account.no_support"); return; }
    const name = newName.value.trim();
    if (name && nicknameProblem(name)) { message.textContent = ctx.t("account.error.bad_name"); return; }
    add.disabled = true;
    try { changed(ctx, await addPasskey(name)); ctx.toast(ctx.t("account.passkey_added_toast")); } catch (err) { message.textContent = problem(ctx, err, err.step || "add"); add.disabled = false; }
  });
  add.id = "passkey-add";
  keys.append(kh, el("p", "note", ctx.t("account.passkeys_lead")), list, nameLabel, add);

  const signedIn = el("section", "account-sessions");
  const sessions = el("ul", "session-list");
  sessions.id = "session-list";
  const open = [...(account.sessions || [])].sort((a, b) => Number(b.current) - Number(a.current)); // this device first
  for (const s of open) sessions.appendChild(sessionRow(ctx, s, account.passkeys));
  const everywhere = button("danger-btn", ctx.t("account.sign_out_everywhere"), async () => {
    if (!window.confirm(ctx.t("account.sign_out_everywhere_confirm"))) return;
    message.textContent = "";
    try {
      await sensitive(() => api("/api/account/sessions/end-all", {}));
      ctx.setAccount(null);
      location.href = "/";
    } catch (err) { message.textContent = problem(ctx, err, err.step || "session"); }
  });
  everywhere.id = "account-signout-everywhere";
  signedIn.append(el("h2", null, ctx.t("account.sessions")), el("p", "note", ctx.t("account.sessions_lead")), sessions, everywhere);

  const games = el("section", "account-games");
  const tokens = keptTokens();
  games.appendChild(el("h2", null, ctx.t("account.games")));
  games.appendChild(el("p", "note", ctx.t(tokens.length ? "account.claim_lead" : "account.claim_none")));
  if (tokens.length) {
    const claim = button("", ctx.t("account.claim_button"), async () => {
      try {
        const r = await api("/api/account/claim", { tokens: tokens.map((t) => t.token).slice(0, 200) });
        message.textContent = ctx.t("account.claimed", { count: r.claimed });
      } catch (err) { message.textContent = problem(ctx, err, "claim"); }
    });
    claim.id = "account-claim-btn";
    games.appendChild(claim);
  }

  const leave = el("section", "account-leave");
  leave.appendChild(el("h2", null, ctx.t("account.leave")));
  const out = button("", ctx.t("account.sign_out"), async () => {
    try { await api("/api/account/signout", {}); } catch { /* signed out here either way */ }
    ctx.setAccount(null);
    location.href = "/";
  });
  out.id = "account-signout";
  const del = el("details", "account-delete");
  del.appendChild(el("summary", null, ctx.t("account.delete")));
  del.appendChild(el("p", "note", ctx.t("account.delete_lead")));
  const label = el("label");
  const confirmName = el("input");
  confirmName.id = "account-delete-name";
  confirmName.autocomplete = "off";
  label.append(el("span", null, ctx.t("account.delete_type", { name: account.name })), confirmName);
  const really = button("danger-btn", ctx.t("account.delete_button"), async () => {
    try {
      await sensitive(() => api("/api/account/delete", { name: confirmName.value }));
      ctx.setAccount(null);
      location.href = "/";
    } catch (err) { message.textContent = problem(ctx, err, err.step || "delete"); }
  });
  really.id = "account-delete-go";
  del.append(label, really);
  leave.append(out, del);
  page.append(keys, signedIn, games, leave, message);
}

export const accountPage = { path: /^\/account$/, open: openAccountPage };
