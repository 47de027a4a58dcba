// The moderator's fair-play report (docs/fair-play.md): the pairs of players ranked by their
// collusion score, each with its figures (value, baseline, z) and links to the replays of the
// deals that weighed most. The API answers 403 to anyone but a moderator: the page says so.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

const fixed = (x, n = 2) => Number(x).toFixed(n);

export function moderationScreen(root, ctx) {
  const state = { report: null, loading: true, refused: false };
  const render = () => { if (alive) mount(root, screen()); };
  let alive = true;

  async function load() {
    if (!ctx.me()) { state.loading = false; render(); return; }
    try {
      state.report = await ctx.api.collusionReport();
    } catch (error) {
      if (error?.status === 403) state.refused = true;
      else ctx.toast(error);
    } finally {
      state.loading = false;
      render();
    }
  }

  const name = (id) => state.report.names[id] ?? id;

  function figureRow(f) {
    const who = f.giver ? `${name(f.giver)} → ${name(f.taker)}` : "—";
    return h("tr", { dataset: { figure: f.name, scored: String(f.scored) } },
      h("td", {}, t(`moderation.figure.${f.name}`)), h("td", {}, who),
      h("td", { class: "num" }, String(f.deals)), h("td", { class: "num" }, fixed(f.value, 3)),
      h("td", { class: "num" }, fixed(f.baseline, 3)), h("td", { class: "num" }, fixed(f.z)),
      h("td", {}, f.examples.map((d) => h("a", {
        href: `#/game/${d.game_id}/replay/${d.deal_no}/1`, class: "deal-link", title: `${d.game_id} #${d.deal_no}`,
        dataset: { game: d.game_id, deal: String(d.deal_no) },
      }, `#${d.deal_no}`)).reduce((out, a) => (out.length ? [...out, " ", a] : [a]), [])));
  }

  function pairRow(pair, rank) {
    return h("li", { class: "panel pair", dataset: { pair: pair.players.join(","),
      flagged: String(pair.flagged), rank: String(rank) } },
      h("h2", {}, `${name(pair.players[0])} & ${name(pair.players[1])}`,
        pair.flagged ? h("span", { class: "badge", dataset: { flag: "" } }, t("moderation.flagged")) : null),
      h("p", {}, t("moderation.pair", { score: fixed(pair.score), games: pair.games, deals: pair.deals,
        top: pair.top ? t(`moderation.figure.${pair.top}`) : "—" })),
      h("table", { class: "figures" },
        h("thead", {}, h("tr", {}, ["figure", "who", "deals", "value", "baseline", "z", "deals.links"]
          .map((k) => h("th", { scope: "col" }, t(`moderation.col.${k}`))))),
        h("tbody", {}, pair.figures.map(figureRow))));
  }

  function screen() {
    const attrs = { class: "screen moderation", "aria-labelledby": "moderation-title",
      dataset: { screen: "moderation", loading: String(state.loading), refused: String(state.refused) } };
    const title = h("h1", { id: "moderation-title" }, t("moderation.title"));
    if (!ctx.me()) return h("section", attrs, title, h("p", {}, h("a", { href: "#/account" }, t("signin"))));
    if (state.refused) return h("section", attrs, title, h("p", { class: "panel", role: "status" }, t("moderation.refused")));
    if (!state.report) return h("section", attrs, title, h("p", {}, t("loading")));
    const r = state.report;
    return h("section", attrs, title,
      h("p", { class: "summary" }, t("moderation.summary", { games: r.games, deals: r.deals, analysed: r.analysed,
        pairs: r.total_pairs, flagged: r.flagged_pairs, z: fixed(r.flag_z, 1) })),
      h("p", { class: "note" }, t("moderation.note")),
      h("ol", { class: "pairs" }, r.pairs.map((p, i) => pairRow(p, i + 1))));
  }

  render();
  load();
  return { destroy: () => { alive = false; }, rerender: render };
}
