// Your hand and the action row: cards laid out so every corner shows (lifted when they
// can be played), and the buttons for what else you may do (Take, Challenge, Keep, UNO!,
// Catch). Playing a card asks only what the server's choices leave open: a colour, a
// Seven's target. A card that cannot be played says why, with the server's reason.
import { $, el, clear } from "./dom.js";
import { cardNode, sortHand } from "./cards.js";
import { handLayout, fanOf, isEcho } from "./layout.js";
import { blockedReason, choiceOf, choices, narrowPlays, openQuestions, playableCards, playsOf, unoPlays } from "./store.js";

const SORTS = ["colour", "face", "none"];

/** The hand view's memory, kept on the controller's ctx (one page, one table):
 * `drawnFrom`, what the hand was last drawn from (a change elsewhere in the store, a chat
 * line, leaves the cards' buttons in place, so a click that lands while the page redraws
 * is not lost); `lastClick`, the page's last click anywhere, for the guard against a
 * second card (js/layout.js): a click elsewhere between two on the hand (a dialog's
 * Cancel) makes them two choices. */
function memo(ctx) {
  if (!ctx.hand) {
    ctx.hand = { drawnFrom: null, lastClick: null };
    // Bubbling, so the card's own handler compares with the click before this one.
    document.addEventListener("click", (e) => { ctx.hand.lastClick = e.detail === 0 ? null : clickOf(e); });
  }
  return ctx.hand;
}
const clickOf = (e) => ({ x: e.clientX, y: e.clientY, at: performance.now(), detail: e.detail });

/** A click on a card plays it, unless it is the echo of the click before (a double click
 * or tap whose second half would land on another card once the hand is drawn again). */
function onCardClick(ctx, code, e) {
  if (!isEcho(clickOf(e), memo(ctx).lastClick)) playCard(ctx, code);
}

export function renderHand(ctx) {
  const s = ctx.store.get();
  const v = s.view;
  const hand = $("hand");
  const mine = document.querySelector(".mine");
  mine.hidden = s.seat === null;
  const m = memo(ctx);
  if (s.seat === null || !v) {
    clear(hand);
    m.drawnFrom = null;
    return;
  }
  const d = s.decisions;
  const phone = window.innerWidth < 600;
  const width = Math.max(220, (hand.clientWidth || document.documentElement.clientWidth) - 36);
  const from = JSON.stringify([ctx.i18n.lang, s.seat, s.sort, s.unoArmed, v.hand, v.drawn, v.decision, d, phone, width]);
  if (from === m.drawnFrom && hand.firstChild) return;
  m.drawnFrom = from;
  const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest("#hand")
    ? document.activeElement.dataset.code : null;
  clear(hand);
  const playable = playableCards(d);
  $("hand-count").textContent = `(${v.hand.length})`;
  $("sort-btn").textContent = ctx.t(`sort.${s.sort}`);
  const myTurn = Boolean(d && d.deciding);
  const cards = sortHand(v.hand, s.sort);
  const cardW = phone ? 56 : 72;
  const layout = handLayout(cards.length, width, cardW, phone ? 34 : 40);
  hand.classList.toggle("my-turn", myTurn);
  hand.classList.toggle("rows", layout.rows.length > 1);
  let first = null;
  for (const row of layout.rows) {
    const rowEl = el("div", "hand-row");
    rowEl.setAttribute("role", "none");
    cards.slice(row.start, row.start + row.size).forEach((code, j) => {
      const ok = playable.has(code);
      const b = cardNode(code, ctx.i18n.cardTitle(code), "button", ok ? "playable" : myTurn ? "dim" : "");
      if (v.drawn === code && v.decision === "play_drawn") b.classList.add("drawn");
      b.type = "button";
      b.style.marginLeft = j === 0 ? "0" : `${row.step - cardW}px`;
      const fan = layout.fan ? fanOf(j, row.size) : { rot: 0, lift: 0 };
      b.style.setProperty("--rot", `${fan.rot}deg`);
      b.style.setProperty("--lift", `${fan.lift}px`);
      b.tabIndex = -1;
      const name = ctx.i18n.cardTitle(code);
      const hint = cardHint(ctx, d, code);
      b.setAttribute("aria-label", ok ? `${ctx.t("hand.playable", { card: code })}. ${hint}` : name);
      b.setAttribute("aria-disabled", ok ? "false" : "true");
      b.title = hint;
      b.addEventListener("click", (e) => onCardClick(ctx, code, e));
      // What the card would do (or why it cannot be played), beside the buttons.
      const tell = () => { if (myTurn) $("why").textContent = hint; };
      b.addEventListener("focus", tell);
      b.addEventListener("mouseenter", tell);
      b.addEventListener("mouseleave", () => renderButtons(ctx));
      rowEl.appendChild(b);
      if (!first) first = b;
    });
    hand.appendChild(rowEl);
  }
  const all = [...hand.querySelectorAll(".card")];
  const focus = (focused && all.find((b) => b.dataset.code === focused)) || all.find((b) => b.classList.contains("playable")) || first;
  if (focus) focus.tabIndex = 0;
  if (focused && focus) focus.focus({ preventScroll: true });
}

/** A card's play and what it causes ("Play Wild Draw 6: Bob then faces +8"), or its reason. */
function cardHint(ctx, d, code) {
  const plays = narrowPlays(playsOf(d, code), { unoArmed: ctx.store.get().unoArmed });
  if (!plays.length) {
    const reason = blockedReason(d, code);
    return reason ? ctx.i18n.line(reason) : "";
  }
  const c = plays[0];
  const label = ctx.i18n.line(plays.length > 1 && c.color ? { key: "choice.play", params: { card: code } } : c.label);
  return c.cost ? `${label}: ${ctx.i18n.line(c.cost, { capital: false })}` : label;
}

/** The buttons beside the hand: each sends one of the server's choices (js/ctrl.js). */
export function wireHand(ctx) {
  const { store } = ctx;
  $("draw-btn").addEventListener("click", () => { const d = store.get().decisions; const c = choiceOf(d, "take") || choiceOf(d, "draw"); if (c) ctx.act(c); });
  $("take-btn").addEventListener("click", () => ctx.actKind("take"));
  $("challenge-btn").addEventListener("click", () => ctx.actKind("challenge"));
  $("pass-btn").addEventListener("click", () => ctx.actKind("pass"));
  $("uno-btn").addEventListener("click", () => {
    if (choiceOf(store.get().decisions, "uno")) { ctx.actKind("uno"); return; }
    store.set((s) => ({ unoArmed: !s.unoArmed }));
    ctx.toast(ctx.t(store.get().unoArmed ? "uno.armed_toast" : "uno.cancelled"));
  });
  $("catch-btn").addEventListener("click", () => ctx.catchNow());
  for (const b of $("color-pick").querySelectorAll("button")) b.addEventListener("click", () => ctx.actKind("color", b.dataset.color));
  $("sort-btn").addEventListener("click", () => {
    store.set((s) => ({ sort: nextSort(s.sort) }));
    ctx.storage.set("sort", store.get().sort);
  });
}

export function nextSort(sort) { return SORTS[(SORTS.indexOf(sort) + 1) % SORTS.length]; }

export async function playCard(ctx, code) {
  const s = ctx.store.get();
  const d = s.decisions;
  const plays = playsOf(d, code);
  if (!plays.length) {
    const reason = blockedReason(d, code);
    const why = reason ? ctx.i18n.line(reason) : ctx.t("hand.cannot", { card: code });
    ctx.store.set({ lastError: { text: why, version: s.version } }); // drawn by the views
    ctx.toast(why);
    return;
  }
  let options = narrowPlays(plays, { unoArmed: s.unoArmed });
  const open = openQuestions(options);
  if (open.colors.length) {
    const color = await ctx.prompts.askColor(ctx.t("prompt.wild_color", { card: code }), "", s.version);
    if (!color) return;
    options = narrowPlays(options, { color });
  }
  const targets = openQuestions(options).targets;
  if (targets.length) {
    const v = ctx.store.get().view;
    const answer = await ctx.prompts.askChoice(ctx.t("prompt.seven_title"),
      targets.map((t) => [String(t), ctx.t("prompt.seven_choice", { seat: t, count: v.hand_sizes[t] })]), "", "", true, s.version);
    if (!answer) return;
    options = narrowPlays(options, { target: Number(answer) });
  }
  if (!options.length) return;
  ctx.store.set({ unoArmed: false });
  ctx.act(options[0]);
}

export function renderButtons(ctx) {
  const s = ctx.store.get();
  const v = s.view;
  const d = s.decisions;
  $("actions").hidden = s.seat === null;
  $("sort-btn").hidden = s.seat === null;
  if (!v || s.seat === null) return;
  const take = choiceOf(d, "take");
  const takeBtn = $("take-btn");
  takeBtn.hidden = !take;
  if (take) takeBtn.textContent = ctx.i18n.line(take.label);
  const challenge = choiceOf(d, "challenge");
  $("challenge-btn").hidden = !challenge;
  if (challenge) $("challenge-btn").innerHTML = "";
  if (challenge) $("challenge-btn").append(ctx.i18n.line(challenge.label), " ", el("kbd", "", "X"));
  const keep = choiceOf(d, "pass");
  $("pass-btn").hidden = !keep;
  if (keep) $("pass-btn").textContent = ctx.i18n.line(keep.label);
  const call = choiceOf(d, "uno");
  const canArm = Boolean(d && d.deciding && unoPlays(d));
  if (!canArm && s.unoArmed) ctx.store.set({ unoArmed: false });
  const armed = ctx.store.get().unoArmed;
  const uno = $("uno-btn");
  uno.disabled = !(call || canArm);
  uno.classList.toggle("hot", Boolean(call) || (canArm && !armed));
  uno.classList.toggle("armed", armed);
  uno.setAttribute("aria-pressed", armed ? "true" : "false");
  uno.textContent = call ? ctx.i18n.line(call.label) : armed ? ctx.t("uno.armed") : ctx.t("uno.button");
  uno.title = call ? ctx.t("uno.title_call") : canArm ? ctx.t("uno.title_arm") : ctx.t("uno.title_idle");
  const catchChoice = choices(d).find((c) => c.kind === "catch");
  const catchBtn = $("catch-btn");
  catchBtn.disabled = !catchChoice;
  catchBtn.classList.toggle("hot", Boolean(catchChoice));
  catchBtn.textContent = catchChoice ? ctx.i18n.line(catchChoice.label) : ctx.t("catch.button");
  catchBtn.title = catchChoice ? ctx.i18n.line(catchChoice.cost) : ctx.t("catch.title_idle");
  ctx.prompts.syncCatch(catchChoice ? ctx.i18n.line(catchChoice.label) : null);
  const picking = Boolean(d && d.deciding && choiceOf(d, "color"));
  $("color-pick").hidden = !picking;
  $("color-pick-title").textContent = v.decision === "roulette" ? ctx.t("pick.roulette") : ctx.t("pick.color");
  const why = $("why");
  if (s.lastError && s.lastError.version === s.version) { why.textContent = s.lastError.text; return; }
  why.textContent = whyText(ctx, s, canArm, armed);
}

function whyText(ctx, s, canArm, armed) {
  const d = s.decisions;
  if (!d) return "";
  const parts = [];
  if (canArm) parts.push(ctx.t(armed ? "why.uno_armed" : "why.uno_ready"));
  if (d.deciding || choiceOf(d, "catch") || choiceOf(d, "uno")) parts.push(ctx.i18n.line(d.prompt));
  const challenge = choiceOf(d, "challenge");
  const take = choiceOf(d, "take");
  if (challenge) parts.push(ctx.i18n.line(challenge.cost));
  else if (take && d.deciding) parts.push(ctx.i18n.line(take.cost));
  return parts.join(" ");
}
