// The arbiter's console on a tournament's page (its organiser only): start the next round, and
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
      fields.push(field("substitute", t("arbiter.substitute"), h("input", {
        id: id("substitute"), name: "substitute", required: true, list: id("known"), autocomplete: "off",
      })), h("datalist", { id: id("known") }, players.map((p) => h("option", { value: p }, nameOf(p)))));
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
        if (type === "replace_player") body.substitute = String(data.get("substitute") ?? "").trim();
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

  const canStart = !robot && view.status !== "finished";
  return h("section", { class: "panel arbiter", "aria-labelledby": "arbiter-title", dataset: { panel: "arbiter" } },
    h("h2", { id: "arbiter-title" }, t("arbiter.title")),
    h("p", { class: "muted" }, t("arbiter.intro")),
    canStart ? [h("button", { type: "button", class: "primary", dataset: { key: "start-round" }, onclick: start },
      t(view.status === "registering" ? "arbiter.start" : "arbiter.start_next")), startError] : null,
    DECISIONS.map(form));
}
