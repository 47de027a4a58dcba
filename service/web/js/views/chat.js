// The table's chat: the messages this page's player reads (the service chooses: a seated
// player never gets the spectators' room while the game is played), a text box, the fixed
// phrases, mute and report. Messages are drawn as text nodes only (h(): textContent), so a
// message can never inject markup. The panel's element stays the same across the table's
// renders, so what is being typed survives them.
import { ApiError } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

export const PHRASES = ["good_luck", "well_played", "thanks", "sorry", "hurry_please"];
const SHOWN = 50;

export function chatPanel(ctx, session) {
  const gameId = session.gameId;
  const state = { messages: new Map(), phrasesOnly: false, muted: new Set(), open: true };
  const el = h("section", { class: "panel chat", "aria-labelledby": "chat-title", dataset: { panel: "chat" } });
  const input = h("input", {
    type: "text", id: "chat-text", maxlength: "300", autocomplete: "off",
    "aria-label": t("chat.placeholder"), placeholder: t("chat.placeholder"), dataset: { key: "chat-text" },
  });
  const list = h("ol", { class: "chat-list", "aria-live": "polite", dataset: { chat: "messages" } });

  const add = (message) => {
    if (message.game_id && message.game_id !== gameId) return;
    state.messages.set(message.seq, message);
  };

  async function load() {
    try {
      const page = await ctx.api.chat(gameId);
      state.phrasesOnly = page.phrases_only;
      for (const message of page.items) add(message);
      if (ctx.me()) state.muted = new Set(await ctx.api.mutes());
      draw();
    } catch (error) {
      if (!(error instanceof ApiError)) return; // offline: the next connection loads again
      ctx.toast(error);
    }
  }

  async function send(body) {
    try {
      add(await ctx.api.say(gameId, body));
      if (body.text != null) input.value = "";
      draw();
    } catch (error) {
      ctx.toast(error);
    }
  }

  async function mute(player, on) {
    try {
      state.muted = new Set(await ctx.api.mute(player, on));
      draw();
    } catch (error) {
      ctx.toast(error);
    }
  }

  async function report(message) {
    if (!confirm(t("chat.report.confirm", { name: message.name ?? "…" }))) return;
    try {
      await ctx.api.report(gameId, message.seq);
      ctx.announce(t("chat.reported"));
      ctx.toast(t("chat.reported"));
    } catch (error) {
      ctx.toast(error);
    }
  }

  async function setRule(on) {
    try {
      await ctx.api.setChatRules(gameId, on);
      state.phrasesOnly = on;
      draw();
    } catch (error) {
      ctx.toast(error);
    }
  }

  function line(message) {
    const me = ctx.me();
    const mine = me && message.author === me.id;
    const text = message.phrase ? t(`phrase.${message.phrase}`) : message.body;
    return h("li", { class: ["chat-line", message.room === "spectators" && "from-spectator"], dataset: { seq: String(message.seq), room: message.room } },
      h("span", { class: "chat-author" }, message.name ?? "…"),
      message.room === "spectators" ? h("span", { class: "chip chat-room" }, t("chat.spectator")) : null,
      h("span", { class: "chat-body", text }),
      me && !mine ? h("span", { class: "chat-tools" },
        h("button", { type: "button", class: "link", dataset: { mute: message.author },
          onclick: () => mute(message.author, true) }, t("chat.mute")),
        h("button", { type: "button", class: "link", dataset: { report: String(message.seq) },
          onclick: () => report(message) }, t("chat.report"))) : null);
  }

  function draw() {
    const me = ctx.me();
    const snap = session.snapshot;
    const playing = snap?.view.status === "playing";
    const seated = snap?.seat != null;
    const onlyPhrases = state.phrasesOnly && playing;
    const shown = [...state.messages.values()].filter((m) => !state.muted.has(m.author))
      .sort((a, b) => a.seq - b.seq).slice(-SHOWN);
    mount(list, shown.length ? shown.map(line) : h("li", { class: "muted" }, t("chat.empty")));
    const form = me ? h("form", { class: "chat-form", onsubmit: (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (text) send({ text });
    } },
      onlyPhrases ? null : [input, h("button", { type: "submit", dataset: { key: "chat-send" } }, t("chat.send"))],
      h("div", { class: "chat-phrases", role: "group", "aria-label": t("chat.phrases") },
        PHRASES.map((key) => h("button", { type: "button", class: "chip", dataset: { phrase: key },
          onclick: () => send({ phrase: key }) }, t(`phrase.${key}`))))) : h("p", { class: "muted" }, t("chat.signin"));
    const rule = seated ? h("label", { class: "chat-rule" },
      h("input", { type: "checkbox", checked: state.phrasesOnly, dataset: { key: "chat-rule" },
        onchange: (event) => setRule(event.target.checked) }), " ", t("chat.rule")) : null;
    const mutedNote = state.muted.size ? h("p", { class: "muted chat-muted" }, t("chat.muted", { n: state.muted.size }), " ",
      h("button", { type: "button", class: "link", onclick: () => [...state.muted].forEach((p) => mute(p, false)) }, t("chat.unmute"))) : null;
    mount(el,
      h("h2", { id: "chat-title" }, t("chat.title")),
      h("p", { class: "muted chat-note" }, t(seated ? (playing ? "chat.note.players" : "chat.note.after") : "chat.note.spectators")),
      list, onlyPhrases ? h("p", { class: "muted" }, t("chat.phrases.only")) : null, form, rule, mutedNote);
  }

  const onTalk = ({ detail }) => { if (detail.kind === "chat") { add(detail.data); draw(); } };
  const onConnected = () => load();
  const onChange = () => draw();
  session.addEventListener("talk", onTalk);
  session.addEventListener("connected", onConnected);
  session.addEventListener("change", onChange);
  draw();
  return {
    el,
    rerender: draw,
    destroy() {
      session.removeEventListener("talk", onTalk);
      session.removeEventListener("connected", onConnected);
      session.removeEventListener("change", onChange);
    },
  };
}
