// The bidding as a grid: levels down, strains across, then misère and pass, as the declaring grid
// is drawn; only the bids legal_actions lists can be pressed, the rest stay in place, disabled, so
// the ladder reads the same on every turn. Bids in the dark (classic) keep buttons of their own.
import { bidName, bidText, SUIT_SYMBOL } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

const LEVELS = ["6", "7", "8", "9", "10"];
const STRAINS = ["S", "C", "D", "H", "NT"];
const red = (strain) => strain === "D" || strain === "H";

/** Whether the grid draws ``action`` (the rest go to the ordinary buttons). */
export const inBidGrid = (action) => !action.dark && ((action.type === "bid"
  && (action.bid === "MISER" || /^(6|7|8|9|10)(S|C|D|H|NT)$/.test(action.bid))) || action.type === "pass");

/**
 * ``actions``: the legal bids and the pass the grid draws; ``highest``: the bid to hold (the
 * same bid again, for the elder hand); ``act``: send one.
 */
export function bidGrid({ actions, highest, busy, act }) {
  const legal = new Map(actions.filter((a) => a.type === "bid").map((a) => [a.bid, a]));
  const pass = actions.find((a) => a.type === "pass");
  const cell = (bid, text, classes = []) => {
    const action = legal.get(bid);
    const spoken = bidName(bid);
    if (!action) {
      return h("button", { type: "button", class: ["cell", ...classes], disabled: true, "aria-label": spoken }, text);
    }
    const json = JSON.stringify(action);
    const hold = bid === highest;
    return h("button", {
      type: "button", class: ["cell", "action", "action-bid", hold && "hold", ...classes], disabled: busy,
      "aria-label": hold ? `${t("hold")} ${spoken}` : `${t("bid")} ${spoken}`,
      dataset: { action: json, actionType: "bid", key: `act:${json}` },
      onclick: () => act(action),
    }, hold ? `${t("hold")} ${text}` : text);
  };
  const head = (text, strain) => h("span", { class: ["grid-head", red(strain) && "red"], "aria-hidden": "true" }, text);
  return h("div", { class: "declare-grid bid-grid", role: "group", "aria-label": t("bid.grid"), dataset: { roving: "" } },
    h("span", { class: "grid-head" }),
    STRAINS.map((strain) => head(strain === "NT" ? t("nt") : SUIT_SYMBOL[strain], strain)),
    LEVELS.flatMap((level) => [
      head(level),
      STRAINS.map((strain) => cell(`${level}${strain}`, bidText(`${level}${strain}`), [red(strain) && "red"])),
    ]),
    h("span", { class: "grid-head" }),
    cell("MISER", bidText("MISER"), ["wide", "miser"]),
    pass ? h("button", {
      type: "button", class: ["cell", "wide", "action", "action-pass"], disabled: busy,
      dataset: { action: JSON.stringify(pass), actionType: "pass", key: `act:${JSON.stringify(pass)}` },
      onclick: () => act(pass),
    }, t("pass")) : null);
}
