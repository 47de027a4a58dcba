// A deal's felt with every hand face up: a replay's, a study's, a puzzle's layout. The seats sit
// around the table (``bottom`` nearest the viewer), with the talon, the discard, the trick on
// the table and the auction in the middle. ``handOf(seat, cards)`` may draw a seat's hand itself
// (cards that can be played as buttons); otherwise its cards are pictures.
import { bidEl, bidText, cardEl, rankText, sortCards, SUIT_SYMBOL } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

export const POSITIONS = { 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };

/**
 * ``shown``: ``{view, hands, talon, discard}`` (a replay's state); ``name(seat)``; ``tags(seat)``:
 * more labels for a seat's head (strings).
 */
export function openFelt(shown, { n, name, bottom = 0, handOf = null, tags = () => [] }) {
  const view = shown.view;
  const pos = (seat) => POSITIONS[n]?.[(seat - bottom + n) % n] ?? "bottom";
  const seats = Array.from({ length: n }, (_, seat) => {
    const cards = shown.hands[seat] ?? [];
    const drawn = handOf?.(seat, cards);
    return h("div", { class: ["seat", `pos-${pos(seat)}`, view.to_act.includes(seat) && "to-act"], role: "group",
      "aria-label": t("seat.label", { p: name(seat), n: seat + 1 }), dataset: { seat: String(seat) } },
    h("div", { class: "seat-head" },
      h("strong", { class: "seat-name" }, name(seat)),
      view.dealer === seat ? h("span", { class: "tag" }, t("dealer.short")) : null,
      view.declarer === seat ? h("span", { class: "tag declarer" }, t("declarer")) : null,
      tags(seat).map((tag) => h("span", { class: "tag" }, tag)),
      view.tricks[seat] != null ? h("span", { class: "tag" }, t("tricks.n", { n: view.tricks[seat] })) : null),
    drawn ?? h("div", { class: "hand open" }, sortCards(cards).map((card) => cardEl(card))));
  });
  const played = (placement) => {
    const card = view.trick.find((p) => pos(p.seat) === placement);
    return h("div", { class: ["slot", `slot-${placement}`] }, card ? cardEl(card.card) : null);
  };
  const center = h("div", { class: "center" },
    h("div", { class: "deal-info" },
      h("span", {}, t(`phase.${view.phase}`)),
      view.contract ? h("span", {}, t("contract"), " ", bidEl(view.contract)) : null),
    h("div", { class: "talon" }, h("span", { class: "label" }, t("talon")), shown.talon.map((c) => cardEl(c))),
    shown.discard ? h("div", { class: "talon" }, h("span", { class: "label" }, t("discard")),
      shown.discard.map((c) => cardEl(c))) : null,
    h("div", { class: ["trick", `trick-${n}`] }, (POSITIONS[n] ?? []).map(played)),
    view.auction.length ? h("p", { class: "muted" }, view.auction.map((c) =>
      `${name(c.seat)}: ${c.call === "PASS" ? t("pass") : bidText(c.call)}`).join(" · ")) : null);
  return h("div", { class: ["felt", `seats-${n}`, "replay"] }, seats, center);
}

export const cardText = (card) => `${rankText(card)}${SUIT_SYMBOL[card[1]]}`;

/** One event of a deal in words (a replay's or a study's step). */
export function eventText(event, name) {
  if (!event) return "";
  const p = event.seat != null ? name(event.seat) : "";
  switch (event.type) {
    case "deal_started": return t("log.deal", { p: name(event.dealer) });
    case "bid_made": return t("log.bid", { p, bid: bidText(event.bid) });
    case "passed": return t("log.pass", { p });
    case "auction_won": return t("log.won", { p, bid: bidText(event.bid) });
    case "all_passed": return t("log.allpass");
    case "talon_taken": return t("log.talon", { p, cards: (event.cards ?? []).map(cardText).join(" ") });
    case "discarded": return `${t("log.discard", { p: name(event.by ?? event.seat) })} ${(event.cards ?? []).map(cardText).join(" ")}`;
    case "contract_declared": return t("log.declare", { p, bid: bidText(event.contract) });
    case "whist_called": return t(`log.whist.${event.choice}`, { p });
    case "play_chosen": return t(event.open ? "log.open" : "log.closed", { p });
    case "play_started": return t("log.play");
    case "hands_opened": return t("log.opened");
    case "talon_card_turned": return t("log.talon.card", { card: cardText(event.card) });
    case "card_played": return t("log.card", { p, card: cardText(event.card) });
    case "trick_won": return t("log.trick", { p });
    case "deal_ended": return t("log.ended");
    default: return event.type;
  }
}
