// A what-if study: a finished deal forked at a step and played on.
// The board is the replay's, every hand face up; at the study's last step its owner moves the
// seat to act (his hand) while the bots answer for theirs. Beside it: the study against the real
// line with the double-dummy par (its comparison), who moves each seat, the notes, sharing.
import { cardEl, sortCards } from "../cards.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { bidGrid, inBidGrid } from "./bidding.js";
import { cardText, eventText, openFelt } from "./board.js";
import { actionLabel } from "./table.js";

const LEVELS = ["random", "basic", "strong", "expert"];

export function studyScreen(root, ctx, studyId, at) {
  const state = { study: null, names: [], compare: null, compared: -1, loading: true, busy: false, discard: [] };
  const name = (seat) => state.names[seat] ?? t("seat.n", { n: seat + 1 });
  const render = () => { if (alive) mount(root, screen()); };
  let alive = true;

  async function load(step) {
    state.loading = true;
    try {
      const study = await ctx.api.study(studyId, step);
      if (!alive) return;
      if (!state.names.length) state.names = await ctx.api.namesOf(study.seats.map((s) => s.player));
      show(study);
    } catch (error) {
      ctx.toast(error);
    } finally {
      state.loading = false;
      render();
    }
  }

  function show(study) {
    state.study = study;
    const link = `#/study/${studyId}/${study.at}`;
    if (location.hash !== link) history.replaceState(null, "", link);
    if (state.compared !== study.version) {
      state.compare = null; // the last version's comparison says nothing of this one
      compare(study.version);
    }
  }

  async function compare(version) {
    state.compared = version;
    try {
      const found = await ctx.api.compareStudy(studyId);
      if (alive && state.compared === version) { state.compare = found; render(); }
    } catch (error) {
      ctx.toast(error);
    }
  }

  /** A command of the owner's: the study as it answers, at its last step. */
  async function run(command) {
    state.busy = true;
    render();
    try {
      show(await command());
      state.discard = [];
    } catch (error) {
      ctx.toast(error);
    } finally {
      state.busy = false;
      render();
    }
  }

  const move = (seat, action) => run(() => ctx.api.moveInStudy(studyId, seat, action, state.study.version));
  const go = (step) => {
    const s = state.study;
    if (!s) return;
    const target = Math.max(1, Math.min(s.steps, step));
    if (target !== s.at) load(target);
  };

  document.addEventListener("keydown", onKey);
  function onKey(event) {
    if (!state.study || event.altKey || event.ctrlKey || event.metaKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName) || event.target.closest?.("[data-roving]")) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 };
    if (event.key in moves) { go(state.study.at + moves[event.key]); event.preventDefault(); }
    if (event.key === "Home") { go(1); event.preventDefault(); }
    if (event.key === "End") { go(state.study.steps); event.preventDefault(); }
  }

  load(at || undefined);
  render();

  function screen() {
    const s = state.study;
    return h("section", {
      class: "screen replay-screen study-screen", "aria-labelledby": "study-title",
      dataset: { screen: "study", at: String(s?.at ?? 0), steps: String(s?.steps ?? 0),
        version: String(s?.version ?? 0), over: String(Boolean(s?.over)), loading: String(state.loading) },
    },
    h("div", { class: "table-head" },
      h("h1", { id: "study-title" }, t("study.title", { n: s?.deal_no ?? "" })),
      s ? h("nav", { class: "chips", "aria-label": t("study.links") },
        h("a", { class: "chip", href: `#/game/${s.game_id}/replay/${s.deal_no}/${s.fork_step}` }, t("study.source")),
        h("span", { class: "chip", dataset: { shared: String(s.shared) } }, t(s.shared ? "study.shared" : "study.private")),
        ctx.me() ? h("a", { class: "chip", href: "#/me" }, t("study.mine")) : null) : null),
    s ? [controls(s), layout(s)] : h("p", {}, t("loading")));
  }

  function controls(s) {
    const button = (label, step, key, disabled) => h("button", {
      type: "button", class: "action", disabled, dataset: { key, step: key }, onclick: () => go(step),
    }, label);
    return h("div", { class: "panel replay-controls" },
      h("div", { class: "buttons", role: "toolbar", "aria-label": t("replay.steps") },
        button(t("replay.first"), 1, "first", s.at === 1),
        button(t("replay.prev"), s.at - 1, "prev", s.at === 1),
        button(t("replay.next"), s.at + 1, "next", s.at === s.steps),
        button(t("replay.last"), s.steps, "last", s.at === s.steps)),
      h("label", { class: "step-range" }, h("span", {}, t("replay.step", { k: s.at, n: s.steps })),
        h("input", {
          type: "range", min: "1", max: String(s.steps), value: String(s.at), dataset: { key: "range" },
          "aria-label": t("replay.step", { k: s.at, n: s.steps }),
          onchange: (e) => go(Number(e.target.value)),
        })),
      h("p", { class: "step-event", role: "status" },
        s.at <= s.fork_step ? h("span", { class: "chip" }, t("study.prefix")) : null, " ",
        eventText(s.events[s.at - 1], name)),
      h("p", { class: "muted" }, t(s.fork_step === 1 ? "study.keys.one" : "study.keys", { k: s.fork_step })));
  }

  function layout(s) {
    const live = s.at === s.steps && s.mine && !s.over;
    const legal = live ? s.legal : [];
    const playable = new Map(); // card -> [seat, action]
    const discards = [];
    for (const { seat, actions } of legal) {
      for (const action of actions) {
        if (action.type === "play") playable.set(action.card, [seat, action]);
        if (action.type === "discard") discards.push([seat, action]);
      }
    }
    const discardable = new Set(discards.flatMap(([, a]) => a.cards));
    const toggle = (card) => {
      state.discard = state.discard.includes(card) ? state.discard.filter((c) => c !== card)
        : [...state.discard, card].slice(-2);
      render();
    };
    const handOf = (seat, cards) => {
      const mine = cards.some((c) => playable.get(c)?.[0] === seat || discardable.has(c));
      if (!mine) return null;
      return h("div", { class: "hand open", role: "group", "aria-label": t("study.hand", { p: name(seat) }),
        dataset: { roving: "" } },
      sortCards(cards).map((card) => discards.length
        ? cardEl(card, { onClick: toggle, legal: !state.busy && discardable.has(card),
          pressed: state.discard.includes(card), where: `@${seat}` })
        : cardEl(card, { onClick: () => move(seat, playable.get(card)[1]),
          legal: !state.busy && playable.has(card), where: `@${seat}` })));
    };
    const tags = (seat) => {
      const bot = s.seats[seat]?.bot;
      return bot ? [t("study.seat.bot", { level: t(`bots.${bot}`) })] : [];
    };
    const felt = openFelt(s.state, { n: s.seats.length, name, handOf, tags });
    return h("div", { class: "replay-layout" },
      h("div", {}, felt, live ? actionsPanel(s, discards) : statusLine(s)),
      h("div", { class: "side" }, comparePanel(s), seatsPanel(s), notesPanel(s), sharePanel(s)));
  }

  function statusLine(s) {
    const text = s.over ? t(s.mine ? "study.over" : "study.over.readonly")
      : s.at < s.steps ? t("study.back", { n: s.steps }) : !s.mine ? t("study.readonly") : "";
    return text ? h("p", { class: "panel muted", role: "status" }, text) : null;
  }

  function actionsPanel(s, discards) {
    const toAct = s.legal.map((l) => name(l.seat)).join(", ");
    const rest = [];
    for (const { seat, actions } of s.legal) {
      const bids = actions.filter(inBidGrid);
      const others = actions.filter((a) => a.type !== "play" && a.type !== "discard" && !inBidGrid(a));
      if (bids.length) {
        rest.push(bidGrid({ actions: bids, busy: state.busy, act: (a) => move(seat, a),
          highest: s.state.view.auction.filter((c) => c.call !== "PASS").at(-1)?.call }));
      }
      if (others.length) {
        rest.push(h("div", { class: "buttons", role: "toolbar", "aria-label": t("study.actions", { p: name(seat) }),
          dataset: { roving: "" } },
        others.map((action) => {
          const json = JSON.stringify(action);
          return h("button", {
            type: "button", class: ["action", `action-${action.type}`], disabled: state.busy,
            dataset: { action: json, actionType: action.type, seat: String(seat), key: `act:${seat}:${json}` },
            onclick: () => move(seat, action),
          }, actionLabel(action, s.state.view));
        })));
      }
    }
    const chosen = discards.find(([, a]) => a.cards.length === state.discard.length
      && a.cards.every((c) => state.discard.includes(c)));
    return h("div", { class: "panel actions", "aria-label": t("study.to_move", { p: toAct }) },
      h("p", { class: "prompt", tabindex: "-1", dataset: { focusHome: "", key: "prompt" } },
        t("study.to_move", { p: toAct })),
      rest,
      discards.length ? h("button", {
        type: "button", class: "action primary", disabled: state.busy || !chosen,
        dataset: { actionType: "discard", key: "act:discard" },
        onclick: () => chosen && move(chosen[0], chosen[1]),
      }, t("discard.do", { cards: state.discard.map(cardText).join(" ") })) : null);
  }

  function comparePanel(s) {
    const c = state.compare;
    const body = [];
    if (!c) {
      body.push(h("p", { class: "muted" }, t("loading")));
    } else {
      body.push(h("p", { dataset: { diverged: String(c.diverged_at ?? "") } }, c.diverged_at
        ? h("button", { type: "button", class: "link", onclick: () => go(c.diverged_at) },
          t("study.diverged", { k: c.diverged_at }))
        : t("study.same")));
      const mine = c.study.cards.find((x) => x.step === s.at);
      const real = c.real.cards.find((x) => x.step === s.at);
      if (mine) body.push(cardLine("study.card", mine.analysis));
      if (real && (c.diverged_at == null || s.at >= c.diverged_at)) body.push(cardLine("study.real", real.analysis));
      if (c.now && s.at === s.steps) {
        body.push(h("p", { dataset: { parNow: String(c.now.par) } }, t("study.now",
          { p: name(c.now.judged), n: c.now.par, best: c.now.best.map(cardText).join(" ") })));
      }
      const tricks = (line) => line.tricks.map((n, seat) => n == null ? null : `${name(seat)} ${n}`).filter(Boolean).join(", ");
      const lost = (line) => line.lost.map((n, seat) => `${name(seat)} ${n}`).join(", ");
      if (c.study.finished) body.push(h("p", { dataset: { result: "study" } }, t("study.result", { list: tricks(c.study) })));
      if (c.real.finished) body.push(h("p", { class: "muted" }, t("study.result.real", { list: tricks(c.real) })));
      body.push(h("p", { class: "muted" }, t("study.lost", { study: lost(c.study), real: lost(c.real) })));
    }
    return h("section", { class: "panel analysis", "aria-labelledby": "study-compare",
      dataset: { compare: c ? "ready" : "pending", version: String(state.compared) } },
      h("h2", { id: "study-compare" }, t("study.compare")), body);
  }

  function cardLine(key, a) {
    return h("p", { class: a.cost > 0 ? "cost" : "", dataset: { cost: String(a.cost) } }, t(key, {
      p: name(a.by), card: cardText(a.card), par: a.par, j: name(a.judged), n: a.cost,
      best: a.best.map(cardText).join(" "),
    }));
  }

  function seatsPanel(s) {
    const row = (seat) => {
      const label = `${name(seat.seat)} (${t("seat.n", { n: seat.seat + 1 })})`;
      if (!s.mine) {
        return h("li", {}, label, ": ", seat.bot ? t("study.seat.bot", { level: t(`bots.${seat.bot}`) }) : t("study.seat.owner"));
      }
      const id = `study-seat-${seat.seat}`;
      return h("li", {}, h("label", { for: id }, label), " ",
        h("select", {
          id, disabled: state.busy, dataset: { key: `seat:${seat.seat}`, seatBot: String(seat.seat) },
          onchange: (e) => run(() => ctx.api.setStudySeat(studyId, seat.seat, e.target.value || null)),
        },
        h("option", { value: "", selected: !seat.bot }, t("study.seat.owner")),
        LEVELS.map((level) => h("option", { value: level, selected: seat.bot === level },
          t("study.seat.bot", { level: t(`bots.${level}`) })))));
    };
    return h("section", { class: "panel", "aria-labelledby": "study-seats" },
      h("h2", { id: "study-seats" }, t("study.seats")),
      h("ul", { class: "seat-list" }, s.seats.map(row)));
  }

  function notesPanel(s) {
    const list = s.notes.length ? h("ul", { class: "note-list" }, s.notes.map((n) => h("li", { dataset: { noteStep: String(n.step) } },
      h("button", { type: "button", class: "link", onclick: () => go(n.step) }, t("study.step.go", { k: n.step })),
      ": ", n.text))) : h("p", { class: "muted" }, t("study.notes.none"));
    const form = s.mine ? h("form", {
      class: "note-form",
      onsubmit: (e) => {
        e.preventDefault();
        const text = e.target.elements.note.value.trim();
        if (text) run(() => ctx.api.annotateStudy(studyId, s.at, text).then(() => ctx.api.study(studyId, s.at)));
      },
    },
    h("label", { for: "study-note" }, t("study.note.label", { k: s.at })),
    h("textarea", { id: "study-note", name: "note", rows: "2", maxlength: "500", dataset: { key: "note" } }),
    h("button", { type: "submit", class: "action", disabled: state.busy, dataset: { key: "note-add" } }, t("study.note.add"))) : null;
    return h("section", { class: "panel", "aria-labelledby": "study-notes" },
      h("h2", { id: "study-notes" }, t("study.notes")), list, form);
  }

  function sharePanel(s) {
    if (!s.mine) return null;
    const url = `${location.origin}${location.pathname}#/study/${studyId}`;
    return h("section", { class: "panel", "aria-labelledby": "study-share" },
      h("h2", { id: "study-share" }, t("study.sharing")),
      h("button", {
        type: "button", class: "action", disabled: state.busy, dataset: { key: "share" },
        onclick: () => run(() => ctx.api.shareStudy(studyId, !s.shared).then(() => ctx.api.study(studyId, s.at))),
      }, t(s.shared ? "study.unshare" : "study.share")),
      s.shared ? h("p", {}, h("label", { for: "study-link" }, t("study.link")),
        h("input", { id: "study-link", type: "text", readonly: true, value: url, dataset: { key: "link" } })) : null);
  }

  return { destroy: () => { alive = false; document.removeEventListener("keydown", onKey); }, rerender: render };
}

/** The caller's studies, for "My games". */
export function studyList(items) {
  if (!items) return h("p", { class: "muted" }, t("loading"));
  if (!items.length) return h("p", { class: "muted" }, t("study.none"));
  return h("ul", { class: "game-list" }, items.map((s) => h("li", { dataset: { study: s.id } },
    h("div", {}, h("strong", {}, t("study.title", { n: s.deal_no })), h("br"),
      h("span", { class: "muted" }, t("study.from", { k: s.step }))),
    h("a", { class: "button", href: `#/study/${s.id}`, dataset: { key: `study:${s.id}` } }, t("study.open")))));
}
