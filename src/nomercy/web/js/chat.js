// Chat and quick reactions: the lines of the room (reactions kept too, so a reload shows
// them), bubbles at the sender's seat, and the reaction buttons.
import { $, el, button, clear } from "./dom.js";

export const REACTIONS = ["gg", "wow", "ouch", "haha", "hurry", "oops"];

export function renderChat(ctx) {
  const s = ctx.store.get();
  const chat = clear($("chat"));
  for (const line of s.chat) {
    const li = el("li", line.reaction ? "reaction" : "");
    li.appendChild(el("span", "who", line.seat === s.seat ? ctx.t("chat.you") : line.nickname));
    li.appendChild(el(line.reaction ? "em" : "span", "text", line.reaction ? ctx.t(`reaction.${line.reaction}`) : line.text));
    chat.appendChild(li);
  }
  chat.scrollTop = chat.scrollHeight;
  const watching = s.seat === null;
  $("chat-form").hidden = watching;
  $("reactions").hidden = watching;
  const empty = $("chat-empty");
  empty.hidden = s.chat.length > 0 && !watching;
  empty.textContent = watching ? ctx.t(s.chat.length ? "chat.watching" : "chat.watching_empty") : ctx.t("chat.empty");
}

export function renderReactions(ctx) {
  const box = clear($("reactions"));
  for (const key of REACTIONS) {
    box.appendChild(button("", ctx.t(`reaction.${key}`), () => ctx.send({ type: "react", reaction: key })));
  }
}

export function bubble(seat, text) {
  const s = document.querySelector(`#seat-ring .seat[data-seat="${seat}"]`);
  if (!s) return;
  const b = el("span", "bubble", text);
  b.setAttribute("aria-hidden", "true");
  s.appendChild(b);
  setTimeout(() => b.remove(), 3200);
}
