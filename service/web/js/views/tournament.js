// A tournament's page: its frozen rules, what the signed-in player can do (register, check in,
// withdraw, go to his table, play his robot duplicate run), the standings, every round with its
// tables (links to each game and its replay) and its protocol, a robot duplicate's runs, the
// log (the arbiter's decisions with their reasons) and the exports. The page follows the
// tournament's standings stream: each new version reloads the view and the log's tail. A round's
// tables are created after its start (within some 8 s for a thousand players) without a new
// version, so while the round shown lacks a table's game the view is read again every 2 s; the
// players learn of their own table by a notification. The organiser also gets the arbiter's
// console (arbiter.js).
import { h, mount } from "../dom.js";
import { lang, t } from "../i18n.js";
import { LiveStream } from "../sse.js";
import { arbiterConsole } from "./arbiter.js";
import { problemText, when } from "./tournaments.js";

const ARBITER_EVENTS = new Set(["table_paused", "table_resumed", "player_replaced", "result_adjusted",
  "result_annulled", "appeal_recorded"]);

const signed = (n) => (Number(n) > 0 ? `+${n}` : String(n));

export function tournamentScreen(root, ctx, id) {
  const state = { view: null, log: [], logVersion: 0, missing: false, busy: false, names: new Map() };
  let alive = true;
  let loading = null; // the refresh under way
  let again = false; // another was asked for while it ran
  let opening = null; // the next look at a round whose tables are being opened
  const boxes = {};
  let consoleKey = null;
  let lineupKey = null;

  const stream = new LiveStream({
    open: (lastEventId, signal) => ctx.api.tournamentStream(id, lastEventId, signal),
    onEvent: (message) => {
      // a whole "standings" frame, or "standings-changes": either names the version reached
      if (message.event !== "standings" && message.event !== "standings-changes") return;
      const { version } = JSON.parse(message.data);
      if (!state.view || version > state.view.version) refresh();
    },
    onState: () => alive && renderData(),
    onFatal: () => { state.missing = true; renderData(); },
  });

  /** The view and the log's new events; one at a time, and once more if asked meanwhile. */
  async function refresh() {
    if (loading) { again = true; return loading; }
    loading = (async () => {
      do {
        again = false;
        try {
          const view = await ctx.api.tournament(id);
          await readLog();
          if (!state.view || view.version >= state.view.version) state.view = view;
        } catch (error) {
          if (error?.status === 404) state.missing = true;
          else ctx.toast(error);
        }
      } while (again && alive);
    })();
    try { await loading; } finally { loading = null; }
    if (alive) renderData();
    const current = state.view?.rounds.at(-1);
    if (alive && !opening && state.view?.status === "running"
      && current?.tables.some((table) => !table.game_id && !table.result && !table.annulled)) {
      opening = setTimeout(() => { opening = null; if (alive) refresh(); }, 2000); // being opened
    }
  }

  async function readLog() {
    for (;;) {
      const page = await ctx.api.tournamentLog(id, state.logVersion);
      state.log.push(...page.items);
      state.logVersion = page.version;
      if (!page.next_cursor) return;
    }
  }

  /** A view a command answered with: shown at once, the log read after it. */
  function took(view) {
    if (!state.view || view.version >= state.view.version) state.view = view;
    renderData();
    refresh();
  }

  // --- names ---------------------------------------------------------------------------------
  function nameOf(player) {
    if (!player) return "—";
    if (player.startsWith("bot:")) return t("tournament.bot", { level: t(`bots.${player.split(":")[1]}`) });
    const known = state.names.get(player);
    if (known) return known;
    const entrant = state.view?.entrants.find((e) => e.player === player);
    if (entrant?.name) return entrant.name;
    state.names.set(player, "…");
    ctx.api.name(player).then((name) => { state.names.set(player, name ?? "…"); if (alive) renderData(); });
    return "…";
  }
  const playerLink = (player) => (player.startsWith("bot:") ? h("span", {}, nameOf(player))
    : h("a", { href: `#/player/${player}`, dataset: { player } }, nameOf(player)));

  // --- the page ------------------------------------------------------------------------------
  function render() {
    if (!alive) return;
    for (const key of ["head", "actions", "rules", "standings", "teams", "lineup", "rounds", "log", "console"]) {
      boxes[key] = h("div", { class: "box", dataset: { box: key } });
    }
    consoleKey = null;
    lineupKey = null;
    mount(root, h("section", {
      class: "screen tournament", "aria-labelledby": "tournament-title", dataset: { screen: "tournament", tournament: id },
    },
    boxes.head,
    h("div", { class: "tournament-layout" },
      h("div", { class: "tournament-main" }, boxes.actions, boxes.lineup, boxes.standings, boxes.teams, boxes.rounds, boxes.log),
      h("div", { class: "side" }, boxes.console, boxes.rules))));
    renderData();
  }

  function renderData() {
    if (!alive || !boxes.head) return;
    const v = state.view;
    const section = root.querySelector("[data-screen=tournament]");
    section?.setAttribute("data-loading", String(!v && !state.missing));
    section?.setAttribute("data-status", v?.status ?? "");
    section?.setAttribute("data-version", String(v?.version ?? 0));
    section?.setAttribute("data-live", stream.state);
    if (!v) {
      mount(boxes.head, h("h1", { id: "tournament-title" }, state.missing ? t("tournament.missing") : t("loading")),
        h("p", {}, h("a", { href: "#/tournaments" }, t("tournaments.back"))));
      return;
    }
    mount(boxes.head, head(v));
    mount(boxes.actions, actions(v));
    mount(boxes.standings, standings(v));
    mount(boxes.teams, teamsPanel(v));
    // keyed by what the forms show (the caller's own teams, and which of their members are in
    // the field): another team's change leaves a half-made choice alone
    const inField = new Set(v.entrants.filter((e) => ["registered", "active"].includes(e.status)).map((e) => e.player));
    const lineups = [lang(), v.status, v.rounds.length, ctx.me()?.id ?? "",
      ownTeams(v).map((tm) => `${tm.team}:${tm.captain}:${tm.lineup}:${tm.members.filter((p) => inField.has(p))}`)
        .join()].join("|");
    if (lineups !== lineupKey) { // rebuilt only when its teams change: a half-made choice survives updates
      lineupKey = lineups;
      mount(boxes.lineup, lineupForms(v));
    }
    mount(boxes.rounds, v.kind === "robot" ? runs(v) : rounds(v));
    mount(boxes.log, logPanel());
    mount(boxes.rules, rules(v));
    const me = ctx.me();
    const key = me && v.organiser === me.id
      ? [lang(), v.status, v.rounds.length, Boolean(v.rounds.at(-1)?.secret), v.teams.map((tm) => tm.lineup).join(),
        v.entrants.map((e) => `${e.player}:${e.status}:${nameOf(e.player)}`).join()].join("|") : "";
    if (key !== consoleKey) { // built anew only when what it offers changed: typing survives updates
      consoleKey = key;
      mount(boxes.console, key ? arbiterConsole(ctx, v, { nameOf, done: took }) : null);
    }
  }

  function head(v) {
    return [
      h("p", {}, h("a", { href: "#/tournaments" }, t("tournaments.back"))),
      h("h1", { id: "tournament-title" }, v.name),
      h("p", { class: "chips" },
        h("span", { class: "chip" }, t(`tournament.kind.${v.kind}`)),
        h("span", { class: ["chip", `status-${v.status}`], dataset: { status: v.status } }, t(`tournament.status.${v.status}`)),
        v.organiser ? h("span", {}, t("tournament.organiser"), " ", playerLink(v.organiser)) : null,
        h("span", { class: ["chip", `conn-${stream.state}`] }, t(`conn.${stream.state}`))),
    ];
  }

  async function act(what, run) {
    if (state.busy) return;
    state.busy = true;
    renderData();
    try {
      const after = await run();
      if (after) took(after);
      ctx.announce(t(`tournament.done.${what}`));
    } catch (error) {
      ctx.toast(error);
    } finally {
      state.busy = false;
      renderData();
    }
  }

  function actions(v) {
    const me = ctx.me();
    const out = [];
    if (!me) {
      return h("p", { class: "panel" }, h("a", { href: "#/" }, t("tournament.signin")));
    }
    const entrant = v.entrants.find((e) => e.player === me.id);
    const reg = v.format.registration;
    const open = v.status !== "finished";
    // As the service decides: a late entry while rounds allow it, else within the window (a
    // robot duplicate's window is its play window).
    const late = v.status === "running" && v.kind !== "robot";
    const now = Date.now();
    const joinable = open && (late ? v.rounds.length <= reg.late_entry_rounds : reg.opens_at <= now && now < reg.closes_at);
    const button = (key, text, onclick, primary = true) => h("button", {
      type: "button", class: primary ? "primary" : null, dataset: { key }, disabled: state.busy, onclick,
    }, text);
    if (entrant) {
      out.push(h("p", { dataset: { entrant: entrant.status } }, t("tournament.you_are", { status: t(`entrant.${entrant.status}`) }),
        entrant.checked_in ? ` · ${t("tournament.checked_in")}` : "",
        entrant.cards ? ` · ${t("tournament.cards", { n: entrant.cards })}` : ""));
    }
    if (!entrant && joinable && v.format.teams) out.push(teamRegistration(v));
    else if (!entrant && joinable) out.push(button("register", t("tournament.register"), () => act("register", () => ctx.api.registerFor(id))));
    if (entrant && !entrant.checked_in && reg.check_in_opens_at != null && v.status === "registering") {
      out.push(button("check-in", t("tournament.check_in"), () => act("check_in", () => ctx.api.checkIn(id))));
    }
    if (v.kind === "robot" && entrant) {
      const run = v.runs.find((r) => r.seating[0] === me.id);
      if (run?.game_id) out.push(h("a", { class: "button primary", href: `#/game/${run.game_id}`, dataset: { key: "my-run" } }, t("tournament.my_run")));
      else if (open) {
        out.push(button("play-run", t("tournament.play_run"), () => act("run", async () => {
          const started = await ctx.api.startRun(id);
          ctx.navigate(`#/game/${started.game_id}`);
          return null;
        })));
      }
    }
    const mine = v.rounds.at(-1)?.tables.find((table) => table.seating.includes(me.id) && table.game_id);
    if (mine && open) {
      out.push(h("a", { class: "button primary", href: `#/game/${mine.game_id}`, dataset: { key: "my-table" } },
        t("tournament.my_table", { n: v.rounds.at(-1).round_no, table: mine.table })));
    }
    if (entrant && open && ["registered", "active"].includes(entrant.status)) {
      const reason = h("input", { id: "withdraw-reason", maxlength: "500" });
      out.push(h("form", {
        class: "row withdraw",
        onsubmit: (event) => {
          event.preventDefault();
          if (!confirm(t("tournament.withdraw.confirm"))) return;
          act("withdraw", () => ctx.api.withdrawFrom(id, reason.value.trim()));
        },
      },
      h("label", { for: "withdraw-reason" }, t("tournament.withdraw.reason")), reason,
      h("button", { type: "submit", dataset: { key: "withdraw" }, disabled: state.busy }, t("tournament.withdraw"))));
    }
    if (!out.length) return null;
    return h("section", { class: "panel", "aria-labelledby": "tactions-title", dataset: { panel: "actions" } },
      h("h2", { id: "tactions-title" }, t("tournament.you")), h("div", { class: "row actions-row" }, out));
  }

  /** A team event's registration: the team's name, one of those registered or a new one. */
  function teamRegistration(v) {
    const team = h("input", { id: "register-team", maxlength: "64", required: true, list: "register-teams", autocomplete: "off" });
    const known = v.teams.filter((tm) => tm.members.length < v.format.teams.max_size).map((tm) => tm.team);
    return h("form", {
      class: "row register-team",
      onsubmit: (event) => {
        event.preventDefault();
        const name = team.value.trim();
        if (name) act("register", () => ctx.api.registerFor(id, name));
      },
    },
    h("label", { for: "register-team" }, t("tournament.team.name")), team,
    h("datalist", { id: "register-teams" }, known.map((name) => h("option", { value: name }))),
    h("button", { type: "submit", class: "primary", dataset: { key: "register" }, disabled: state.busy }, t("tournament.register")));
  }

  /** Team standings (team sums) with each team's members and who plays next. */
  function teamsPanel(v) {
    if (!v.format.teams) return null;
    const cols = ["tournament.place", "tournament.team.title", "tournament.points", "tournament.whists", "tournament.team.members"];
    return h("section", { class: "panel", "aria-labelledby": "teams-title", dataset: { panel: "teams" } },
      h("h2", { id: "teams-title" }, t("tournament.teams.standings")),
      h("p", { class: "muted" }, t("tournament.teams.intro")),
      !v.teams.length ? h("p", { class: "muted" }, t("tournament.teams.none"))
        : h("div", { class: "scroll" }, h("table", { class: "grid-table team-standings" },
          h("caption", { class: "visually-hidden" }, t("tournament.teams.standings")),
          h("thead", {}, h("tr", {}, cols.map((key) => h("th", { scope: "col" }, t(key))))),
          h("tbody", {}, v.teams.map((tm) => h("tr", { dataset: { team: tm.team, place: String(tm.place) } },
            h("td", {}, String(tm.place)), h("th", { scope: "row" }, tm.team),
            h("td", {}, tm.points), h("td", {}, tm.whists),
            h("td", {}, h("ul", { class: "team-members" }, tm.members.map((p) => h("li", {
              dataset: { member: p, playing: String(tm.lineup.includes(p)) },
            }, playerLink(p),
            p === tm.captain ? h("span", { class: "muted" }, ` (${t("tournament.team.captain")})`) : null,
            tm.lineup.includes(p) ? h("span", { class: "chip" }, t("tournament.team.plays")) : null))))))))));
  }

  /** The teams the signed-in player may name a lineup for: his own as captain, all as organiser. */
  function ownTeams(v) {
    const me = ctx.me();
    if (!me || !v.format.teams || v.status === "finished" || v.rounds.length >= v.format.rounds) return [];
    return v.teams.filter((tm) => tm.captain === me.id || v.organiser === me.id);
  }

  /** The lineup form: a team's captain names his team's three, the arbiter any team's. */
  function lineupForms(v) {
    const mine = ownTeams(v);
    if (!mine.length) return null;
    const playing = v.format.teams.playing;
    return h("section", { class: "panel", "aria-labelledby": "lineup-title", dataset: { panel: "lineup" } },
      h("h2", { id: "lineup-title" }, t("tournament.lineup.title")),
      h("p", { class: "muted" }, t("tournament.lineup.intro", { n: playing, round: v.rounds.length + 1 })),
      mine.map((tm, ti) => {
        const error = h("div", { class: "form-error", role: "alert" });
        const inField = new Set(v.entrants.filter((e) => ["registered", "active"].includes(e.status)).map((e) => e.player));
        const checks = tm.members.filter((p) => inField.has(p)).map((p, i) => {
          const boxId = `lineup-${ti}-${i}`;
          return h("label", { class: "check", for: boxId },
            h("input", { type: "checkbox", id: boxId, name: "player", value: p, checked: tm.lineup.includes(p) }), " ", nameOf(p));
        });
        const el = h("form", {
          class: "lineup-form", dataset: { lineupForm: tm.team }, novalidate: true,
          onsubmit: async (event) => {
            event.preventDefault();
            mount(error);
            const players = [...el.querySelectorAll("input[name=player]:checked")].map((box) => box.value);
            try {
              const after = await ctx.api.nameLineup(id, tm.team, players);
              ctx.announce(t("tournament.lineup.done", { team: tm.team }));
              took(after);
            } catch (failure) {
              mount(error, h("p", { dataset: { problem: failure?.problem?.code ?? "" } }, problemText(failure)));
            }
          },
        },
        h("fieldset", {}, h("legend", {}, t("tournament.team", { team: tm.team })), checks),
        error,
        h("button", { type: "submit", class: "primary", dataset: { key: `lineup:${tm.team}` } }, t("tournament.lineup.name")));
        return el;
      }));
  }

  function standings(v) {
    const dup = v.standings.some((s) => s.duplicate != null);
    const cols = ["tournament.place", "player", "tournament.points", "tournament.whists", "tournament.bula", "tournament.rounds_played"];
    if (dup) cols.push("tournament.duplicate");
    return h("section", { class: "panel", "aria-labelledby": "standings-title", dataset: { panel: "standings" } },
      h("h2", { id: "standings-title" }, t("tournament.standings")),
      !v.standings.length ? h("p", { class: "muted" }, t("tournament.standings.none"))
        : h("div", { class: "scroll" }, h("table", { class: "grid-table standings" },
          h("caption", { class: "visually-hidden" }, t("tournament.standings")),
          h("thead", {}, h("tr", {}, cols.map((key) => h("th", { scope: "col" }, t(key))))),
          h("tbody", {}, v.standings.map((s) => h("tr", { dataset: { standing: s.player, place: String(s.place) } },
            h("td", {}, String(s.place)), h("th", { scope: "row" }, playerLink(s.player)),
            h("td", {}, s.points), h("td", {}, s.whists), h("td", {}, String(s.bula)), h("td", {}, String(s.rounds)),
            dup ? h("td", {}, s.duplicate ?? "—") : null))))),
      entrantsList(v));
  }

  function entrantsList(v) {
    if (!v.entrants.length) return h("p", { class: "muted" }, t("tournament.entrants.none"));
    return h("details", { dataset: { entrants: String(v.entrants.length) } },
      h("summary", {}, t("tournament.entrants", { n: v.entrants.length })),
      h("ul", { class: "note-list" }, v.entrants.map((e) => h("li", { dataset: { entrant: e.player } },
        playerLink(e.player), " · ", t(`entrant.${e.status}`),
        e.checked_in ? ` · ${t("tournament.checked_in")}` : "", e.late ? ` · ${t("tournament.late")}` : "",
        e.team ? ` · ${t("tournament.team", { team: e.team })}` : "",
        e.cards ? ` · ${t("tournament.cards", { n: e.cards })}` : ""))));
  }

  function tableState(table) {
    if (table.annulled) return "annulled";
    if (table.paused) return "paused";
    if (table.result) return "done";
    return table.game_id ? "playing" : "waiting";
  }

  /** One table's row of a round's protocol: seats in order, result, its game and replay. */
  function tableRow(table, label) {
    const st = tableState(table);
    const whists = table.result?.whists;
    return h("tr", { dataset: { table: String(table.table), state: st, game: table.game_id ?? "" } },
      h("th", { scope: "row" }, label),
      h("td", {}, h("ol", { class: "seating" }, table.seating.map((p, seat) => h("li", {},
        playerLink(p), seat === table.first_dealer ? h("span", { class: "muted" }, ` (${t("tournament.first_dealer")})`) : null,
        table.removed.includes(p) ? h("span", { class: "muted" }, ` (${t("tournament.removed")})`) : null,
        whists ? h("strong", { class: "whists" }, ` ${signed(whists[seat])}`) : null)))),
      h("td", {}, table.result?.pool?.length ? table.result.pool.join(" / ") : "—",
        table.result?.timed_out ? h("span", { class: "muted" }, ` (${t("tournament.timed_out")})`) : null),
      h("td", {}, h("span", { class: ["chip", `table-${st}`] }, t(`tournament.table.${st}`))),
      h("td", {}, table.game_id ? h("span", { class: "row" },
        h("a", { href: `#/game/${table.game_id}`, dataset: { key: `game:${table.game_id}` } }, t("tournament.table.open")),
        table.result ? h("a", { href: `#/game/${table.game_id}/replay/1` }, t("mine.replay")) : null) : "—"));
  }

  function protocolTable(caption, rows) {
    return h("div", { class: "scroll" }, h("table", { class: "grid-table protocol" },
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {}, ["tournament.table", "tournament.players", "tournament.pool", "tournament.state", "tournament.game"]
        .map((key) => h("th", { scope: "col" }, t(key))))),
      h("tbody", {}, rows)));
  }

  function rounds(v) {
    return h("section", { class: "panel", "aria-labelledby": "rounds-title", dataset: { panel: "rounds" } },
      h("h2", { id: "rounds-title" }, t("tournament.rounds")),
      !v.rounds.length ? h("p", { class: "muted" }, t("tournament.rounds.none"))
        : [...v.rounds].reverse().map((r) => h("section", { class: "round", dataset: { round: String(r.round_no) } },
          h("h3", {}, t("tournament.round", { n: r.round_no })),
          protocolTable(t("tournament.protocol", { n: r.round_no }),
            r.tables.map((table) => tableRow(table, t("tournament.table.n", { n: table.table })))),
          r.byes.length ? h("p", {}, t("tournament.byes"), " ", r.byes.map((p, i) => [i ? ", " : "", playerLink(p)])) : null,
          h("p", { class: "muted hash" }, t("tournament.commitment"), " ", h("code", {}, r.commitment),
            r.secret ? [" · ", t("tournament.secret"), " ", h("code", {}, r.secret)] : ` · ${t("tournament.secret.hidden")}`))));
  }

  function runs(v) {
    return h("section", { class: "panel", "aria-labelledby": "rounds-title", dataset: { panel: "runs" } },
      h("h2", { id: "rounds-title" }, t("tournament.runs")),
      !v.runs.length ? h("p", { class: "muted" }, t("tournament.runs.none"))
        : protocolTable(t("tournament.runs"), v.runs.map((run) => tableRow(run, t("tournament.run.n", { n: run.table })))),
      v.status !== "finished" ? h("p", { class: "muted" }, t("tournament.runs.withheld")) : null);
  }

  // --- the log -------------------------------------------------------------------------------
  function describe(item) {
    const e = item.event;
    const vars = {
      ...e, player: e.player ? nameOf(e.player) : "", substitute: e.substitute ? nameOf(e.substitute) : "",
      round: e.round_no, table: e.table, whists: (e.whists ?? []).map(signed).join(" / "),
      names: (e.no_shows ?? e.finalists ?? e.players ?? []).map(nameOf).join(", "),
      decision: e.decision ? t(`appeal.${e.decision}`) : "",
      card: e.reason && item.type === "yellow_card" ? t(`card.${e.reason}`) : "",
    };
    return t(`tlog.${item.type}`, vars);
  }

  function logPanel() {
    const items = [...state.log].reverse();
    return h("section", { class: "panel", "aria-labelledby": "tlog-title", dataset: { panel: "log" } },
      h("h2", { id: "tlog-title" }, t("tournament.log")),
      h("p", { class: "row" }, t("tournament.export"), " ",
        h("a", { href: ctx.api.exportUrl(id, "json"), target: "_blank", rel: "noopener", dataset: { export: "json" } }, "JSON"),
        h("a", { href: ctx.api.exportUrl(id, "text"), target: "_blank", rel: "noopener", dataset: { export: "text" } }, t("tournament.export.text"))),
      !items.length ? h("p", { class: "muted" }, t("loading"))
        : h("ol", { class: "note-list tlog", reversed: true }, items.map((item) => {
          const e = item.event;
          const decided = ARBITER_EVENTS.has(item.type) || (item.type === "yellow_card" && e.arbiter);
          return h("li", { class: decided ? "decision" : null, dataset: { logType: item.type, version: String(item.version) } },
            h("time", { class: "muted", datetime: new Date(item.at).toISOString() }, when(item.at)), " ",
            describe(item),
            decided ? h("div", { class: "reason" }, t("tournament.reason", {
              reason: item.type === "yellow_card" ? e.detail : e.reason, arbiter: nameOf(e.arbiter),
            })) : null,
            item.type === "appeal_recorded" ? h("div", { class: "muted" }, t("tournament.appeal_text", { text: e.appeal })) : null);
        })));
  }

  // --- the rules -----------------------------------------------------------------------------
  function rules(v) {
    const f = v.format;
    const reg = f.registration;
    const row = (label, value, key) => [h("dt", {}, label), h("dd", { dataset: { rule: key } }, value)];
    const length = f.length.kind === "deals" ? t("tournament.length.deals", { n: f.length.deals })
      : f.length.kind === "pool" ? t("tournament.length.pool", { n: f.length.pool_target })
        : t("tournament.length.time", { n: f.length.minutes, then: t(`tournaments.on_time.${f.length.on_time}`) });
    const p = f.points;
    const dup = f.duplicate;
    return h("section", { class: "panel rules", "aria-labelledby": "trules-title", dataset: { panel: "rules" } },
      h("h2", { id: "trules-title" }, t("tournament.rules")),
      h("p", { class: "muted" }, t("tournament.rules.frozen")),
      h("dl", { class: "facts" },
        row(t("create.preset"), t(`preset.${f.preset}`), "preset"),
        Object.keys(f.overrides ?? {}).length ? row(t("tournament.overrides"), h("code", {}, JSON.stringify(f.overrides)), "overrides") : null,
        row(t("tournaments.table_size"), String(f.table_size), "table_size"),
        row(t("tournaments.rounds"), String(f.rounds), "rounds"),
        row(t("tournaments.length"), length, "length"),
        f.personal_time_seconds ? row(t("tournaments.personal"), String(f.personal_time_seconds), "personal") : null,
        row(t("tournament.rating"), dup ? t("tournament.rating.duplicate")
          : f.rating_weight ? t("tournament.rating.weight", { weight: f.rating_weight }) : t("tournament.rating.none"), "rating"),
        row(t("tournament.pairing"), t(`tournament.kind.${f.pairing}`), "pairing"),
        row(t("tournaments.uneven"), t(`tournaments.uneven.${f.uneven}`), "uneven"),
        row(t("tournament.registration"), `${when(reg.opens_at)} – ${when(reg.closes_at)}`, "registration"),
        reg.check_in_opens_at != null ? row(t("tournament.check_in.window"),
          `${when(reg.check_in_opens_at)} – ${when(reg.check_in_closes_at)}`, "check_in") : null,
        row(t("tournaments.late"), String(reg.late_entry_rounds), "late"),
        row(t("tournaments.capacity"), reg.capacity ? String(reg.capacity) : t("tournament.unlimited"), "capacity"),
        row(t("tournaments.primary"), t(`tournaments.primary.${p.primary}`), "primary"),
        row(t("tournament.places"), `${p.places_3.join("/")} · ${p.places_4.join("/")} · +${p.alone_positive_bonus}`, "places"),
        row(t("tournament.damping"), p.damping.length
          ? p.damping.map((b) => `> ${b.above}: ×${b.factor}`).join(", ") : t("no"), "damping"),
        p.cap != null ? row(t("tournament.cap"), String(p.cap), "cap") : null,
        p.cut_off != null ? row(t("tournament.cut_off"), String(-p.cut_off), "cut_off") : null,
        row(t("tournament.tiebreaks"), p.tiebreaks.map((k) => t(`tiebreak.${k}`)).join(", "), "tiebreaks"),
        row(t("tournament.bye_points"), p.bye_points, "bye"),
        row(t("tournament.discipline"), t(f.discipline.card_below == null ? "tournament.discipline.value" : "tournament.discipline.below", {
          n: f.discipline.cards_to_disqualify, below: `−${f.discipline.card_below}`,
        }), "discipline"),
        f.cuts.length ? row(t("tournament.cuts"), f.cuts.map((c) => t("tournament.cut", { after: c.after_round, keep: c.keep })).join("; "), "cuts") : null,
        f.teams ? row(t("tournament.teams"), `${f.teams.min_size}–${f.teams.max_size}`, "teams") : null,
        dup ? row(t("tournament.duplicate"), t("tournament.dup.value", {
          n: dup.deals_per_round, scale: t(`tournaments.scale.${dup.scale}`),
          robots: dup.robots ? t("tournament.bot", { level: t(`bots.${dup.robots.level}`) }) : "—",
        }), "duplicate") : null,
        row(t("tournament.commitment"), h("code", { class: "hash" }, v.commitment), "commitment")));
  }

  render();
  refresh();
  stream.start();
  return { destroy: () => { alive = false; stream.stop(); }, rerender: render };
}
