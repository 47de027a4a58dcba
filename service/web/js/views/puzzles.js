// Puzzles mined from finished deals (the next one, an attempt): the position of a
// card that alone keeps the double-dummy par, shown as double-dummy problems are, every hand face
// up, each marked with whether its solver saw it at the table; one rated attempt, then the answer,
// every card's value, the card played at the table and the ratings moved. Below, the player's
// puzzle rating and his attempts.
import { bidText, cardEl, sortCards } from "../cards.js";
import { h, mount } from "../dom.js";
import { lang, t } from "../i18n.js";
import { cardText, openFelt } from "./board.js";

const fixed = (x) => x.toFixed(1);

export function puzzlesScreen(root, ctx, puzzleId) {
  const state = { puzzle: null, attempt: null, history: null, loading: true, busy: false, none: false };
  const render = () => { if (alive) mount(root, screen()); };
  let alive = true;

  async function load() {
    state.loading = true;
    state.attempt = null;
    state.none = false;
    render();
    try {
      state.history = await ctx.api.myPuzzles();
      try {
        state.puzzle = puzzleId ? await ctx.api.puzzle(puzzleId) : await ctx.api.nextPuzzle();
      } catch (error) {
        if (error?.problem?.type !== "/problems/puzzle-not-found") throw error;
        state.puzzle = null;
        state.none = true;
      }
      state.attempt = state.history.items.find((a) => a.puzzle_id === state.puzzle?.id) ?? null;
    } catch (error) {
      ctx.toast(error);
    } finally {
      state.loading = false;
      render();
    }
  }

  async function attempt(card) {
    state.busy = true;
    render();
    try {
      state.attempt = await ctx.api.attemptPuzzle(state.puzzle.id, card);
      state.history = await ctx.api.myPuzzles();
      ctx.announce(t(state.attempt.solved ? "puzzle.solved" : "puzzle.missed",
        { card: cardText(state.attempt.solution.answer) }));
    } catch (error) {
      ctx.toast(error);
    } finally {
      state.busy = false;
      render();
    }
  }

  function next() {
    if (location.hash === "#/puzzles") load();
    else ctx.navigate("#/puzzles");
  }

  function screen() {
    const attrs = {
      class: "screen puzzles", "aria-labelledby": "puzzles-title",
      dataset: { screen: "puzzles", loading: String(state.loading), puzzle: state.puzzle?.id ?? "",
        attempted: String(Boolean(state.attempt)) },
    };
    if (!ctx.me()) {
      return h("section", attrs, h("h1", { id: "puzzles-title" }, t("puzzles.title")),
        h("p", {}, h("a", { href: "#/" }, t("puzzles.signin"))));
    }
    return h("section", attrs,
      h("h1", { id: "puzzles-title" }, t("puzzles.title")),
      ratingLine(),
      state.none ? h("p", { class: "panel", role: "status", dataset: { none: "" } }, t("puzzles.none"))
        : state.puzzle ? puzzleView(state.puzzle) : h("p", {}, t("loading")),
      historyPanel());
  }

  function ratingLine() {
    const r = state.history?.rating;
    if (!r) return null;
    return h("p", { class: "puzzle-rating", dataset: { mu: fixed(r.mu) } }, t("puzzles.rating", {
      mu: fixed(r.mu), pm: fixed(2 * r.sigma), solved: r.solved, attempts: r.attempts,
    }));
  }

  function puzzleView(puzzle) {
    const p = puzzle.position;
    const seen = p.seen;
    const n = p.hands.length;
    const name = (seat) => (seat === p.solver ? t("puzzle.you") : t("seat.n", { n: seat + 1 }));
    const knew = (seat) => seat === p.solver || Boolean(seen.open_hands[seat]) || Boolean(seen.shown_hands[seat]);
    const tags = (seat) => (p.hands[seat] ? [t(knew(seat) ? "puzzle.known" : "puzzle.unknown")] : []);
    const done = state.attempt;
    const legal = new Set(p.legal);
    const handOf = (seat, cards) => {
      if (seat !== p.seat) return null;
      return h("div", { class: "hand open", role: "group", "aria-label": t("puzzle.hand", { p: name(seat) }),
        dataset: { roving: "" } },
      sortCards(cards).map((card) => cardEl(card, {
        onClick: attempt, legal: !done && !state.busy && legal.has(card), where: "@puzzle",
      })));
    };
    const felt = openFelt({ view: seen, hands: p.hands, talon: p.talon, discard: p.discard },
      { n, name, bottom: p.solver, handOf, tags });
    return h("div", { class: "replay-layout" },
      h("div", {},
        h("section", { class: "panel", "aria-labelledby": "puzzle-task" },
          h("h2", { id: "puzzle-task" }, t(`puzzle.theme.${p.theme}`)),
          h("p", { class: "prompt", dataset: { theme: p.theme } }, t(`puzzle.task.${p.theme}`, {
            contract: p.contract ? bidText(p.contract) : "", par: p.par,
          })),
          p.seat !== p.solver ? h("p", {}, t("puzzle.partner", { p: name(p.seat) })) : null,
          h("p", { class: "muted" }, t("puzzle.shown")),
          h("p", { class: "muted" }, t("puzzle.rated", { mu: fixed(puzzle.rating.mu), n: puzzle.rating.attempts }))),
        felt),
      h("div", { class: "side" }, done ? resultPanel(p, done) : null));
  }

  function resultPanel(p, a) {
    const s = a.solution;
    const values = s ? h("ul", { class: "puzzle-values" }, s.values.map((v) => h("li", {
      class: [v.card === s.answer && "answer", v.cost > 0 && "cost"], dataset: { card: v.card, total: String(v.total) },
    },
    t("puzzle.value", { card: cardText(v.card), n: v.total }),
    v.card === s.answer ? ` · ${t("puzzle.answer")}` : "",
    v.card === s.played ? ` · ${t("puzzle.played")}` : "",
    v.card === a.card ? ` · ${t("puzzle.yours")}` : ""))) : null;
    return h("section", { class: "panel analysis", "aria-labelledby": "puzzle-result", dataset: { solved: String(a.solved) } },
      h("h2", { id: "puzzle-result" }, t(a.solved ? "puzzle.result.solved" : "puzzle.result.missed")),
      s ? h("p", { role: "status" }, t(a.solved ? "puzzle.solved" : "puzzle.missed", { card: cardText(s.answer) })) : null,
      s ? h("p", {}, t("puzzle.values", { p: p.judged === p.solver ? t("puzzle.you") : t("seat.n", { n: p.judged + 1 }) })) : null,
      values,
      h("p", {}, t("puzzle.rating.change", {
        before: fixed(a.player.before), after: fixed(a.player.mu),
        pbefore: fixed(a.puzzle.before), pafter: fixed(a.puzzle.mu),
      })),
      a.game_id ? h("p", {}, h("a", { href: `#/game/${a.game_id}/replay/${a.deal_no}/${a.step}` }, t("puzzle.replay"))) : null,
      h("button", { type: "button", class: "action primary", dataset: { key: "next-puzzle" }, onclick: next }, t("puzzle.next")));
  }

  function historyPanel() {
    const items = state.history?.items;
    if (!items) return null;
    return h("section", { class: "panel", "aria-labelledby": "puzzle-history" },
      h("h2", { id: "puzzle-history" }, t("puzzle.history")),
      items.length ? h("ul", { class: "note-list" }, items.map((a) => h("li", { dataset: { attempt: a.puzzle_id } },
        h("a", { href: `#/puzzles/${a.puzzle_id}` }, a.theme ? t(`puzzle.theme.${a.theme}`) : t("puzzles.title")),
        " · ", t(a.solved ? "puzzle.result.solved" : "puzzle.result.missed"),
        " · ", h("time", { class: "muted", datetime: a.at },
          new Date(a.at).toLocaleString(lang(), { dateStyle: "short", timeStyle: "short" })),
        " · ", fixed(a.player.mu))))
        : h("p", { class: "muted" }, t("puzzle.history.none")));
  }

  load();
  return { destroy: () => { alive = false; }, rerender: render };
}
