// The landing page (start a table, join one) and the lobby (seats, the invite, the rules
// at this table: the server's summary and every setting, in the reader's language).
import { $, el, button, clear } from "./dom.js";
import { cardNode } from "./cards.js";
import { accountMark } from "./marks.js";
import { ratedRefusal, ratedRequest } from "./rated.js";
import { seatKey } from "./ctrl.js";

// Room settings, grouped as the server's options say (each house rule of /api/options
// names its group, in the core's order: nomercy.rules.Rules.fields); every label,
// explanation and value is a catalog key (KEY.label, KEY.help, KEY.value.VALUE, where KEY
// is the rule's key, rule.NAME).

/** [group, [rule, ...]] in the order the server lists them: a group comes where its first
 * rule does, its rules in the server's order. */
export function ruleGroups(rules) {
  const groups = new Map();
  for (const r of rules) {
    if (!groups.has(r.group)) groups.set(r.group, []);
    groups.get(r.group).push(r);
  }
  return [...groups];
}

export function ruleValue(ctx, name, value) {
  if (value === true) return ctx.t("rule.yes");
  if (value === false) return ctx.t("rule.no");
  if (value === null || value === undefined) return ctx.t("rule.off");
  const key = `rule.${name}.value.${value}`;
  return ctx.i18n.has(key) ? ctx.t(key, {}, { capital: false }) : ctx.i18n.number(Number(value));
}

export function renderHome(ctx, opts) {
  const hero = clear($("hero-cards"));
  ["WCR", "R7", "W+10", "B+2", "GS"].forEach((code, i) => {
    const c = cardNode(code, "", "span", "hero-card");
    c.removeAttribute("role");
    c.removeAttribute("aria-label");
    c.style.setProperty("--i", String(i - 2));
    hero.appendChild(c);
  });
  const presets = $("presets");
  const checked = presets.querySelector("input:checked");
  const keep = checked ? checked.value : Object.keys(opts.presets)[0];
  for (const p of presets.querySelectorAll(".preset")) p.remove();
  for (const name of Object.keys(opts.presets)) {
    const label = el("label", "preset");
    const input = el("input");
    input.type = "radio";
    input.name = "preset";
    input.value = name;
    input.checked = name === keep;
    const text = el("span", "preset-text");
    text.append(el("strong", "", ctx.t(`preset.${name}.name`)), el("span", "preset-desc", ctx.t(`preset.${name}.text`)));
    label.append(input, text);
    presets.appendChild(label);
  }
  const bot = $("bot");
  const characters = opts.characters || {};
  const botKeep = bot.value || (opts.bots.includes("casual") ? "casual" : opts.bots[0]);
  clear(bot);
  // The strength list: levels and engines; the characters have their own list.
  for (const b of opts.bots.filter((name) => !(name in characters))) {
    bot.add(new Option(ctx.i18n.has(`bot.${b}`) ? ctx.t(`bot.${b}`) : b, b));
  }
  bot.value = botKeep in characters ? "casual" : botKeep;
  fillCharacters(ctx, opts);
  renderRuleInputs(ctx, opts);
}

/** The characters the chosen level allows ("none" first), and the line that explains the
 * choice: what the level does, or who the character is and how they play at that level. */
export function fillCharacters(ctx, opts) {
  const characters = opts.characters || {};
  const level = $("bot").value;
  const pick = $("character");
  const keep = pick.value;
  clear(pick);
  pick.add(new Option(ctx.t("home.character.none"), ""));
  for (const [name, levels] of Object.entries(characters)) {
    if (levels.includes(level)) pick.add(new Option(ctx.t(`character.${name}`), name));
  }
  pick.value = [...pick.options].some((o) => o.value === keep) ? keep : "";
  pick.disabled = pick.options.length === 1 || Boolean($("rated") && $("rated").checked);
  const levelName = ctx.i18n.has(`rating.level.${level}`) ? ctx.t(`rating.level.${level}`) : level;
  $("bot-line").textContent = pick.value
    ? ctx.t("home.character.line", { about: ctx.t(`bot.${pick.value}`), level: levelName })
    : ctx.i18n.has(`bot.${level}`) ? ctx.t(`bot.${level}`) : "";
}

function renderRuleInputs(ctx, opts) {
  const box = $("rules-box");
  const values = {};
  for (const input of box.querySelectorAll("[data-rule]")) values[input.dataset.rule] = input.type === "checkbox" ? input.checked : input.value;
  clear(box);
  ctx.ruleGroups = ruleGroups(opts.rules); // the lobby lists a room's rules in these groups
  for (const [group, rules] of ctx.ruleGroups) {
    const fs = el("fieldset", "rule-group");
    fs.appendChild(el("legend", "", ctx.t(`rules.group.${group}`)));
    for (const r of rules) {
      const id = `rule-${r.name}`;
      const row = el("div", `rule ${r.type}`);
      let input;
      if (r.type === "bool") {
        input = el("input");
        input.type = "checkbox";
      } else if (r.type === "choice") {
        input = el("select");
        for (const c of r.choices) input.add(new Option(ruleValue(ctx, r.name, c), c));
      } else {
        input = el("input");
        input.type = "number";
        input.min = "0";
        if (r.nullable) input.placeholder = ctx.t("rule.off");
      }
      input.id = id;
      input.dataset.rule = r.name;
      input.dataset.kind = r.type;
      const label = el("label", "", ctx.t(`${r.key}.label`));
      label.htmlFor = id;
      const help = el("span", "help", ctx.t(`${r.key}.help`));
      help.id = `${id}-help`;
      input.setAttribute("aria-describedby", help.id);
      if (r.type === "bool") row.append(input, label, help);
      else row.append(label, input, help);
      fs.appendChild(row);
    }
    box.appendChild(fs);
  }
  if (Object.keys(values).length) {
    for (const input of box.querySelectorAll("[data-rule]")) {
      const v = values[input.dataset.rule];
      if (input.type === "checkbox") input.checked = Boolean(v);
      else if (v !== undefined) input.value = v;
    }
  }
}

export function fillPreset(opts) {
  const preset = $("presets").querySelector("input:checked").value;
  const values = opts.presets[preset];
  for (const input of $("rules-box").querySelectorAll("[data-rule]")) {
    const v = values[input.dataset.rule];
    if (input.type === "checkbox") input.checked = Boolean(v);
    else input.value = v === null || v === undefined ? "" : String(v);
  }
  updateSeats();
}

export function updateSeats() {
  const max = Number($("rules-box").querySelector('[data-rule="max_players"]').value) || 6;
  const seats = $("seats");
  const keep = Number(seats.value) || 4;
  clear(seats);
  for (let n = 2; n <= Math.min(max, 10); n++) seats.add(new Option(`${n}`, `${n}`));
  seats.value = `${Math.min(keep, max)}`;
  updateBots();
}

export function updateBots() {
  const n = Number($("seats").value);
  const bots = $("bots");
  const keep = bots.value === "" ? n - 1 : Number(bots.value);
  clear(bots);
  for (let b = 0; b < n; b++) bots.add(new Option(`${b}`, `${b}`));
  bots.value = `${Math.min(keep, n - 1)}`;
}

export function collectRules(opts) {
  const preset = $("presets").querySelector("input:checked").value;
  const values = opts.presets[preset];
  const out = {};
  for (const input of $("rules-box").querySelectorAll("[data-rule]")) {
    const name = input.dataset.rule;
    let v;
    if (input.type === "checkbox") v = input.checked;
    else if (input.dataset.kind === "int") v = input.value === "" ? null : Number(input.value);
    else v = input.value;
    if (v !== values[name]) out[name] = v;
  }
  return { preset, rules: out };
}

// -- starting a table or joining one -------------------------------------------------------

/** Remember the seat the server gave, and go to its room. */
function sitDown(ctx, res) {
  ctx.storage.set(seatKey(res.code), JSON.stringify({ seat: res.seat, token: res.token }));
  ctx.enterRoom(res.code);
}

async function createRoom(ctx, opts) {
  const nickname = $("create-nick").value.trim();
  const problem = nicknameProblem(nickname);
  if (problem) { ctx.toast(ctx.t(problem)); $("create-nick").focus(); return; }
  ctx.storage.set("nickname", nickname);
  try {
    const { preset, rules: changed } = collectRules(opts);
    sitDown(ctx, await ctx.api("/api/rooms", {
      nickname, preset, ...ratedRequest(changed), seats: Number($("seats").value), bots: Number($("bots").value),
      bot: $("bot").value, character: $("character").value || null, mode: $("mode").value,
      turn_seconds: Number($("turn").value) || null,
    }));
  } catch (err) { ratedRefusal(ctx, err) || ctx.toastError(err); }
}

async function joinRoom(ctx, watch) {
  const code = $("join-code").value.trim().toUpperCase();
  const nickname = $("join-nick").value.trim();
  if (!/^[2-9A-HJ-NP-Z]{6}$/.test(code)) { ctx.toast(ctx.t("home.bad_code")); return; }
  if (watch) { ctx.enterRoom(code, true); return; }
  const problem = nicknameProblem(nickname);
  if (problem) { ctx.toast(ctx.t(problem)); $("join-nick").focus(); return; }
  ctx.storage.set("nickname", nickname);
  try {
    sitDown(ctx, await ctx.api(`/api/rooms/${code}/join`, { nickname }));
  } catch (err) { ratedRefusal(ctx, err) || ctx.toastError(err); }
}

/** The home page's forms: the rules of a new table follow its preset, the seats its rules. */
export function wireHome(ctx, opts) {
  $("presets").addEventListener("change", () => fillPreset(opts));
  $("seats").addEventListener("change", updateBots);
  $("bot").addEventListener("change", () => fillCharacters(ctx, opts));
  $("character").addEventListener("change", () => fillCharacters(ctx, opts));
  $("rules-box").addEventListener("change", (e) => { if (e.target.dataset.rule === "max_players") updateSeats(); });
  const nick = ctx.storage.get("nickname") || "";
  $("create-nick").value = nick;
  $("join-nick").value = nick;
  $("create-form").addEventListener("submit", (e) => { e.preventDefault(); createRoom(ctx, opts); });
  $("join-form").addEventListener("submit", (e) => { e.preventDefault(); joinRoom(ctx, false); });
  $("watch-btn").addEventListener("click", () => joinRoom(ctx, true));
}

/** The server's nickname rules (nomercy.server.base.names), checked here first so a person
 *  gets the reason at once, in their language; the server checks again. */
export function nicknameProblem(raw) {
  const v = raw.normalize("NFKC").trim();
  if (!v) return "nick.empty";
  if ([...v].length > 24) return "nick.long";
  if (/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u.test(v)) return "nick.bidi";
  if (!/[^\p{Z}\p{Cf}\p{Cc}\p{Mn}\p{Me}\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5]/u.test(v)) return "nick.invisible";
  if (/^bot(?![a-z])/i.test(v)) return "nick.bot";
  return null;
}

export function renderLobby(ctx) {
  const s = ctx.store.get();
  const room = s.room;
  $("lobby-code").textContent = room.code;
  $("lobby-rated").hidden = !room.rated;
  $("invite-link").value = `${location.origin}/join/${room.code}`;
  const list = clear($("lobby-seats"));
  const me = s.seat !== null ? room.seats[s.seat] : null;
  for (const seat of room.seats) {
    const li = el("li", seat.kind === "open" ? "open" : "");
    li.appendChild(el("span", "name", seat.kind === "open" ? ctx.t("lobby.open_seat") : seat.kind === "bot" ? ctx.nameOf(seat.seat) : seat.nickname));
    if (seat.account) li.appendChild(accountMark(ctx)); // set by the server alone
    const tags = [seat.host ? "host" : null, seat.kind === "bot" ? "bot" : null, seat.seat === s.seat ? "you" : null,
      seat.kind === "human" && !seat.connected ? "away" : null].filter(Boolean);
    for (const t of tags) li.appendChild(el("span", "tag", ctx.t(`lobby.tag.${t}`)));
    if (me && me.host && seat.kind === "human" && seat.seat !== s.seat) li.appendChild(ctx.kickButton(seat));
    list.appendChild(li);
  }
  for (const r of room.removed || []) {
    const li = el("li", "removed");
    li.appendChild(el("span", "name", r.nickname));
    li.appendChild(el("span", "tag", ctx.t("lobby.tag.removed")));
    if (me && me.host) li.appendChild(ctx.readmitButton(r));
    list.appendChild(li);
  }
  const host = me && me.host;
  $("start-btn").hidden = !host;
  $("lobby-note").textContent = s.seat === null
    ? ctx.t("lobby.watching", { count: room.seats.filter((x) => x.kind !== "open").length, seats: room.seats.length })
    : ctx.t(host ? "lobby.host_note" : "lobby.guest_note");
  renderRulesSummary(ctx, room);
}

export function renderRulesSummary(ctx, room) {
  const preset = ctx.i18n.has(`preset.${room.preset}.text`) ? ctx.t(`preset.${room.preset}.text`) : room.preset;
  const mode = room.mode === "match" ? ctx.t("lobby.mode_match", { points: room.rules.target_score }) : ctx.t("lobby.mode_round");
  const timer = room.turn_seconds ? ctx.t("lobby.timer", { count: room.turn_seconds }) : ctx.t("lobby.no_timer");
  $("rules-preset").textContent = `${preset} ${mode} ${timer}`;
  const lines = clear($("rules-lines"));
  for (const line of room.summary || []) {
    const li = el("li", "");
    li.append(ctx.i18n.line(line), " ");
    if (line.rule) li.appendChild(el("span", "rule-id", line.rule));
    lines.appendChild(li);
  }
  const listBox = clear($("rules-list"));
  for (const [group, rules] of ctx.ruleGroups || []) {
    const present = rules.filter((r) => r.name in room.rules);
    if (!present.length) continue;
    listBox.appendChild(el("h3", "rule-group-title", ctx.t(`rules.group.${group}`)));
    const dl = el("dl");
    for (const r of present) {
      dl.appendChild(el("dt", "", `${ctx.t(`${r.key}.label`)}: ${ruleValue(ctx, r.name, room.rules[r.name])}`));
      dl.appendChild(el("dd", "", ctx.t(`${r.key}.help`)));
    }
    listBox.appendChild(dl);
  }
}

export function kickButtonFactory(ctx) {
  return (seat) => labelled(button("small-btn danger", ctx.t("lobby.remove"), async () => {
    const s = ctx.store.get();
    const ok = await ctx.prompts.askChoice(ctx.t("lobby.remove_title", { name: seat.nickname }),
      [["yes", ctx.t("lobby.remove_confirm", { name: seat.nickname })]], "",
      ctx.t(s.room.status === "lobby" ? "lobby.remove_lobby" : "lobby.remove_game"), false);
    if (ok !== "yes") return;
    try { await ctx.api(`/api/rooms/${s.code}/kick`, { seat: seat.seat }, s.token); ctx.toast(ctx.t("lobby.removed", { name: seat.nickname })); } catch (err) { ctx.toastError(err); }
  }), ctx.t("lobby.remove_label", { name: seat.nickname }));
}

function labelled(b, label) { b.setAttribute("aria-label", label); return b; }

export function readmitButtonFactory(ctx) {
  return (r) => {
    const b = button("small-btn", ctx.t("lobby.readmit"), async () => {
      const s = ctx.store.get();
      try { await ctx.api(`/api/rooms/${s.code}/readmit`, { seat: r.seat }, s.token); } catch (err) { ctx.toastError(err); }
    });
    b.setAttribute("aria-label", ctx.t("lobby.readmit_label", { name: r.nickname }));
    b.classList.add("readmit");
    return b;
  };
}
