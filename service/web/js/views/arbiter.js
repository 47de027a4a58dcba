// The arbiter's console on a tournament's page (its organiser only): start the next round (by
// the service's pairing, or his own: each player of the field put at a table or given a bye), and
// each decision the API takes (pause or resume a table, replace a player, adjust or annul a
// result, a yellow card, an appeal), each a form with its reason. A refusal is shown in the
// form that was sent, as the service words it; a decision taken lands in the tournament's log.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { problemText } from "./tournaments.js";

const DECISIONS = ["pause_table", "resume_table", "replace_player", "adjust_result", "annul_result", "give_card", "record_appeal"];
const AT_TABLE = new Set(["pause_table", "resume_table", "replace_player", "adjust_result", "annul_result"]);
const ABOUT_PLAYER = new Set(["replace_player", "give_card", "record_appeal"]);

/**
 * The console for ``view`` (a tournament's view); ``nameOf(id)`` words a player, ``done(view)``
 * takes the tournament's view after a decision or a started round.
 */
export function arbiterConsole(ctx, view, { nameOf, done }) {
  const robot = view.kind === "robot";
  const rounds = robot ? [0] : view.rounds.map((r) => r.round_no);
  const players = view.entrants.map((e) => e.player);
  const startError = h("div", { class: "form-error", role: "alert", dataset: { key: "start-error" } });

  async function start() {
    mount(startError);
    try {
      const after = await ctx.api.startRound(view.id);
      ctx.announce(t("arbiter.started", { n: after.rounds.length }));
      done(after);
    } catch (error) {
      mount(startError, h("p", { dataset: { problem: error?.problem?.code ?? "" } }, problemText(error)));
    }
  }

  function form(type) {
    const id = (field) => `arb-${type}-${field}`;
    const error = h("div", { class: "form-error", role: "alert" });
    const field = (name, label, input) => [h("label", { for: id(name) }, label), input];
    const playerSelect = (name) => h("select", { id: id(name), name, required: true },
      players.map((p) => h("option", { value: p }, nameOf(p))));
    const fields = [];
    if (AT_TABLE.has(type)) {
      fields.push(field("round_no", t("arbiter.round"), h("select", { id: id("round_no"), name: "round_no" },
        rounds.map((n) => h("option", { value: String(n), selected: n === rounds.at(-1) }, n ? String(n) : t("arbiter.runs"))))));
      fields.push(field("table", t("arbiter.table"), h("input", { id: id("table"), name: "table", type: "number", min: "1", value: "1", required: true })));
    }
    if (ABOUT_PLAYER.has(type)) fields.push(field("player", t("arbiter.player"), playerSelect("player")));
    if (type === "replace_player") {
      // A substitute is an entrant (by name), or someone else named by his player id.
      const other = [h("label", { for: id("substitute_id"), hidden: true }, t("arbiter.substitute.id")),
        h("input", { id: id("substitute_id"), name: "substitute_id", autocomplete: "off", maxlength: "64", hidden: true })];
      fields.push(field("substitute", t("arbiter.substitute"), h("select", {
        id: id("substitute"), name: "substitute",
        onchange: (event) => { for (const el of other) el.hidden = event.target.value !== ""; },
      }, players.map((p, i) => h("option", { value: p, selected: i === 1 }, nameOf(p))),
      h("option", { value: "" }, t("arbiter.substitute.other")))), other);
    }
    if (type === "adjust_result") {
      fields.push(field("whists", t("arbiter.whists"), h("input", {
        id: id("whists"), name: "whists", required: true, placeholder: "20, -10, -10", inputmode: "text",
      })));
    }
    if (type === "record_appeal") {
      fields.push(field("appeal", t("arbiter.appeal"), h("textarea", { id: id("appeal"), name: "appeal", required: true, maxlength: "2000", rows: "2" })));
      fields.push(field("decision", t("arbiter.decision"), h("select", { id: id("decision"), name: "decision" },
        ["pending", "upheld", "rejected"].map((d) => h("option", { value: d }, t(`appeal.${d}`))))));
    }
    fields.push(field("reason", t("arbiter.reason"), h("input", { id: id("reason"), name: "reason", required: true, maxlength: "500" })));
    const el = h("form", {
      class: "arbiter-form", dataset: { arbiterForm: type }, novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        mount(error);
        const data = new FormData(el);
        const body = { type, reason: String(data.get("reason") ?? "") };
        if (AT_TABLE.has(type)) Object.assign(body, { round_no: Number(data.get("round_no")), table: Number(data.get("table")) });
        if (ABOUT_PLAYER.has(type)) body.player = String(data.get("player") ?? "");
        if (type === "replace_player") body.substitute = String(data.get("substitute") || data.get("substitute_id") || "").trim();
        if (type === "adjust_result") {
          body.whists = String(data.get("whists")).split(/[\s,;]+/).filter(Boolean).map(Number);
        }
        if (type === "record_appeal") Object.assign(body, { appeal: String(data.get("appeal")), decision: String(data.get("decision")) });
        try {
          const after = await ctx.api.decide(view.id, body);
          // The reason (and an appeal's text) is this decision's; the table and player stay.
          for (const name of ["reason", "appeal"]) if (el.elements[name]) el.elements[name].value = "";
          ctx.announce(t("arbiter.done", { what: t(`arbiter.${type}`) }));
          done(after);
        } catch (failure) {
          mount(error, h("p", { dataset: { problem: failure?.problem?.code ?? failure?.problem?.type ?? "" } }, problemText(failure)));
        }
      },
    },
    h("div", { class: "fields" }, fields),
    error,
    h("button", { type: "submit", class: "primary", dataset: { key: `decide:${type}` } }, t(`arbiter.${type}`)));
    return h("details", { dataset: { decision: type } }, h("summary", {}, t(`arbiter.${type}`)), el);
  }

  /** The arbiter's own pairing of the next round: each player of the field at a table, or a bye. */
  function pairingForm() {
    const next = view.rounds.length + 1;
    const inField = view.entrants.filter((e) => ["registered", "active"].includes(e.status)).map((e) => e.player);
    const lineups = view.teams?.length ? new Set(view.teams.flatMap((tm) => tm.lineup)) : null;
    const field = lineups ? inField.filter((p) => lineups.has(p)) : inField;
    const size = view.format.table_size;
    const error = h("div", { class: "form-error", role: "alert", dataset: { key: "pairing-error" } });
    const count = h("input", {
      id: "arb-pairing-tables", name: "tables", type: "number", min: "1", max: String(Math.max(1, Math.floor(field.length / 3))),
      value: String(Math.max(1, Math.floor(field.length / size))), required: true,
      onchange: () => rows.forEach((row) => row.fill()),
    });
    const rows = field.map((p, i) => {
      const select = h("select", { id: `arb-pairing-${i}`, name: p, dataset: { pairingPlayer: p } });
      const fill = () => {
        const tables = Math.max(1, Number(count.value) || 1);
        const was = select.value || String(Math.min(tables, Math.floor(i / size) + 1));
        mount(select, [...Array(tables).keys()].map((k) => h("option", { value: String(k + 1), selected: was === String(k + 1) },
          t("tournament.table.n", { n: k + 1 }))), h("option", { value: "bye", selected: was === "bye" }, t("arbiter.pairing.bye")));
      };
      fill();
      return { fill, el: [h("label", { for: `arb-pairing-${i}` }, nameOf(p)), select] };
    });
    const el = h("form", {
      class: "arbiter-form", dataset: { arbiterForm: "pairing" }, novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        mount(error);
        const tables = [];
        const byes = [];
        for (const p of field) {
          const at = el.querySelector(`[data-pairing-player="${p}"]`).value;
          if (at === "bye") byes.push(p);
          else (tables[Number(at) - 1] ??= []).push(p);
        }
        try {
          const after = await ctx.api.startRound(view.id, { tables: tables.filter(Boolean), byes });
          ctx.announce(t("arbiter.started", { n: after.rounds.length }));
          done(after);
        } catch (failure) {
          mount(error, h("p", { dataset: { problem: failure?.problem?.code ?? failure?.problem?.type ?? "" } }, problemText(failure)));
        }
      },
    },
    h("p", { class: "muted" }, t("arbiter.pairing.intro", { n: next })),
    h("div", { class: "fields" }, h("label", { for: "arb-pairing-tables" }, t("arbiter.pairing.tables")), count,
      rows.map((row) => row.el)),
    error,
    h("button", { type: "submit", class: "primary", dataset: { key: "start-pairing" } }, t("arbiter.pairing.start", { n: next })));
    return h("details", { dataset: { decision: "pairing" } }, h("summary", {}, t("arbiter.pairing")), el);
  }

  // Only between rounds: the service refuses a start while a round's tables still play.
  const last = view.rounds.at(-1);
  const canStart = !robot && view.status !== "finished" && (!last || last.secret != null);
  // A round is started by hand before round 1 and after a hold (the round before has ended).
  const canPair = canStart && view.rounds.length < view.format.rounds;
  return h("section", { class: "panel arbiter", "aria-labelledby": "arbiter-title", dataset: { panel: "arbiter" } },
    h("h2", { id: "arbiter-title" }, t("arbiter.title")),
    h("p", { class: "muted" }, t("arbiter.intro")),
    canStart ? [h("button", { type: "button", class: "primary", dataset: { key: "start-round" }, onclick: start },
      t(view.status === "registering" ? "arbiter.start" : "arbiter.start_next")), startError] : null,
    canPair ? pairingForm() : null,
    DECISIONS.map(form));
}
