// A player's page: his rating with its uncertainty explained and its history drawn as a chart,
// his statistics (tricks lost against par among them), and his finished games with their
// replays, and the tournaments he played a table of. Everything comes from the read models
// (ratings, statistics); one's own page also lists the finished games that are not rated
// (seeded or fixed deals).
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { when } from "./tournaments.js";

const SVG = "http://www.w3.org/2000/svg";
const COMPUTERS = new Set(["bot", "program"]);

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value != null) el.setAttribute(key, String(value));
  for (const child of children.flat(Infinity)) if (child != null) el.append(child);
  return el;
}

const fixed = (x, digits = 1) => (x == null ? "—" : Number(x).toFixed(digits));

/**
 * The rating after each game as a line of points, over the band from the rating (μ − 3σ) up to
 * μ: the band is the uncertainty, and it narrows as games are played.
 */
export function ratingChart(history) {
  const width = 400, height = 200, left = 34, right = 10, top = 10, bottom = 26;
  const points = history.map((line, i) => ({ i, rating: line.rating, mu: line.mu, line }));
  const values = points.flatMap((p) => [p.rating, p.mu]).concat([0]);
  let low = Math.floor(Math.min(...values) - 1), high = Math.ceil(Math.max(...values) + 1);
  if (high - low < 4) high = low + 4;
  const x = (i) => left + (points.length > 1 ? (i * (width - left - right)) / (points.length - 1) : (width - left - right) / 2);
  const y = (v) => top + ((high - v) * (height - top - bottom)) / (high - low);
  const ticks = [low, Math.round((low + high) / 2), high];
  const band = points.map((p) => `${x(p.i)},${y(p.mu)}`)
    .concat([...points].reverse().map((p) => `${x(p.i)},${y(p.rating)}`)).join(" ");
  const label = t("profile.chart.label", { n: points.length, last: fixed(points.at(-1)?.rating) });
  return s("svg", { class: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label },
    s("title", {}, label),
    ticks.map((v) => [
      s("line", { class: "grid", x1: left, x2: width - right, y1: y(v), y2: y(v) }),
      s("text", { class: "axis", x: left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)),
    ]),
    s("text", { class: "axis", x: left, y: height - 8 }, t("profile.chart.first")),
    s("text", { class: "axis", x: width - right, y: height - 8, "text-anchor": "end" },
      t("profile.chart.game", { n: points.at(-1)?.line.game_no ?? points.length })),
    points.length > 1 ? s("polygon", { class: "band", points: band }) : null,
    points.length > 1 ? s("polyline", { class: "line", points: points.map((p) => `${x(p.i)},${y(p.rating)}`).join(" ") }) : null,
    points.map((p) => s("circle", { class: "point", cx: x(p.i), cy: y(p.rating), r: 4, "data-game": p.line.game_id },
      s("title", {}, t("profile.chart.point", {
        n: p.line.game_no, rating: fixed(p.rating), place: p.line.place, of: p.line.players, result: p.line.result,
      })))));
}

export function profileScreen(root, ctx, playerId) {
  const state = { player: null, rating: null, stats: null, mine: null, tournaments: null, missing: false };
  let alive = true;

  async function load() {
    const me = ctx.me();
    const [player, rating, stats, mine, tournaments] = await Promise.all([
      ctx.api.player(playerId).catch((error) => { state.missing = true; ctx.toast(error); return null; }),
      ctx.api.rating(playerId).catch(() => null), // not rated yet
      ctx.api.stats(playerId).catch(() => null), // no finished game yet
      me?.id === playerId ? ctx.api.myGames().catch(() => null) : null,
      ctx.api.playerTournaments(playerId).catch(() => null),
    ]);
    Object.assign(state, { player, rating, stats, mine, tournaments });
    if (alive) render();
  }

  function render() {
    const { player } = state;
    mount(root, h("section", {
      class: "screen profile", "aria-labelledby": "profile-title",
      dataset: { screen: "profile", player: playerId, loading: String(!player && !state.missing) },
    },
    h("h1", { id: "profile-title" }, player?.name ?? (state.missing ? t("profile.missing") : t("loading")),
      player && COMPUTERS.has(player.kind) ? [" ", h("span", { class: "chip" }, t("profile.computer"))] : null),
    player ? h("div", { class: "lobby-grid profile-grid" }, ratingPanel(), statsPanel(), gamesPanel(), tournamentsPanel()) : null));
  }

  function ratingPanel() {
    const r = state.rating;
    return h("section", { class: "panel rating", "aria-labelledby": "rating-title", dataset: { panel: "rating" } },
      h("h2", { id: "rating-title" }, t("profile.rating")),
      !r ? h("p", { class: "muted" }, t("profile.unrated"))
        : [h("p", { class: "big" }, h("strong", { dataset: { rating: fixed(r.rating, 2) } }, fixed(r.rating)),
          " ", h("span", { class: "muted" }, t("profile.games", { n: r.games })),
          r.provisional ? [" ", h("span", { class: "chip" }, t("leaders.provisional"))] : null),
        h("p", {}, t("profile.mu_sigma", { mu: fixed(r.mu, 2), sigma: fixed(r.sigma, 2) })),
        h("p", { class: "muted" }, t("profile.explain")),
        r.history.length ? [ratingChart(r.history), h("p", { class: "muted legend" }, t("profile.chart.legend"))] : null]);
  }

  function statsPanel() {
    const st = state.stats;
    const row = (label, value, key) => [h("dt", {}, label), h("dd", { dataset: { stat: key } }, value)];
    return h("section", { class: "panel stats", "aria-labelledby": "stats-title", dataset: { panel: "stats" } },
      h("h2", { id: "stats-title" }, t("profile.stats")),
      !st ? h("p", { class: "muted" }, t("profile.nostats")) : [
        h("dl", { class: "facts" },
          row(t("profile.games.played"), st.games, "games"),
          row(t("profile.games.playing"), st.games_in_progress, "in-progress"),
          row(t("profile.games.abandoned"), st.games_abandoned, "abandoned"),
          row(t("profile.deals"), st.deals, "deals"),
          row(t("profile.average"), fixed(st.average_result), "average"),
          row(t("profile.total"), st.total_result, "total"),
          row(t("profile.whists"), t("profile.whists.value", st.whists), "whists"),
          row(t("profile.raspasy"), st.raspasy?.deals ?? "—", "raspasy"),
          row(t("profile.par"), st.against_par.deals
            ? t("profile.par.value", { lost: st.against_par.tricks_lost, deals: st.against_par.deals,
              per: fixed(st.against_par.tricks_lost_per_deal, 2) })
            : t("profile.par.none"), "par")),
        h("p", { class: "muted" }, t("profile.par.explain")),
        st.contracts.some((c) => c.declared) ? h("table", { class: "contracts" },
          h("caption", {}, t("profile.contracts")),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("profile.contract")),
            h("th", { scope: "col" }, t("profile.declared")), h("th", { scope: "col" }, t("profile.made")))),
          h("tbody", {}, st.contracts.filter((c) => c.declared).map((c) => h("tr", {},
            h("th", { scope: "row" }, String(c.level)), h("td", {}, c.declared),
            h("td", {}, c.made_pct == null ? c.made : `${c.made} (${fixed(c.made_pct, 0)}%)`))))) : null]);
  }

  function gamesPanel() {
    // The rated games, newest first, with their place; one's own unrated finished games after.
    const rated = [...(state.rating?.history ?? [])].reverse().map((line) => ({
      id: line.game_id,
      text: t("profile.game.line", { n: line.game_no, place: line.place, of: line.players, result: line.result })
        + (line.weight !== 100 ? ` · ${t("profile.game.weight", { weight: line.weight })}` : ""),
    }));
    const known = new Set(rated.map((g) => g.id));
    const unrated = (state.mine?.finished ?? []).filter(({ game }) => !known.has(game.id)).map(({ game }) => ({
      id: game.id, text: `${t(`preset.${game.preset}`)} · ${t("profile.game.unrated")}`,
    }));
    const games = [...rated, ...unrated];
    return h("section", { class: "panel games", "aria-labelledby": "pgames-title", dataset: { panel: "games" } },
      h("h2", { id: "pgames-title" }, t("profile.finished")),
      !games.length ? h("p", { class: "muted" }, t("mine.none"))
        : h("ul", { class: "game-list" }, games.map((g) => h("li", { dataset: { game: g.id } },
          h("span", {}, g.text),
          h("span", { class: "row" },
            h("a", { class: "button", href: `#/game/${g.id}`, dataset: { key: `results:${g.id}` } }, t("list.results")),
            h("a", { class: "button", href: `#/game/${g.id}/replay/1`, dataset: { key: `replay:${g.id}`, replay: g.id } },
              t("mine.replay")))))),
      // The public record of his finished games in bulk (docs/ppn.md): the open text format or
      // the log's own lines. A plain link carries no token, so a private table stays out.
      games.length ? h("p", { class: "downloads", dataset: { downloads: "" } }, t("profile.download"), " ",
        ["ppn", "ndjson"].map((format) => h("a", {
          class: "link", href: ctx.api.gamesExportUrl(playerId, format),
          download: `${playerId}.${format}`, dataset: { download: format },
        }, format.toUpperCase()))) : null);
  }

  function tournamentsPanel() {
    const items = state.tournaments ?? [];
    return h("section", { class: "panel", "aria-labelledby": "ptournaments-title", dataset: { panel: "tournaments" } },
      h("h2", { id: "ptournaments-title" }, t("profile.tournaments")),
      !items.length ? h("p", { class: "muted" }, t("profile.tournaments.none"))
        : h("ul", { class: "game-list" }, items.map((item) => h("li", { dataset: { tournament: item.id } },
          h("a", { href: `#/tournaments/${item.id}` }, item.name),
          h("span", { class: "muted" }, `${t(`tournament.kind.${item.kind}`)} · ${t(`tournament.status.${item.status}`)}`
            + ` · ${when(item.opens_at ?? Date.parse(item.created_at))}`)))));
  }

  render();
  load();
  return { destroy: () => { alive = false; }, rerender: render };
}
