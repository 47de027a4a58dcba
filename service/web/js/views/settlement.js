// The settlement (расчёт) at the end of a pulka: each player's result in whists, summing to zero,
// and the arithmetic behind it, one step a line (amnesty, mountains and pools into whists,
// netting, rounding), from the numbers the service settled with.
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
    h("details", { class: "settlement-why", open: true },
      h("summary", {}, t("settlement.how")),
      h("ol", { class: "settlement-steps" }, settlementSteps(settlement, name).map((text, k) =>
        h("li", { dataset: { step: String(k + 1) } }, text)))),
    sheet ? h("p", { class: "muted" }, t("settlement.deals", { n: sheet.deals_scored })) : null);
}

/** The settlement's arithmetic in sentences, players by name. */
export function settlementSteps(st, name) {
  const seats = st.result.map((_, s) => s);
  const list = (values) => seats.map((s) => `${name(s)} ${values[s]}`).join(", ");
  const per = fraction(`${st.whists_per_mountain_point}/${st.players}`);
  const steps = [
    t("settlement.step.mountains", { list: list(st.mountain) }),
    st.mountain_amnesty
      ? t("settlement.step.amnesty", { n: st.mountain_amnesty, list: list(st.mountain_after_amnesty) })
      : t("settlement.step.noamnesty"),
    t("settlement.step.mountain.whists", { k: st.whists_per_mountain_point, per,
      list: seats.filter((s) => st.mountain_after_amnesty[s]).map((s) =>
        `${name(s)} ${st.mountain_after_amnesty[s]} × ${per} = ${fraction(st.mountain_whists[s])}`).join(", ") || "—" }),
    st.pools_cancel ? t("settlement.step.pools.cancel", { list: list(st.pool) })
      : t("settlement.step.pools", { list: list(st.pool), gaps: list(st.pool_after_amnesty),
        weight: st.pool_weight, whists: seats.filter((s) => st.pool_after_amnesty[s]).map((s) =>
          `${name(s)} ${fraction(st.pool_whists[s])}`).join(", ") || "—" }),
  ];
  for (const i of seats) {
    for (const j of seats) {
      if (j <= i) continue;
      const net = st.pairwise[i][j];
      steps.push(t(Number(net.split("/")[0]) === 0 ? "settlement.step.pair.even" : "settlement.step.pair", {
        a: name(i), b: name(j), ab: fraction(st.converted[i][j]), ba: fraction(st.converted[j][i]),
        net: fraction(net), who: name(!net.startsWith("-") ? i : j), n: fraction(net.replace(/^-/, "")),
      }));
    }
  }
  steps.push(t("settlement.step.exact", { list: seats.map((s) => `${name(s)} ${fraction(st.exact[s], true)}`).join(", ") }));
  steps.push(t(st.rounding === "floor" ? "settlement.step.floor" : "settlement.step.round",
    { list: seats.map((s) => `${name(s)} ${signed(st.result[s])}`).join(", ") }));
  return steps;
}

/** "184/3" → "61⅓"-like "61 1/3"; "-566" stays; ``sign`` writes a plus on a gain. */
function fraction(exact, sign = false) {
  const text = String(exact);
  const [num, den] = text.split("/").map(Number);
  let out = text;
  if (den && den !== 1) {
    const whole = Math.trunc(num / den);
    const rest = Math.abs(num % den);
    out = whole ? `${whole} ${rest}/${den}` : `${num < 0 ? "−" : ""}${rest}/${den}`;
  }
  out = out.replace(/^-/, "−");
  return sign && num > 0 ? `+${out}` : out;
}
