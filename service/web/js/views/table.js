// The table: the seats around the felt, your hand, the trick, the talon, and exactly the
// actions the service lists in legal_actions; the sheet and the log beside it.
import { bidEl, bidName, bidText, backsEl, cardEl, rankText, SUIT_SYMBOL, sortCards } from "../cards.js";
import { h, mount } from "../dom.js";
import { GameSession } from "../game.js";
import { t } from "../i18n.js";
import { bidGrid, inBidGrid } from "./bidding.js";
import { chatPanel } from "./chat.js";
import { rematchPanel } from "./rematch.js";
import { settlementPanel } from "./settlement.js";
import { dealTitle, entryText, entryWhy, sheetPanel } from "./sheet.js";

const POSITIONS = { 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };
const ACTION_ORDER = ["answer_claim", "look_at_cards", "bid", "pass", "take_talon", "declare", "declare_totus",
  "concede", "whist", "choose_play"];
const LOG_LINES = 80; // a whole deal: the bidding, ten tricks of three or four cards
const BOT_LEVELS = ["random", "basic", "strong", "expert"];
const GRID_LEVELS = ["6", "7", "8", "9", "10"];
const GRID_STRAINS = ["S", "C", "D", "H", "NT"];
const TICK_MS = 250;
const LOW_MS = 10_000; // the warning shows from here (or half the move's time, if shorter)
const SOUND_KEY = "preferans.sound";
// The events of a move: the first of them after a timeout (or a move made for an absent
// seat) is the move the service made for the seat, and the log says so.
const MOVES = new Set(["passed", "bid_made", "talon_taken", "discarded", "contract_declared",
  "whist_called", "play_chosen", "card_played", "claim_answered", "conceded", "cards_looked"]);

const cardText = (card) => `${rankText(card)}${SUIT_SYMBOL[card[1]]}`;

export function tableScreen(root, ctx, gameId) {
  const session = new GameSession(ctx.api, gameId);
  const ui = { discard: [], log: [], standIn: null, timedOut: null, claim: null, botLevel: "basic", beeped: null };
  const name = (seat) => session.names[seat] ?? t("seat.n", { n: seat + 1 });
  // A log line is kept as its words' key and values, and worded when drawn: a name learnt
  // later, or another language, rewrites the lines already there.
  const line = (key, vars = {}) => ({ key, vars });
  const seatName = (seat) => () => name(seat);
  const lineText = ({ key, vars, suffix }) => {
    const values = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, typeof v === "function" ? v() : v]));
    return suffix ? `${t(key, values)} ${t(suffix)}` : t(key, values);
  };
  const chat = chatPanel(ctx, session);
  const rematch = rematchPanel(ctx, session);
  let alive = true; // a load that ends after the page left the table draws nothing
  const render = () => { if (!alive) return; chat.rerender(); rematch.rerender(); mount(root, screen()); paintClocks(); };
  for (const type of ["change", "sheet", "connection"]) session.addEventListener(type, render);
  session.addEventListener("turn", () => ctx.announce(t("turn.yours")));
  session.addEventListener("gone", () => ctx.toast(t("error.game.gone")));
  session.addEventListener("event", ({ detail }) => {
    const said = describe(detail.event);
    if (said) ui.log.unshift({ version: detail.version, said, kind: detail.event.type });
    ui.log.length = Math.min(ui.log.length, LOG_LINES);
    if (said && ["deal_ended", "game_ended"].includes(detail.event.type)) ctx.announce(lineText(said));
    render();
  });
  render();
  session.start().then(backfillLog).catch((error) => { ui.error = error; ctx.toast(error); render(); });
  const ticker = setInterval(paintClocks, TICK_MS);
  const screenApi = {
    destroy: () => { alive = false; clearInterval(ticker); chat.destroy(); rematch.destroy(); session.stop(); },
    rerender: render,
  };

  async function act(action) {
    try {
      await session.act(action);
      ui.discard = [];
      ui.timedOut = null;
    } catch (error) {
      ctx.toast(error);
    }
  }

  /**
   * A table reopened mid-deal: the log of the deal so far, from the game's events (page by page)
   * up to the version the stream resumed after; lines the stream brought meanwhile stay on top.
   */
  async function backfillLog() {
    if (session.finished) return; // a finished table shows the settlement, not the log
    const upTo = session.version;
    const seen = [];
    let cursor = 0;
    for (let pages = 0; pages < 100; pages++) {
      const page = await ctx.api.events(gameId, cursor, 500);
      seen.push(...page.items.filter((item) => item.version <= upTo));
      if (!page.next_cursor || page.version >= upTo) break;
      cursor = page.next_cursor;
    }
    const start = seen.findLastIndex((item) => item.event.type === "deal_started");
    const live = { standIn: ui.standIn, claim: ui.claim, timedOut: ui.timedOut };
    ui.replaying = true;
    const lines = [];
    for (const { version, event } of seen.slice(Math.max(start, 0))) {
      const said = describe(event);
      if (said) lines.unshift({ version, said, kind: event.type });
    }
    ui.replaying = false;
    if (ui.log.length) Object.assign(ui, live); // the stream's own state is the newer
    const newer = ui.log.filter((l) => l.version > upTo);
    ui.log = [...newer, ...lines].slice(0, LOG_LINES);
    render();
  }

  function describe(event) {
    const said = describeEvent(event);
    if (said == null || !ui.standIn || !MOVES.has(event.type)) return said;
    const why = ui.standIn.why;
    ui.standIn = null;
    return { ...said, suffix: why === "timeout" ? "log.by.timeout" : "log.by.service" };
  }

  function describeEvent(event) {
    const p = seatName(event.seat);
    switch (event.type) {
      case "timed_out":
        ui.standIn = { seat: event.seat, why: "timeout" };
        if (event.seat === session.snapshot?.seat && !ui.replaying) {
          ui.timedOut = true;
          ctx.announce(t("timeout.yours"));
        }
        return line("log.timeout", { p });
      case "played_for":
        ui.standIn = { seat: event.seat, why: event.reason };
        return null;
      case "player_absent": return line("log.absent", { p });
      case "player_returned": return line("log.returned", { p });
      case "claim_made":
        ui.claim = event;
        return line(event.tricks === event.remaining ? "log.claim.all" : "log.claim", { p, n: event.tricks, m: event.remaining });
      case "claim_answered":
        if (!event.accept) ui.claim = null;
        return line(event.accept ? "log.claim.accept" : "log.claim.reject", { p });
      case "player_seated": return line("log.seated", { p });
      case "deal_started": return line("log.deal", { p: seatName(event.dealer) });
      case "cards_looked": return line("log.looked", { p });
      case "bid_made": return line(event.hold ? "log.hold" : "log.bid", { p, bid: () => bidText(event.bid) });
      case "passed": return line("log.pass", { p });
      case "auction_won": return line("log.won", { p, bid: () => bidText(event.bid) });
      case "all_passed": return line("log.allpass");
      case "talon_taken":
        return line("log.talon", { p, cards: (event.cards ?? []).map(cardText).join(" ") });
      case "discarded": return line("log.discard", { p: seatName(event.by ?? event.seat) });
      case "contract_declared": return line("log.declare", { p, bid: () => bidText(event.contract) });
      case "conceded": return line("log.concede", { p });
      case "whist_called": return line(`log.whist.${event.choice}`, { p });
      case "play_chosen": return line(event.open ? "log.open" : "log.closed", { p });
      case "hands_opened": return line("log.opened");
      case "talon_card_turned": return line("log.talon.card", { card: cardText(event.card) });
      case "card_played": return line("log.card", { p, card: cardText(event.card) });
      case "trick_won": return line("log.trick", { p });
      case "deal_ended": {
        const claim = ui.claim;
        ui.claim = null;
        return claim ? line("log.claim.agreed", { p: seatName(claim.seat), n: claim.tricks }) : line("log.ended");
      }
      case "deal_scored": return line("log.scored", { n: event.deal_no });
      case "game_ended": return line("log.game.over");
      default: return null;
    }
  }

  function screen() {
    const snap = session.snapshot;
    const v = snap?.view;
    const attrs = {
      class: "screen table-screen",
      "aria-labelledby": "table-title",
      dataset: {
        screen: "table",
        connection: session.connection,
        version: String(snap?.version ?? 0),
        status: v?.status ?? "loading",
        phase: v?.deal.phase ?? "",
        dealNo: String(v?.deal_no ?? 0),
        myTurn: String(session.myTurn && !session.pending),
        seat: snap?.seat == null ? "" : String(snap.seat),
      },
    };
    if (!snap) {
      return h("section", attrs, h("h1", { id: "table-title" }, t("table.title")),
        ui.error ? h("p", { class: "panel" }, String(ui.error.message), " ",
          h("a", { href: "#/" }, t("lobby.title"))) : h("p", {}, t("loading")));
    }
    const body = v.status === "seating" ? seating(snap)
      : v.status === "finished" ? finished(snap)
      : h("div", { class: "table-layout" }, felt(snap), side(snap));
    return h("section", attrs, header(snap), v.status === "finished" ? rematch.el : null, body, chat.el);
  }

  function header(snap) {
    const v = snap.view;
    const spectator = snap.seat == null;
    return h("div", { class: "table-head" },
      h("h1", { id: "table-title" }, t("table.title"), " ",
        h("span", { class: "muted" }, t(`preset.${v.rules.convention}`),
          " · ", t("pool.to", { n: v.rules.pool.target }))),
      h("span", { class: "chips" },
        v.deal_no ? h("span", { class: "chip" }, t("deal.n", { n: v.deal_no })) : null,
        spectator ? h("span", { class: "chip" }, t("spectating")) : null,
        clocked(v) && !spectator && v.status !== "finished" ? h("button", {
          type: "button", class: "chip sound", "aria-pressed": String(soundOn()), dataset: { key: "sound" },
          onclick: () => { localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on"); render(); },
        }, t(soundOn() ? "sound.on" : "sound.off")) : null,
        v.status === "finished" ? null
          : h("span", { class: ["chip", "conn", `conn-${session.connection}`], role: "status" },
            t(`conn.${session.connection}`))));
  }

  function seating(snap) {
    const v = snap.view;
    const seated = snap.seat != null;
    const seatBot = async (seat) => {
      try {
        session.apply(await ctx.api.seatBot(gameId, ui.botLevel, seat));
      } catch (error) {
        ctx.toast(error);
      }
    };
    // A seated player fills the free seats with the service's bots, of the level chosen here.
    const bots = seated ? h("div", { class: "row bot-level" },
      h("label", { for: "seat-bot-level" }, t("bots.level")),
      h("select", { id: "seat-bot-level", onchange: (event) => { ui.botLevel = event.target.value; } },
        BOT_LEVELS.map((level) => h("option", { value: level, selected: level === ui.botLevel }, t(`bots.${level}`)))))
      : null;
    return h("div", { class: "panel seating" },
      h("h2", {}, t("seating.title")),
      bots,
      h("ol", { class: "seat-list" }, v.players.map((player, seat) => h("li", {},
        h("span", {}, t("seat.n", { n: seat + 1 }), ": "),
        player ? h("strong", {}, name(seat))
          : seated ? h("span", {}, h("span", { class: "muted" }, t("seat.free")), " ",
            h("button", { type: "button", class: "seat-bot", dataset: { key: `bot:${seat}`, seat: String(seat) },
              onclick: () => seatBot(seat) }, t("seat.bot", { n: seat + 1 })))
          : !ctx.api.signedIn ? h("span", { class: "muted" }, t("seat.free"))
          : h("button", { type: "button", dataset: { key: `join:${seat}` },
            onclick: () => session.join(seat).catch(ctx.toast) }, t("seat.take", { n: seat + 1 }))))),
      h("p", {}, t("seating.share")),
      h("input", { class: "share", readonly: true, value: location.href, "aria-label": t("seating.link") }),
      seated ? invitePart() : null);
  }

  // A private table is joined with an invite: a seated player makes a link (shown once), and
  // whoever opens it signs up if he must and sits down in one step (views/invite.js).
  function invitePart() {
    const link = ui.inviteLink;
    return [
      h("p", {}, t("invite.share")),
      link ? h("div", { class: "row" },
        h("input", { class: "share invite-link", readonly: true, value: link, "aria-label": t("invite.link") }),
        h("button", { type: "button", dataset: { key: "invite-copy" },
          onclick: () => navigator.clipboard?.writeText(link).then(() => ctx.announce(t("invite.copied")), () => {}) },
        t("invite.copy")))
        : h("button", { type: "button", class: "primary", dataset: { key: "invite-make" },
          onclick: async () => {
            try {
              const invite = await ctx.api.createInvite(gameId);
              ui.inviteLink = `${location.origin}${location.pathname}#/invite/${encodeURIComponent(invite.code)}`;
              render();
            } catch (error) {
              ctx.toast(error);
            }
          } }, t("invite.make")),
    ];
  }

  function finished(snap) {
    const v = snap.view;
    return h("div", { class: "finished-layout" },
      settlementPanel({ view: v, sheet: session.sheet, names: session.names, seat: snap.seat }),
      replayLinks(v.deal_no),
      sheetPanel({ api: ctx.api, gameId, view: v, sheet: session.sheet, version: session.sheetVersion, names: session.names }));
  }

  function replayLinks(upTo) {
    if (upTo < 1) return null;
    return h("nav", { class: "panel replays", "aria-label": t("replay.deals") },
      h("h2", {}, t("replay.deals")),
      h("ul", { class: "inline-list" }, Array.from({ length: upTo }, (_, i) =>
        h("li", {}, h("a", { href: `#/game/${gameId}/replay/${i + 1}` }, t("deal.n", { n: i + 1 }))))));
  }

  function felt(snap) {
    const v = snap.view;
    const d = v.deal;
    const n = v.players.length;
    const me = snap.seat;
    const pos = (seat) => POSITIONS[n][(seat - (me ?? 0) + n) % n];
    const legal = snap.legal_actions;
    const playable = new Set(legal.filter((a) => a.type === "play").map((a) => a.card));
    const discards = legal.filter((a) => a.type === "discard");
    if (!discards.length) ui.discard = [];
    const discardable = new Set(discards.flatMap((a) => a.cards));
    const busy = session.pending;

    const toggle = (card) => {
      ui.discard = ui.discard.includes(card) ? ui.discard.filter((c) => c !== card)
        : [...ui.discard, card].slice(-2);
      render();
    };
    const play = (card) => act({ type: "play", card });

    const hand = (seat) => {
      if (seat === me) {
        const cards = sortCards(d.hand);
        const interactive = discards.length || playable.size;
        return h("div", { class: "hand mine", role: "group", "aria-label": t("hand.yours"), dataset: { roving: "" } },
          cards.map((card) => interactive
            ? cardEl(card, discards.length
              ? { onClick: toggle, legal: !busy && discardable.has(card), pressed: ui.discard.includes(card), size: "big" }
              : { onClick: play, legal: !busy && playable.has(card), size: "big" })
            : cardEl(card, { size: "big" })));
      }
      const open = d.open_hands[seat];
      if (open) {
        const controlled = open.some((card) => playable.has(card));
        return h("div", { class: "hand open", role: "group", "aria-label": t("hand.open", { p: name(seat) }),
          dataset: controlled ? { roving: "" } : {} },
        sortCards(open).map((card) => controlled
          ? cardEl(card, { onClick: play, legal: !busy && playable.has(card), where: `@${seat}` })
          : cardEl(card)));
      }
      const count = d.hand_sizes[seat] ?? 0;
      return count ? backsEl(count, { label: t("hand.hidden", { p: name(seat), n: count }) }) : null;
    };

    const seatEl = (seat) => {
      const player = v.players[seat];
      const calls = d.auction.filter((c) => c.seat === seat);
      const last = calls.at(-1);
      const whist = d.whist_calls.find((c) => c.seat === seat) ?? null;
      const role = d.defenders.find((r) => r.seat === seat);
      const sitsOut = n === 4 && d.dealer === seat && d.phase !== "awaiting_deal";
      const tricks = d.tricks[seat];
      return h("div", {
        class: ["seat", `pos-${pos(seat)}`, d.to_act.includes(seat) && "to-act", seat === me && "me"],
        "aria-label": t("seat.label", { p: player ? name(seat) : t("seat.free"), n: seat + 1 }),
        role: "group",
        dataset: { seat: String(seat) },
      },
      h("div", { class: "seat-head" },
        h("strong", { class: "seat-name" }, player ? name(seat) : t("seat.free")),
        seat === me ? h("span", { class: "tag" }, t("you")) : null,
        d.dealer === seat ? h("span", { class: "tag", title: t("dealer") }, t("dealer.short")) : null,
        d.declarer === seat ? h("span", { class: "tag declarer" }, t("declarer")) : null,
        role ? h("span", { class: "tag" }, t(`whist.${role.choice}`)) : null,
        sitsOut ? h("span", { class: "tag" }, t("sits.out")) : null,
        v.clocks?.[seat]?.presence && v.clocks[seat].presence !== "present"
          ? h("span", { class: "tag absent" }, t(`presence.${v.clocks[seat].presence}`)) : null,
        d.to_act.includes(seat) ? h("span", { class: "tag turn" }, t("turn")) : null),
      h("div", { class: "seat-info" },
        clocked(v) ? h("span", { class: "seat-clock", dataset: { clockSeat: String(seat) } },
          h("span", { class: "countdown", "aria-hidden": "true" }), h("span", { class: "bank" })) : null,
        tricks != null && d.phase === "playing" ? h("span", {}, t("tricks.n", { n: tricks })) : null,
        d.phase === "whisting" && whist ? h("span", { class: "call" }, t(`whist.${whist.call}`))
          : last && d.phase === "bidding"
            ? h("span", { class: "call" }, last.call === "PASS" ? t("pass") : bidEl(last.call)) : null),
      hand(seat));
    };

    const trickSlot = (placement) => {
      const played = d.trick.find((p) => pos(p.seat) === placement);
      return h("div", { class: ["slot", `slot-${placement}`] }, played ? cardEl(played.card) : null);
    };

    const center = h("div", { class: "center", "aria-label": t("center"), role: "group" },
      h("div", { class: "deal-info" },
        h("span", {}, t(`phase.${d.phase}`)),
        d.min_level > 6 && d.phase === "bidding" ? h("span", {}, t("min.level", { n: d.min_level })) : null,
        d.contract ? h("span", {}, t("contract"), " ", bidEl(d.contract), d.declarer != null ? ` · ${name(d.declarer)}` : "")
          : d.bid ? h("span", {}, t("bid"), " ", bidEl(d.bid)) : null,
        d.open_play ? h("span", {}, t("open.play")) : null),
      (d.talon.length || d.talon_size || d.talon_card)
        ? h("div", { class: "talon", role: "group", "aria-label": t("talon") },
          h("span", { class: "label" }, t("talon")),
          d.talon.map((card) => cardEl(card)),
          d.talon_size ? backsEl(d.talon_size, { label: t("talon.hidden", { n: d.talon_size }) }) : null,
          d.talon_card ? cardEl(d.talon_card) : null)
        : null,
      d.discard ? h("div", { class: "talon" }, h("span", { class: "label" }, t("discard.yours")),
        d.discard.map((card) => cardEl(card))) : null,
      d.claim ? claimPanel(d, me) : null,
      d.phase === "playing" ? h("div", { class: ["trick", `trick-${n}`], role: "group", "aria-label": t("trick") },
        POSITIONS[n].map(trickSlot)) : null,
      d.last_trick.length ? h("div", { class: "last-trick" }, h("span", { class: "label" }, t("trick.last")),
        d.last_trick.map((p) => cardEl(p.card, { size: "tiny" }))) : null);

    return h("div", { class: ["felt", `seats-${n}`] },
      v.players.map((_, seat) => seatEl(seat)),
      center,
      actions(snap, discards, busy));
  }

  function actions(snap, discards, busy) {
    const d = snap.view.deal;
    const own = new Set(["play", "discard", "claim"]); // drawn by the hand and the claim control
    const gridded = (a) => a.type === "declare" && inGrid(a.contract);
    const bidding = d.phase === "bidding";
    const legal = snap.legal_actions.filter((a) => !own.has(a.type) && !gridded(a) && !(bidding && inBidGrid(a)));
    const declarations = snap.legal_actions.filter(gridded);
    const bids = bidding ? snap.legal_actions.filter(inBidGrid) : [];
    const claims = snap.legal_actions.filter((a) => a.type === "claim");
    const waiting = d.to_act.filter((s) => s !== snap.seat).map(name);
    const asked = snap.legal_actions.some((a) => a.type === "answer_claim");
    const prompt = snap.seat == null ? (waiting.length ? t("turn.waiting", { p: waiting.join(", ") }) : "")
      : session.myTurn ? t(discards.length ? "turn.discard" : asked ? "turn.claim"
        : declarations.length ? (d.bid && inGrid(d.bid) ? "turn.declare.from" : "turn.declare")
        : legal.length || bids.length ? "turn.yours" : "turn.card", { bid: d.bid ? bidText(d.bid) : "" })
      : waiting.length ? t("turn.waiting", { p: waiting.join(", ") }) : "";
    const groups = new Map();
    for (const action of legal) {
      if (!groups.has(action.type)) groups.set(action.type, []);
      groups.get(action.type).push(action);
    }
    const ordered = [...groups.keys()].sort((a, b) => rank(a) - rank(b));
    const chosen = discards.find((a) => a.cards.length === ui.discard.length
      && a.cards.every((c) => ui.discard.includes(c)));
    return h("div", { class: "actions", "aria-label": t("actions") },
      ui.timedOut && snap.seat != null ? h("p", { class: "notice timeout", role: "status" }, t("timeout.yours")) : null,
      h("p", { class: ["prompt", session.myTurn && "mine"], tabindex: "-1", dataset: { focusHome: "", key: "prompt" } }, prompt),
      talonNote(snap),
      declarations.length ? declareGrid(declarations, busy) : null,
      bids.length ? bidGrid({ actions: bids, busy, act,
        highest: d.auction.filter((c) => c.call !== "PASS").at(-1)?.call }) : null,
      h("div", { class: "buttons", role: "toolbar", "aria-label": t("actions"), dataset: { roving: "" } },
        ordered.flatMap((type) => groups.get(type).map((action) => actionButton(action, busy))),
        discards.length ? h("button", {
          type: "button", class: "action primary", disabled: busy || !chosen,
          dataset: { actionType: "discard", key: "act:discard" },
          onclick: () => chosen && act(chosen),
        }, t("discard.do", { cards: ui.discard.map(cardText).join(" ") })) : null),
      claims.length ? claimControl(claims, busy) : null);
  }

  function actionButton(action, busy) {
    const json = JSON.stringify(action);
    return h("button", {
      type: "button",
      class: ["action", `action-${action.type}`, action.type === "answer_claim" && action.accept && "primary"],
      disabled: busy,
      dataset: { action: json, actionType: action.type, key: `act:${json}` },
      onclick: () => act(action),
    }, actionLabel(action, session.snapshot.view.deal));
  }

  /** Where the talon is offered, what taking it means (and what the alternative is). */
  function talonNote(snap) {
    const d = snap.view.deal;
    if (!snap.legal_actions.some((a) => a.type === "take_talon")) return null;
    const key = d.phase === "bidding" ? "talon.note.silent"
      : snap.legal_actions.some((a) => a.type === "declare") ? "talon.note.miser" : "talon.note";
    return h("p", { class: "note talon-note" }, t(key, { bid: d.bid ? bidText(d.bid) : "" }));
  }

  /** Naming the contract: levels down, strains across; only the legal ones can be pressed. */
  function declareGrid(declarations, busy) {
    const legal = new Map(declarations.map((a) => [a.contract, a]));
    const strainHead = (strain) => h("span", { class: ["grid-head", (strain === "D" || strain === "H") && "red"], "aria-hidden": "true" },
      strain === "NT" ? t("nt") : SUIT_SYMBOL[strain]);
    return h("div", { class: "declare-grid", role: "group", "aria-label": t("declare.grid"), dataset: { roving: "" } },
      h("span", { class: "grid-head" }),
      GRID_STRAINS.map(strainHead),
      GRID_LEVELS.flatMap((level) => [
        h("span", { class: "grid-head", "aria-hidden": "true" }, level),
        GRID_STRAINS.map((strain) => {
          const contract = `${level}${strain}`;
          const action = legal.get(contract);
          if (!action) {
            return h("button", { type: "button", class: "cell", disabled: true, "aria-label": bidName(contract) }, bidText(contract));
          }
          const json = JSON.stringify(action);
          return h("button", {
            type: "button", class: ["cell", "action", "action-declare", (strain === "D" || strain === "H") && "red"],
            disabled: busy, "aria-label": `${t("declare")} ${bidName(contract)}`,
            dataset: { action: json, actionType: "declare", key: `act:${json}` },
            onclick: () => act(action),
          }, bidText(contract));
        }),
      ]));
  }

  /** Claim N of the tricks left: one number, one button (legal_actions lists every N). */
  function claimControl(claims, busy) {
    const counts = claims.map((a) => a.tricks).sort((x, y) => y - x);
    const left = counts[0];
    const select = h("select", { id: "claim-tricks", class: "claim-tricks", dataset: { key: "claim-tricks" } },
      counts.map((n) => h("option", { value: String(n), selected: n === left }, String(n))));
    return h("div", { class: "claim-control", role: "group", "aria-labelledby": "claim-label" },
      h("label", { id: "claim-label", for: "claim-tricks" }, t("claim.label", { m: left })),
      select,
      h("button", {
        type: "button", class: "action action-claim", disabled: busy,
        dataset: { actionType: "claim", key: "act:claim" },
        onclick: () => act({ type: "claim", tricks: Number(select.value) }),
      }, t("claim.do")),
      h("p", { class: "muted note" }, t("claim.note")));
  }

  /** The claim waiting for answers: who claims what, who has accepted, the claimer's cards if
   * the view shows them. */
  function claimPanel(d, me) {
    const c = d.claim;
    const cards = c.seat === me ? null : d.open_hands[c.seat] ?? d.shown_hands?.[c.seat];
    return h("div", { class: "claim-panel", role: "status", dataset: { claimSeat: String(c.seat), tricks: String(c.tricks) } },
      h("p", { class: "claim-text" }, t((c.seat === me ? "claim.yours" : "claim.pending") + (c.tricks === c.remaining ? ".all" : ""),
        { p: name(c.seat), n: c.tricks, m: c.remaining })),
      h("ul", { class: "inline-list" }, c.asked.map((seat) => h("li", { class: "chip" },
        t(c.accepted.includes(seat) ? "claim.accepted" : "claim.waiting", { p: name(seat) })))),
      c.seat === me ? null
        : cards ? h("div", { class: "hand open", role: "group", "aria-label": t("hand.open", { p: name(c.seat) }) },
          sortCards(cards).map((card) => cardEl(card)))
        : h("p", { class: "muted" }, t("claim.hidden")));
  }

  /** Every seat's clock, repainted in place a few times a second (not the whole screen). */
  function paintClocks() {
    const snap = session.snapshot;
    if (!snap || !clocked(snap.view)) return;
    const now = session.serverNow();
    const moveMs = (snap.view.rules.table?.move_seconds ?? 0) * 1000;
    const lowMs = moveMs ? Math.min(LOW_MS, moveMs / 2) : LOW_MS;
    const banked = Boolean(snap.view.rules.table?.bank_seconds); // no bank: nothing to show
    for (const el of root.querySelectorAll(".seat-clock[data-clock-seat]")) {
      const seat = Number(el.dataset.clockSeat);
      const clock = snap.view.clocks?.[seat];
      if (!clock) continue;
      const acting = clock.deadline != null && snap.view.status === "playing";
      const left = acting ? Math.max(0, clock.deadline - now) : null;
      const bank = acting ? Math.min(clock.bank_ms ?? 0, left) : clock.bank_ms;
      const low = acting && left <= lowMs;
      el.classList.toggle("acting", acting);
      el.classList.toggle("low", low);
      el.dataset.left = acting ? String(Math.ceil(left / 1000)) : "";
      el.dataset.low = String(low);
      el.querySelector(".countdown").textContent = acting ? clockText(left) : "";
      el.querySelector(".bank").textContent = banked && bank != null ? t("clock.bank", { t: clockText(bank) }) : "";
      el.title = acting ? t("clock.left", { t: clockText(left) }) : "";
      if (low && seat === snap.seat && ui.beeped !== clock.deadline) {
        ui.beeped = clock.deadline; // once per turn
        ctx.announce(t("clock.low"));
        if (soundOn()) beep();
      }
    }
  }

  function side(snap) {
    const d = snap.view.deal;
    return h("aside", { class: "side" },
      d.auction.length ? h("section", { class: "panel auction" },
        h("h2", {}, t("auction")),
        h("ol", { class: "calls" }, d.auction.map((c) => h("li", {},
          h("span", {}, name(c.seat), ": "), c.call === "PASS" ? t("pass") : bidEl(c.call),
          c.hold ? ` (${t("hold")})` : "")))) : null,
      d.whist_calls.length ? h("section", { class: "panel" },
        h("h2", {}, t("whisting")),
        h("ol", { class: "calls" }, d.whist_calls.map((c) => h("li", {}, `${name(c.seat)}: `,
          t(`whist.${c.call}`))))) : null,
      sheetPanel({ api: ctx.api, gameId, view: snap.view, sheet: session.sheet, version: session.sheetVersion, names: session.names, compact: true }),
      lastDeal(),
      replayLinks(snap.view.deal_no - 1),
      h("section", { class: "panel log" },
        h("h2", {}, t("log")),
        h("ol", { class: "log-lines", "aria-live": "off", tabindex: "0", "aria-label": t("log"), dataset: { key: "log" } }, ui.log.map((line) =>
          h("li", { class: `log-${line.kind.replaceAll("_", "-")}`, dataset: { version: String(line.version), kind: line.kind } },
            lineText(line.said))))));
  }

  function lastDeal() {
    const deal = session.sheet?.deals.at(-1);
    if (!deal) return null;
    return h("section", { class: "panel last-deal" },
      h("h2", {}, t("deal.last", { n: deal.deal_no })),
      h("p", {}, dealTitle(deal, name)),
      h("ul", {}, deal.entries.map((e) => h("li", {}, entryText(e, name), " ",
        h("span", { class: "muted why" }, entryWhy(e, name))))));
  }

  return screenApi;
}

const inGrid = (contract) => /^(6|7|8|9|10)(S|C|D|H|NT)$/.test(contract);
const clocked = (view) => Boolean(view.rules.table?.move_seconds || view.rules.table?.bank_seconds);
const soundOn = () => localStorage.getItem(SOUND_KEY) !== "off";

/** "0:07", "4:59", "1:02:00" */
function clockText(ms) {
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

let audio = null;
/** A short tone: the low-time warning (the player can turn it off). */
function beep() {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch {
    // no sound on this device: the visual warning stays
  }
}

function rank(type) {
  const at = ACTION_ORDER.indexOf(type);
  return at < 0 ? ACTION_ORDER.length : at;
}

/** What a button of legal_actions says; an action type this client does not know still gets one. */
export function actionLabel(action, deal) {
  switch (action.type) {
    case "bid": {
      const highest = deal.auction.filter((c) => c.call !== "PASS").at(-1)?.call;
      const text = action.bid === highest ? `${t("hold")} ${bidText(action.bid)}` : bidText(action.bid);
      return action.dark ? `${text} (${t("dark")})` : text;
    }
    case "pass": return action.dark ? `${t("pass")} (${t("dark")})` : t("pass");
    case "declare": return `${t("declare")} ${bidText(action.contract)}`;
    case "declare_totus": return `${t("totus")} ${bidText(`10${action.strain}`)}`;
    case "whist": return t(`whist.${action.choice}`);
    case "choose_play": return t(action.open ? "play.open" : "play.closed");
    case "take_talon": return t("talon.take");
    case "look_at_cards": return t("look");
    case "concede": return t("concede");
    case "answer_claim": return t(action.accept ? "claim.accept" : "claim.reject");
    case "claim": return t("claim.n", { n: action.tricks });
    default: return `${action.type} ${JSON.stringify(action)}`;
  }
}
