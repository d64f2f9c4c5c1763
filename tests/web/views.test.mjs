// Views drawn only when what they show changed (issue 41): the controller's `view(fn,
// select)`, the top bar's account slot as a view of who is signed in (store.account, asked
// of the server once), and a change that concerns another view not drawing it again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createStore, initialState } from "../../src/nomercy/web/js/store.js";
import { createCtrl } from "../../src/nomercy/web/js/ctrl.js";

// A tiny DOM: what the account slot draws with (dom.js), nothing more.
class Node {
  constructor(tag) { this.tag = tag; this.childNodes = []; this.attrs = {}; this.listeners = {}; this.textContent = ""; }
  get firstChild() { return this.childNodes[0] || null; }
  appendChild(c) { this.childNodes.push(c); return c; }
  removeChild(c) { this.childNodes = this.childNodes.filter((x) => x !== c); return c; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
}
const nodes = { "account-slot": new Node("span") };
globalThis.document = { createElement: (tag) => new Node(tag), getElementById: (id) => nodes[id] || null };
globalThis.location = { pathname: "/" };
const { wireAccountSlot } = await import("../../src/nomercy/web/js/accountslot.js");

const MESSAGES = { "account.sign_in": "Sign in", "account.yours": "Your account: {name}" };

function setup(account = { name: "Ann" }) {
  const asked = [];
  const api = async (path) => { asked.push(path); return { account }; };
  const store = createStore(initialState());
  const ctx = createCtrl({ store, transport: () => { throw new Error("no room here"); }, api });
  ctx.useMessages("en", MESSAGES);
  return { ctx, store, asked };
}

const counted = (ctx, select) => {
  const drawn = { n: 0 };
  ctx.view(() => { drawn.n += 1; }, select);
  return drawn;
};

test("a view with a select is drawn only when what it shows (or the language) changed", () => {
  const { ctx, store } = setup();
  const sound = counted(ctx, (s) => [s.muted]);
  const every = counted(ctx);
  store.set({ chat: [{ seat: 0, text: "hi" }] }); // a first drawing for both
  assert.deepEqual([sound.n, every.n], [1, 1]);
  store.set({ chat: [{ seat: 0, text: "hi" }, { seat: 1, text: "hello" }] });
  store.set({ version: 7 });
  assert.deepEqual([sound.n, every.n], [1, 3]); // a chat line and a new state: not the sound button
  store.set({ muted: true });
  assert.deepEqual([sound.n, every.n], [2, 4]);
  ctx.render(); // drawn again on purpose: nothing the button shows changed
  assert.equal(sound.n, 2);
  ctx.useMessages("nb", MESSAGES); // another language: every word is drawn again
  assert.equal(sound.n, 3);
});

test("who is signed in is asked once, kept in the store, and the slot redraws only for it", async () => {
  const { ctx, store, asked } = setup();
  let slotDrawn = 0;
  const realView = ctx.view;
  ctx.view = (fn, select) => realView((c) => { slotDrawn += 1; fn(c); }, select);
  wireAccountSlot(ctx);
  const [a, b] = await Promise.all([ctx.whoAmI(), ctx.whoAmI()]);
  assert.deepEqual(asked, ["/api/account"]); // one question for every view that waits
  assert.equal(a.name, "Ann");
  assert.equal(b, a);
  assert.equal(store.get().account.name, "Ann");
  const drawn = slotDrawn;
  const link = nodes["account-slot"].childNodes[0];
  assert.equal(link.textContent, "Ann");
  assert.equal(link.attrs["aria-label"], "Your account: Ann");
  store.set({ chat: [{ seat: 0, text: "gg" }] });
  store.set({ view: { step: 3 }, version: 4 });
  assert.equal(slotDrawn, drawn); // the game moved on: the slot was not drawn again
  ctx.setAccount(null); // signed out
  assert.equal(slotDrawn, drawn + 1);
  assert.equal(nodes["account-slot"].childNodes[0].textContent, "Sign in");
  await ctx.whoAmI();
  assert.deepEqual(asked, ["/api/account"]); // a guest is known too: not asked again
});
