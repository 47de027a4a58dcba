// The settlement (расчёт) at the end of a pulka: each player's result in whists, summing to zero.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { signed } from "./sheet.js";

export function settlementPanel({ view, sheet, names, seat }) {
  const settlement = view.settlement;
  if (!settlement) return null;
  const name = (s) => names[s] ?? t("seat.n", { n: s + 1 });
  const order = settlement.result.map((result, s) => ({ s, result })).sort((a, b) => b.result - a.result);
  const best = order[0]?.result;
  return h("section", { class: "panel settlement", "aria-labelledby": "settlement-title", dataset: { screen: "settlement" } },
    h("h2", { id: "settlement-title" }, t("settlement.title")),
    h("p", {}, t("settlement.intro")),
    h("table", { class: "settlement-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("player")),
        h("th", { scope: "col" }, t("sheet.pool")),
        h("th", { scope: "col" }, t("sheet.mountain")),
        h("th", { scope: "col" }, t("result")))),
      h("tbody", {}, order.map(({ s, result }) => h("tr", {
        class: [result === best && "winner", s === seat && "me"],
        dataset: { seat: String(s), result: String(result) },
      },
      h("th", { scope: "row" }, name(s), s === seat ? ` (${t("you")})` : ""),
      h("td", {}, String(settlement.pool[s])),
      h("td", {}, String(settlement.mountain[s])),
      h("td", { class: ["result", result > 0 && "plus", result < 0 && "minus"] }, signed(result)))))),
    sheet ? h("p", { class: "muted" }, t("settlement.deals", { n: sheet.deals_scored })) : null);
}
