// The lobby: sign up with a name, open a table with a preset and its main options, join a
// table that has a free seat, watch one being played, look back at finished ones. The lists
// follow the lobby's stream: read once it is open (its "reset"), then moved game by game as
// each one's summary arrives, so nothing polls.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { LiveStream } from "../sse.js";

const LISTS = ["seating", "playing", "finished"];
const SHOWN = 20; // games shown per list
const BOARD = 10; // players shown per leaderboard

export function lobbyScreen(root, ctx) {
  const state = { lists: {}, names: new Map(), leaders: { humans: null, computers: null }, versions: new Map() };
  let alive = true;
  // The forms are built once per render and the lists refreshed inside their own boxes, so a
  // change in the lobby never wipes what the user is typing.
  const boxes = {};
  const render = () => {
    for (const key of [...LISTS, "leaders"]) boxes[key] = h("div", { class: "box" });
    mount(root, screen());
    renderLists();
  };
  const renderLists = () => {
    for (const status of LISTS) mount(boxes[status], listBody(status));
    mount(boxes.leaders, leaders());
    root.querySelector("[data-screen=lobby]")?.setAttribute("data-live", stream.state);
  };
  const learnNames = (game) => {
    for (const seat of game.seated ?? []) if (seat.player && seat.name) state.names.set(seat.player, seat.name);
  };

  async function refresh() {
    if (!alive) return;
    try {
      const pages = await Promise.all(LISTS.map((status) => ctx.api.listGames(status, { limit: SHOWN })));
      LISTS.forEach((status, i) => { state.lists[status] = pages[i].items; });
      for (const game of pages.flatMap((p) => p.items)) {
        learnNames(game);
        state.versions.set(game.id, Math.max(game.version, state.versions.get(game.id) ?? 0));
      }
      await refreshLeaders();
    } catch (error) {
      ctx.toast(error);
    }
    if (alive) renderLists();
  }

  async function refreshLeaders() {
    const [humans, computers] = await Promise.all(["humans", "computers"].map(
      (side) => ctx.api.leaderboard(BOARD, side).catch(() => null)));
    state.leaders = { humans, computers };
  }

  /** One game's new summary: out of every list, into its status's (newest first). */
  function moved(game) {
    if (game.version < (state.versions.get(game.id) ?? 0)) return; // an older change, late
    state.versions.set(game.id, game.version);
    learnNames(game);
    for (const status of LISTS) {
      const list = state.lists[status];
      if (list) state.lists[status] = list.filter((g) => g.id !== game.id);
    }
    const list = state.lists[game.status];
    if (list) {
      state.lists[game.status] = [game, ...list].sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, SHOWN);
    }
    if (game.status === "finished") refreshLeaders().then(() => alive && renderLists());
    renderLists();
  }

  const stream = new LiveStream({
    open: (lastEventId, signal) => ctx.api.lobbyStream(lastEventId, signal),
    onState: () => alive && renderLists(),
    onEvent: (message) => {
      if (message.event === "reset") refresh();
      else if (message.event === "game") moved(JSON.parse(message.data));
    },
  });
  render();
  stream.start();

  function screen() {
    const me = ctx.me();
    return h("section", { class: "screen lobby", "aria-labelledby": "lobby-title", dataset: { screen: "lobby", live: stream.state } },
      h("h1", { id: "lobby-title" }, t("lobby.title")),
      h("p", { class: "muted" }, t("lobby.intro")),
      me ? null : registerForm(),
      h("div", { class: "lobby-grid" },
        me ? createForm() : null,
        gameList("seating"),
        gameList("playing"),
        gameList("finished"),
        boxes.leaders));
  }

  function registerForm() {
    const input = h("input", { id: "reg-name", name: "name", required: true, maxlength: "64",
      autocomplete: "nickname", placeholder: t("register.placeholder") });
    return h("form", {
      class: "panel register", "aria-labelledby": "reg-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        try {
          await ctx.signUp(value);
        } catch (error) {
          ctx.toast(error);
        }
      },
    },
    h("h2", { id: "reg-title" }, t("register.title")),
    h("label", { for: "reg-name" }, t("register.name")),
    h("div", { class: "row" }, input, h("button", { type: "submit", class: "primary" }, t("register.go"))),
    h("p", { class: "muted" }, t("register.note")));
  }

  function createForm() {
    const select = (id, options, label) => [
      h("label", { for: id }, label),
      h("select", { id, name: id }, options.map(([value, text]) => h("option", { value }, text))),
    ];
    const number = (id, label, { min = "0", max, value = "0" } = {}) => [
      h("label", { for: id }, label),
      h("input", { id, name: id, type: "number", min, max, value, required: true }),
    ];
    const asPreset = ["", t("create.as.preset")];
    const yesNo = [asPreset, ["true", t("yes")], ["false", t("no")]];
    const form = h("form", {
      class: "panel create", "aria-labelledby": "create-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        // "Play now" seats the visitor and fills every other seat with a bot in the same call,
        // so the table is full at once and the first deal is dealt.
        const withBots = event.submitter?.value === "bots";
        const overrides = { pool: { target: Number(data.get("target")) } };
        const option = (section, field, value) => {
          if (value === "" || value == null) return;
          overrides[section] ??= {};
          overrides[section][field] = value === "true" ? true : value === "false" ? false : value;
        };
        option("whist", "style", data.get("style"));
        option("whist", "half_whist", data.get("half_whist"));
        option("whist", "stalingrad", data.get("stalingrad"));
        option("bidding", "allow_jumps", data.get("allow_jumps"));
        for (const field of ["move_seconds", "bank_seconds"]) {
          const seconds = Number(data.get(field));
          if (seconds > 0) option("table", field, seconds);
        }
        if (data.get("friendly")) option("table", "rating_weight", 0); // не на рейтинг
        const seats = Number(data.get("seats"));
        const body = { preset: data.get("preset"), seats, overrides };
        if (withBots) {
          body.seat = 0;
          body.bots = Array.from({ length: seats - 1 }, () => ({ level: data.get("bot_level") }));
        } else if (data.get("sit")) {
          body.seat = 0;
        }
        const seed = String(data.get("seed") ?? "").trim();
        if (seed) body.seed = seed;
        if (data.get("private")) body.private = true;
        try {
          const created = await ctx.api.createGame(body);
          ctx.navigate(`#/game/${created.id}`);
        } catch (error) {
          ctx.toast(error);
        }
      },
    },
    h("h2", { id: "create-title" }, t("create.title")),
    h("div", { class: "fields" },
      select("preset", [["sochi", t("preset.sochi")], ["leningrad", t("preset.leningrad")], ["rostov", t("preset.rostov")]], t("create.preset")),
      select("seats", [["3", "3"], ["4", "4"]], t("create.seats")),
      number("target", t("create.target"), { min: "1", max: "500", value: "10" }),
      select("style", [asPreset, ["greedy", t("style.greedy")], ["gentleman", t("style.gentleman")]], t("create.style")),
      select("half_whist", yesNo, t("create.half")),
      select("stalingrad", yesNo, t("create.stalingrad")),
      select("allow_jumps", yesNo, t("create.jumps")),
      number("move_seconds", t("create.move"), { max: "3600" }),
      number("bank_seconds", t("create.bank"), { max: "86400" })),
    h("p", { class: "muted" }, t("create.clock.note")),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "sit", checked: true }), t("create.sit")),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "private", dataset: { key: "private" } }),
      t("create.private")),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "friendly", dataset: { key: "friendly" } }),
      t("create.friendly")),
    h("details", {}, h("summary", {}, t("create.more")),
      h("label", { for: "seed" }, t("create.seed")),
      h("input", { id: "seed", name: "seed", maxlength: "128", autocomplete: "off" }),
      h("p", { class: "muted" }, t("create.seed.note"))),
    h("button", { type: "submit", class: "primary", name: "mode", value: "open", dataset: { key: "open-table" } },
      t("create.go")),
    h("fieldset", { class: "play-now" },
      h("legend", {}, t("create.bots.title")),
      h("p", { class: "muted" }, t("create.bots.note")),
      h("div", { class: "row" },
        h("label", { for: "bot_level" }, t("bots.level")),
        h("select", { id: "bot_level", name: "bot_level" },
          ["random", "basic", "strong", "expert"].map((level) => h("option", { value: level, selected: level === "basic" },
            t(`bots.${level}`)))),
        h("button", { type: "submit", class: "primary", name: "mode", value: "bots", dataset: { key: "play-now" } },
          t("create.bots.go")))));
    return form;
  }

  function gameList(status) {
    return h("section", { class: "panel games", "aria-labelledby": `list-${status}`, dataset: { list: status } },
      h("h2", { id: `list-${status}` }, t(`list.${status}`)), boxes[status]);
  }

  function listBody(status) {
    const me = ctx.me();
    // A table everyone has left is abandoned: nobody waits there (its creator still sees it).
    const games = state.lists[status]?.filter((game) => status !== "seating"
      || game.players.some(Boolean) || (me && game.created_by === me.id));
    return !games ? h("p", { class: "muted" }, t("loading"))
        : !games.length ? h("p", { class: "muted" }, t("list.empty"))
        : h("ul", { class: "game-list" }, games.map((game) => {
          const mine = me && game.players.includes(me.id);
          const free = game.players.filter((p) => p == null).length;
          const who = game.players.map((p) => (p ? state.names.get(p) ?? "…" : t("seat.free"))).join(", ");
          const verb = status === "seating" ? (mine ? "open" : me && free ? "join" : "watch")
            : status === "playing" ? (mine ? "resume" : "watch") : "results";
          return h("li", { dataset: { game: game.id } },
            h("div", {},
              h("strong", {}, t(`preset.${game.preset}`)), " · ", t("list.seats", { n: game.seats - free, of: game.seats }),
              // Whether the game counts, before one sits down: a friendly moves nobody's rating.
              game.rating_weight === 0 ? [" · ", h("span", { class: "tag", dataset: { tag: "friendly" } }, t("list.friendly"))]
                : game.rating_weight && game.rating_weight !== 100
                  ? [" · ", h("span", { class: "tag", dataset: { tag: "weight" } }, t("list.weight", { n: game.rating_weight }))] : null,
              h("br"), h("span", { class: "muted" }, who)),
            h("button", {
              type: "button", class: verb === "join" ? "primary" : "",
              dataset: { key: `${verb}:${game.id}`, verb },
              onclick: async () => {
                if (verb === "join") {
                  try { await ctx.api.join(game.id); } catch (error) { ctx.toast(error); return; }
                }
                ctx.navigate(`#/game/${game.id}`);
              },
            }, t(`list.${verb}`)));
        }));
  }

  function leaders() {
    const { humans, computers } = state.leaders;
    if (!humans?.items.length && !computers?.items.length) return null;
    const board = (side, page) => h("div", { class: "board", dataset: { board: side } },
      h("h3", {}, t(`leaders.${side}`)),
      !page?.items.length ? h("p", { class: "muted" }, t("leaders.none"))
        : h("ol", {}, page.items.map((e) => h("li", { dataset: { player: e.player_id } },
          h("a", { href: `#/player/${e.player_id}` }, e.name || (state.names.get(e.player_id) ?? "…")),
          ": ", e.rating.toFixed(1),
          h("span", { class: "muted" }, ` (σ ${e.sigma.toFixed(1)}`,
            e.provisional ? `, ${t("leaders.provisional")}` : "", ")")))));
    return h("section", { class: "panel leaders", "aria-labelledby": "leaders-title" },
      h("h2", { id: "leaders-title" }, t("leaders.title")),
      h("p", { class: "muted" }, t("leaders.scale")),
      board("humans", humans),
      board("computers", computers));
  }

  return { destroy: () => { alive = false; stream.stop(); }, rerender: render };
}
