// The tournaments: the list (filtered by status, each with its kind, registration window, rounds
// and field) and, for a signed-in player, the form that creates one. The format the form sends
// is the one the service freezes at creation (docs/tournaments.md); a refusal is shown beside the
// form as the service words it (problem+json: its detail and each refused field).
import { ApiError } from "../api.js";
import { h, mount } from "../dom.js";
import { lang, t } from "../i18n.js";

const STATUSES = ["", "registering", "running", "finished"];
const PRESETS = ["sochi", "leningrad", "rostov"];
const LEVELS = ["random", "basic", "strong", "expert"];
const HOUR = 3_600_000;

/** ``ms`` as the page's language writes a date and time, the year in full: an event's window
 * may close years ahead, and "1/1/99" reads as 1999. */
export function when(ms) {
  return ms == null ? "—" : new Date(ms).toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
}

/** The value a ``datetime-local`` input shows for ``ms``, in the browser's time zone. */
function localInput(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

/** A refusal's words: the problem's detail, then each refused field. */
export function problemText(error) {
  if (!(error instanceof ApiError)) return String(error?.message ?? error);
  const { title, detail, errors } = error.problem;
  const fields = (errors ?? []).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message))
    .filter((text) => text && text !== detail);
  return [detail || title, ...fields].filter(Boolean).join(" · ");
}

export function tournamentsScreen(root, ctx) {
  const state = { status: "", items: null, next: null, loading: true, error: null, busy: false };
  let alive = true;
  const box = h("div", { class: "box" });

  async function load(more = false) {
    state.loading = true;
    renderList();
    try {
      const page = await ctx.api.tournaments({ status: state.status || undefined, cursor: more ? state.next : undefined });
      state.items = more ? [...(state.items ?? []), ...page.items] : page.items;
      state.next = page.next_cursor;
    } catch (error) {
      ctx.toast(error);
    } finally {
      state.loading = false;
      renderList();
    }
  }

  function render() {
    if (!alive) return;
    const form = ctx.me() ? createForm() : null;
    mount(root, h("section", {
      class: "screen tournaments", "aria-labelledby": "tournaments-title", dataset: { screen: "tournaments" },
    },
    h("h1", { id: "tournaments-title" }, t("tournaments.title")),
    h("p", { class: "muted" }, t("tournaments.intro")),
    h("div", { class: "tournaments-layout" }, box, form ?? signUpHint())));
    renderList();
  }

  function signUpHint() {
    return h("p", { class: "panel" }, h("a", { href: "#/" }, t("tournaments.signin")));
  }

  function renderList() {
    if (!alive) return;
    root.querySelector("[data-screen=tournaments]")?.setAttribute("data-loading", String(state.loading));
    const filters = h("div", { class: "chips", role: "group", "aria-label": t("tournaments.filter") },
      STATUSES.map((status) => h("button", {
        type: "button", class: "filter", "aria-pressed": String(state.status === status),
        dataset: { key: `filter:${status || "all"}`, filter: status || "all" },
        onclick: () => { state.status = status; load(); },
      }, t(status ? `tournament.status.${status}` : "tournaments.all"))));
    const items = state.items ?? [];
    mount(box, h("section", { class: "panel", "aria-labelledby": "tlist-title" },
      h("h2", { id: "tlist-title" }, t("tournaments.list")),
      filters,
      state.items == null ? h("p", {}, t("loading"))
        : !items.length ? h("p", { class: "muted", dataset: { empty: "" } }, t("tournaments.none"))
          : h("div", { class: "scroll" }, h("table", { class: "grid-table tournament-list" },
            h("caption", { class: "visually-hidden" }, t("tournaments.list")),
            h("thead", {}, h("tr", {},
              ["tournaments.name", "tournaments.kind", "tournaments.status", "tournaments.window",
                "tournaments.rounds", "tournaments.entrants"].map((key) => h("th", { scope: "col" }, t(key))))),
            h("tbody", {}, items.map((item) => h("tr", { dataset: { tournament: item.id, status: item.status } },
              h("th", { scope: "row" }, h("a", { href: `#/tournaments/${item.id}` }, item.name)),
              h("td", {}, t(`tournament.kind.${item.kind}`)),
              h("td", {}, h("span", { class: ["chip", `status-${item.status}`] }, t(`tournament.status.${item.status}`))),
              h("td", {}, item.opens_at == null ? "—" : `${when(item.opens_at)} – ${when(item.closes_at)}`),
              h("td", {}, item.rounds == null ? "—" : t("tournaments.round_of", { n: item.round_no, of: item.rounds })),
              h("td", { dataset: { entrants: String(item.entrants ?? "") } }, item.entrants ?? "—")))))),
      state.next ? h("button", { type: "button", dataset: { key: "more" }, onclick: () => load(true) }, t("tournaments.more")) : null));
  }

  function createForm() {
    const now = Date.now();
    const field = (id, label, input) => [h("label", { for: id }, label), input];
    const select = (id, options, value) => h("select", { id, name: id },
      options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
    const number = (id, value, { min = "0", max } = {}) => h("input", { id, name: id, type: "number", min, max, value: String(value) });
    const error = h("div", { class: "form-error", role: "alert", dataset: { key: "create-error" } });
    const el = h("form", {
      class: "panel create tournament-create", "aria-labelledby": "tcreate-title", novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(el);
        mount(error);
        state.busy = true;
        try {
          const created = await ctx.api.createTournament({ name: String(data.get("t-name")).trim(), format: formatOf(data) });
          ctx.announce(t("tournaments.created", { name: created.name }));
          ctx.navigate(`#/tournaments/${created.id}`);
        } catch (failure) {
          mount(error, h("p", { dataset: { problem: failure?.problem?.type ?? "" } }, problemText(failure)));
        } finally {
          state.busy = false;
        }
      },
    },
    h("h2", { id: "tcreate-title" }, t("tournaments.create")),
    h("div", { class: "fields" },
      field("t-name", t("tournaments.name"), h("input", { id: "t-name", name: "t-name", required: true, maxlength: "120",
        value: t("tournaments.default_name") })),
      field("t-preset", t("create.preset"), select("t-preset", PRESETS.map((p) => [p, t(`preset.${p}`)]), "sochi")),
      field("t-kind", t("tournaments.kind"), select("t-kind", [
        ["swiss", t("tournament.kind.swiss")], ["schedule", t("tournament.kind.schedule")],
        ["duplicate", t("tournament.kind.duplicate")], ["robot", t("tournament.kind.robot")]], "swiss")),
      field("t-rounds", t("tournaments.rounds"), number("t-rounds", 2, { min: "1" })),
      field("t-size", t("tournaments.table_size"), select("t-size", [["3", "3"], ["4", t("tournaments.four")]], "3")),
      field("t-uneven", t("tournaments.uneven"), select("t-uneven", [
        ["mixed", t("tournaments.uneven.mixed")], ["byes", t("tournaments.uneven.byes")]], "mixed")),
      field("t-length", t("tournaments.length"), select("t-length", [
        ["deals", t("tournaments.length.deals")], ["pool", t("tournaments.length.pool")],
        ["time", t("tournaments.length.time")]], "deals")),
      field("t-amount", t("tournaments.amount"), number("t-amount", 4, { min: "1" })),
      field("t-on-time", t("tournaments.on_time"), select("t-on-time", [
        ["finish_deal", t("tournaments.on_time.finish_deal")], ["void_positive", t("tournaments.on_time.void_positive")]],
      "finish_deal")),
      field("t-personal", t("tournaments.personal"), number("t-personal", 0)),
      field("t-weight", t("tournaments.weight"), number("t-weight", 100, { min: "0", max: "300" })),
      field("t-opens", t("tournaments.opens"), h("input", { id: "t-opens", name: "t-opens", type: "datetime-local",
        value: localInput(now) })),
      field("t-closes", t("tournaments.closes"), h("input", { id: "t-closes", name: "t-closes", type: "datetime-local",
        value: localInput(now + 24 * HOUR) })),
      field("t-checkin", t("tournaments.checkin_minutes"), number("t-checkin", 0)),
      field("t-late", t("tournaments.late"), number("t-late", 0)),
      field("t-capacity", t("tournaments.capacity"), number("t-capacity", 0)),
      field("t-primary", t("tournaments.primary"), select("t-primary", [
        ["places", t("tournaments.primary.places")], ["whists", t("tournaments.primary.whists")]], "places")),
      field("t-card-below", t("tournaments.card_below"), number("t-card-below", 0)),
      field("t-deals", t("tournaments.dup_deals"), number("t-deals", 4, { min: "1", max: "100" })),
      field("t-scale", t("tournaments.scale"), select("t-scale", [
        ["matchpoints", t("tournaments.scale.matchpoints")], ["imp", t("tournaments.scale.imp")]], "matchpoints")),
      field("t-level", t("bots.level"), select("t-level", LEVELS.map((l) => [l, t(`bots.${l}`)]), "basic"))),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "t-damping", value: "1" }), t("tournaments.damping")),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "t-teams", value: "1", dataset: { key: "t-teams" } }), t("tournaments.teams")),
    h("p", { class: "muted" }, t("tournaments.dup_note")),
    error,
    h("button", { type: "submit", class: "primary", dataset: { key: "create-tournament" } }, t("tournaments.create.go")));
    return el;
  }

  /** The frozen format, as the service's createTournament takes it, from the form's fields. */
  function formatOf(data) {
    const num = (key) => Number(data.get(key) || 0);
    const kind = String(data.get("t-kind"));
    const duplicate = kind === "duplicate" || kind === "robot";
    const amount = num("t-amount");
    const lengthKind = String(data.get("t-length"));
    const opens = new Date(String(data.get("t-opens"))).getTime();
    const closes = new Date(String(data.get("t-closes"))).getTime();
    const registration = { opens_at: opens, closes_at: closes, late_entry_rounds: num("t-late"), capacity: num("t-capacity") };
    if (num("t-checkin") > 0) { // check-in: the last minutes before registration closes
      registration.check_in_opens_at = closes - num("t-checkin") * 60_000;
      registration.check_in_closes_at = closes;
    }
    const fmt = {
      preset: String(data.get("t-preset")),
      table_size: num("t-size"),
      rounds: num("t-rounds"),
      pairing: kind === "schedule" ? "schedule" : "swiss",
      uneven: String(data.get("t-uneven")),
      personal_time_seconds: num("t-personal"),
      rating_weight: num("t-weight"),
      registration,
      length: lengthKind === "deals" ? { kind: "deals", deals: amount }
        : lengthKind === "pool" ? { kind: "pool", pool_target: amount }
          : { kind: "time", minutes: amount, on_time: String(data.get("t-on-time")) },
      points: { primary: String(data.get("t-primary")) },
    };
    if (data.get("t-damping")) fmt.points.damping = [{ above: 50, factor: "1/2" }, { above: 100, factor: "1/10" }];
    if (num("t-card-below") > 0) fmt.discipline = { card_below: num("t-card-below") };
    if (data.get("t-teams")) fmt.teams = { min_size: 3, max_size: 5, playing: 3 }; // team sums
    if (duplicate) {
      // A duplicate round is its deals, and an odd field gets byes (docs/tournaments.md).
      const deals = num("t-deals");
      fmt.duplicate = { deals_per_round: deals, scale: String(data.get("t-scale")) };
      if (kind === "robot") fmt.duplicate.robots = { level: String(data.get("t-level")) };
      fmt.length = { kind: "deals", deals };
      fmt.uneven = "byes";
    }
    return fmt;
  }

  render();
  load();
  return { destroy: () => { alive = false; }, rerender: render };
}
