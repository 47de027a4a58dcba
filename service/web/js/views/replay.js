// A finished deal step by step (GET …/deals/{n}/replay?at=K): every hand, the talon, the
// discard, the trick on the table, what the deal wrote on the sheet and, once the game is
// over, the analysis: par at this step, what the last card cost, the mistakes, and every
// decision (bids, discard, contract, whists, open or closed, a claim accepted) judged over the
// layouts its player could not tell apart, its sentence worded by the service in the page's
// language; from any step, a what-if study of the deal (views/study.js).
import { bidText } from "../cards.js";
import { h, mount } from "../dom.js";
import { lang, t } from "../i18n.js";
import { cardText, eventText, openFelt } from "./board.js";
import { entryWhy } from "./sheet.js";

export function replayScreen(root, ctx, gameId, dealNo, at) {
  const state = { game: null, names: [], replay: null, loading: true, cache: new Map(), lang: lang() };
  const name = (seat) => state.names[seat] ?? t("seat.n", { n: seat + 1 });
  const render = () => mount(root, screen());
  let alive = true;

  async function load(step) {
    state.loading = true;
    const key = step ?? "end";
    try {
      if (!state.cache.has(key)) state.cache.set(key, ctx.api.replay(gameId, dealNo, step, state.lang));
      const replay = await state.cache.get(key);
      if (!alive) return;
      state.replay = replay;
      state.cache.set(replay.at, Promise.resolve(replay));
      if (location.hash !== link(replay.at)) history.replaceState(null, "", link(replay.at));
    } catch (error) {
      state.cache.delete(key);
      ctx.toast(error);
    } finally {
      state.loading = false;
      if (alive) render();
    }
  }

  const link = (step) => `#/game/${gameId}/replay/${dealNo}/${step}`;

  async function fork(step) {
    try {
      const study = await ctx.api.forkStudy({ game_id: gameId, deal_no: dealNo, step });
      ctx.navigate(`#/study/${study.id}`);
    } catch (error) {
      ctx.toast(error);
    }
  }
  const go = (step) => {
    const r = state.replay;
    if (!r) return;
    const target = Math.max(1, Math.min(r.steps, step));
    if (target !== r.at) load(target);
  };

  document.addEventListener("keydown", onKey);
  function onKey(event) {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName) || !state.replay) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 };
    if (event.key in moves) { go(state.replay.at + moves[event.key]); event.preventDefault(); }
    if (event.key === "Home") { go(1); event.preventDefault(); }
    if (event.key === "End") { go(state.replay.steps); event.preventDefault(); }
  }

  (async () => {
    try {
      state.game = await ctx.api.game(gameId);
      state.names = await ctx.api.namesOf(state.game.view.players);
    } catch (error) {
      ctx.toast(error);
    }
    await load(at || 1);
  })();
  render();

  function screen() {
    const r = state.replay;
    const attrs = {
      class: "screen replay-screen",
      "aria-labelledby": "replay-title",
      dataset: { screen: "replay", at: String(r?.at ?? 0), steps: String(r?.steps ?? 0), loading: String(state.loading) },
    };
    const v = state.game?.view;
    const deals = v ? (v.status === "finished" ? v.deal_no : v.deal_no - 1) : 0;
    return h("section", attrs,
      h("div", { class: "table-head" },
        h("h1", { id: "replay-title" }, t("replay.title", { n: dealNo })),
        h("nav", { class: "chips", "aria-label": t("replay.deals") },
          h("a", { class: "chip", href: `#/game/${gameId}` }, t("replay.back")),
          dealNo > 1 ? h("a", { class: "chip", href: `#/game/${gameId}/replay/${dealNo - 1}` }, t("replay.prev.deal")) : null,
          dealNo < deals ? h("a", { class: "chip", href: `#/game/${gameId}/replay/${dealNo + 1}` }, t("replay.next.deal")) : null)),
      r ? [controls(r), board(r)] : h("p", {}, t("loading")));
  }

  function controls(r) {
    const button = (label, step, key, disabled) => h("button", {
      type: "button", class: "action", disabled, dataset: { key, step: key }, onclick: () => go(step),
    }, label);
    const event = r.events[r.at - 1];
    return h("div", { class: "panel replay-controls" },
      h("div", { class: "buttons", role: "toolbar", "aria-label": t("replay.steps"), dataset: { roving: "" } },
        button(t("replay.first"), 1, "first", r.at === 1),
        button(t("replay.prev"), r.at - 1, "prev", r.at === 1),
        button(t("replay.next"), r.at + 1, "next", r.at === r.steps),
        button(t("replay.last"), r.steps, "last", r.at === r.steps)),
      h("label", { class: "step-range" }, h("span", {}, t("replay.step", { k: r.at, n: r.steps })),
        h("input", {
          type: "range", min: "1", max: String(r.steps), value: String(r.at), dataset: { key: "range" },
          "aria-label": t("replay.step", { k: r.at, n: r.steps }),
          onchange: (e) => go(Number(e.target.value)),
        })),
      h("p", { class: "step-event", role: "status" }, eventText(event, name)),
      h("p", { class: "muted" }, t("replay.keys")),
      // Once the game is over any deal can be forked into a what-if study at this step.
      ctx.me() && r.visibility === "full" ? h("button", {
        type: "button", class: "action", dataset: { key: "fork" }, onclick: () => fork(r.at),
      }, t("study.fork", { k: r.at })) : null);
  }

  function board(r) {
    const n = state.game?.view.players.length ?? r.state.view.hand_sizes.length;
    const felt = openFelt(r.state, { n, name });
    return h("div", { class: "replay-layout" },
      felt,
      analysisPanel(r),
      r.score ? h("section", { class: "panel" }, h("h2", {}, t("replay.score")),
        h("ul", {}, r.score.entries.map((e) => h("li", {},
          `${name(e.seat)}: ${t(`entry.${e.kind}`)} ${e.amount}${e.on != null ? ` → ${name(e.on)}` : ""}`,
          h("br"), h("small", { class: "muted" }, entryWhy(e, name)))))) : null);
  }

  function analysisPanel(r) {
    if (r.visibility !== "full") return null; // the analysis shows every hand: after the game
    const a = r.analysis;
    const panel = (...body) => h("section", { class: "panel analysis", dataset: { analysis: a ? "ready" : "pending" } },
      h("h2", {}, t("analysis.title")), ...body);
    if (!a) return panel(h("p", { class: "muted" }, t("analysis.pending")));
    if (!a.cards.length) return panel(h("p", {}, t("analysis.noplay")), decisionsPanel(r, a));
    // The step of each card played, so that a card's analysis lines up with the replay.
    const cardSteps = [];
    r.events.forEach((e, i) => { if (e.type === "card_played") cardSteps.push(i + 1); });
    const down = cardSteps.filter((step) => step <= r.at).length;
    const next = a.cards[down];
    const last = down > 0 ? a.cards[down - 1] : null;
    const judged = next?.judged ?? last?.judged;
    const par = next ? next.par : last?.after;
    const lines = [];
    lines.push(h("p", { dataset: { par: String(par) } },
      t("analysis.par", { p: name(judged), n: par })));
    if (last) {
      lines.push(h("p", { class: last.cost > 0 ? "cost" : "muted", dataset: { cost: String(last.cost) } },
        last.cost > 0
          ? t("analysis.cost", { p: name(last.by), card: cardText(last.card), n: last.cost,
            best: last.best.map(cardText).join(" ") })
          : t("analysis.kept", { p: name(last.by), card: cardText(last.card) })));
    }
    const mistakes = a.mistakes.map((m) => h("li", {},
      h("button", { type: "button", class: ["link", m.decisive && "decisive"], dataset: { mistake: String(m.step) },
        onclick: () => go(cardSteps[m.step]) },
      t(m.decisive ? "analysis.mistake.decisive" : "analysis.mistake",
        { trick: m.trick, p: name(a.cards[m.step].by), card: cardText(m.card), n: m.cost }))));
    const opening = a.opening_par.map((n, seat) => n == null ? null
      : t("analysis.opening", { p: name(seat), n, taken: a.result[seat] ?? 0 })).filter(Boolean);
    return panel(lines,
      h("p", { class: "muted" }, opening.join(" ")),
      mistakes.length ? h("ul", { class: "mistakes" }, mistakes) : h("p", {}, t("analysis.clean")),
      decisionsPanel(r, a));
  }

  // A decision's choice in words, as the page writes bids, cards and calls.
  function actionText(kind, action) {
    const dark = action.endsWith(" DARK");
    const code = action.replace(/ DARK$/, "");
    let text;
    if (kind === "discard") text = code.split(" ").map(cardText).join(" ");
    else if (code === "TAKE_TALON") text = t("analysis.act.take_talon");
    else if (code === "CONCEDE") text = t("analysis.act.concede");
    else if (["whist", "pass", "half_whist", "open", "closed", "accept", "reject"].includes(code)) text = t(`analysis.act.${code}`);
    else if (code.endsWith("WT")) text = `${bidText(code.slice(0, -2))} ${t("analysis.act.wt")}`;
    else text = bidText(code);
    return dark ? `${text} ${t("analysis.act.dark")}` : text;
  }

  function decisionsPanel(r, a) {
    const decisions = a.decisions ?? [];
    const title = h("h3", { id: "decisions-title" }, t("analysis.decisions"));
    if (!decisions.length) return h("section", { class: "decisions", "aria-labelledby": "decisions-title" }, title,
      h("p", { class: "muted" }, t("analysis.decisions.none")));
    // The decision made at this step (the replay shows the table just before it), if any.
    const here = decisions.find((d) => d.step === r.at);
    const money = (x) => (lang() === "ru" ? x.toFixed(1).replace(".", ",") : x.toFixed(1)).replace("-", "−");
    const table = here ? h("table", { class: "options", dataset: { here: String(here.step) } },
      h("caption", {}, t("analysis.decision.here"), " · ",
        here.exhaustive ? t("analysis.decision.every", { n: here.samples }) : t("analysis.decision.layouts", { n: here.samples })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("analysis.decision.choice")),
        h("th", { scope: "col" }, t("analysis.decision.value")))),
      h("tbody", {}, here.options.map((o) => h("tr", { class: [o.action === here.action && "made", o.action === here.best && "best"] },
        h("th", { scope: "row" }, actionText(here.kind, o.action),
          o.action === here.action ? h("small", { class: "tag" }, t("analysis.decision.made")) : null,
          o.action === here.best ? h("small", { class: "tag best" }, t("analysis.decision.best")) : null),
        h("td", { dataset: { value: String(o.value) } }, money(o.value)))))) : null;
    const items = decisions.map((d) => h("li", { class: d.step === r.at && "current" },
      h("button", { type: "button", class: ["link", `verdict-${d.verdict}`],
        dataset: { decision: String(d.step), verdict: d.verdict, loss: String(d.loss) },
        "aria-current": d.step === r.at ? "step" : null,
        onclick: () => go(d.step) },
      h("span", { class: "verdict" }, t(`analysis.verdict.${d.verdict}`)), " ", d.summary)));
    return h("section", { class: "decisions", "aria-labelledby": "decisions-title" }, title,
      h("p", { class: "muted" }, t("analysis.decisions.about")),
      table, h("ol", { class: "decision-list" }, items));
  }

  // The analysis' sentences come worded by the service: a new language asks for them again.
  function rerender() {
    if (state.lang !== lang()) {
      state.lang = lang();
      state.cache.clear();
      if (state.replay) { load(state.replay.at); return; }
    }
    render();
  }

  return { destroy: () => { alive = false; document.removeEventListener("keydown", onKey); }, rerender };
}
