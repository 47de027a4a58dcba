// "My games": the player's own lobby (every active game, those waiting for him first, with
// their deadlines; his finished games with their replays; his what-if studies) and his
// notifications. Opening it
// clears the badge; a new notification refreshes the games (no polling).
import { h, mount } from "../dom.js";
import { lang, t } from "../i18n.js";
import { deadlineText, noteText } from "../notifications.js";
import { studyList } from "./study.js";

export function mineScreen(root, ctx) {
  const me = ctx.me();
  const notifier = ctx.notifier();
  const state = { games: null, names: new Map(), studies: null };
  let alive = true;

  async function load() {
    try {
      const games = await ctx.api.myGames();
      for (const entry of [...games.active, ...games.finished]) {
        for (const seat of entry.game.seated ?? []) if (seat.player) state.names.set(seat.player, seat.name);
      }
      const mentioned = (notifier?.items ?? []).map((n) => n.data?.player).filter((id) => id && !state.names.has(id));
      await Promise.all([...new Set(mentioned)].map(async (id) => state.names.set(id, await ctx.api.name(id))));
      state.games = games;
      state.studies = (await ctx.api.myStudies()).items;
    } catch (error) {
      ctx.toast(error);
    }
    if (alive) render();
  }

  const onNote = () => load();
  const onChange = () => { if (alive) { notifier.markSeen(); render(); } };
  notifier?.addEventListener("note", onNote);
  notifier?.addEventListener("change", onChange);

  function render() {
    if (!me) {
      mount(root, h("section", { class: "screen mine", dataset: { screen: "mine" } },
        h("h1", {}, t("mine.title")), h("p", {}, h("a", { href: "#/" }, t("mine.signin")))));
      return;
    }
    mount(root, h("section", { class: "screen mine", "aria-labelledby": "mine-title", dataset: { screen: "mine" } },
      h("h1", { id: "mine-title" }, t("mine.title")),
      h("p", {}, h("a", { href: `#/player/${me.id}`, dataset: { key: "my-profile" } }, t("mine.profile"))),
      h("div", { class: "lobby-grid" },
        panel("active", t("mine.active"), activeList()),
        panel("notes", t("notes.title"), notesList()),
        panel("finished", t("mine.finished"), finishedList()),
        panel("studies", t("study.mine"), studyList(state.studies)))));
  }

  const panel = (key, title, body) => h("section", {
    class: "panel games", "aria-labelledby": `mine-${key}`, dataset: { list: `mine-${key}` },
  }, h("h2", { id: `mine-${key}` }, title), body);

  const who = (game) => game.seated.map((s) => (s.player === me.id ? t("you") : s.name ?? t("seat.free"))).join(", ");

  function activeList() {
    const games = state.games?.active;
    if (!games) return h("p", { class: "muted" }, t("loading"));
    if (!games.length) return h("p", { class: "muted" }, t("mine.none"));
    return h("ul", { class: "game-list" }, games.map(({ game, my_turn: mine }) => {
      const until = deadlineText(game.deadline);
      return h("li", { dataset: { game: game.id, myTurn: String(mine) } },
        h("div", {},
          h("strong", {}, t(`preset.${game.preset}`)), " ",
          mine ? h("span", { class: "chip turn" }, t("mine.your_turn"))
            : h("span", { class: "chip" }, t(game.status === "seating" ? "mine.seating" : "mine.waiting")),
          until ? h("span", { class: "muted" }, " · ", t("mine.until", { when: until })) : null,
          h("br"), h("span", { class: "muted" }, who(game))),
        h("a", { class: ["button", mine ? "primary" : ""], href: `#/game/${game.id}`, dataset: { key: `go:${game.id}` } },
          t(mine ? "mine.play" : "list.resume")));
    }));
  }

  function finishedList() {
    const games = state.games?.finished;
    if (!games) return h("p", { class: "muted" }, t("loading"));
    if (!games.length) return h("p", { class: "muted" }, t("mine.none"));
    return h("ul", { class: "game-list" }, games.map(({ game }) => h("li", { dataset: { game: game.id } },
      h("div", {}, h("strong", {}, t(`preset.${game.preset}`)), h("br"), h("span", { class: "muted" }, who(game))),
      h("span", { class: "row" },
        h("a", { class: "button", href: `#/game/${game.id}`, dataset: { key: `results:${game.id}` } }, t("list.results")),
        h("a", { class: "button", href: `#/game/${game.id}/replay/1`, dataset: { key: `replay:${game.id}`, replay: game.id } },
          t("mine.replay"))))));
  }

  function notesList() {
    if (!notifier) return h("p", { class: "muted" }, t("loading"));
    const notes = [...notifier.items].reverse();
    if (!notes.length) return h("p", { class: "muted" }, t("notes.none"));
    return h("ul", { class: "note-list" }, notes.map((note) => h("li", {
      dataset: { seq: String(note.seq), note: note.kind },
    },
    h("span", {}, noteText(note, state.names)),
    " ", h("time", { class: "muted", datetime: note.created_at },
      new Date(note.created_at).toLocaleString(lang(), { dateStyle: "short", timeStyle: "short" })),
    note.game_id ? [" ", h("a", { href: `#/game/${note.game_id}` }, t("note.open"))] : null)));
  }

  notifier?.markSeen();
  render();
  load();
  return {
    destroy: () => {
      alive = false;
      notifier?.removeEventListener("note", onNote);
      notifier?.removeEventListener("change", onChange);
    },
    rerender: render,
  };
}
