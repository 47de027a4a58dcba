// Cards as the API writes them, rank then suit ("7S", "TD", "AH"), drawn with CSS.
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const SUIT_SYMBOL = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RANKS = "789TJQKA";
const HAND_ORDER = "SDCH"; // alternating colours, so neighbouring suits are told apart at a glance

export const suitOf = (card) => card[1];
export const rankText = (card) => (card[0] === "T" ? "10" : card[0]);
export const isRed = (suit) => suit === "D" || suit === "H";

/** Suit by suit (♠ ♦ ♣ ♥), high cards first. */
export function sortCards(cards) {
  const key = (c) => HAND_ORDER.indexOf(suitOf(c)) * 10 - RANKS.indexOf(c[0]);
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** "ace of hearts" / "туз червей" */
export function cardName(card) {
  return t("card", { rank: t(`rank.${card[0]}`), suit: t(`suit.of.${suitOf(card)}`) });
}

/** The card's face, drawn by the stylesheet from data-face: the card's name (its aria-label)
 * is all that assistive technology meets, and a button's name holds all of its visible text. */
function face(card) {
  return [
    h("span", { class: "rank", "aria-hidden": "true", dataset: { face: rankText(card) } }),
    h("span", { class: "pip", "aria-hidden": "true", dataset: { face: SUIT_SYMBOL[suitOf(card)] } }),
  ];
}

/**
 * A card. With ``onClick`` it is a button: enabled only when ``legal`` (others stay dimmed and
 * out of the tab order); ``pressed`` marks a card chosen for the discard.
 */
export function cardEl(card, { onClick, legal = false, pressed, size = "", where = "" } = {}) {
  const classes = ["card", `suit-${suitOf(card)}`, isRed(suitOf(card)) && "red", size];
  if (!onClick) {
    return h("span", { class: classes, role: "img", "aria-label": cardName(card), dataset: { card } },
      face(card));
  }
  return h("button", {
    type: "button",
    class: [...classes, legal && "legal", pressed && "pressed"],
    disabled: !legal,
    "aria-label": cardName(card),
    "aria-pressed": pressed === undefined ? null : String(pressed),
    dataset: { card, key: `card:${card}${where}` },
    onclick: () => onClick(card),
  }, face(card));
}

/** ``count`` face-down cards, read out as one number. */
export function backsEl(count, { label, size = "small" } = {}) {
  const shown = Math.min(count, 10);
  return h("span", { class: ["backs", size], role: "img", "aria-label": label ?? t("cards.count", { n: count }) },
    Array.from({ length: shown }, () => h("span", { class: "card back", "aria-hidden": "true" })));
}

/** "6♠", "7 NT" / "7 БК", "Misère" / "Мизер" */
export function bidText(bid) {
  if (bid === "MISER") return t("bid.miser");
  if (bid === "PASS") return t("pass");
  const level = bid.slice(0, -1).replace(/N$/, "");
  const strain = bid.endsWith("NT") ? "NT" : bid.slice(-1);
  return strain === "NT" ? `${level} ${t("nt")}` : `${level}${SUIT_SYMBOL[strain]}`;
}

/** Spoken: "6 spades" / "6 пик". */
export function bidName(bid) {
  if (bid === "MISER" || bid === "PASS") return bidText(bid);
  const strain = bid.endsWith("NT") ? "NT" : bid.slice(-1);
  const level = bid.slice(0, bid.length - strain.length);
  // The name holds the written "NT"/"БК" too: a voice user says what the button shows.
  if (strain === "NT") return `${bidText(bid)} (${t("strain.NT")})`;
  return `${level} ${t(`strain.${strain}`)}`;
}

export function bidEl(bid) {
  const strain = bid.endsWith("NT") ? "NT" : bid.slice(-1);
  return h("span", { class: ["bid", isRed(strain) && "red"], "aria-label": bidName(bid) }, bidText(bid));
}
